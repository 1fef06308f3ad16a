// Package analysis computes every derived figure of platbench, once: from a
// result file what the seed reports worked out by hand: where the steady
// state begins (MSER-5), peak and sustained throughput overall and per op
// type, the stability table of the 1 s throughput, stalls and periodic
// regulation in the fine buckets, whether the dataset fits in the page cache,
// and cost per operation from the instance catalog (Analyze); the figures
// every report shows (FiguresOf); comparisons of runs with their verdicts and
// noise test (Compare); the cost of fault events (EventImpacts); latency over
// a window (WindowLatency, SteadyLatency); pass/fail thresholds
// (ParseThreshold, Thresholds) and failed runs (HealthOf); regressions beyond
// noise (Comparison.Regressions). Plan turns several results into a
// capacity plan.
//
// Everything is a pure function of the file's data and the options, so an
// old result gains new analysis when a newer platbench reads it. The package
// returns numbers and verdicts: it formats nothing (package report writes
// every sentence and table) and measures nothing. Its remaining prose is the
// reason sentences stored in result files (SteadyState.Reason,
// Regulation.Reason, event verdicts, notes).
package analysis

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Options are the choices a user can make about the analysis.
type Options struct {
	// Warmup is "auto" (detect with MSER-5; the default when empty), a
	// duration to trim from the start of the main phase ("75s"), or "0".
	Warmup string
	// Platform is the instance type of the servers, looked up in the catalog
	// for cost figures. Default: the result's platform fingerprint, when the
	// target ran on the same host.
	Platform string
	// Nodes is the number of server nodes the price is multiplied by.
	// Default: the nodes the target reported, else 1.
	Nodes int
	// PricePerHour is one node's price in US dollars per hour; it overrides
	// the catalog's. Default 0: use the catalog.
	PricePerHour float64
	// CatalogFile is a CSV file overriding or extending the embedded catalog.
	CatalogFile string
	// Catalog, when set, is used instead of loading CatalogFile (tests, and
	// commands that analyse many files).
	Catalog *catalog.Catalog
	// Bill holds the costs beyond the server instances (docs/cost.md).
	Bill
}

// Bill is what a cost figure prices beyond the server instances; each part
// left at its zero value is named as not priced.
type Bill struct {
	// Storage is each server node's block volume. Default: none.
	Storage catalog.StorageSpec
	// Zones is how many zones the server nodes span, for cross-zone traffic.
	// Default 0: not priced; 1 prices it at zero.
	Zones int
	// RF is the replication factor the traffic estimate uses. Default: 3, or
	// the nodes when fewer.
	RF int
	// LoaderInstance is the load generators' instance type. Default "": not
	// priced. Their count is the loaders of a merged result, else 1.
	LoaderInstance string
}

// validate adds b's problems to probs.
func (b *Bill) validate(probs *usererr.List) {
	if b.Zones < 0 {
		probs.Add("zones", "%d is negative (fix: the zones the server nodes span, e.g. 3)", b.Zones)
	}
	if b.RF < 0 {
		probs.Add("rf", "%d is negative (fix: the replication factor, e.g. 3)", b.RF)
	}
}

// Validate reports every problem with o at once. Problems name the Options
// field in snake case (warmup, nodes, price_per_hour): the command line maps
// them to its flags.
func (o *Options) Validate() error {
	var probs usererr.List
	if _, _, err := parseWarmup(o.Warmup); err != nil {
		probs = append(probs, err)
	}
	if o.Nodes < 0 {
		probs.Add("nodes", "%d is negative (fix: the number of server nodes, e.g. 3)", o.Nodes)
	}
	if o.PricePerHour < 0 || math.IsNaN(o.PricePerHour) || math.IsInf(o.PricePerHour, 0) {
		probs.Add("price_per_hour", "%v is not a price (fix: one node's on-demand US dollars per hour, e.g. 1.248)", o.PricePerHour)
	}
	o.Bill.validate(&probs)
	return probs.Err()
}

// parseWarmup returns (auto, forced duration, error): "auto" or "", "0"
// (also "none", "off"), or a duration in the units grammar ("75s", "2m",
// "90" seconds).
func parseWarmup(s string) (bool, time.Duration, *usererr.Error) {
	switch strings.TrimSpace(strings.ToLower(s)) {
	case "", "auto":
		return true, 0, nil
	case "0", "none", "off":
		return false, 0, nil
	}
	d, err := units.ParseDuration(s)
	if err != nil || d < 0 {
		return false, 0, usererr.Field("warmup", "%q is not auto, 0 or a duration (fix: auto, a duration like 75s, or 0)", s)
	}
	return false, d, nil
}

func (o *Options) catalog() (*catalog.Catalog, error) {
	if o.Catalog != nil {
		return o.Catalog, nil
	}
	return catalog.Load(o.CatalogFile)
}

// Analyze computes the analysis of r's main phase.
func Analyze(r *result.Result, o Options) (*result.Analysis, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	p := r.MainPhase()
	if p == nil {
		return nil, fmt.Errorf("%w: no phase to analyse", result.ErrMalformed)
	}
	a := &result.Analysis{Phase: p.Name}
	ss, err := SteadyStateOf(p, o.Warmup)
	if err != nil {
		return nil, err
	}
	a.SteadyState = ss.SteadyState
	a.Raw = window(p, 0, len(p.Intervals))
	a.Steady = window(p, ss.First, len(p.Intervals))
	if a.Steady.SustainedOpsPerS == 0 && a.Raw.SustainedOpsPerS > 0 {
		// A window in which the target served nothing is an outage, not a
		// steady state (seed 002: MSER took 50 s of zero throughput after
		// the members failed as the steady state): the whole phase is used.
		a.SteadyState.Reason = fmt.Sprintf("the detected steady window (from %s) completed no operation: the target stopped serving, so there is no steady state and the whole phase is used (%s)",
			time.Duration(ss.SteadyState.WarmupNs), ss.SteadyState.Reason)
		a.SteadyState.Method, a.SteadyState.WarmupNs, a.SteadyState.WarmupIntervals = "none", 0, 0
		a.Steady = a.Raw
	}
	if len(p.Intervals) == 0 {
		a.Notes = append(a.Notes, "the phase has no 1 s intervals: throughput is its totals over its duration; no peak or stability")
	}
	a.Stalls = Stalls(p)
	if len(p.Buckets.Outstanding) == 0 && p.Mode == "closed" && a.Stalls.Buckets > 0 {
		a.Notes = append(a.Notes, "the file does not say when requests were outstanding; in a closed loop they always are, so every empty bucket counts as a stall")
	}
	a.PageCache = pageCache(r, p)
	a.Bottleneck = BottleneckOf(r)
	cost, note, err := costOf(r, a.Steady, o)
	if err != nil {
		return nil, err
	}
	a.Cost = cost
	if note != "" {
		a.Notes = append(a.Notes, note)
	}
	return a, nil
}

// intervalRate is one interval's throughput.
type intervalRate struct {
	ops, errs, bytes uint64
	durNs            int64
	full             bool
}

// nominalNs is the interval length the recorder used: the longest interval.
func nominalNs(p *result.Phase) int64 {
	var m int64
	for _, iv := range p.Intervals {
		if iv.DurationNs > m {
			m = iv.DurationNs
		}
	}
	if m == 0 {
		return int64(time.Second)
	}
	return m
}

// durOf is an interval's duration; 0 (not recorded) means the nominal 1 s.
func durOf(iv *result.Interval) int64 {
	if iv.DurationNs > 0 {
		return iv.DurationNs
	}
	return int64(time.Second)
}

// ThroughputSeries is the completed ops/s of each interval of p (of op, or
// of every op when op is "") and whether the interval is full.
//
// An interval is full when it lasted at least 90% of the nominal interval
// (the longest one, normally 1 s). This is the one rule for "a per-second
// value": only full intervals count in the peak, the stability table, the
// warm-up detection, the noise test of compare and the per-second charts. A
// partial interval (the last one, usually) counts in totals only: a handful
// of operations over a fraction of a second would read as a false dip or
// spike. The rule is relative so that a recorder interval other than 1 s
// works alike.
func ThroughputSeries(p *result.Phase, op string) (opsPerS []float64, full []bool) {
	rs := rates(p, op)
	opsPerS, full = make([]float64, len(rs)), make([]bool, len(rs))
	for i, ir := range rs {
		opsPerS[i], full[i] = ir.opsPerS(), ir.full
	}
	return opsPerS, full
}

// rates returns each interval's totals, for one op ("" = all ops).
func rates(p *result.Phase, op string) []intervalRate {
	nom := nominalNs(p)
	out := make([]intervalRate, len(p.Intervals))
	for i := range p.Intervals {
		iv := &p.Intervals[i]
		ir := intervalRate{durNs: durOf(iv)}
		ir.full = ir.durNs*10 >= nom*9 // see ThroughputSeries
		for _, o := range iv.Ops {
			if op != "" && o.Op != op {
				continue
			}
			ir.ops += o.Count
			ir.bytes += o.Bytes
			for _, n := range o.Errors {
				ir.errs += n
			}
		}
		out[i] = ir
	}
	return out
}

func (ir intervalRate) opsPerS() float64   { return float64(ir.ops) / (float64(ir.durNs) / 1e9) }
func (ir intervalRate) bytesPerS() float64 { return float64(ir.bytes) / (float64(ir.durNs) / 1e9) }

// window computes the throughput of intervals [from, to) of p.
func window(p *result.Phase, from, to int) result.Window {
	if len(p.Intervals) == 0 {
		return totalsWindow(p)
	}
	w := result.Window{}
	if from < len(p.Intervals) {
		w.StartNs = p.Intervals[from].StartNs
	}
	rs := rates(p, "")
	fillWindow(&w, p, rs, from, to)
	for _, t := range p.Ops {
		ow := result.Window{}
		fillWindow(&ow, p, rates(p, t.Op), from, to)
		w.PerOp = append(w.PerOp, result.OpWindow{
			Op: t.Op, Ops: ow.Ops, Errors: ow.Errors, Bytes: ow.Bytes,
			PeakOpsPerS: ow.PeakOpsPerS, SustainedOpsPerS: ow.SustainedOpsPerS,
			PeakBytesPerS: ow.PeakBytesPerS, SustainedBytesPerS: ow.SustainedBytesPerS,
		})
	}
	return w
}

func fillWindow(w *result.Window, p *result.Phase, rs []intervalRate, from, to int) {
	var opsSeries, bytesSeries []float64
	w.PeakOpsPerS = 0
	for i := from; i < to && i < len(rs); i++ {
		ir := rs[i]
		w.Intervals++
		w.Ops += ir.ops
		w.Errors += ir.errs
		w.Bytes += ir.bytes
		w.LengthNs += ir.durNs
		if !ir.full {
			continue
		}
		r := ir.opsPerS()
		opsSeries = append(opsSeries, r)
		bytesSeries = append(bytesSeries, ir.bytesPerS())
		if r > w.PeakOpsPerS {
			w.PeakOpsPerS = r
			w.PeakAtNs = p.Intervals[i].StartNs
		}
		if b := ir.bytesPerS(); b > w.PeakBytesPerS {
			w.PeakBytesPerS = b
		}
	}
	if w.LengthNs > 0 {
		sec := float64(w.LengthNs) / 1e9
		w.SustainedOpsPerS = float64(w.Ops) / sec
		w.SustainedBytesPerS = float64(w.Bytes) / sec
	}
	w.Stability = stability(opsSeries)
	if w.Bytes > 0 {
		b := stability(bytesSeries)
		w.Stability.Bytes = &result.ByteStability{MinBytesPerS: b.MinOpsPerS, MaxBytesPerS: b.MaxOpsPerS,
			MeanBytesPerS: b.MeanOpsPerS, StdDevBytesPerS: b.StdDevOpsPerS, CVPercent: b.CVPercent}
	}
}

// totalsWindow is the window of a phase recorded without intervals.
func totalsWindow(p *result.Phase) result.Window {
	w := result.Window{LengthNs: p.DurationNs}
	for _, t := range p.Ops {
		ow := result.OpWindow{Op: t.Op, Ops: t.Count, Bytes: t.Bytes}
		for _, n := range t.Errors {
			ow.Errors += n
		}
		if p.DurationNs > 0 {
			sec := float64(p.DurationNs) / 1e9
			ow.SustainedOpsPerS = float64(t.Count) / sec
			ow.SustainedBytesPerS = float64(t.Bytes) / sec
		}
		w.Ops += ow.Ops
		w.Errors += ow.Errors
		w.Bytes += ow.Bytes
		w.PerOp = append(w.PerOp, ow)
	}
	if p.DurationNs > 0 {
		sec := float64(p.DurationNs) / 1e9
		w.SustainedOpsPerS = float64(w.Ops) / sec
		w.SustainedBytesPerS = float64(w.Bytes) / sec
	}
	return w
}

// stability is min, max, mean, sample standard deviation and CV of xs.
func stability(xs []float64) result.Stability {
	s := result.Stability{Intervals: len(xs)}
	if len(xs) == 0 {
		return s
	}
	s.MinOpsPerS, s.MaxOpsPerS = xs[0], xs[0]
	var sum float64
	for _, x := range xs {
		sum += x
		s.MinOpsPerS = math.Min(s.MinOpsPerS, x)
		s.MaxOpsPerS = math.Max(s.MaxOpsPerS, x)
	}
	s.MeanOpsPerS = sum / float64(len(xs))
	if len(xs) > 1 {
		var ss float64
		for _, x := range xs {
			d := x - s.MeanOpsPerS
			ss += d * d
		}
		s.StdDevOpsPerS = math.Sqrt(ss / float64(len(xs)-1))
	}
	if s.MeanOpsPerS > 0 {
		s.CVPercent = s.StdDevOpsPerS / s.MeanOpsPerS * 100
	}
	return s
}

// isLocal reports whether the target ran on the host platbench ran on.
func isLocal(r *result.Result) bool {
	if r.Target.Kind == "embedded" || r.Target.Kind == "null" || r.Target.Kind == "fake" || r.Target.Kind == "disk" {
		return true
	}
	raw := r.Target.URL
	if raw == "" {
		raw = r.Config.Target
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	// u.Host may list several hosts ("h1,h2:9042"): every one must be loopback.
	for _, part := range strings.Split(u.Host, ",") {
		if i := strings.LastIndex(part, ":"); i > 0 && !strings.Contains(part[i:], "]") {
			part = part[:i]
		}
		h := strings.Trim(part, "[]")
		if h != "localhost" && !strings.HasPrefix(h, "127.") && h != "::1" {
			return false
		}
	}
	return true
}
