package cstress

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Expected agrees with the mean of many random draws of Sample for every
// kind of distribution, and with the closed forms where there is one
// (fixed, uniform, a symmetric gaussian, seq).
func TestDistExpected(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range []struct {
		dist   string
		floor  int64
		closed float64 // 0: no closed form checked
	}{
		{"fixed(1000)", 1, 1000},
		{"fixed(0)", 1, 1},
		{"uniform(1..10)", 1, 5.5},
		{"uniform(30..300)", 0, 165},
		{"gaussian(100..5000)", 0, 2550},
		{"gaussian(10..200)", 0, 105},
		{"seq(1..100)", 0, 50.5},
		{"exp(1..1000)", 0, 0},
		{"extreme(1..1000,1.5)", 0, 0},
		{"~exp(1..1000)", 0, 0},
		{"gaussian(1..100,90,30)", 0, 0},
	} {
		d, err := ParseDist(c.dist)
		if err != nil {
			t.Fatal(err)
		}
		got := d.Expected(c.floor)
		const n = 400000
		var sum float64
		for i := range n {
			sum += float64(max(d.Sample(rng.Float64(), rng.Float64(), uint64(i)), c.floor))
		}
		mc := sum / n
		span := float64(d.Max-d.Min) + 1
		// A draw's standard deviation is at most span/2, so the mean of n
		// draws is within 5*span/sqrt(n) of the true mean but rarely
		// (ten standard errors); the seed is fixed, so the test cannot flake.
		if math.Abs(got-mc) > 5*span/math.Sqrt(n)+1e-9 {
			t.Errorf("%s: Expected %.3f, mean of %d draws %.3f", c.dist, got, n, mc)
		}
		if c.closed != 0 && math.Abs(got-c.closed) > 0.01*c.closed {
			t.Errorf("%s: Expected %.3f, closed form %.3f", c.dist, got, c.closed)
		}
	}
}
