package result

import (
	"fmt"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// HistKind picks which of an op's histograms MergedHist merges.
type HistKind uint8

const (
	// HistLatency is latency: from the intended start in open loop, from the
	// send in closed loop (OpTotal.Hist, IntervalOp.Hist).
	HistLatency HistKind = iota
	// HistService is service time: from the actual send to completion
	// (OpTotal.ServiceHist). Intervals keep no service-time histogram, so a
	// window shorter than the whole phase has none.
	HistService
	// HistLag is the open loop's schedule lag: from the intended start to
	// the actual send (OpTotal.LagHist); phase totals only, as service time.
	HistLag
	// HistAttributable is the open loop's server-attributable latency
	// (OpTotal.AttributableHist); phase totals only, as service time.
	HistAttributable
)

func (k HistKind) String() string {
	switch k {
	case HistService:
		return "service time"
	case HistLag:
		return "schedule lag"
	case HistAttributable:
		return "server-attributable latency"
	}
	return "latency"
}

// MergedHist merges the kind histograms of the 1 s intervals [from, to) of p,
// for the op types named in ops (every op type when none is named). It is the
// one way to get a percentile over a window: percentiles are never averaged,
// histograms are merged.
//
// A window that covers the whole phase (from <= 0 and to >= len(p.Intervals),
// which includes a phase with no intervals) merges the phase totals
// (OpTotal.Hist or ServiceHist) instead, when they carry histograms: they
// hold the same operations, decoded once per op rather than once per op and
// second, and they are the only source of service time.
//
// An op without a histogram contributes nothing (files written without
// interval histograms, ops that never completed), so the result may be empty
// (TotalCount 0); callers that want the phase totals in that case ask for the
// whole phase (analysis.WindowLatency does). A histogram that does not decode
// is an error wrapping ErrMalformed naming the op and the interval; nothing is
// skipped silently. The returned histogram is new and the caller's to keep.
func (p *Phase) MergedHist(from, to int, kind HistKind, ops ...string) (*hdr.Histogram, error) {
	var h *hdr.Histogram
	if from <= 0 && to >= len(p.Intervals) && p.totalsHave(kind, ops) {
		for i := range p.Ops {
			t := &p.Ops[i]
			if err := mergeEncoded(&h, t.hist(kind), t.Op, ops); err != nil {
				return nil, fmt.Errorf("phase %s, op %s totals: %w", p.Name, t.Op, err)
			}
		}
	} else if kind == HistLatency && p.HasSeconds() && !p.HasIntervalHists() {
		// A streamed phase: its seconds are in the seconds file.
		return p.windowFromSeconds(from, to, ops)
	} else if kind == HistLatency {
		for j := max(from, 0); j < to && j < len(p.Intervals); j++ {
			for _, o := range p.Intervals[j].Ops {
				if err := mergeEncoded(&h, o.Hist, o.Op, ops); err != nil {
					return nil, fmt.Errorf("phase %s, op %s, interval %d: %w", p.Name, o.Op, j, err)
				}
			}
		}
	}
	if h == nil {
		h = NewHist()
	}
	return h, nil
}

// HasIntervalHists reports whether any interval of p carries a histogram:
// files written with interval histograms off have only the totals'.
func (p *Phase) HasIntervalHists() bool {
	for _, iv := range p.Intervals {
		for _, o := range iv.Ops {
			if o.Hist != "" {
				return true
			}
		}
	}
	return false
}

// totalsHave reports whether a selected op's totals carry a kind histogram.
func (p *Phase) totalsHave(kind HistKind, ops []string) bool {
	for i := range p.Ops {
		if p.Ops[i].hist(kind) != "" && (len(ops) == 0 || slices.Contains(ops, p.Ops[i].Op)) {
			return true
		}
	}
	return false
}

func (t *OpTotal) hist(kind HistKind) string {
	switch kind {
	case HistService:
		return t.ServiceHist
	case HistLag:
		return t.LagHist
	case HistAttributable:
		return t.AttributableHist
	}
	return t.Hist
}

// mergeEncoded adds the encoded histogram enc of op to *h when op is
// selected. The first one decoded becomes *h: a histogram of result's range
// is a quarter of a megabyte, and most calls select a single one.
func mergeEncoded(h **hdr.Histogram, enc, op string, ops []string) error {
	if enc == "" || !(len(ops) == 0 || slices.Contains(ops, op)) {
		return nil
	}
	oh, err := DecodeHist(enc)
	if err != nil {
		return err
	}
	return MergeHist(h, oh)
}

// MergeHist adds h to *dst (h itself becomes *dst when *dst is nil, so h
// must be the caller's to give): the one histogram merge, of the intervals
// of a phase (MergedHist) and of the loaders of a distributed run (package
// merge). A value outside the histogram's range is an error wrapping
// ErrMalformed.
func MergeHist(dst **hdr.Histogram, h *hdr.Histogram) error {
	switch {
	case h == nil:
	case *dst == nil:
		*dst = h
	default:
		if dropped := (*dst).Merge(h); dropped > 0 {
			return fmt.Errorf("%w: %d values outside the histogram range", ErrMalformed, dropped)
		}
	}
	return nil
}
