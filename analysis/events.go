package analysis

import (
	"fmt"
	"math"
	"time"

	"github.com/platbench/platbench/result"
)

// Event cost: how a fault event (a killed member, a paused process, a
// command) showed in the phase it ran in. Every figure comes from the 1 s
// intervals and fine buckets of the file; nothing is sampled separately.
const (
	// RecoveryBand is how close (either side, as a fraction of the baseline
	// level) the 1 s throughput must be to count as recovered. Above the band
	// counts as not recovered too: an open-loop run that drains a backlog
	// runs faster than its rate until it has caught up.
	RecoveryBand = 0.10
	// RecoveryHold is how long the throughput must stay in the band.
	RecoveryHold = 3 * time.Second
	// BaselineMax bounds the baseline to the steady seconds just before the
	// event: the level that the fault interrupted (in a long run the level
	// may have drifted since the start), and a bounded number of histograms
	// to decode per event.
	BaselineMax = 60 * time.Second
)

// EventImpacts measures the cost of each of r's events on the main phase:
// the error rate and latency during the event window (from the event to
// recovery), the throughput dip (lowest 1 s and fine throughput against the
// steady level before the event), and the time to recover to that level.
//
// The baseline of an event is the steady part of the intervals before it
// (at most the last BaselineMax of them): from the steady state the analysis
// decided (r.Analysis), else from where MSER places it on the pre-event
// series, minus the windows of earlier events. An event with no such interval before it (an event in the first
// second) reuses the previous event's baseline, or gets no level at all.
func EventImpacts(r *result.Result) []result.EventImpact {
	if r == nil || len(r.Events) == 0 {
		return nil
	}
	p := r.MainPhase()
	if p == nil {
		return nil
	}
	nom := nominalNs(p)
	if nom == 0 {
		nom = int64(time.Second)
	}
	rs := rates(p, "")
	var out []result.EventImpact
	var busy [][2]int64 // earlier event windows, excluded from later baselines
	var prev *result.EventImpact
	for i, ev := range r.Events {
		imp := result.EventImpact{
			Index: i, Phase: p.Name, AtNs: ev.AtNs, Kind: ev.Kind, Arg: ev.Arg,
			RecoveryBandPercent: RecoveryBand * 100,
			RecoveryHoldNs:      int64(RecoveryHold),
		}
		if v := VerificationOf(r); v != nil {
			imp.AckedWritesLost = &v.Lost
		}
		e := intervalAt(p, ev.AtNs) // interval the event fell in
		first := steadyStartBefore(r, p, e)
		var base []int
		for j := first; j < e; j++ {
			if rs[j].full && !inAny(busy, p.Intervals[j].StartNs, p.Intervals[j].StartNs+durOf(&p.Intervals[j])) {
				base = append(base, j)
			}
		}
		if keep := int(BaselineMax / time.Duration(nom)); len(base) > keep {
			base = base[len(base)-keep:]
		}
		switch {
		case len(base) > 0:
			imp.BaselineFromNs = p.Intervals[base[0]].StartNs
			last := &p.Intervals[base[len(base)-1]]
			imp.BaselineToNs = last.StartNs + durOf(last)
			imp.BaselineIntervals = len(base)
			var ops, errs uint64
			var ns int64
			for _, j := range base {
				ops += rs[j].ops
				errs += rs[j].errs
				ns += rs[j].durNs
			}
			imp.BaselineOpsPerS = float64(ops) / (float64(ns) / 1e9)
			imp.BaselineErrorRate = ratio(errs, ops+errs)
			if p99, _, ok := intervalsP99(p, base); ok {
				imp.BaselineP99Ns = p99
			}
		case prev != nil && prev.BaselineIntervals > 0:
			imp.BaselineFromNs, imp.BaselineToNs = prev.BaselineFromNs, prev.BaselineToNs
			imp.BaselineIntervals = prev.BaselineIntervals
			imp.BaselineOpsPerS, imp.BaselineP99Ns = prev.BaselineOpsPerS, prev.BaselineP99Ns
			imp.BaselineErrorRate = prev.BaselineErrorRate
		}
		measureEvent(p, rs, e, &imp)
		out = append(out, imp)
		busy = append(busy, [2]int64{imp.AtNs, imp.WindowEndNs})
		prev = &out[len(out)-1]
	}
	return out
}

// measureEvent fills the window, dip, latency and recovery figures of imp.
func measureEvent(p *result.Phase, rs []intervalRate, e int, imp *result.EventImpact) {
	n := len(p.Intervals)
	phaseEnd := p.DurationNs
	if n > 0 {
		last := &p.Intervals[n-1]
		phaseEnd = max(phaseEnd, last.StartNs+durOf(last))
	}
	if e >= n {
		imp.WindowEndNs = phaseEnd
		imp.Verdict = "the event ran after the last interval of the phase: nothing to measure"
		return
	}
	hold := max(int(math.Ceil(float64(RecoveryHold)/float64(max(nominalNs(p), 1)))), 1)
	end := recoveryWindow(p, rs, e, hold, imp)
	if end < n {
		imp.WindowEndNs = p.Intervals[end].StartNs
	} else {
		imp.WindowEndNs = phaseEnd
	}
	windowErrorsAndLatency(p, rs, e, end, imp)

	// The dip: over the window, and at least the event's interval and the
	// next (a 1 s interval that began before the event hides part of it).
	dipEnd := min(max(end, e+2), n)
	imp.Min1sOpsPerS = -1
	for j := e; j < dipEnd; j++ {
		if !rs[j].full {
			continue
		}
		v := rs[j].opsPerS()
		if imp.Min1sOpsPerS < 0 || v < imp.Min1sOpsPerS {
			imp.Min1sOpsPerS, imp.Min1sAtNs = v, p.Intervals[j].StartNs
		}
		imp.Max1sOpsPerS = math.Max(imp.Max1sOpsPerS, v)
	}
	imp.Min1sOpsPerS = max(imp.Min1sOpsPerS, 0)
	if base := imp.BaselineOpsPerS; base > 0 {
		imp.DipPercent = math.Max(0, (base-imp.Min1sOpsPerS)/base*100)
	}
	dipEndNs := imp.WindowEndNs
	if dipEnd < n {
		dipEndNs = max(dipEndNs, p.Intervals[dipEnd].StartNs)
	} else {
		dipEndNs = phaseEnd
	}
	fineDip(p, imp.AtNs, dipEndNs, imp)

	// Where the run ended up.
	var sum float64
	var k int
	for j := n - 1; j >= 0 && k < hold; j-- {
		if rs[j].full {
			sum += rs[j].opsPerS()
			k++
		}
	}
	if k > 0 {
		imp.SettledOpsPerS = sum / float64(k)
	}
	imp.Verdict = eventVerdict(imp)
}

// recoveryWindow finds where the throughput recovered after the event's
// interval e (hold full intervals in the band around the baseline) and
// returns the end of the event window: the recovery (at least e+1), or the
// number of intervals when it never recovered.
func recoveryWindow(p *result.Phase, rs []intervalRate, e, hold int, imp *result.EventImpact) int {
	n := len(p.Intervals)
	base := imp.BaselineOpsPerS
	inBand := func(j int) bool {
		return rs[j].full && math.Abs(rs[j].opsPerS()-base) <= RecoveryBand*base
	}
	// holds reports whether intervals j..j+hold-1 are all full and in the band.
	holds := func(j int) bool {
		if j+hold > n {
			return false
		}
		for k := j; k < j+hold; k++ {
			if !inBand(k) {
				return false
			}
		}
		return true
	}
	if base <= 0 {
		return n
	}
	for j := e; j < n; j++ {
		if holds(j) {
			imp.Recovered = true
			if j > e {
				imp.RecoveryNs = max(p.Intervals[j].StartNs-imp.AtNs, 0)
			}
			return max(j, e+1)
		}
	}
	return n
}

// windowErrorsAndLatency counts the errors and merges the latency of the
// event window, intervals [e, end).
func windowErrorsAndLatency(p *result.Phase, rs []intervalRate, e, end int, imp *result.EventImpact) {
	var idx []int
	var ops, errs uint64
	for j := e; j < end; j++ {
		idx = append(idx, j)
		ops += rs[j].ops
		errs += rs[j].errs
		for _, o := range p.Intervals[j].Ops {
			for c, k := range o.Errors {
				if imp.ErrorsByClass == nil {
					imp.ErrorsByClass = map[string]uint64{}
				}
				imp.ErrorsByClass[c] += k
			}
		}
	}
	imp.Ops, imp.Errors = ops, errs
	imp.ErrorRate = ratio(errs, ops+errs)
	if p99, mx, ok := intervalsP99(p, idx); ok {
		imp.P99Ns, imp.MaxNs = p99, mx
	}
}

// fineDip finds the lowest fine bucket and the longest stall (the one stall
// rule, StalledBuckets) in [from, to).
func fineDip(p *result.Phase, from, to int64, imp *result.EventImpact) {
	w := p.Buckets.WidthNs
	series, stalled := fineBuckets(p)
	if w <= 0 || len(series) == 0 {
		return
	}
	imp.FineWidthNs = w
	first := int(max(from, 0) / w)
	last := len(series) // buckets [first, last) start before to
	if n := int((to + w - 1) / w); n < last {
		last = n
	}
	imp.MinFineOpsPerS = -1
	for b := first; b < last; b++ {
		v := series[b] / (float64(w) / 1e9)
		if imp.MinFineOpsPerS < 0 || v < imp.MinFineOpsPerS {
			imp.MinFineOpsPerS, imp.MinFineAtNs = v, int64(b)*w
		}
	}
	if imp.MinFineOpsPerS < 0 {
		imp.MinFineOpsPerS = 0
	}
	for _, r := range stallRuns(stalled, first, last) {
		imp.LongestStallNs = max(imp.LongestStallNs, int64(r[1]-r[0])*w)
	}
}

func eventVerdict(imp *result.EventImpact) string {
	arg := imp.Arg
	if r := []rune(arg); len(r) > 60 {
		arg = string(r[:57]) + "..."
	}
	what := fmt.Sprintf("%s %s at %s", imp.Kind, arg, time.Duration(imp.AtNs).Round(time.Millisecond))
	if imp.BaselineOpsPerS <= 0 {
		return what + ": no steady interval before it, so no level to measure a dip or a recovery against"
	}
	s := fmt.Sprintf("%s: throughput fell by %.0f%% (lowest 1 s: %.0f op/s vs %.0f op/s before)",
		what, imp.DipPercent, imp.Min1sOpsPerS, imp.BaselineOpsPerS)
	switch {
	case imp.Recovered && imp.RecoveryNs == 0 && imp.DipPercent <= RecoveryBand*100:
		s = what + ": no visible effect on the 1 s throughput"
	case imp.Recovered && imp.DipPercent <= RecoveryBand*100:
		s = fmt.Sprintf("%s: no dip; throughput rose to %.0f op/s (a catch-up) and was back within %.0f%% of %.0f op/s after %s",
			what, imp.Max1sOpsPerS, RecoveryBand*100, imp.BaselineOpsPerS, time.Duration(imp.RecoveryNs).Round(100*time.Millisecond))
	case imp.Recovered:
		s += fmt.Sprintf("; back within %.0f%% of that level after %s", RecoveryBand*100, time.Duration(imp.RecoveryNs).Round(100*time.Millisecond))
	default:
		s += fmt.Sprintf("; not recovered by the end of the phase (last seconds: %.0f op/s)", imp.SettledOpsPerS)
	}
	if imp.Max1sOpsPerS > imp.BaselineOpsPerS*(1+RecoveryBand) && imp.DipPercent > RecoveryBand*100 {
		s += fmt.Sprintf("; catch-up peak %.0f op/s", imp.Max1sOpsPerS)
	}
	if imp.Errors > 0 {
		s += fmt.Sprintf("; %d errors (%.2f%%) in the window", imp.Errors, imp.ErrorRate*100)
	}
	return s
}

// intervalAt is the index of the interval containing offset ns (len when after the last).
func intervalAt(p *result.Phase, ns int64) int {
	for j := range p.Intervals {
		iv := &p.Intervals[j]
		if ns < iv.StartNs+durOf(iv) {
			return j
		}
	}
	return len(p.Intervals)
}

// steadyStartBefore is the first steady interval of the part of p before
// interval e: the analysis' warm-up when the file has one and it ends before
// the event, else MSER on the pre-event series.
func steadyStartBefore(r *result.Result, p *result.Phase, e int) int {
	if r.Analysis != nil && r.Analysis.Phase == p.Name {
		w := r.Analysis.SteadyState.WarmupIntervals
		if w < e {
			return w
		}
	}
	pre := *p
	pre.Intervals = p.Intervals[:e]
	st, err := SteadyStateOf(&pre, "auto")
	if err != nil || st.First >= e {
		return 0
	}
	return st.First
}

func inAny(spans [][2]int64, from, to int64) bool {
	for _, s := range spans {
		if from < s[1] && to > s[0] {
			return true
		}
	}
	return false
}

func ratio(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// intervalsP99 is the p99 and the maximum latency over the intervals idx
// (ascending) of p, all ops, merged a contiguous run of intervals at a time;
// ok is false when they hold no histogram. A histogram that does not decode
// leaves the figures unmeasured: EventImpacts has no error to return, and the
// report of the same file fails on it (analysis.Figures).
func intervalsP99(p *result.Phase, idx []int) (p99, maxNs int64, ok bool) {
	h := result.NewHist()
	for k := 0; k < len(idx); {
		e := k + 1
		for e < len(idx) && idx[e] == idx[e-1]+1 {
			e++
		}
		part, err := p.MergedHist(idx[k], idx[e-1]+1, result.HistLatency)
		if err != nil {
			return 0, 0, false
		}
		h.Merge(part)
		k = e
	}
	if h.TotalCount() == 0 {
		return 0, 0, false
	}
	return h.ValueAtQuantile(99), h.Max(), true
}
