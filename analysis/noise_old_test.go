package analysis

// The per-second noise test compare used before issue 31, kept beside the
// tests only: the calibration (replicates_test.go) runs it on the same
// simulated runs as the new comparison to show that it fails, and
// noise_test.go measures its own autocorrelation correction.

import "math"

// NoiseTest names the test compare uses to decide whether two runs differ by
// more than run-to-run noise. It is printed with every comparison.
const NoiseTest = "Welch t-test on the per-second values of the steady-state windows, " +
	"with each run's sample size reduced to its effective size n(1-r1)/(1+r1) for lag-1 autocorrelation r1; " +
	"different when two-sided p < 0.05. " +
	"For runs it finds alike, X is the smallest difference it would find with 80% power: " +
	"same within X% when X <= 5%, otherwise inconclusive, with the number of runs of each side that would bring X to 5%"

// Alpha is the significance level of the noise test.
const Alpha = 0.05

// Power is the probability the noise test finds a true difference equal to
// the minimum detectable effect (Welch.MDE): the usual 80%.
const Power = 0.80

// DetectTarget is the detectable difference, as a fraction of the baseline
// mean, at or below which runs that the test finds alike are called the same
// ("same within X%"); above it the comparison is inconclusive, and
// Welch.RunsNeeded says how many runs of each side would bring the detectable
// difference down to it.
const DetectTarget = 0.05

// Welch is the outcome of the noise test for one figure.
type Welch struct {
	NA, NB       int     // per-second values used
	EffA, EffB   float64 // effective sample sizes after the autocorrelation correction
	MeanA, MeanB float64
	T, DF, P     float64
	Different    bool // P < Alpha
	// MDE is the smallest difference of the means the test would find with
	// probability Power at level Alpha (two-sided), as a fraction of the
	// baseline's (b's) mean: (t(1-Alpha/2, DF) + t(Power, DF)) * SE / |MeanB|.
	// 0 when it cannot be stated (a zero baseline mean, no variance).
	MDE float64
	// RunsNeeded is how many runs of each side, each as long as these, would
	// bring MDE down to DetectTarget (effective sizes scale with the number of
	// runs): 1 when MDE is already there, MaxRunsNeeded+1 for "more than
	// MaxRunsNeeded", 0 without an MDE.
	RunsNeeded int
	Skipped    string // why the test could not run ("" when it ran)
}

// welchTest compares the means of two autocorrelated series. Per-second
// throughput is strongly autocorrelated (compactions, GC cycles span several
// seconds); treating the seconds as independent would make almost any
// difference look significant. The AR(1) effective sample size is the
// standard correction (e.g. Wilks, Statistical Methods in the Atmospheric
// Sciences, 5.2.4); negative r1 is taken as 0 to stay conservative.
func welchTest(a, b []float64) Welch { return welch(a, b, true) }

// welch is welchTest; without power it leaves MDE and RunsNeeded out
// (the simulation needs only the verdict, and they are slow to compute).
func welch(a, b []float64, power bool) Welch {
	w := Welch{NA: len(a), NB: len(b)}
	if len(a) < minSamples || len(b) < minSamples {
		w.Skipped = "fewer than 5 per-second values"
		return w
	}
	ma, va, ra := meanVarLag1(a)
	mb, vb, rb := meanVarLag1(b)
	w.MeanA, w.MeanB = ma, mb
	w.EffA, w.EffB = effN(len(a), ra), effN(len(b), rb)
	sa, sb := va/w.EffA, vb/w.EffB
	if sa+sb == 0 {
		w.T, w.DF = 0, w.EffA+w.EffB-2
		if ma != mb {
			w.P, w.Different = 0, true
		} else {
			w.P = 1
		}
		return w
	}
	w.T = (ma - mb) / math.Sqrt(sa+sb)
	w.DF = (sa + sb) * (sa + sb) / (sa*sa/(w.EffA-1) + sb*sb/(w.EffB-1))
	w.P = studentTwoSided(w.T, w.DF)
	w.Different = w.P < Alpha
	if mb != 0 && power {
		w.MDE = mde(va, vb, w.EffA, w.EffB, mb)
		w.RunsNeeded = runsNeeded(va, vb, len(a), len(b), ra, rb, mb)
	}
	return w
}

// mde is the minimum detectable effect of a Welch test with effective sizes
// ea, eb and variances va, vb, as a fraction of baseline mean mb: the
// difference whose t statistic clears the critical value t(1-Alpha/2) with
// probability Power, i.e. (t(1-Alpha/2, df) + t(Power, df)) * SE.
func mde(va, vb, ea, eb, mb float64) float64 {
	sa, sb := va/ea, vb/eb
	df := (sa + sb) * (sa + sb) / (sa*sa/(ea-1) + sb*sb/(eb-1))
	tAlpha := studentQuantileTwoSided(Alpha, df)
	tPower := studentQuantileTwoSided(2*(1-Power), df) // one-sided upper tail 1-Power
	return (tAlpha + tPower) * math.Sqrt(sa+sb) / math.Abs(mb)
}

// runsNeeded is the smallest k such that k runs of each side, n values
// each, with the same variances, would have mde <= DetectTarget. The lag-1
// estimate from n values is biased low by about (1+4r)/n (Marriott and Pope
// 1954); the effective sizes at k*n values use the corrected r with the bias
// of k*n values, which is what the test would see on the longer series.
func runsNeeded(va, vb float64, na, nb int, ra, rb, mb float64) int {
	eff := func(n, k int, r float64) float64 {
		r = math.Max(0, r)
		r = math.Min(0.99, r+(1+4*r)/float64(n)) // the unbiased estimate
		kn := k * n
		return effN(kn, r-(1+4*r)/float64(kn))
	}
	ok := func(k int) bool { return mde(va, vb, eff(na, k, ra), eff(nb, k, rb), mb) <= DetectTarget }
	if ok(1) {
		return 1
	}
	if !ok(MaxRunsNeeded) {
		return MaxRunsNeeded + 1
	}
	lo, hi := 1, MaxRunsNeeded // !ok(lo), ok(hi)
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
