package analysis

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// groupRun is a synthetic run: 60 s of throughput around level (its own
// run-level offset included by the caller) and a latency histogram whose
// values scale with lat, with per-second summaries.
func groupRun(seed uint64, level, lat float64) *result.Result {
	rng := rand.New(rand.NewPCG(seed, 7))
	const n = 60
	ys := make([]float64, n)
	e := 0.0
	for i := range ys {
		e = 0.7*e + math.Sqrt(1-0.49)*0.03*rng.NormFloat64()
		ys[i] = level * math.Exp(e)
	}
	p := phaseOf(map[string][]float64{"READ": ys}, "READ")
	h := result.NewHist()
	for i := range p.Intervals {
		ih := result.NewHist()
		for k := 0; k < 200; k++ {
			v := int64(lat * 1000 * math.Exp(0.5*rng.NormFloat64()))
			_ = ih.RecordValue(v)
			_ = h.RecordValue(v)
		}
		p.Intervals[i].Ops[0].Latency = result.Summarize(ih)
	}
	p.Ops[0].Hist = result.EncodeHist(h)
	p.Ops[0].Latency = result.Summarize(h)
	r := resultOf(p)
	r.Config.Workload.Name = "w"
	return r
}

// TestCompareGroups: three runs per group; a group 20% faster is called
// different with an interval above 1, a group of the same setup is not
// called different, and a comparison of single runs says its basis.
func TestCompareGroups(t *testing.T) {
	var rs []*result.Result
	var keys []RunKey
	add := func(label string, level, lat float64) {
		i := len(rs)
		off := 1 + 0.01*float64(i%3-1) // a run-level offset of +-1%
		rs = append(rs, groupRun(uint64(i+1), level*off, lat))
		keys = append(keys, RunKey{Label: label})
	}
	for range 3 {
		add("a", 10000, 100)
		add("same", 10000, 100)
		add("fast", 12000, 80)
	}
	g, err := GroupRuns(keys, GroupByLabel)
	if err != nil {
		t.Fatal(err)
	}
	c, err := CompareGroups(rs, g, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 3 || len(c.Groups[0].Runs) != 3 {
		t.Fatalf("groups %+v", c.Groups)
	}
	for _, row := range c.Rows {
		if row.Figure != FigSustained && !(row.Figure == FigLatency && row.Stat == "p99") {
			continue
		}
		same, fast := row.Verdicts[1], row.Verdicts[2]
		t.Logf("%s %s: same %.4f [%.4f, %.4f] %s; fast %.4f [%.4f, %.4f] %s", row.Figure, row.Stat,
			same.Ratio.Ratio, same.Lo, same.Hi, same.Call, fast.Ratio.Ratio, fast.Lo, fast.Hi, fast.Call)
		if same.Call == Different || same.Basis != BasisBetweenRuns {
			t.Errorf("%s %s: the same setup called %s on %s", row.Figure, row.Stat, same.Call, same.Basis)
		}
		if fast.Call != Different || fast.Outcome != OutcomeBetter || (fast.Lo-1)*(fast.Hi-1) <= 0 {
			t.Errorf("%s %s: a 20%% faster group: %s %s [%.3f, %.3f]", row.Figure, row.Stat, fast.Outcome, fast.Call, fast.Lo, fast.Hi)
		}
	}
	// One run of each: the within-run basis, and how many runs would settle it.
	g1, _ := GroupRuns([]RunKey{{Label: "a"}, {Label: "b"}}, GroupByLabel)
	c1, err := CompareGroups([]*result.Result{rs[0], rs[1]}, g1, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range c1.Rows {
		v := row.Verdicts[1]
		if row.Figure == FigSustained && (v.Basis != BasisWithinRun || !v.AtLeast || v.RunsNeeded < 3) {
			t.Errorf("single runs: %+v", v)
		}
		if row.Figure == FigPeak && v.NoTest != NoTestNoWithin {
			t.Errorf("single runs, peak: %q, want no test (%s)", v.NoTest, NoTestNoWithin)
		}
	}
	// A supplied A/A set gives each figure its spread.
	cs, err := CompareGroups([]*result.Result{rs[0], rs[1]}, g1, GroupOptions{SpreadRuns: []*result.Result{rs[0], rs[3], rs[6]}})
	if err != nil {
		t.Fatal(err)
	}
	if v := cs.Rows[0].Verdicts[1]; v.Basis != BasisSupplied || v.DF != 2 {
		t.Errorf("spread from runs: %+v", v)
	}
}

// TestSpreadFromCommits: a history's runs of one commit are a group
// (CommitGroups: runs without a commit, and a commit run once, are left
// out), and the between-run spread of each figure is pooled over the
// groups: each commit's squared deviations from its own mean, over
// n-1 degrees of freedom summed, so a change between commits (here 40%)
// is not counted as noise.
func TestSpreadFromCommits(t *testing.T) {
	run := func(seed uint64, level float64, commit string) *result.Result {
		r := groupRun(seed, level, 100)
		r.Commit = commit
		return r
	}
	hist := []*result.Result{
		run(11, 10000*1.01, "c1"), run(12, 14000*0.99, "c2"), run(13, 10000*0.98, "c1"),
		run(14, 10000, ""), run(15, 14000*1.02, "c2"), run(16, 10000*1.02, "c1"), run(17, 9000, "c3"),
	}
	groups := CommitGroups(hist)
	if len(groups) != 2 || len(groups[0]) != 3 || len(groups[1]) != 2 || groups[0][1] != hist[2] || groups[1][1] != hist[4] {
		t.Fatalf("commit groups: %d groups, want c1's 3 runs and c2's 2", len(groups))
	}
	// By hand: the logs of each run's sustained throughput, each group's
	// sum of squared deviations, pooled.
	var ss, all []float64
	for _, g := range groups {
		var ls []float64
		for _, r := range g {
			f, err := FiguresOf(r)
			if err != nil {
				t.Fatal(err)
			}
			ls = append(ls, math.Log(f.Analysis.Steady.SustainedOpsPerS))
		}
		m := 0.0
		for _, l := range ls {
			m += l / float64(len(ls))
		}
		for _, l := range ls {
			ss = append(ss, (l-m)*(l-m))
		}
		all = append(all, ls...)
	}
	want := math.Sqrt((ss[0] + ss[1] + ss[2] + ss[3] + ss[4]) / 3)
	spreads, err := spreadOf(groups)
	if err != nil {
		t.Fatal(err)
	}
	sp := spreads[rowKey(GroupRow{Figure: FigSustained})]
	if sp == nil || math.Abs(sp.SD-want) > 1e-12 || sp.DF != 3 {
		t.Fatalf("sustained spread %+v, want SD %.6f on 3 df", sp, want)
	}
	lumped := 0.0
	for _, l := range all {
		m := (all[0] + all[1] + all[2] + all[3] + all[4]) / 5
		lumped += (l - m) * (l - m) / 4
	}
	if sp.SD > 0.05 || math.Sqrt(lumped) < 0.1 {
		t.Errorf("pooled SD %.4f, all five runs lumped %.4f: the change between commits leaked into the spread", sp.SD, math.Sqrt(lumped))
	}
	// Compared single runs take it, on its degrees of freedom.
	g1, _ := GroupRuns([]RunKey{{Label: "a"}, {Label: "b"}}, GroupByLabel)
	c, err := CompareGroups([]*result.Result{run(21, 10000, ""), run(22, 10000, "")}, g1, GroupOptions{SpreadGroups: groups})
	if err != nil {
		t.Fatal(err)
	}
	if v := c.Rows[0].Verdicts[1]; c.Rows[0].Figure != FigSustained || v.Basis != BasisSupplied || v.DF != 3 || c.SpreadFrom != 5 || c.SpreadGroups != 2 {
		t.Errorf("single runs with a history's spread: %s %+v, from %d runs in %d groups", c.Rows[0].Figure, v, c.SpreadFrom, c.SpreadGroups)
	}
	// Groups that repeat nothing cannot give a spread.
	_, err = CompareGroups([]*result.Result{run(21, 10000, ""), run(22, 10000, "")}, g1, GroupOptions{SpreadGroups: [][]*result.Result{{hist[3]}, {hist[6]}}})
	if err == nil || !strings.Contains(err.Error(), "no setup run twice") {
		t.Errorf("groups of one run each: %v", err)
	}
}

// TestGroupRegressions: --fail-if-worse judges by the groups' intervals:
// a group 20% slower fires at 5%, the same setup does not.
func TestGroupRegressions(t *testing.T) {
	var rs []*result.Result
	var keys []RunKey
	for i := range 6 {
		lbl, lat, level := "base", 100.0, 10000.0
		switch i % 3 {
		case 1:
			lbl = "same"
		case 2:
			lbl, lat, level = "slow", 120, 8300
		}
		rs = append(rs, groupRun(uint64(100+i), level*(1+0.01*float64(i%2)), lat))
		keys = append(keys, RunKey{Label: lbl})
	}
	g, _ := GroupRuns(keys, GroupByLabel)
	c, err := CompareGroups(rs, g, GroupOptions{})
	if err != nil {
		t.Fatal(err)
	}
	regs := c.Regressions(0.05, DefaultRegressionFigures)
	got := map[string]bool{}
	for _, r := range regs {
		got[g.Groups[r.Group].Name+" "+r.Figure] = true
		if r.Worse <= 0.05 {
			t.Errorf("%+v: not worse by more than the limit", r)
		}
	}
	if !got["slow sustained"] || !got["slow p99"] || len(regs) != 2 {
		t.Errorf("regressions %v, want slow's sustained and p99 only", got)
	}
}
