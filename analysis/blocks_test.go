package analysis

import (
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// blocksOf names the groups whose runs all ran after (or before) the
// baseline's, and no group whose runs interleave with them, has one run,
// or lacks its times.
func TestBlocksOf(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 16, 0, 0, 0, time.UTC)
	at := func(from, to int) *result.Result {
		return &result.Result{StartedAt: t0.Add(time.Duration(from) * time.Second), EndedAt: t0.Add(time.Duration(to) * time.Second)}
	}
	rs := []*result.Result{
		at(0, 10), at(30, 40), // 0, 1: base
		at(50, 60), at(61, 70), // 2, 3: after
		at(-30, -20), at(-15, -5), // 4, 5: before
		at(11, 20), at(41, 49), // 6, 7: interleaved
		at(80, 90),       // 8: one run
		{}, at(100, 110), // 9, 10: one without times
		at(5, 15), at(45, 55), // 11, 12: overlaps the baseline's span at its start
	}
	g := Grouping{Groups: []Group{{"base", []int{0, 1}}, {"after", []int{2, 3}}, {"before", []int{4, 5}},
		{"mixed", []int{6, 7}}, {"one", []int{8}}, {"old", []int{9, 10}}, {"overlap", []int{11, 12}}}}
	got := blocksOf(rs, g, 0)
	if len(got) != 2 || got[0].Group != 1 || !got[0].After || got[1].Group != 2 || got[1].After {
		t.Fatalf("blocks %+v, want after (1) after and before (2) before", got)
	}
	if b := got[0]; !b.BaseFrom.Equal(t0) || !b.BaseTo.Equal(t0.Add(40*time.Second)) || !b.From.Equal(t0.Add(50*time.Second)) || !b.To.Equal(t0.Add(70*time.Second)) {
		t.Errorf("spans %+v", b)
	}
	// The baseline of one run has nothing to interleave with.
	if got := blocksOf(rs, g, 4); got != nil {
		t.Errorf("a baseline of one run: %+v", got)
	}
	// Regressions of a blocked group say so.
	c := &GroupComparison{Baseline: 0, Blocks: got, Rows: []GroupRow{{Figure: FigSustained, Better: +1,
		Verdicts: []GroupVerdict{{Outcome: OutcomeBaseline}, {Outcome: OutcomeWorse, Ratio: Ratio{Ratio: 0.8, Lo: 0.7, Hi: 0.9, Basis: BasisBetweenRuns, Call: Different}},
			{Outcome: OutcomeWorse, Ratio: Ratio{Ratio: 0.8, Lo: 0.7, Hi: 0.9, Basis: BasisBetweenRuns, Call: Different}},
			{Outcome: OutcomeWorse, Ratio: Ratio{Ratio: 0.8, Lo: 0.7, Hi: 0.9, Basis: BasisBetweenRuns, Call: Different}}}}}}
	regs := c.Regressions(0.05, []string{"sustained"})
	if len(regs) != 3 || !regs[0].Blocked || !regs[1].Blocked || regs[2].Blocked {
		t.Errorf("regressions %+v: want groups 1 and 2 blocked, 3 not", regs)
	}
}
