package report

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// TestVerdictPhrases: how each verdict of the analysis reads.
func TestVerdictPhrases(t *testing.T) {
	cases := []struct {
		v    analysis.Verdict
		want string
	}{
		{analysis.Verdict{Outcome: analysis.OutcomeBetter, Ratio: 4}, "better by 4.0x"},
		{analysis.Verdict{Outcome: analysis.OutcomeWorse, Ratio: 0.77}, "worse by 1.3x"},
		{analysis.Verdict{Outcome: analysis.OutcomeBetter, Ratio: 1.02}, "better by 1.02x"},
		{analysis.Verdict{Outcome: analysis.OutcomeSame, Ratio: 1}, "same"},
		{analysis.Verdict{Outcome: analysis.OutcomeBetter, Ratio: math.Inf(1)}, "better (none)"},
		{analysis.Verdict{Outcome: analysis.OutcomeWorse, BaselineZero: true}, "worse (baseline had none)"},
		{analysis.Verdict{Outcome: analysis.OutcomeNotMeasured}, "not measured"},
	}
	for _, c := range cases {
		if got := rowVerdict(c.v, 120).Phrase; got != c.want {
			t.Errorf("%+v: %q, want %q", c.v, got, c.want)
		}
	}
	v := rowVerdict(analysis.Verdict{Outcome: analysis.OutcomeBetter, Ratio: 2, Different: true, P: 0.0004}, 120)
	if verdictText(v) != "better by 2.0x, different (p<0.001)" {
		t.Errorf("verdict text %q", verdictText(v))
	}
	if v := rowVerdict(analysis.Verdict{Outcome: analysis.OutcomeWorse, Ratio: 0.5, NoTest: analysis.NoTestCount}, 120); v.Noise != "no test: count" {
		t.Errorf("noise %q", v.Noise)
	}
	// Runs the test finds alike say how small a difference they could have seen.
	for _, c := range []struct {
		v    analysis.Verdict
		want string
	}{
		{analysis.Verdict{Outcome: analysis.OutcomeBetter, Ratio: 1.01, P: 0.4, MDE: 0.021, RunsNeeded: 1},
			"better by 1.01x, same within 2.10% (p=0.400)"},
		{analysis.Verdict{Outcome: analysis.OutcomeWorse, Ratio: 0.97, P: 0.3, MDE: 0.12, RunsNeeded: 7},
			"worse by 1.03x, p=0.300, inconclusive: these runs could not see a difference smaller than 12.0%; 7 runs of 2 min each would"},
		{analysis.Verdict{Outcome: analysis.OutcomeWorse, Ratio: 0.5, P: 0.3, MDE: 3, RunsNeeded: analysis.MaxRunsNeeded + 1},
			"worse by 2.0x, p=0.300, inconclusive: these runs could not see a difference smaller than 300%; more than 1000 runs of 2 min each would"},
		{analysis.Verdict{Outcome: analysis.OutcomeSame, Ratio: 1, P: 1}, "same, within noise (p=1.000)"},
	} {
		v := rowVerdict(c.v, 120)
		if got := verdictText(v); got != c.want {
			t.Errorf("%+v:\n got %q\nwant %q", c.v, got, c.want)
		}
		if v.Detectable != c.v.MDE || v.RunsNeeded != c.v.RunsNeeded {
			t.Errorf("%+v: JSON fields %+v", c.v, v)
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

// TestCompareVerdicts: a faster platform is better and different; a rerun
// of the same platform is within noise.
func TestCompareVerdicts(t *testing.T) {
	rs := []*result.Result{analysed(t, "i3-16xlarge"), analysed(t, "i3-metal"), analysed(t, "i3-16xlarge-rerun")}
	c, err := Compare(rs, CompareOptions{Files: []string{"a.json", "b.json", "c.json"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.Runs[0].Label != "i3.16xlarge (a.json)" || c.Runs[2].Label != "i3.16xlarge (c.json)" || c.Runs[1].Label != "i3.metal" {
		t.Errorf("labels %q %q %q: runs on the same platform need their file names", c.Runs[0].Label, c.Runs[1].Label, c.Runs[2].Label)
	}
	sus := row(c, "Sustained throughput")
	if v := sus.Cells[1]; !strings.HasPrefix(v.Phrase, "better by 1.") || v.Noise != "different" {
		t.Errorf("i3.metal sustained: %+v, want better and different", v)
	}
	if v := sus.Cells[2]; v.Noise == "different" || v.Detectable <= 0 || v.RunsNeeded < 1 {
		t.Errorf("rerun sustained: %+v, want alike, with the difference it could have seen", v)
	}
	if sus.Cells[0].Phrase != "baseline" {
		t.Errorf("baseline cell %+v", sus.Cells[0])
	}
	p99 := row(c, "READ latency p99")
	if v := p99.Cells[1]; !strings.HasPrefix(v.Phrase, "better by 2.") || v.Noise != "different" {
		t.Errorf("i3.metal READ p99 (synthetic latency x0.4): %+v, want better by 2.5x and different", v)
	}
	// Ratios agree with the values in the row.
	want := row(c, "Latency p99").Values[0] / row(c, "Latency p99").Values[1]
	if got := row(c, "Latency p99").Cells[1].Ratio; fmt.Sprintf("%.6f", got) != fmt.Sprintf("%.6f", want) {
		t.Errorf("p99 ratio %v, values say %v", got, want)
	}
	if r := row(c, "Cost per million ops"); r.Cells[1].Missing || !strings.HasPrefix(r.Cells[1].Phrase, "better") {
		t.Errorf("cost per million ops: %+v", r.Cells[1])
	}
	if r := row(c, "Peak throughput (best 1 s)"); !strings.HasPrefix(r.Cells[1].Noise, "no test") {
		t.Errorf("peak is one value per run and has no test: %+v", r.Cells[1])
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
	if _, err := Compare(rs, CompareOptions{Baseline: 2, Force: true}); err == nil {
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
