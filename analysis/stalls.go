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
// included) while requests were outstanding. Consecutive stalled buckets are
// one stall. A trailing bucket that the phase only partly covers is ignored.
// The regulation analysis runs on the same completion series.
func Stalls(p *result.Phase) result.Stalls {
	b := &p.Buckets
	s := result.Stalls{BucketWidthNs: b.WidthNs}
	if b.WidthNs <= 0 {
		s.Regulation.Reason = "no fine buckets in the file"
		return s
	}
	n := 0
	for _, c := range b.Counts {
		n = max(n, len(c))
	}
	n = max(n, len(b.Outstanding))
	if p.DurationNs > 0 {
		n = min(n, int(p.DurationNs/b.WidthNs))
	}
	if n <= 0 {
		s.Regulation.Reason = "no fine buckets in the file"
		return s
	}
	series := make([]float64, n)
	for _, c := range b.Counts {
		for i := 0; i < n && i < len(c); i++ {
			series[i] += float64(c[i])
		}
	}
	// Without the outstanding flags a closed loop always has requests in
	// flight; an open loop may be idle between requests, so no stall is assumed.
	assume := len(b.Outstanding) == 0 && p.Mode == "closed"
	s.Buckets = n
	run := 0
	flush := func(end int) {
		if run == 0 {
			return
		}
		s.Count++
		l := int64(run) * b.WidthNs
		s.TotalNs += l
		if l > s.LongestNs {
			s.LongestNs = l
			s.LongestAtNs = int64(end-run) * b.WidthNs
		}
		run = 0
	}
	for i := 0; i < n; i++ {
		out := assume || (i < len(b.Outstanding) && b.Outstanding[i])
		if series[i] == 0 && out {
			run++
		} else {
			flush(i)
		}
	}
	flush(n)
	s.Regulation = Regulation(series, time.Duration(b.WidthNs))
	return s
}

// Regulation looks for a regular on/off pattern in counts, a series of
// per-bucket amounts (completions, bytes) each width long: the series is "off"
// in a bucket whose value is at most 10% of its high level (the 90th
// percentile) and "on" otherwise. The pattern is periodic when at least three
// complete off-to-on cycles are seen, at least 80% of them within 10% (or one
// bucket) of their median length, and the series' autocorrelation at that
// lag is at least 0.3. It works at any bucket width (10 ms for disks, 100 ms
// for the recorder's buckets).
func Regulation(counts []float64, width time.Duration) RegulationReport {
	var rep RegulationReport
	n := len(counts)
	if n < 6 {
		rep.Reason = fmt.Sprintf("%d buckets are too few to look for a period", n)
		return rep
	}
	sorted := append([]float64(nil), counts...)
	sort.Float64s(sorted)
	hi := sorted[int(math.Ceil(0.9*float64(n)))-1]
	if hi <= 0 {
		rep.Reason = "no work in the series"
		return rep
	}
	thr := 0.1 * hi
	on := make([]bool, n)
	offs := 0
	for i, c := range counts {
		on[i] = c > thr
		if !on[i] {
			offs++
		}
	}
	if offs == 0 {
		rep.Reason = "smooth: the rate never drops below 10% of its high level"
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
	tol := max(1, int(math.Round(0.1*float64(period))))
	regular := 0
	for _, c := range cycles {
		if abs(c-period) <= tol {
			regular++
		}
	}
	onMed := medianInt(ons)
	onTotal, span := 0, rises[len(rises)-1]-rises[0]
	var level float64
	for i := rises[0]; i < rises[len(rises)-1]; i++ {
		if on[i] {
			onTotal++
			level += counts[i]
		}
	}
	rep.Cycles = len(cycles)
	rep.PeriodNs = int64(period) * int64(width)
	rep.OnNs = int64(onMed) * int64(width)
	rep.OffNs = int64(period-onMed) * int64(width)
	if span > 0 {
		rep.DutyCycle = float64(onTotal) / float64(span)
	}
	if onTotal > 0 {
		rep.OnLevel = level / float64(onTotal)
	}
	rep.Autocorrelation = autocorr(counts, period)
	switch {
	case period < 2:
		rep.Reason = "not periodic: on and off alternate bucket by bucket (use finer buckets to see a pattern)"
	case float64(regular) < 0.8*float64(len(cycles)):
		rep.Reason = fmt.Sprintf("not periodic: %d idle gaps, but only %d of %d cycles are within %s of the median %s",
			len(rises), regular, len(cycles), time.Duration(tol)*width, time.Duration(rep.PeriodNs))
	case rep.Autocorrelation < 0.3:
		rep.Reason = fmt.Sprintf("not periodic: cycles of about %s, but the autocorrelation at that lag is only %.2f", time.Duration(rep.PeriodNs), rep.Autocorrelation)
	default:
		rep.Periodic = true
		rep.Reason = fmt.Sprintf("periodic: %s of work then %s of nothing, every %s (duty cycle %.0f%%, %d cycles, autocorrelation %.2f)",
			time.Duration(rep.OnNs), time.Duration(rep.OffNs), time.Duration(rep.PeriodNs), rep.DutyCycle*100, rep.Cycles, rep.Autocorrelation)
	}
	return rep
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

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
