package analysis

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
)

// TestStudentTwoSided checks the t distribution against published table values.
func TestStudentTwoSided(t *testing.T) {
	cases := []struct{ t, df, p float64 }{
		{2.228, 10, 0.05},    // t(0.975, 10)
		{2.086, 20, 0.05},    // t(0.975, 20)
		{2.576, 1e6, 0.01},   // normal limit
		{12.706, 1, 0.05},    // Cauchy
		{0, 5, 1},            // no difference
		{-2.228, 10, 0.05},   // symmetric
		{3.169, 10, 0.01},    // t(0.995, 10)
		{1.812, 10, 0.10},    // t(0.95, 10)
		{4.587, 10, 0.001},   // t(0.9995, 10)
		{1.96, 1e9, 0.04999}, // normal limit
	}
	for _, c := range cases {
		if got := studentTwoSided(c.t, c.df); math.Abs(got-c.p) > 0.0006 {
			t.Errorf("P(|T|>=%v, df=%v) = %.5f, want %.5f", c.t, c.df, got, c.p)
		}
	}
}

// ar1 is an autocorrelated series like per-second throughput: mean m, lag-1 correlation rho.
func ar1(rng *rand.Rand, n int, m, rho, sd float64) []float64 {
	x := make([]float64, n)
	prev := 0.0
	for i := range x {
		prev = rho*prev + math.Sqrt(1-rho*rho)*sd*rng.NormFloat64()
		x[i] = m + prev
	}
	return x
}

// TestWelchFalsePositives: two runs with the same mean and autocorrelated
// noise are called different about 5% of the time with the correction; a
// test that treats the seconds as independent would cry wolf far more often.
func TestWelchFalsePositives(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	var corrected, naive int
	for i := 0; i < trials; i++ {
		a := ar1(rng, 120, 10000, 0.7, 500)
		b := ar1(rng, 120, 10000, 0.7, 500)
		if welchTest(a, b).Different {
			corrected++
		}
		if naiveWelch(a, b) < Alpha {
			naive++
		}
	}
	rc, rn := float64(corrected)/trials, float64(naive)/trials
	t.Logf("false positive rate: corrected %.3f, naive %.3f", rc, rn)
	if rc > 0.09 {
		t.Errorf("corrected test calls equal runs different %.1f%% of the time, want about 5%%", 100*rc)
	}
	if rn < 2*rc {
		t.Errorf("naive %.3f vs corrected %.3f: the correction should matter for rho=0.7", rn, rc)
	}
}

// TestWelchPower: a 3% difference in mean over two minutes is found.
func TestWelchPower(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	found := 0
	for i := 0; i < 200; i++ {
		if welchTest(ar1(rng, 120, 10000, 0.5, 300), ar1(rng, 120, 10300, 0.5, 300)).Different {
			found++
		}
	}
	if found < 180 {
		t.Errorf("a 3%% difference (10 sd of the mean) found in %d of 200 trials", found)
	}
}

func TestWelchEdges(t *testing.T) {
	if w := welchTest([]float64{1, 2, 3}, []float64{1, 2, 3, 4, 5}); w.Skipped == "" {
		t.Errorf("three values: test ran (%+v), want skipped", w)
	}
	same := []float64{5, 5, 5, 5, 5, 5}
	if w := welchTest(same, same); w.Different || w.P != 1 {
		t.Errorf("identical constant series: %+v", w)
	}
	if w := welchTest(same, []float64{6, 6, 6, 6, 6, 6}); !w.Different {
		t.Errorf("different constant series: %+v", w)
	}
	if e := effN(100, 0.6); math.Abs(e-25) > 1e-9 {
		t.Errorf("effN(100, 0.6) = %v, want 25", e)
	}
	if e := effN(100, -0.5); e != 100 {
		t.Errorf("negative r1 should not inflate n: %v", e)
	}
}

func naiveWelch(a, b []float64) float64 {
	ma, va, _ := meanVarLag1(a)
	mb, vb, _ := meanVarLag1(b)
	na, nb := float64(len(a)), float64(len(b))
	sa, sb := va/na, vb/nb
	tt := (ma - mb) / math.Sqrt(sa+sb)
	df := (sa + sb) * (sa + sb) / (sa*sa/(na-1) + sb*sb/(nb-1))
	return studentTwoSided(tt, df)
}

// TestStudentQuantile inverts the published table values.
func TestStudentQuantile(t *testing.T) {
	cases := []struct{ p, df, t float64 }{
		{0.05, 10, 2.228}, {0.05, 20, 2.086}, {0.05, 1, 12.706}, {0.4, 10, 0.879}, {0.4, 1e6, 0.8416},
	}
	for _, c := range cases {
		if got := studentQuantileTwoSided(c.p, c.df); math.Abs(got-c.t) > 0.001*c.t {
			t.Errorf("t(p=%v, df=%v) = %.4f, want %.4f", c.p, c.df, got, c.t)
		}
	}
}

// TestMDECalibration: the detectable difference the test reports is met at
// the stated power. For AR(1) series like per-second throughput, the typical
// (median) MDE of equal-mean pairs is measured; pairs whose means truly
// differ by that much are then found different in about 80% of trials, and
// pairs differing by half of it far less often.
func TestMDECalibration(t *testing.T) {
	const n, mean, rho, sd, trials = 120, 10000.0, 0.6, 500.0, 1000
	rng := rand.New(rand.NewPCG(5, 6))
	mdes := make([]float64, 0, trials)
	for i := 0; i < trials; i++ {
		mdes = append(mdes, welchTest(ar1(rng, n, mean, rho, sd), ar1(rng, n, mean, rho, sd)).MDE)
	}
	sort.Float64s(mdes)
	m := mdes[trials/2]
	power := func(diff float64) float64 {
		found := 0
		for i := 0; i < trials; i++ {
			if welchTest(ar1(rng, n, mean*(1+diff), rho, sd), ar1(rng, n, mean, rho, sd)).Different {
				found++
			}
		}
		return float64(found) / trials
	}
	at, half := power(m), power(m/2)
	t.Logf("median MDE %.2f%%: found %.1f%% at the MDE, %.1f%% at half of it", 100*m, 100*at, 100*half)
	if at < 0.72 || at > 0.88 {
		t.Errorf("a true difference equal to the reported MDE (%.2f%%) was found in %.1f%% of trials, want about %.0f%%", 100*m, 100*at, 100*Power)
	}
	if half > 0.45 {
		t.Errorf("half the MDE found in %.1f%% of trials, want well below %.0f%%", 100*half, 100*Power)
	}
}

// TestRunsNeeded: the reported number of runs brings the detectable
// difference down to DetectTarget: a series k times as long (k runs back to
// back) has an MDE at or below the target in most trials, k-1 times as long
// mostly not.
func TestRunsNeeded(t *testing.T) {
	const n, mean, rho, sd, trials = 60, 10000.0, 0.6, 2000.0, 200
	rng := rand.New(rand.NewPCG(7, 8))
	ks := make([]int, 0, trials)
	for i := 0; i < trials; i++ {
		w := welchTest(ar1(rng, n, mean, rho, sd), ar1(rng, n, mean, rho, sd))
		if w.MDE <= DetectTarget || w.RunsNeeded < 2 {
			t.Fatalf("sd 20%% over 60 s: MDE %.3f, %d runs; want an inconclusive comparison", w.MDE, w.RunsNeeded)
		}
		ks = append(ks, w.RunsNeeded)
	}
	sort.Ints(ks)
	k := ks[trials/2]
	met := func(runs int) float64 {
		ok := 0
		for i := 0; i < trials; i++ {
			if welchTest(ar1(rng, runs*n, mean, rho, sd), ar1(rng, runs*n, mean, rho, sd)).MDE <= DetectTarget {
				ok++
			}
		}
		return float64(ok) / trials
	}
	atK, below := met(k), met(k-1)
	t.Logf("median runs needed %d: MDE <= %.0f%% in %.0f%% of trials with %d runs, %.0f%% with %d", k, 100*DetectTarget, 100*atK, k, 100*below, k-1)
	if atK < 0.5 {
		t.Errorf("%d runs of each side reach the target in only %.0f%% of trials", k, 100*atK)
	}
	if below > 0.5 {
		t.Errorf("%d runs (one fewer than reported) already reach the target in %.0f%% of trials", k-1, 100*below)
	}
}

func TestMDEEdges(t *testing.T) {
	same := []float64{5, 5, 5, 5, 5, 5}
	if w := welchTest(same, same); w.MDE != 0 || w.RunsNeeded != 0 {
		t.Errorf("constant series: MDE %v, runs %d; want none", w.MDE, w.RunsNeeded)
	}
	zero := []float64{0, 0, 0, 0, 0, 0}
	if w := welchTest([]float64{1, 2, 1, 2, 1, 2}, zero); w.MDE != 0 {
		t.Errorf("zero baseline: MDE %v, want none", w.MDE)
	}
	if k := runsNeeded(1e12, 1e12, 5, 5, 0, 0, 1); k != MaxRunsNeeded+1 {
		t.Errorf("hopeless noise: %d runs, want %d", k, MaxRunsNeeded+1)
	}
}
