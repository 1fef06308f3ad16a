package analysis

import (
	"slices"

	"github.com/platbench/platbench/result"
)

// WindowLatency summarises the latency (or service time, by kind) of the
// intervals [from, to) of p for the op types named in ops (every op type
// when none is named), from the merged histograms (result.Phase.MergedHist).
//
// What the file cannot give is filled from what it has, the same way for
// every caller:
//   - intervals without histograms (a file written with interval histograms
//     off, or service time, which intervals never carry): the phase totals'
//     histograms, i.e. the whole phase rather than the window;
//   - no histogram at all (a hand-made file with summaries only): the ops'
//     precomputed total summaries: the op's own for one op, else each
//     figure's worst across the ops (an upper bound: summaries cannot merge).
//
// A histogram that does not decode is an error (result.ErrMalformed).
func WindowLatency(p *result.Phase, from, to int, kind result.HistKind, ops ...string) (result.Summary, error) {
	h, err := p.MergedHist(from, to, kind, ops...)
	if err != nil {
		return result.Summary{}, err
	}
	whole := from <= 0 && to >= len(p.Intervals)
	if h.TotalCount() == 0 && !whole && (kind != result.HistLatency || !p.HasIntervalHists()) {
		if h, err = p.MergedHist(0, len(p.Intervals), kind, ops...); err != nil {
			return result.Summary{}, err
		}
	}
	if h.TotalCount() > 0 {
		return result.Summarize(h), nil
	}
	return worstSummary(p, kind, ops), nil
}

// SteadyLatency is the latency (from the intended start) of p's ops over its
// steady window: the intervals from first on, where first is the analysis'
// Steady.First or, from a stored analysis, SteadyState.WarmupIntervals. It is
// the steady-state p99 (and every other percentile) that plan, sweep and
// suite rank phases by; see WindowLatency for what stands in when the file
// lacks interval histograms.
func SteadyLatency(p *result.Phase, first int, ops ...string) (result.Summary, error) {
	return WindowLatency(p, first, len(p.Intervals), result.HistLatency, ops...)
}

// worstSummary is each figure's largest value across the selected ops'
// precomputed summaries (Min the smallest), counts summed.
func worstSummary(p *result.Phase, kind result.HistKind, ops []string) result.Summary {
	var w result.Summary
	n := 0
	for i := range p.Ops {
		t := &p.Ops[i]
		if len(ops) > 0 && !slices.Contains(ops, t.Op) {
			continue
		}
		s := t.Latency
		switch kind {
		case result.HistService:
			s = t.Service
		case result.HistLag:
			s = result.Summary{}
			if t.Lag != nil {
				s = *t.Lag
			}
		case result.HistAttributable:
			s = result.Summary{}
			if t.Attributable != nil {
				s = *t.Attributable
			}
		}
		if s.Count == 0 {
			continue
		}
		if n == 0 {
			w = s
			n++
			continue
		}
		n++
		w.Count += s.Count
		w.MinNs = min(w.MinNs, s.MinNs)
		w.MeanNs, w.StdDevNs = max(w.MeanNs, s.MeanNs), max(w.StdDevNs, s.StdDevNs)
		w.P50Ns, w.P90Ns, w.P95Ns = max(w.P50Ns, s.P50Ns), max(w.P90Ns, s.P90Ns), max(w.P95Ns, s.P95Ns)
		w.P99Ns, w.P999Ns, w.MaxNs = max(w.P99Ns, s.P99Ns), max(w.P999Ns, s.P999Ns), max(w.MaxNs, s.MaxNs)
	}
	return w
}
