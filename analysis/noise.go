package analysis

// The distributions and the autocorrelation helpers of the comparison
// (replicates.go): Student's t, the AR(1) effective sample size.

import "math"

// MaxRunsNeeded caps the runs a comparison says would settle a verdict:
// past it the answer is "more than this".
const MaxRunsNeeded = 1000

// minSamples is the fewest per-second values a within-run standard error
// is computed from (MeanSE, QuantileSE).
const minSamples = 5

// studentQuantileTwoSided is the t > 0 with P(|T| >= t) = p for Student's t
// with df degrees of freedom, by bisection on studentTwoSided.
func studentQuantileTwoSided(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for studentTwoSided(hi, df) > p && hi < 1e12 {
		lo, hi = hi, hi*2
	}
	for i := 0; i < 100 && hi-lo > 1e-9*hi; i++ {
		mid := (lo + hi) / 2
		if studentTwoSided(mid, df) > p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

func meanVarLag1(x []float64) (mean, variance, r1 float64) {
	n := float64(len(x))
	for _, v := range x {
		mean += v
	}
	mean /= n
	var c0, c1 float64
	for i, v := range x {
		d := v - mean
		c0 += d * d
		if i > 0 {
			c1 += d * (x[i-1] - mean)
		}
	}
	variance = c0 / (n - 1)
	if c0 > 0 {
		r1 = c1 / c0
	}
	return mean, variance, r1
}

// effN is the AR(1) effective sample size, at least 2 and at most n.
func effN(n int, r1 float64) float64 {
	r1 = math.Max(0, math.Min(r1, 0.99))
	e := float64(n) * (1 - r1) / (1 + r1)
	return math.Max(2, math.Min(e, float64(n)))
}

// studentTwoSided is P(|T| >= |t|) for Student's t with df degrees of freedom.
func studentTwoSided(t, df float64) float64 {
	if math.IsNaN(t) || df <= 0 {
		return 1
	}
	x := df / (df + t*t)
	return regIncBeta(df/2, 0.5, x)
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by the
// continued fraction of Numerical Recipes (betacf) with Lentz's method.
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betacf(a, b, x) / a
	}
	return 1 - front*betacf(b, a, 1-x)/b
}

// betacf is the continued fraction of the incomplete beta function, by
// the modified Lentz method (Numerical Recipes' betacf): each iteration
// takes an even and an odd step of the fraction.
func betacf(a, b, x float64) float64 {
	const eps, tiny = 1e-14, 1e-300
	nonzero := func(v float64) float64 {
		if math.Abs(v) < tiny {
			return tiny
		}
		return v
	}
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1/nonzero(1-qab*x/qap)
	h := d
	// step applies one coefficient aa and returns the factor it puts on h.
	step := func(aa float64) float64 {
		d = 1 / nonzero(1+aa*d)
		c = nonzero(1 + aa/c)
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		m2 := 2 * fm
		h *= step(fm * (b - fm) * x / ((qam + m2) * (a + m2)))
		del := step(-(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2)))
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}
