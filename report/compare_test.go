package report

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// TestChangeCell: how each verdict of the analysis reads in its short cell.
func TestChangeCell(t *testing.T) {
	iv := func(r, lo, hi float64, call analysis.Call, basis analysis.Basis, out analysis.Outcome) analysis.GroupVerdict {
		return analysis.GroupVerdict{Outcome: out, Ratio: analysis.Ratio{Ratio: r, Lo: lo, Hi: hi, Call: call, Basis: basis}}
	}
	cases := []struct {
		v    analysis.GroupVerdict
		want string
	}{
		{iv(1.021, 0.996, 1.047, analysis.Same, analysis.BasisBetweenRuns, analysis.OutcomeBetter), "+2.1% [-0.4, +4.7] same"},
		{iv(0.77, 0.70, 0.85, analysis.Different, analysis.BasisBetweenRuns, analysis.OutcomeWorse), "-23% [-30, -15] worse"},
		{iv(1.01, 0.95, 1.08, analysis.Inconclusive, analysis.BasisOneSide, analysis.OutcomeBetter), "+1.0% [-5.0, +8.0] inconcl."},
		{iv(1.05, 1.03, 1.07, analysis.Different, analysis.BasisWithinRun, analysis.OutcomeWorse), "+5.0% [+3.0, +7.0] worse*"},
		{iv(4, 3.8, 4.2, analysis.Different, analysis.BasisBetweenRuns, analysis.OutcomeBetter), "+300% [+280, +320] better"},
		{analysis.GroupVerdict{Outcome: analysis.OutcomeWorse, Ratio: analysis.Ratio{Ratio: 1.5}, NoTest: analysis.NoTestCount}, "+50% (no test)"},
		{analysis.GroupVerdict{Outcome: analysis.OutcomeWorse, Ratio: analysis.Ratio{Ratio: math.Inf(1)}}, "worse (baseline had none)"},
		{analysis.GroupVerdict{Outcome: analysis.OutcomeBaseline}, "baseline"},
		{analysis.GroupVerdict{Outcome: analysis.OutcomeNotMeasured}, "-"},
	}
	for _, c := range cases {
		if got := changeCell(c.v); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.v, got, c.want)
		}
	}
}

func row(c *analysis.CompareModel, figure string) analysis.CompareModelRow {
	for _, r := range c.Rows {
		if r.Figure == figure {
			return r
		}
	}
	return analysis.CompareModelRow{Figure: "missing " + figure}
}

// TestCompareVerdicts: two runs of i3.16xlarge are one group, against one
// run of i3.metal, whose single run is judged by the other side's spread
// between runs; ratios agree with the group centres.
func TestCompareVerdicts(t *testing.T) {
	rs := []*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-metal"), analysed(t, "i3-16xlarge-rerun")}
	c, err := Compare(rs, CompareOptions{Files: []string{"a.json", "b.json", "c.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 2 || c.Groups[0].Name != "i3.16xlarge" || len(c.Groups[0].Runs) != 2 || c.Groups[1].Name != "i3.metal" {
		t.Fatalf("groups %+v, want i3.16xlarge (2 runs) and i3.metal", c.Groups)
	}
	if !strings.Contains(c.Grouping, "by label") {
		t.Errorf("grouping %q", c.Grouping)
	}
	sus := row(c, "Sustained throughput")
	if v := sus.Cells[1]; v.Basis != analysis.BasisOneSide || v.Phrase != "better" || v.Low <= 0 || v.High < v.Low {
		t.Errorf("i3.metal sustained: %+v, want better on one side's spread", v)
	}
	if sus.Cells[0].Phrase != "baseline" || sus.Cells[0].Text != "baseline" {
		t.Errorf("baseline cell %+v", sus.Cells[0])
	}
	p99 := row(c, "Latency p99")
	if want, got := p99.Values[1]/p99.Values[0], p99.Cells[1].Ratio; math.Abs(got-want) > 1e-9 {
		t.Errorf("p99 ratio %v, centres say %v", got, want)
	}
	if len(p99.RunValues[0]) != 2 || len(p99.RunValues[1]) != 1 {
		t.Errorf("run values %v", p99.RunValues)
	}
	if r := row(c, "Errors"); r.Cells[1].NoTest != analysis.NoTestCount {
		t.Errorf("errors are counts, no interval: %+v", r.Cells[1])
	}
}

// TestCompareSingleRuns: one run on each side says that run-to-run noise
// is unknown and how many runs would settle it.
func TestCompareSingleRuns(t *testing.T) {
	rs := []*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-16xlarge-rerun")}
	c, err := Compare(rs, CompareOptions{Files: []string{"a.json", "b.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(c.Grouping, "by file") {
		t.Errorf("the same platform twice, no labels: grouped %q, want by file", c.Grouping)
	}
	v := row(c, "Sustained throughput").Cells[1]
	if v.Basis != analysis.BasisWithinRun || !v.AtLeast || v.RunsNeeded < 3 || !strings.HasSuffix(v.Text, withinMark) {
		t.Errorf("single runs: %+v", v)
	}
	notes := strings.Join(c.Notes, "\n")
	for _, want := range []string{"run-to-run noise is unknown", "within-run noise only", "at least"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes do not say %q:\n%s", want, notes)
		}
	}
	// A spread supplied changes the basis.
	c, err = Compare(rs, CompareOptions{Files: []string{"a.json", "b.json"}, RunSpread: 0.03})
	if err != nil {
		t.Fatal(err)
	}
	if v := row(c, "Sustained throughput").Cells[1]; v.Basis != analysis.BasisSupplied || c.RunSpread <= 0 {
		t.Errorf("spread supplied: %+v", v)
	}
}

func TestCompareRefusesOtherWorkloads(t *testing.T) {
	rs := []*result.Result{loadFixture(t, "i3-16xlarge"), loadFixture(t, "graviton-write")}
	_, err := Compare(rs, CompareOptions{Files: []string{"a.json", "g.json"}})
	if !errors.Is(err, ErrDifferentWorkloads) || !strings.Contains(err.Error(), `g.json ran "cassandra-write" (WRITE 100%)`) {
		t.Fatalf("err = %v", err)
	}
	c, err := Compare(rs, CompareOptions{Force: true})
	if err != nil || len(c.Warnings) == 0 {
		t.Fatalf("--force: %v, warnings %v", err, c.Warnings)
	}
	// The WRITE op exists only in the second run: not measured in the first.
	if r := row(c, "WRITE latency p99"); !r.Cells[0].Missing || r.Text[0] != "-" {
		t.Errorf("WRITE in a run without it: %+v", r)
	}
	if _, err := Compare(rs[:1], CompareOptions{}); err == nil {
		t.Error("one run compared")
	}
	if _, err := Compare(rs, CompareOptions{Baseline: "3", Force: true}); err == nil {
		t.Error("baseline out of range accepted")
	}
}

// TestCompareSameMixOtherOrder: the mix order does not make another workload;
// a different dataset size is compared with a warning.
func TestCompareSameMixOtherOrder(t *testing.T) {
	a, b := loadFixture(t, "i3-16xlarge"), loadFixture(t, "i3-metal")
	m := b.Config.Workload.Mix
	b.Config.Workload.Mix = append(m[1:len(m):len(m)], m[0])
	b.Dataset.Records *= 100
	b.Dataset.LogicalBytes *= 100
	c, err := Compare([]*result.Result{a, b}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "Dataset sizes differ") {
		t.Errorf("warnings %q", c.Warnings)
	}
}

// The server nodes' figures stand beside the client's as context: a row per
// cluster figure when a run has node series, "not measured" for a run
// without, and no verdict.
func TestCompareServerNodeRows(t *testing.T) {
	a, b := analysed(t, "i3-16xlarge"), analysed(t, "i3-metal")
	busy := func(idle float64) []result.NodeSample {
		return []result.NodeSample{{DurationNs: 1e9, CPUUser: 1 - idle, CPUIdle: idle}, {OffsetNs: 1e9, DurationNs: 1e9, CPUUser: 1 - idle, CPUIdle: idle}}
	}
	b.Nodes = []result.NodeSeries{{Node: "db1:9100", IntervalNs: 1e9, Samples: busy(0.6)}, {Node: "db2:9100", IntervalNs: 1e9, Samples: busy(0.2)}}
	c, err := Compare([]*result.Result{a, b}, CompareOptions{Files: []string{"a.json", "b.json"}})
	if err != nil {
		t.Fatal(err)
	}
	n := row(c, "Server nodes")
	if n.Cells[0].Missing != true || n.Values[1] != 2 || n.Cells[1].Phrase != "no baseline value" {
		t.Errorf("server nodes row %+v", n)
	}
	if r := row(c, "Server CPU busy (busiest node)"); math.Abs(r.Values[1]-0.8) > 1e-9 {
		t.Errorf("busiest node busy %v, want 0.8", r.Values[1])
	}
	if r := row(c, "Server CPU busy (mean of nodes)"); math.Abs(r.Values[1]-0.6) > 1e-9 {
		t.Errorf("mean busy %v, want 0.6", r.Values[1])
	}
	// Without node series in any run, no such rows.
	c, err = Compare([]*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-metal")}, CompareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range c.Rows {
		if strings.HasPrefix(r.Figure, "Server nodes") {
			t.Errorf("a server-node row without node series: %s", r.Figure)
		}
	}
}
