// Package merge combines the results of the loaders of one distributed run
// (each ran `--shard i/N`) into one result: HDR histograms merged (never
// percentiles averaged), interval series and buckets aligned by wall clock,
// totals summed, and each loader's host and health kept in Loaders.
//
// It does not analyse: the caller re-runs analysis on the merged result.
package merge

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// ErrMismatch is wrapped when the parts are not loaders of the same run.
var ErrMismatch = errors.New("results are not parts of one run")

// Merge combines parts into one result. files, if given, names each part's
// source file for the Loaders list.
func Merge(parts []*result.Result, files []string) (*result.Result, error) {
	return MergeTo(parts, files, nil)
}

// MergeTo is Merge; with sw, the merged seconds of the streamed phases go
// to the merged seconds file in the same pass over the loaders' seconds
// files that makes their series (sw.Finish writes it once the merged
// result is whole).
func MergeTo(parts []*result.Result, files []string, sw *result.MergedSeconds) (*result.Result, error) {
	if len(parts) == 0 {
		return nil, errors.New("nothing to merge")
	}
	if err := check(parts); err != nil {
		return nil, err
	}
	first := parts[0]
	out := &result.Result{
		Schema:   result.SchemaVersion,
		Tool:     first.Tool,
		Label:    first.Label,
		Config:   first.Config,
		Platform: first.Platform,
		Target:   first.Target,
		Dataset:  first.Dataset,
	}
	out.Config.Shard = ""
	out.Config.Concurrency, out.Config.RateOpsPerS = 0, 0
	out.Dataset.Records, out.Dataset.LogicalBytes, out.Dataset.DiskBytes = 0, 0, 0
	out.StartedAt, out.EndedAt = first.StartedAt, first.EndedAt
	for i, p := range parts {
		out.Config.Concurrency += p.Config.Concurrency
		out.Config.RateOpsPerS += p.Config.RateOpsPerS
		out.Dataset.Records += p.Dataset.Records
		out.Dataset.LogicalBytes += p.Dataset.LogicalBytes
		if p.Dataset.DiskBytes > out.Dataset.DiskBytes {
			// Loaders share one target: its size is the same figure seen by each.
			out.Dataset.DiskBytes = p.Dataset.DiskBytes
		}
		if p.StartedAt.Before(out.StartedAt) {
			out.StartedAt = p.StartedAt
		}
		if p.EndedAt.After(out.EndedAt) {
			out.EndedAt = p.EndedAt
		}
		l := result.Loader{Shard: p.Config.Shard, Host: p.Platform.Hostname, StartedAt: p.StartedAt, Platform: p.Platform, Notes: p.Notes}
		if i < len(files) {
			l.File = files[i]
		}
		if p.Host != nil && p.Host.Self != nil && p.Host.Self.ClientBound {
			l.Notes = append(l.Notes, "client-bound: "+p.Host.Self.Reason)
		}
		out.Loaders = append(out.Loaders, l)
		out.Events = append(out.Events, p.Events...)
		// Every loader scrapes the same server nodes (--server-metrics): the
		// first loader's series stand for the cluster; adding them would
		// count each node once per loader.
		if out.Nodes == nil && len(p.Nodes) > 0 {
			out.Nodes = p.Nodes
		}
	}
	if err := mergePhases(out, parts, sw); err != nil {
		return nil, err
	}
	out.Verification = verification(parts)
	out.Notes = append(out.Notes, fmt.Sprintf("merged from %d loaders (histograms merged, series aligned by wall clock)", len(parts)))
	spread := startSpread(parts)
	out.LoaderStartSpreadNs = int64(spread)
	if spread > 500*time.Millisecond {
		out.Notes = append(out.Notes, fmt.Sprintf("the loaders' run phases started up to %s apart: a rendezvous (or one start time for all) starts them together", spread.Round(time.Millisecond)))
	} else {
		out.Notes = append(out.Notes, fmt.Sprintf("the loaders' run phases started within %s of each other", spread.Round(time.Microsecond)))
	}
	return out, nil
}

// mergePhases appends to out each phase of the parts, merged (mergePhase),
// with what it lacks in out's notes; with sw, their merged seconds go to
// it as their series are made.
func mergePhases(out *result.Result, parts []*result.Result, sw *result.MergedSeconds) error {
	for _, name := range phaseNames(parts) {
		var ps []*result.Phase
		for _, p := range parts {
			if ph := p.Phase(name); ph != nil {
				ps = append(ps, ph)
			}
		}
		series := result.MergedSeries
		if sw != nil {
			i := len(out.Phases)
			series = func(m *result.Phase) ([]result.Interval, error) { return sw.Series(i, m) }
		}
		m, note, err := mergePhase(ps, series)
		if err != nil {
			return fmt.Errorf("phase %s: %w", name, err)
		}
		if note != "" {
			out.Notes = append(out.Notes, note)
		}
		out.Phases = append(out.Phases, *m)
	}
	return nil
}

// check refuses parts that did not run the same workload against the same target.
func check(parts []*result.Result) error {
	a := parts[0]
	seen := map[string]int{}
	for i, p := range parts {
		if p.Config.Workload.Name != a.Config.Workload.Name || p.Config.Workload.Mix.String() != a.Config.Workload.Mix.String() {
			return fmt.Errorf("%w: part %d ran workload %s (%s), part 1 ran %s (%s)", ErrMismatch, i+1, p.Config.Workload.Name, p.Config.Workload.Mix, a.Config.Workload.Name, a.Config.Workload.Mix)
		}
		if p.Target.Kind != a.Target.Kind {
			return fmt.Errorf("%w: part %d drove target %s, part 1 drove %s", ErrMismatch, i+1, p.Target.Kind, a.Target.Kind)
		}
		if p.Config.Shard != "" {
			if j, dup := seen[p.Config.Shard]; dup {
				return fmt.Errorf("%w: parts %d and %d are both shard %s (the same file twice?)", ErrMismatch, j+1, i+1, p.Config.Shard)
			}
			seen[p.Config.Shard] = i
		}
	}
	return nil
}

func phaseNames(parts []*result.Result) []string {
	var names []string
	has := map[string]bool{}
	for _, p := range parts {
		for _, ph := range p.Phases {
			if !has[ph.Name] {
				has[ph.Name] = true
				names = append(names, ph.Name)
			}
		}
	}
	return names
}

func startSpread(parts []*result.Result) time.Duration {
	var lo, hi time.Time
	for _, p := range parts {
		mp := p.MainPhase()
		if mp == nil {
			continue
		}
		if lo.IsZero() || mp.StartedAt.Before(lo) {
			lo = mp.StartedAt
		}
		if mp.StartedAt.After(hi) {
			hi = mp.StartedAt
		}
	}
	return hi.Sub(lo)
}

// opAcc accumulates one op type across parts (or across parts' intervals).
type opAcc struct {
	count, bytes uint64
	errs         map[string]uint64
	lat, svc     *hdr.Histogram
	lag          *hdr.Histogram // open loop: schedule lag
	attr         *hdr.Histogram // open loop: server-attributable latency
}

// add counts one part's op (or one part's interval op): lat and svc are its
// histograms from result.Phase.MergedHist (new, so they may be kept).
func (a *opAcc) add(count, bytes uint64, errs map[string]uint64, lat, svc *hdr.Histogram) error {
	a.count += count
	a.bytes += bytes
	for c, n := range errs {
		if a.errs == nil {
			a.errs = map[string]uint64{}
		}
		a.errs[c] += n
	}
	if err := mergeInto(&a.lat, lat); err != nil {
		return err
	}
	return mergeInto(&a.svc, svc)
}

// mergeInto adds h to *dst (result.MergeHist); an empty h adds nothing, so
// an op no part timed keeps no histogram.
func mergeInto(dst **hdr.Histogram, h *hdr.Histogram) error {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return result.MergeHist(dst, h)
}

// mergePhase merges one phase of every part; note says what the merged
// phase lacks, if anything (its series' latency, when the parts' seconds
// files could not be read). series makes the stored series of a streamed
// phase from its loaders' seconds (result.MergedSeries).
func mergePhase(ps []*result.Phase, series func(*result.Phase) ([]result.Interval, error)) (*result.Phase, string, error) {
	t0 := ps[0].StartedAt
	var end time.Time
	for _, p := range ps {
		if p.StartedAt.Before(t0) {
			t0 = p.StartedAt
		}
	}
	m := &result.Phase{Name: ps[0].Name, Mode: ps[0].Mode, StartedAt: t0}
	acc := &phaseAcc{totals: map[string]*opAcc{}, ivs: map[int64]map[string]*opAcc{}, ivDur: map[int64]int64{}, intended: map[int64]float64{}}
	totals := acc.totals
	width := ps[0].Buckets.WidthNs
	m.Buckets = result.Buckets{WidthNs: width, Counts: map[string][]uint32{}}
	for _, p := range ps {
		if p.Mode != m.Mode {
			return nil, "", fmt.Errorf("%w: one loader ran %s loop, another %s loop", ErrMismatch, p.Mode, m.Mode)
		}
		if p.Buckets.WidthNs != width {
			return nil, "", fmt.Errorf("%w: bucket widths differ (%d ns vs %d ns)", ErrMismatch, p.Buckets.WidthNs, width)
		}
		m.Concurrency += p.Concurrency
		m.RateOpsPerS += p.RateOpsPerS
		m.Delayed += p.Delayed
		m.LateClient += p.LateClient
		m.DelayedWaitNs += p.DelayedWaitNs
		m.DelayedWaitMaxNs = max(m.DelayedWaitMaxNs, p.DelayedWaitMaxNs)
		m.Streams, m.Arrival = p.Streams, p.Arrival // every loader takes a share of the same streams
		m.DelayThresholdNs, m.PaceTickNs = p.DelayThresholdNs, p.PaceTickNs
		m.Interrupted = m.Interrupted || p.Interrupted
		if e := p.StartedAt.Add(time.Duration(p.DurationNs)); e.After(end) {
			end = e
		}
		off := p.StartedAt.Sub(t0).Nanoseconds()
		if allSeconds(ps) {
			m.UseSecondsOf(p, off)
		}
		if err := acc.add(p, off); err != nil {
			return nil, "", err
		}
		if width > 0 {
			addBuckets(&m.Buckets, p, off)
		}
	}
	m.DurationNs = end.Sub(t0).Nanoseconds()
	m.Buckets.Pad(len(m.Buckets.Outstanding))
	order := acc.order
	slices.SortStableFunc(order, vocab.CompareOpNames)
	for _, op := range order {
		a := totals[op]
		t := result.OpTotal{Op: op, Count: a.count, Bytes: a.bytes, Errors: a.errs}
		t.Latency, t.Hist = result.Summarize(a.lat), result.EncodeHist(a.lat)
		t.Service, t.ServiceHist = result.Summarize(a.svc), result.EncodeHist(a.svc)
		if a.lag != nil && a.lag.TotalCount() > 0 {
			lag := result.Summarize(a.lag)
			t.Lag, t.LagHist = &lag, result.EncodeHist(a.lag)
		}
		if a.attr != nil && a.attr.TotalCount() > 0 {
			attr := result.Summarize(a.attr)
			t.Attributable, t.AttributableHist = &attr, result.EncodeHist(a.attr)
		}
		m.Ops = append(m.Ops, t)
	}
	if streamedSeconds(ps) {
		ivs, err := acc.streamedSeries(m, series)
		if err == nil {
			m.Intervals = ivs
			return m, "", nil
		}
		// The parts' counts still merge; only the latency over time is
		// lost, and said.
		m.Intervals = acc.series(order)
		return m, fmt.Sprintf("phase %s: the merged series has counts but no latency (the loaders' seconds files could not be read: %v)", m.Name, err), nil
	}
	m.Intervals = acc.series(order)
	return m, "", nil
}

// streamedSeries is the series of m, merged from streamed parts: their
// stored intervals carry no histograms, so it is made from their seconds,
// merged (merged: result.MergedSeries), with a latency summary in every
// stored interval. The seconds carry no intended rate (the runner sets it
// on the stored intervals when the phase ends): each merged interval takes
// the loaders' intended rates of the stored intervals that start in it.
func (acc *phaseAcc) streamedSeries(m *result.Phase, merged func(*result.Phase) ([]result.Interval, error)) ([]result.Interval, error) {
	series, err := merged(m)
	if err != nil {
		return nil, err
	}
	slots := sortedSlots(acc.intended)
	k := 0
	for i := range series {
		iv := &series[i]
		slices.SortStableFunc(iv.Ops, func(a, b result.IntervalOp) int { return vocab.CompareOpNames(a.Op, b.Op) })
		for ; k < len(slots) && slots[k]*1e9 < iv.StartNs+iv.DurationNs; k++ {
			if slots[k]*1e9 >= iv.StartNs {
				iv.IntendedOpsPerS += acc.intended[slots[k]]
			}
		}
	}
	return series, nil
}

// series is the merged 1 s series of parts whose intervals carry their
// histograms, ops in order.
func (acc *phaseAcc) series(order []string) []result.Interval {
	var out []result.Interval
	for _, s := range sortedSlots(acc.ivs) {
		iv := result.Interval{StartNs: s * 1e9, DurationNs: acc.ivDur[s], IntendedOpsPerS: acc.intended[s]}
		for _, op := range order {
			a := acc.ivs[s][op]
			if a == nil {
				continue
			}
			iv.Ops = append(iv.Ops, result.IntervalOp{Op: op, Count: a.count, Bytes: a.bytes, Errors: a.errs, Latency: result.Summarize(a.lat), Hist: result.EncodeHist(a.lat)})
		}
		out = append(out, iv)
	}
	return out
}

// phaseAcc accumulates the ops of a phase's parts: totals per op, and per
// op in each merged 1 s slot.
type phaseAcc struct {
	totals map[string]*opAcc
	order  []string
	ivs    map[int64]map[string]*opAcc
	ivDur  map[int64]int64
	// intended is the loaders' intended rates summed per merged slot.
	intended map[int64]float64
}

// add counts part p, whose phase started off ns after the earliest part's.
func (acc *phaseAcc) add(p *result.Phase, off int64) error {
	totals, ivs, ivDur := acc.totals, acc.ivs, acc.ivDur
	n := len(p.Intervals)
	for _, o := range p.Ops {
		a := totals[o.Op]
		if a == nil {
			a = &opAcc{}
			totals[o.Op] = a
			acc.order = append(acc.order, o.Op)
		}
		lat, err := p.MergedHist(0, n, result.HistLatency, o.Op)
		if err != nil {
			return err
		}
		svc, err := p.MergedHist(0, n, result.HistService, o.Op)
		if err != nil {
			return err
		}
		if err := a.add(o.Count, o.Bytes, o.Errors, lat, svc); err != nil {
			return err
		}
		lag, err := p.MergedHist(0, n, result.HistLag, o.Op)
		if err != nil {
			return err
		}
		if err := mergeInto(&a.lag, lag); err != nil {
			return err
		}
		attr, err := p.MergedHist(0, n, result.HistAttributable, o.Op)
		if err != nil {
			return err
		}
		if err := mergeInto(&a.attr, attr); err != nil {
			return err
		}
	}
	// A streamed part keeps its seconds' histograms in its seconds file:
	// its intervals add their counts, and the merged phase reads the
	// parts' seconds files for a window's latency (result.Phase.UseSeconds).
	hists := p.HasIntervalHists()
	for j, iv := range p.Intervals {
		// Interval k of a loader lands in the merged second its start falls in.
		slot := int64(math.Round(float64(off+iv.StartNs) / 1e9))
		if ivs[slot] == nil {
			ivs[slot] = map[string]*opAcc{}
		}
		if iv.DurationNs > ivDur[slot] {
			ivDur[slot] = iv.DurationNs
		}
		acc.intended[slot] += iv.IntendedOpsPerS
		for _, o := range iv.Ops {
			a := ivs[slot][o.Op]
			if a == nil {
				a = &opAcc{}
				ivs[slot][o.Op] = a
			}
			var lat *hdr.Histogram
			if hists {
				var err error
				if lat, err = p.MergedHist(j, j+1, result.HistLatency, o.Op); err != nil {
					return err
				}
			}
			if err := a.add(o.Count, o.Bytes, o.Errors, lat, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// addBuckets adds part p's fine buckets to m, shifted by its phase's start
// offset off (ns); m.WidthNs is above 0.
func addBuckets(m *result.Buckets, p *result.Phase, off int64) {
	shift := int(math.Round(float64(off) / float64(m.WidthNs)))
	for op, cs := range p.Buckets.Counts {
		dst := result.Grow(m.Counts[op], shift+len(cs))
		for i, c := range cs {
			dst[shift+i] += c
		}
		m.Counts[op] = dst
	}
	for op, bs := range p.Buckets.Bytes {
		if m.Bytes == nil {
			m.Bytes = map[string][]uint64{}
		}
		dst := result.Grow(m.Bytes[op], shift+len(bs))
		for i, b := range bs {
			dst[shift+i] += b
		}
		m.Bytes[op] = dst
	}
	if len(p.Buckets.All) > 0 {
		m.All = addShifted(m.All, p.Buckets.All, shift)
	}
	if len(p.Buckets.AllBytes) > 0 {
		m.AllBytes = addShifted(m.AllBytes, p.Buckets.AllBytes, shift)
	}
	for i, o := range p.Buckets.Outstanding {
		for len(m.Outstanding) <= shift+i {
			m.Outstanding = append(m.Outstanding, false)
		}
		m.Outstanding[shift+i] = m.Outstanding[shift+i] || o
	}
}

// addShifted adds src to dst from index shift on, growing dst.
func addShifted[T uint32 | uint64](dst, src []T, shift int) []T {
	dst = result.Grow(dst, shift+len(src))
	for i, v := range src {
		dst[shift+i] += v
	}
	return dst
}

// sortedSlots is the keys of m in order.
func sortedSlots[V any](m map[int64]V) []int64 {
	return slices.Sorted(maps.Keys(m))
}

// streamedSeconds says whether every part is streamed (its stored
// intervals without histograms) and has its seconds file at hand.
func streamedSeconds(ps []*result.Phase) bool {
	for _, p := range ps {
		if !p.HasSeconds() || p.HasIntervalHists() {
			return false
		}
	}
	return true
}

// allSeconds says whether every part keeps its seconds in a seconds file
// at hand: only then does a window of the merged phase read them (one
// loader's seconds would stand for all). Without them a window's latency
// is the whole phase's (analysis.WindowLatency).
func allSeconds(ps []*result.Phase) bool {
	for _, p := range ps {
		if !p.HasSeconds() && !p.HasIntervalHists() {
			return false
		}
	}
	return true
}
