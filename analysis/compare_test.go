package analysis

import (
	"errors"
	"math"
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

func TestRatioVerdict(t *testing.T) {
	cases := []struct {
		base, v float64
		better  int
		outcome Outcome
		ratio   float64
	}{
		{100, 400, +1, OutcomeBetter, 4},         // throughput up
		{100, 77, +1, OutcomeWorse, 0.77},        // throughput down
		{3.7, 0.9, -1, OutcomeBetter, 3.7 / 0.9}, // latency down
		{1, 1.3, -1, OutcomeWorse, 1 / 1.3},      // latency up
		{5, 5, -1, OutcomeSame, 1},
		{3, 0, -1, OutcomeBetter, math.Inf(1)}, // errors gone
		{0, 3, -1, OutcomeWorse, 0},            // errors appeared
	}
	for _, c := range cases {
		v := ratioVerdict(c.base, c.v, c.better)
		if v.Outcome != c.outcome || math.Abs(v.Ratio-c.ratio) > 1e-9 && !math.IsInf(c.ratio, 1) || math.IsInf(c.ratio, 1) != math.IsInf(v.Ratio, 1) {
			t.Errorf("base %v, run %v, better %+d: %+v, want %s x%v", c.base, c.v, c.better, v, c.outcome, c.ratio)
		}
		if v.BaselineZero != (c.base == 0) {
			t.Errorf("base %v: BaselineZero %v", c.base, v.BaselineZero)
		}
	}
}

// TestCompareWorkloads: the mix order does not make another workload; a
// different mix is refused unless forced, and the runs that differ are named.
func TestCompareWorkloads(t *testing.T) {
	p := phaseOf(map[string][]float64{"READ": noisy(1, 30, 1000, 0.02), "UPDATE": noisy(2, 30, 1000, 0.02)}, "READ", "UPDATE")
	mk := func(mix ...vocab.Mix) *result.Result {
		r := resultOf(p)
		r.Config.Workload.Name = "ycsb-a"
		r.Config.Workload.Mix = mix
		return r
	}
	a := mk(vocab.Mix{Op: vocab.OpRead, Weight: 1}, vocab.Mix{Op: vocab.OpUpdate, Weight: 1})
	b := mk(vocab.Mix{Op: vocab.OpUpdate, Weight: 50}, vocab.Mix{Op: vocab.OpRead, Weight: 50})
	c := mk(vocab.Mix{Op: vocab.OpRead, Weight: 95}, vocab.Mix{Op: vocab.OpUpdate, Weight: 5})
	if _, err := Compare([]*result.Result{a, b}, CompareOptions{}); err != nil {
		t.Fatalf("same mix in another order: %v", err)
	}
	_, err := Compare([]*result.Result{a, b, c}, CompareOptions{})
	var we *WorkloadError
	if !errors.As(err, &we) || !errors.Is(err, ErrDifferentWorkloads) || len(we.Runs) != 1 || we.Runs[0] != 2 {
		t.Fatalf("a different mix: %v", err)
	}
	cmp, err := Compare([]*result.Result{a, b, c}, CompareOptions{Force: true, Baseline: 1})
	if err != nil || len(cmp.DifferentWorkloads) != 1 || cmp.Baseline != 1 {
		t.Fatalf("forced: %v %+v", err, cmp)
	}
	for _, row := range cmp.Rows {
		if want := OutcomeBaseline; len(row.Values) != 3 || row.Measured[1] && row.Verdicts[1].Outcome != want {
			t.Errorf("row %s %s %s: %+v", row.Figure, row.Op, row.Stat, row.Verdicts)
		}
	}
	if _, err := Compare([]*result.Result{a}, CompareOptions{}); err == nil {
		t.Error("one run compared")
	}
}
