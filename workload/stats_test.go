package workload

import (
	"math"
	"testing"
)

// Goodness-of-fit helpers. Every test uses fixed seeds, so results are
// reproducible; the critical values are at significance 1e-6 so that a
// correct generator passes for any seed while a wrong one (see the negative
// controls) fails by orders of magnitude.

// chiSquareCritical is the upper 1e-6 quantile of chi-square with df degrees
// of freedom (Wilson-Hilferty; within 3% for df >= 10, on the high side).
func chiSquareCritical(df int) float64 {
	const z = 4.753 // standard normal upper 1e-6 quantile
	k := float64(df)
	h := 2 / (9 * k)
	return k * math.Pow(1-h+z*math.Sqrt(h), 3)
}

// chiSquare compares observed counts with expected probabilities (summing to
// at most 1; any remainder is one extra bin with zero observations unless
// rest is given). Bins with expected counts below 5 are merged with their
// right neighbour, as the test requires.
func chiSquare(obs []float64, p []float64, total float64) (stat float64, df int) {
	var o, e float64
	bins := 0
	for i := range obs {
		o += obs[i]
		e += p[i] * total
		if e >= 5 {
			stat += (o - e) * (o - e) / e
			o, e = 0, 0
			bins++
		}
	}
	if e > 0 {
		stat += (o - e) * (o - e) / e
		bins++
	}
	return stat, bins - 1
}

// assertFit fails t when obs does not fit p.
func assertFit(t *testing.T, what string, obs, p []float64, total float64) {
	t.Helper()
	stat, df := chiSquare(obs, p, total)
	crit := chiSquareCritical(df)
	if stat > crit {
		t.Errorf("%s: chi-square %.1f with %d df exceeds the 1e-6 critical value %.1f", what, stat, df, crit)
	} else {
		t.Logf("%s: chi-square %.1f with %d df (critical %.1f)", what, stat, df, crit)
	}
}

// grayPMF is the exact distribution of ranks produced by YCSB's
// ZipfianGenerator (Gray et al.) over n items: ranks 0 and 1 exactly as
// zipf, ranks >= 2 from the continuous approximation:
// P(r) = (((r+1)/n)^(1-theta) - (r/n)^(1-theta)) / eta.
func grayPMF(n uint64, theta, zetan float64) []float64 {
	z := newZipfian(n, theta, zetan)
	p := make([]float64, n)
	p[0] = 1 / zetan
	if n > 1 {
		p[1] = math.Pow(0.5, theta) / zetan
	}
	for r := uint64(2); r < n; r++ {
		p[r] = (math.Pow(float64(r+1)/float64(n), 1-theta) - math.Pow(float64(r)/float64(n), 1-theta)) / z.eta
	}
	return p
}

// zipfPMF is the exact zipf distribution over ranks 0..n-1.
func zipfPMF(n uint64, theta float64) []float64 {
	p := make([]float64, n)
	zn := zeta(n, theta)
	for r := range p {
		p[r] = math.Pow(float64(r+1), -theta) / zn
	}
	return p
}

func TestChiSquareCriticalKnownValues(t *testing.T) {
	// Upper 1e-6 quantiles of chi-square, from the regularised incomplete
	// gamma function (R: qchisq(1e-6, df, lower.tail=FALSE)).
	for _, c := range []struct {
		df   int
		want float64
	}{{10, 46.86}, {100, 182.13}, {999, 1226.05}, {5000, 5489.82}} {
		got := chiSquareCritical(c.df)
		if math.Abs(got-c.want)/c.want > 0.03 {
			t.Errorf("df %d: critical %.2f, want %.2f within 3%%", c.df, got, c.want)
		}
	}
}
