package analysis

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/platbench/platbench/result"
)

// RegulationReport describes an on/off pattern in a rate series.
type RegulationReport = result.Regulation

// Stalls finds the stalls of p: fine buckets with zero completions (errors
// included) while requests were outstanding (StalledBuckets). Consecutive
// stalled buckets are one stall. The regulation analysis runs on the same
// completion series.
func Stalls(p *result.Phase) result.Stalls {
	b := &p.Buckets
	s := result.Stalls{BucketWidthNs: b.WidthNs}
	series, stalled := fineBuckets(p)
	if len(series) == 0 {
		s.Regulation.Reason = "no fine buckets in the file"
		return s
	}
	s.Buckets = len(series)
	for _, r := range stallRuns(stalled, 0, len(stalled)) {
		s.Count++
		l := int64(r[1]-r[0]) * b.WidthNs
		s.TotalNs += l
		if l > s.LongestNs {
			s.LongestNs = l
			s.LongestAtNs = int64(r[0]) * b.WidthNs
		}
	}
	s.Regulation = Regulation(series, time.Duration(b.WidthNs))
	return s
}

// StalledBuckets reports for each fine bucket of p whether it stalled: no
// completion (errors included) while requests were outstanding. Without the
// outstanding flags (older files) a closed loop always has requests in
// flight, so every empty bucket stalled; an open loop may be idle between
// requests, so none is assumed to have. A trailing bucket that the phase only
// partly covers is left out: it is empty because the phase ended. This is
// the one stall rule: the stall figures, the event impacts and the charts'
// stall marks all use it.
func StalledBuckets(p *result.Phase) []bool {
	_, stalled := fineBuckets(p)
	return stalled
}

// fineBuckets is the completion count of each fine bucket of p (all ops)
// and whether it stalled; empty when the file has no fine buckets.
func fineBuckets(p *result.Phase) ([]float64, []bool) {
	b := &p.Buckets
	if b.WidthNs <= 0 {
		return nil, nil
	}
	n := b.Len()
	if p.DurationNs > 0 {
		n = min(n, int(p.DurationNs/b.WidthNs))
	}
	if n <= 0 {
		return nil, nil
	}
	series := make([]float64, n)
	for i := range series {
		series[i] = float64(b.CountAt(i))
	}
	assume := len(b.Outstanding) == 0 && p.Mode == "closed"
	stalled := make([]bool, n)
	for i := range stalled {
		out := assume || (i < len(b.Outstanding) && b.Outstanding[i])
		stalled[i] = series[i] == 0 && out
	}
	return series, stalled
}

// stallRuns returns the runs [start, end) of consecutive stalled buckets
// within [from, to).
func stallRuns(stalled []bool, from, to int) [][2]int {
	var out [][2]int
	start := -1
	for i := max(from, 0); i < to && i < len(stalled); i++ {
		switch {
		case stalled[i] && start < 0:
			start = i
		case !stalled[i] && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, min(to, len(stalled))})
	}
	return out
}

// Regulation looks for a regular on/off pattern in counts, a series of
// per-bucket amounts (completions, bytes) each width long: the series is "off"
// in a bucket whose value is at most 10% of its high level (the 90th
// percentile of its non-zero buckets) and "on" otherwise. The pattern is periodic when at least three
// complete off-to-on cycles are seen over at least half the series, the rises keep time with the period (phase
// coherence at least 0.7, see below) and the series' autocorrelation at that
// lag is at least 0.3. It works at any bucket width (10 ms for disks, 100 ms
// for the recorder's buckets).
func Regulation(counts []float64, width time.Duration) RegulationReport {
	var rep RegulationReport
	n := len(counts)
	if n < 6 {
		rep.Reason = fmt.Sprintf("%d buckets are too few to look for a period", n)
		return rep
	}
	on, why := onOff(counts)
	if why != "" {
		rep.Reason = why
		return rep
	}
	// Rising edges: first "on" bucket after an "off" one.
	var rises []int
	for i := 1; i < n; i++ {
		if on[i] && !on[i-1] {
			rises = append(rises, i)
		}
	}
	if len(rises) < 4 {
		rep.Reason = fmt.Sprintf("not periodic: the rate drops to near zero but resumes only %d time(s)", len(rises))
		return rep
	}
	cycles := make([]int, len(rises)-1)
	ons := make([]int, len(rises)-1)
	for k := range cycles {
		cycles[k] = rises[k+1] - rises[k]
		for i := rises[k]; i < rises[k+1] && on[i]; i++ {
			ons[k]++
		}
	}
	period := medianInt(cycles)
	preal, coh := keptPeriod(rises, period)
	span := rises[len(rises)-1] - rises[0]
	onTotal := 0
	var level float64
	for i := rises[0]; i < rises[len(rises)-1]; i++ {
		if on[i] {
			onTotal++
			level += counts[i]
		}
	}
	rep.Cycles = len(cycles)
	rep.PeriodNs = int64(math.Round(preal * float64(width)))
	rep.OnNs = int64(medianInt(ons)) * int64(width)
	rep.OffNs = max(0, rep.PeriodNs-rep.OnNs)
	if span > 0 {
		rep.DutyCycle = float64(onTotal) / float64(span)
	}
	if onTotal > 0 {
		rep.OnLevel = level / float64(onTotal)
	}
	rep.PhaseCoherence = coh
	rep.Autocorrelation = autocorr(counts, int(math.Round(preal)))
	judgeRegulation(&rep, preal, span, n, len(rises), period, width)
	if !rep.Periodic {
		// Keep only the sentence: a period that did not hold is not a figure.
		return RegulationReport{Reason: rep.Reason}
	}
	return rep
}

// onOff marks each bucket "on" (at work) or "off": off when at most 10% of
// the series' high level, the 90th percentile of its non-zero buckets (so
// that a series at work in only a few buckets, a 10% duty cycle, still has
// one). why says why there is no pattern to look for ("" when there may be).
func onOff(counts []float64) (on []bool, why string) {
	var sorted []float64
	for _, c := range counts {
		if c > 0 {
			sorted = append(sorted, c)
		}
	}
	if len(sorted) == 0 {
		return nil, "no work in the series"
	}
	sort.Float64s(sorted)
	hi := sorted[int(math.Ceil(0.9*float64(len(sorted))))-1]
	thr := 0.1 * hi
	on = make([]bool, len(counts))
	offs := 0
	for i, c := range counts {
		on[i] = c > thr
		if !on[i] {
			offs++
		}
	}
	if offs == 0 {
		return nil, "smooth: the rate never drops below 10% of its high level"
	}
	return on, ""
}

// keptPeriod is the period (in buckets) the rises keep time with best, and
// their phase coherence at it.
//
// The period over the whole span: span / (number of cycles in it). The
// first and last rise are each off by at most a bucket, so this is exact
// to 2/n buckets per cycle, and need not be a whole number of buckets.
// The number of cycles is the one, near span / median cycle, at which
// the rises keep time best (the median alone misjudges a period that
// alternates between 10 and 11 buckets).
//
// Phase coherence: the length of the mean of the unit vectors at each
// rise's phase in the period (1: every rise at the same phase; about
// 1/sqrt(n) for rises at random times). Unlike counting cycles near the
// median, it tolerates jitter that does not accumulate (a throttle's
// slices on a loaded machine) and still rejects gaps at random times.
func keptPeriod(rises []int, median int) (period, coherence float64) {
	span := rises[len(rises)-1] - rises[0]
	coh := func(p float64) float64 {
		var sx, sy float64
		for _, r := range rises {
			th := 2 * math.Pi * float64(r-rises[0]) / p
			sx += math.Cos(th)
			sy += math.Sin(th)
		}
		return math.Hypot(sx, sy) / float64(len(rises))
	}
	nlo := max(1, int(math.Floor(float64(span)/(1.25*float64(max(median, 1))))))
	nhi := max(nlo, int(math.Ceil(float64(span)/(0.8*float64(max(median, 1))))))
	period, coherence = float64(span), -1.0
	for n := nlo; n <= nhi; n++ {
		if c := coh(float64(span) / float64(n)); c > coherence+1e-9 {
			period, coherence = float64(span)/float64(n), c
		}
	}
	return period, coherence
}

// judgeRegulation decides whether rep's figures make a periodic pattern and
// says why in rep.Reason.
func judgeRegulation(rep *RegulationReport, preal float64, span, n, rises, median int, width time.Duration) {
	switch {
	case preal < 2:
		rep.Reason = "not periodic: on and off alternate bucket by bucket (use finer buckets to see a pattern)"
	case 2*span < n:
		// A regulated device regulates all the time: a few regular gaps in a
		// short stretch of the run are a hiccup, not a pattern.
		rep.Reason = fmt.Sprintf("not periodic: %d idle gaps, all within %s of a %s series", rises, time.Duration(span)*width, time.Duration(n)*width)
	case rep.PhaseCoherence < 0.7:
		rep.Reason = fmt.Sprintf("not periodic: %d idle gaps, but they do not keep time with any period (phase coherence %.2f at the median cycle of %s; 0.7 needed)",
			rises, rep.PhaseCoherence, time.Duration(median)*width)
	case rep.Autocorrelation < 0.3:
		rep.Reason = fmt.Sprintf("not periodic: idle gaps about every %s, but the autocorrelation at that lag is only %.2f", time.Duration(rep.PeriodNs), rep.Autocorrelation)
	default:
		rep.Periodic = true
		rep.Reason = fmt.Sprintf("periodic: %s of work then %s of nothing, every %s (duty cycle %.0f%%, %d cycles, phase coherence %.2f, autocorrelation %.2f)",
			time.Duration(rep.OnNs), time.Duration(rep.OffNs), time.Duration(rep.PeriodNs), rep.DutyCycle*100, rep.Cycles, rep.PhaseCoherence, rep.Autocorrelation)
	}
}

// autocorr is the sample autocorrelation of xs at lag.
func autocorr(xs []float64, lag int) float64 {
	n := len(xs)
	if lag <= 0 || lag >= n {
		return 0
	}
	m := mean(xs)
	var num, den float64
	for i := 0; i < n; i++ {
		d := xs[i] - m
		den += d * d
		if i+lag < n {
			num += d * (xs[i+lag] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

func medianInt(xs []int) int {
	s := append([]int(nil), xs...)
	sort.Ints(s)
	return s[len(s)/2]
}

// Outage is a phase in which the target stopped serving: most of it
// stalled, or a stall that ran to its end and lasted long (seed 002: the
// members ran out of heap after 10 s and throughput was 0 for the remaining
// 50 s of the run).
type Outage struct {
	PhaseNs   int64 // the phase's length
	StalledNs int64 // every stall together
	// EndStallNs is the stall the phase ended in (0: it ended serving),
	// from EndStallFromNs to the end.
	EndStallNs, EndStallFromNs int64
}

// Outage thresholds: stalled for at least half of the phase and at least
// OutageStalledMin, or ended in a stall of at least OutageEndShare of it and
// OutageEndMin. The floor keeps a short phase's pause (an embedded store's
// 600 ms write stall in a 1 s phase on a loaded machine) from being called
// a target that stopped serving.
const (
	OutageStalledShare = 0.5
	OutageStalledMin   = 2 * time.Second
	OutageEndShare     = 0.2
	OutageEndMin       = 10 * time.Second
)

// OutageOf reports whether the target stopped serving in p (nil: it did not).
func OutageOf(p *result.Phase) *Outage {
	_, stalled := fineBuckets(p)
	if len(stalled) == 0 || p.DurationNs <= 0 {
		return nil
	}
	w := p.Buckets.WidthNs
	o := &Outage{PhaseNs: p.DurationNs}
	runs := stallRuns(stalled, 0, len(stalled))
	for _, r := range runs {
		o.StalledNs += int64(r[1]-r[0]) * w
	}
	if n := len(runs); n > 0 && runs[n-1][1] == len(stalled) {
		o.EndStallFromNs = int64(runs[n-1][0]) * w
		o.EndStallNs = int64(runs[n-1][1]-runs[n-1][0]) * w
	}
	ph := float64(p.DurationNs)
	if (float64(o.StalledNs) >= OutageStalledShare*ph && o.StalledNs >= int64(OutageStalledMin)) ||
		(o.EndStallNs >= int64(OutageEndMin) && float64(o.EndStallNs) >= OutageEndShare*ph) {
		return o
	}
	return nil
}
