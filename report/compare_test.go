package report

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

func TestRatioVerdict(t *testing.T) {
	cases := []struct {
		base, v float64
		better  int
		want    string
	}{
		{100, 400, +1, "better by 4.0x"}, // throughput up
		{100, 77, +1, "worse by 1.3x"},   // throughput down
		{3.7, 0.9, -1, "better by 4.1x"}, // latency down (the i3.metal table)
		{37.3, 4.6, -1, "better by 8.1x"},
		{1, 1.3, -1, "worse by 1.3x"}, // latency up
		{5, 5, -1, "same"},
		{3, 0, -1, "better (none)"},             // errors gone
		{0, 3, -1, "worse (baseline had none)"}, // errors appeared
		{100, 102, +1, "better by 1.02x"},
	}
	for _, c := range cases {
		if got := ratioVerdict(c.base, c.v, c.better).Phrase; got != c.want {
			t.Errorf("base %v, run %v, better %+d: %q, want %q", c.base, c.v, c.better, got, c.want)
		}
	}
}

func row(c *Comparison, figure string) CompareRow {
	for _, r := range c.Rows {
		if r.Figure == figure {
			return r
		}
	}
	return CompareRow{Figure: "missing " + figure}
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
	if v := sus.Cells[2]; v.Noise != "within noise" {
		t.Errorf("rerun sustained: %+v, want within noise", v)
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
