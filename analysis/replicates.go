package analysis

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The comparison of groups of runs (issue 31).
//
// The run is the unit of replication: two runs of one setup differ by more
// than a run varies inside itself (placement, memory layout, neighbours), so
// a verdict rests on the variation between runs, and the variation within a
// run only refines each run's value. Each figure of each run is one number
// (RunValue); a group's centre is the geometric mean of its runs' values; a
// comparison is the ratio of two centres with a 95% confidence interval: a
// Welch t-interval on the logarithms of the run values, with Satterthwaite's
// degrees of freedom (Georges et al. 2007 use the t-interval over run means;
// Kalibera and Jones 2013 show that the level of repetition with the
// largest variance, here the run, is the one whose variance the interval
// must carry). Logarithms because a ratio is what is reported and because
// throughput and latency are positive and skewed: the interval of a
// difference of logs is the interval of a ratio.
//
// Why not a hierarchical bootstrap: with the two to five runs per side that
// people can afford, resampling runs has only a handful of distinct
// resamples (three runs give ten) and its percentile interval is far too
// narrow; the t-interval is exact for normal log run values and its width
// grows as it should when runs are few. It is also deterministic and closed
// form, so compare of many long results stays fast.

// MethodText names the comparison method; it is printed once below every
// comparison.
const MethodText = "each run is one value per figure (its steady-window throughput; its latency statistic from the " +
	"run's HDR histogram); a group's centre is the geometric mean of its runs; each ratio of centres gets a 95% " +
	"Welch t-interval on the logarithms of the run values (Satterthwaite's degrees of freedom), so verdicts rest " +
	"on the variation between runs; same: the interval lies within the smallest difference that matters; " +
	"different: it excludes no change and reaches beyond that difference; otherwise inconclusive"

// DefaultMinEffect is the smallest difference that matters, as a fraction
// (--min-effect): an interval inside ±2% is called the same.
const DefaultMinEffect = 0.02

// Level is the confidence level of every interval of a comparison.
const Level = 0.95

// RunValue is one run's value of one figure.
type RunValue struct {
	// Value is the run's figure (throughput, a latency statistic); > 0.
	Value float64
	// WithinSE is the standard error of log(Value) from the run's own
	// variation (its seconds, or its HDR counts); 0 when unknown. It floors
	// a group's between-run variance and is the only noise a comparison of
	// single runs can see.
	WithinSE float64
}

// Spread is a between-run spread supplied from earlier repeated runs (an A/A
// set, a history): the standard deviation of the logarithm of a run's value
// (about the coefficient of variation of run values, 0.03 for 3%), and the
// degrees of freedom it was estimated with (0: taken as known).
type Spread struct {
	SD float64
	DF float64
}

// Basis says what noise a ratio's interval covers.
type Basis string

// The bases of an interval, from the most to the least complete.
const (
	// BasisBetweenRuns: two or more runs on each side; the interval carries
	// the variation between runs measured on both.
	BasisBetweenRuns Basis = "between runs"
	// BasisOneSide: one side has a single run; the other side's between-run
	// variation stands for both (assumed equal).
	BasisOneSide Basis = "between runs, one side"
	// BasisSupplied: a single run on each side, with a between-run spread
	// supplied from earlier repeated runs.
	BasisSupplied Basis = "supplied spread"
	// BasisWithinRun: a single run on each side and nothing else: run-to-run
	// noise is unknown and the interval covers within-run noise only.
	BasisWithinRun Basis = "within-run only"
)

// Call is a comparison's verdict: Same, Different or Inconclusive.
type Call string

// The verdicts of a ratio's interval against the smallest difference that
// matters m: Same when the interval lies within (1-m, 1+m) (around 1 on the
// log scale); Different when it excludes 1 and is not inside (1-m, 1+m);
// Inconclusive when it contains 1 but reaches beyond ±m.
const (
	Same         Call = "same"
	Different    Call = "different"
	Inconclusive Call = "inconclusive"
)

// IntervalOptions configure GroupRatio.
type IntervalOptions struct {
	// MinEffect is the smallest difference that matters, a fraction.
	// Default DefaultMinEffect.
	MinEffect float64
	// Spread, when set, is the between-run spread a comparison of single
	// runs uses instead of within-run noise alone.
	Spread *Spread
}

// Ratio is one group's centre against the baseline group's, with its
// interval and verdict.
type Ratio struct {
	// Ratio is other/base centres; Lo and Hi bound its 95% interval.
	Ratio, Lo, Hi float64
	// DF are the interval's degrees of freedom (+Inf for a normal interval).
	DF    float64
	Basis Basis
	Call  Call
	// RunsNeeded, when > 0, is how many runs of each side would make the
	// interval half as wide as the larger of the smallest difference that
	// matters and the observed difference, at the spread these runs show;
	// AtLeast is set when the spread between runs is unknown (one run on
	// each side): then it is a lower bound, counted at within-run noise.
	RunsNeeded int
	AtLeast    bool
}

// logStats are the mean and variance of the logs of a group's values, and
// the mean within-run variance of a run's log value.
type logStats struct {
	n      int
	mean   float64
	varB   float64 // sample variance of the log values between runs (n >= 2)
	within float64 // mean WithinSE^2
}

func statsOf(vs []RunValue) logStats {
	s := logStats{n: len(vs)}
	for _, v := range vs {
		s.mean += math.Log(v.Value)
		s.within += v.WithinSE * v.WithinSE
	}
	s.mean /= float64(s.n)
	s.within /= float64(s.n)
	if s.n > 1 {
		for _, v := range vs {
			d := math.Log(v.Value) - s.mean
			s.varB += d * d
		}
		s.varB /= float64(s.n - 1)
	}
	return s
}

// between is the variance of one run's log value: the sample variance of
// the group's runs, which already holds the within-run variance of each run's
// value. Only when the runs agree exactly (a variance of 0, as copies of one
// file do) does the within-run variance stand in: no group can claim less
// noise than its runs show inside.
func (s logStats) between() float64 {
	if s.varB > 0 {
		return s.varB
	}
	return s.within
}

// Centre is the geometric mean of the run values (every value > 0).
func Centre(vs []RunValue) float64 {
	if len(vs) == 0 {
		return 0
	}
	return math.Exp(statsOf(vs).mean)
}

// GroupRatio compares group other with group base on one figure: the ratio
// of their centres, its 95% interval and the verdict. Every value must be
// > 0 and each group must have a run (ok is false otherwise).
//
// With two or more runs per side the interval is Welch's on the log values:
// se^2 = s_a^2/n_a + s_b^2/n_b with Satterthwaite's df (the sample variance
// of run values already holds each run's within-run variance; Kalibera and
// Jones 2013). With one run on one side, the other side's between-run variance
// stands for both (the prediction interval of one new run). With one run on
// each side, a supplied Spread does; failing that, the interval covers
// within-run noise only (BasisWithinRun), which is too narrow by the
// unknown run-to-run noise, and RunsNeeded is a lower bound.
func GroupRatio(base, other []RunValue, o IntervalOptions) (Ratio, bool) {
	if len(base) == 0 || len(other) == 0 {
		return Ratio{}, false
	}
	for _, vs := range [][]RunValue{base, other} {
		for _, v := range vs {
			if !(v.Value > 0) || math.IsInf(v.Value, 0) {
				return Ratio{}, false
			}
		}
	}
	m := o.MinEffect
	if m <= 0 {
		m = DefaultMinEffect
	}
	a, b := statsOf(base), statsOf(other)
	d := b.mean - a.mean
	var se2, df float64
	var basis Basis
	// perRun is the variance of one run's log value used for RunsNeeded.
	var perRun, perRunDF float64
	switch {
	case a.n > 1 && b.n > 1:
		va, vb := a.between(), b.between()
		sa, sb := va/float64(a.n), vb/float64(b.n)
		se2 = sa + sb
		df = satterthwaite(sa, sb, a.n-1, b.n-1)
		basis = BasisBetweenRuns
		perRun, perRunDF = (va+vb)/2, df
	case a.n > 1 || b.n > 1:
		many, one := a, b
		if b.n > 1 {
			many, one = b, a
		}
		v := many.between()
		se2 = v * (1/float64(many.n) + 1/float64(one.n))
		df = float64(many.n - 1)
		basis = BasisOneSide
		perRun, perRunDF = v, df
	case o.Spread != nil && o.Spread.SD > 0:
		v := o.Spread.SD*o.Spread.SD + (a.within+b.within)/2
		se2 = 2 * v
		df = o.Spread.DF
		if df <= 0 {
			df = math.Inf(1)
		}
		basis = BasisSupplied
		perRun, perRunDF = v, df
	default:
		se2 = a.within + b.within
		df = math.Inf(1)
		basis = BasisWithinRun
		perRun, perRunDF = se2/2, df
	}
	t := tQuantile(df)
	h := t * math.Sqrt(se2)
	r := Ratio{Ratio: math.Exp(d), Lo: math.Exp(d - h), Hi: math.Exp(d + h), DF: df, Basis: basis}
	r.Call = callOf(d-h, d+h, m)
	if basis == BasisWithinRun {
		// Two single runs differ by more than a run varies inside itself:
		// an interval of within-run noise alone can neither tell them apart
		// nor call them alike. It is shown (marked), never a verdict.
		r.Call = Inconclusive
	}
	if r.Call != Same && r.Call != Different {
		r.RunsNeeded = runsToSettle(perRun, perRunDF, math.Max(m, math.Abs(d)))
	}
	if basis == BasisWithinRun {
		r.AtLeast = true
		r.RunsNeeded = max(r.RunsNeeded, 3)
	}
	return r, true
}

// callOf is the verdict of the log interval [lo, hi] against ±m (a fraction).
func callOf(lo, hi, m float64) Call {
	lm, um := math.Log(1-math.Min(m, 0.99)), math.Log(1+m)
	switch {
	case lo > lm && hi < um:
		return Same
	case lo > 0 || hi < 0:
		return Different
	}
	return Inconclusive
}

// satterthwaite are the Welch-Satterthwaite degrees of freedom of sa + sb,
// the variances of two means with dfa and dfb degrees of freedom.
func satterthwaite(sa, sb float64, dfa, dfb int) float64 {
	if sa+sb == 0 {
		return float64(dfa + dfb)
	}
	den := 0.0
	if sa > 0 {
		den += sa * sa / float64(dfa)
	}
	if sb > 0 {
		den += sb * sb / float64(dfb)
	}
	return (sa + sb) * (sa + sb) / den
}

// tQuantile is the two-sided 95% critical value of Student's t with df
// degrees of freedom (the normal's for df = +Inf).
func tQuantile(df float64) float64 {
	if math.IsInf(df, 1) || df > 1e7 {
		return 1.959963984540054
	}
	return studentQuantileTwoSided(1-Level, df)
}

// runsToSettle is the smallest number of runs per side whose 95% interval
// has half-width at most target/2 (on the log scale) when one run's log
// value has variance perRun: t(df(n)) * sqrt(2 perRun / n) <= target/2,
// with df(n) = 2n-2, or the supplied spread's df when that is smaller. At
// most MaxRunsNeeded+1 ("more than").
func runsToSettle(perRun, spreadDF, target float64) int {
	if perRun <= 0 || target <= 0 {
		return 2
	}
	half := math.Log(1+target) / 2
	// ok is monotonic in n (a wider sample, more degrees of freedom), so
	// a binary search finds the smallest n.
	ok := func(n int) bool {
		df := float64(2*n - 2)
		if spreadDF < df {
			df = math.Max(spreadDF, 1)
		}
		return tQuantile(df)*math.Sqrt(2*perRun/float64(n)) <= half
	}
	if ok(2) {
		return 2
	}
	if !ok(MaxRunsNeeded) {
		return MaxRunsNeeded + 1
	}
	lo, hi := 2, MaxRunsNeeded // !ok(lo), ok(hi)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// MeanSE is the standard error of log(mean) of an autocorrelated series of
// per-second values (a run's throughput seconds, its per-second mean
// latency): s/sqrt(n_eff)/mean, with the AR(1) effective size of effN. 0
// with fewer than minSamples values or a mean <= 0.
func MeanSE(xs []float64) float64 {
	if len(xs) < minSamples {
		return 0
	}
	m, v, r1 := meanVarLag1(xs)
	if m <= 0 {
		return 0
	}
	return math.Sqrt(v/effN(len(xs), r1)) / m
}

// QuantileInterval is the 95% order-statistic interval of quantile q (0..1)
// of the values counted in h: the values at ranks N q -/+ 1.96 sqrt(N q
// (1-q)), the binomial interval of the rank (the distribution-free interval
// of a quantile). It assumes independent observations; QuantileSE widens it
// for the correlation of a run's seconds. ok is false for an empty
// histogram or q outside (0, 1).
func QuantileInterval(h *hdr.Histogram, q float64) (lo, hi int64, ok bool) {
	n := float64(h.TotalCount())
	if n == 0 || !(q > 0 && q < 1) {
		return 0, 0, false
	}
	z := 1.959963984540054 * math.Sqrt(n*q*(1-q))
	ql := math.Max(0, (n*q-z)/n)
	qh := math.Min(1, (n*q+z)/n)
	return h.ValueAtQuantile(ql * 100), h.ValueAtQuantile(qh * 100), true
}

// QuantileSE is the standard error of log(quantile q) within a run: half
// the log width of QuantileInterval over 1.96, widened by the square root
// of the design effect n/n_eff of the run's per-second values of that
// quantile (series; their lag-1 autocorrelation, as in MeanSE), because
// operations close in time are not independent. 0 when it cannot be stated.
func QuantileSE(h *hdr.Histogram, q float64, series []float64) float64 {
	lo, hi, ok := QuantileInterval(h, q)
	if !ok || lo <= 0 || hi <= 0 {
		return 0
	}
	se := (math.Log(float64(hi)) - math.Log(float64(lo))) / (2 * 1.959963984540054)
	if len(series) >= minSamples {
		_, _, r1 := meanVarLag1(series)
		se *= math.Sqrt(float64(len(series)) / effN(len(series), r1))
	}
	return se
}

// CentreInterval is a group's centre, the geometric mean of its runs'
// values, with the 95% t-interval of that centre (n-1 degrees of freedom,
// on the logs): what a history point of several runs of one commit, or a
// plan's measured throughput of several runs, carries. With one run lo and
// hi equal the centre and n < 2 says there is no interval. ok is false when
// there is no value or a value is not > 0.
func CentreInterval(values []float64) (centre, lo, hi float64, ok bool) {
	if len(values) == 0 {
		return 0, 0, 0, false
	}
	vs := make([]RunValue, len(values))
	for i, v := range values {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, 0, 0, false
		}
		vs[i] = RunValue{Value: v}
	}
	s := statsOf(vs)
	centre = math.Exp(s.mean)
	if s.n < 2 {
		return centre, centre, centre, true
	}
	h := tQuantile(float64(s.n-1)) * math.Sqrt(s.varB/float64(s.n))
	return centre, math.Exp(s.mean - h), math.Exp(s.mean + h), true
}
