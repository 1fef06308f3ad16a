package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
)

// steps is a series of segments of n points around each mean, with
// Gaussian noise of sd and, when outliers > 0, every outliers-th point
// moved by 6 sd.
func steps(seed uint64, sd float64, outliers int, segs ...[2]float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 17))
	var xs []float64
	for _, s := range segs {
		for range int(s[0]) {
			x := s[1] + rng.NormFloat64()*sd
			if outliers > 0 && len(xs)%outliers == outliers-1 {
				x += 6 * sd
			}
			xs = append(xs, x)
		}
	}
	return xs
}

func indexes(cps []ChangePoint) []int {
	out := []int{}
	for _, c := range cps {
		out = append(out, c.Index)
	}
	return out
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestChangePointsFindKnownSteps(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want []int
	}{
		{"one step up", steps(21, 1, 0, [2]float64{30, 100}, [2]float64{30, 130}), []int{30}},
		{"step down then up", steps(2, 1, 0, [2]float64{40, 50}, [2]float64{40, 30}, [2]float64{40, 50}), []int{40, 80}},
		{"noise only", steps(3, 5, 0, [2]float64{80, 1000}), []int{}},
		{"constant", steps(4, 0, 0, [2]float64{20, 7}), []int{}},
		{"too short", []float64{1, 9}, []int{}},
		{"empty", nil, []int{}},
	} {
		got := indexes(ChangePoints(c.xs, ChangePointOptions{}))
		if !equalInts(got, c.want) {
			t.Errorf("%s: change points at %v, want %v", c.name, got, c.want)
		}
	}
}

func TestChangePointStatistics(t *testing.T) {
	xs := []float64{10, 11, 9, 10, 10, 11, 9, 10, 20, 21, 19, 20, 20, 21, 19, 20}
	cps := ChangePoints(xs, ChangePointOptions{MaxPValue: 0.01})
	if len(cps) != 1 || cps[0].Index != 8 {
		t.Fatalf("change points %+v, want one at 8", cps)
	}
	c := cps[0]
	if c.MeanBefore != 10 || c.MeanAfter != 20 || math.Abs(c.RelChange()-1) > 1e-12 {
		t.Errorf("means %v → %v, change %v; want 10 → 20, +100%%", c.MeanBefore, c.MeanAfter, c.RelChange())
	}
	if want := math.Sqrt(0.5); math.Abs(c.StdBefore-want) > 1e-12 {
		t.Errorf("std before %v, want the population std %v", c.StdBefore, want)
	}
	if !(c.PValue < 1e-10) {
		t.Errorf("p-value %v, want tiny", c.PValue)
	}
}

func TestChangePointsMinMagnitude(t *testing.T) {
	xs := steps(5, 0.5, 0, [2]float64{30, 100}, [2]float64{30, 103})
	if got := indexes(ChangePoints(xs, ChangePointOptions{})); !equalInts(got, []int{30}) {
		t.Fatalf("a 3%% step: %v, want [30]", got)
	}
	if got := indexes(ChangePoints(xs, ChangePointOptions{MinMagnitude: 0.05})); len(got) != 0 {
		t.Errorf("a 3%% step with a 5%% minimum change: %v, want none", got)
	}
}

func TestTTestTwoPoints(t *testing.T) {
	if c := tTestAt([]float64{1}, []float64{5}, 1); c.PValue != 1 {
		t.Errorf("two points: p %v, want 1 as Otava", c.PValue)
	}
	if c := tTestAt([]float64{3, 3}, []float64{3, 3}, 2); !math.IsNaN(c.PValue) {
		t.Errorf("equal constants: p %v, want NaN as Otava (0/0)", c.PValue)
	}
	if c := tTestAt([]float64{3, 3}, []float64{4, 4}, 2); c.PValue != 0 {
		t.Errorf("different constants: p %v, want 0", c.PValue)
	}
}

// At p 0.01 Otava's merge hides this step (otavaSeries' "hiddenstep"); at
// its default 0.001 the first pass is strict enough to keep it.
func TestHiddenStep(t *testing.T) {
	xs := []float64{1.77, 1.25, 1.46, 1.23, 4.57, 2.55, 12.85, 11.12, 11.12, 10.97, 12.22, 11.14}
	if got := indexes(ChangePoints(xs, ChangePointOptions{MaxPValue: 0.01})); len(got) != 0 {
		t.Errorf("p 0.01: %v, want none as Otava", got)
	}
	if got := indexes(ChangePoints(xs, ChangePointOptions{})); !equalInts(got, []int{6}) {
		t.Errorf("p 0.001: %v, want [6] as Otava", got)
	}
}
