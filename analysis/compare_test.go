package analysis

import (
	"errors"
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

func TestDirectionOf(t *testing.T) {
	cases := []struct {
		base, v float64
		better  int
		outcome Outcome
	}{
		{100, 400, +1, OutcomeBetter}, // throughput up
		{100, 77, +1, OutcomeWorse},   // throughput down
		{3.7, 0.9, -1, OutcomeBetter}, // latency down
		{1, 1.3, -1, OutcomeWorse},    // latency up
		{5, 5, -1, OutcomeSame},
		{3, 0, -1, OutcomeBetter}, // errors gone
		{0, 3, -1, OutcomeWorse},  // errors appeared
	}
	for _, c := range cases {
		if got := directionOf(c.base, c.v, c.better); got != c.outcome {
			t.Errorf("base %v, run %v, better %+d: %s, want %s", c.base, c.v, c.better, got, c.outcome)
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
	groups := func(n int) Grouping {
		keys := make([]RunKey, n)
		for i := range keys {
			keys[i] = RunKey{File: string(rune('a'+i)) + ".json"}
		}
		g, err := GroupRuns(keys, GroupByFile)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	if _, err := CompareGroups([]*result.Result{a, b}, groups(2), GroupOptions{}); err != nil {
		t.Fatalf("same mix in another order: %v", err)
	}
	_, err := CompareGroups([]*result.Result{a, b, c}, groups(3), GroupOptions{})
	var we *WorkloadError
	if !errors.As(err, &we) || !errors.Is(err, ErrDifferentWorkloads) || len(we.Runs) != 1 || we.Runs[0] != 2 {
		t.Fatalf("a different mix: %v", err)
	}
	cmp, err := CompareGroups([]*result.Result{a, b, c}, groups(3), GroupOptions{Force: true, Baseline: 1})
	if err != nil || len(cmp.DifferentWorkloads) != 1 || cmp.Baseline != 1 {
		t.Fatalf("forced: %v %+v", err, cmp)
	}
	for _, row := range cmp.Rows {
		if want := OutcomeBaseline; len(row.Centres) != 3 || row.Measured[1] && row.Verdicts[1].Outcome != want {
			t.Errorf("row %s %s %s: %+v", row.Figure, row.Op, row.Stat, row.Verdicts)
		}
	}
	if _, err := CompareGroups([]*result.Result{a}, groups(1), GroupOptions{}); err == nil {
		t.Error("one run compared")
	}
}
