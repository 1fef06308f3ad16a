package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/platbench/platbench/internal/otavatest"
)

// otavaSeries are the synthetic series both detectors see: known steps,
// noise without a step, outliers, long series over several windows, small
// steps in large noise (where the significance test decides), and whole
// numbers with ties.
func otavaSeries() map[string][]float64 {
	s := map[string][]float64{
		"stepup":     steps(1, 2, 0, [2]float64{30, 100}, [2]float64{30, 130}),
		"downup":     steps(2, 1, 0, [2]float64{40, 50}, [2]float64{40, 30}, [2]float64{40, 50}),
		"noise":      steps(3, 5, 0, [2]float64{80, 1000}),
		"outliers":   steps(6, 2, 7, [2]float64{35, 200}, [2]float64{35, 180}),
		"spikes":     steps(7, 1, 11, [2]float64{60, 40}),
		"long":       steps(8, 3, 0, [2]float64{50, 100}, [2]float64{70, 90}, [2]float64{50, 120}, [2]float64{40, 115}),
		"smallstep":  steps(9, 4, 0, [2]float64{45, 100}, [2]float64{45, 103}),
		"tiny":       steps(10, 1, 0, [2]float64{4, 10}, [2]float64{4, 20}),
		"shortnoisy": steps(11, 10, 0, [2]float64{8, 100}, [2]float64{8, 110}),
		"latency":    steps(12, 0.05, 13, [2]float64{25, 1.2}, [2]float64{25, 1.5}, [2]float64{25, 1.1}),
	}
	for seed := range uint64(12) {
		s[fmt.Sprintf("random%d", seed)] = steps(100+seed, 3, int(seed%4)*5,
			[2]float64{float64(10 + seed*3), 50}, [2]float64{20, 50 + float64(seed)}, [2]float64{float64(30 - seed), 45})
	}
	// Whole numbers with ties (counts, stalls, an error rate mostly 0):
	// which of equal q̂ values wins must match too.
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range 10 {
		xs := make([]float64, 10+k*6)
		step := rng.IntN(len(xs))
		for i := range xs {
			xs[i] = float64(rng.IntN(3))
			if i >= step {
				xs[i] += float64(rng.IntN(4))
			}
		}
		s[fmt.Sprintf("ties%d", k)] = xs
	}
	// A real p99 series (ms) of runs whose service time stepped at run 7:
	// the high run 5 splits the step into weak points, and Otava's merge
	// drops them all (it re-tests only the point after a removed one).
	s["hiddenstep"] = []float64{1.773567, 1.246207, 1.456127, 1.230847, 4.567039, 2.551807, 12.853247, 11.116543, 11.124735, 10.969087, 12.222463, 11.141119}
	s["zeros"] = append(make([]float64, 30), 0, 0, 1, 0, 0, 0, 2, 1, 3, 2, 2, 4, 3, 2)
	return s
}

// TestChangePointsMatchOtava requires the change points of Apache Otava
// 0.8.0 (scripts/check-otava.sh installs it and sets PLATBENCH_OTAVA) on
// every series, with its defaults and with other settings.
func TestChangePointsMatchOtava(t *testing.T) {
	series := otavaSeries()
	for _, o := range []otavatest.Options{{}, {Window: 20, PValue: 0.01}, {PValue: 0.05, MinMagnitude: 0.05}} {
		want := otavatest.Run(t, series, o)
		opts := ChangePointOptions{Window: o.Window, MaxPValue: o.PValue, MinMagnitude: o.MinMagnitude}
		found := 0
		for name, xs := range series {
			got := ChangePoints(xs, opts)
			found += len(got)
			requireSameChanges(t, fmt.Sprintf("%s with %+v", name, o), got, want[name])
		}
		if found == 0 {
			t.Errorf("options %+v: no change point in any series: the comparison does not bite", o)
		}
	}
}

// requireSameChanges compares indexes exactly and the statistics to
// Otava's printed precision (six decimals).
func requireSameChanges(t *testing.T, what string, got []ChangePoint, want []otavatest.Change) {
	t.Helper()
	gi := indexes(got)
	wi := []int{}
	for _, c := range want {
		wi = append(wi, c.Index)
	}
	if !equalInts(gi, wi) {
		t.Errorf("%s: change points at %v, Otava finds %v", what, gi, wi)
		return
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6+1e-9*math.Abs(b) }
	for i, c := range got {
		w := want[i]
		if !near(c.MeanBefore, w.MeanBefore) || !near(c.MeanAfter, w.MeanAfter) || !near(c.PValue, w.PValue) {
			t.Errorf("%s at %d: mean %v → %v p %v; Otava %v → %v p %v", what, c.Index, c.MeanBefore, c.MeanAfter, c.PValue, w.MeanBefore, w.MeanAfter, w.PValue)
		}
	}
}
