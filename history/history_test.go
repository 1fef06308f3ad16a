package history

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/usererr"
)

func metrics(t *testing.T, s string) []analysis.Metric {
	t.Helper()
	ms, err := analysis.ParseMetrics(s)
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// Runs group by workload, target and label, in time order; the same run
// from a file and a store counts once; a step is a change point, a
// regression in the figure's own direction.
func TestBuild(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var runs []Run
	for i := range 20 {
		sus, p99 := 1000.0+float64(i%3), 5e6+float64(i%2)*1e4
		if i >= 10 {
			sus, p99 = 800+float64(i%3), 6e6+float64(i%2)*1e4
		}
		// Given newest first (prepended): Build orders by time.
		r := Run{Time: t0.Add(time.Duration(i) * time.Hour), Workload: "w", Target: "t", Label: "a", Source: "f", Values: map[string]float64{"sustained": sus, "p99": p99}}
		runs = append([]Run{r}, runs...)
		if i == 3 { // the same run read again from a store
			r.Source = "store"
			runs = append(runs, r)
		}
	}
	runs = append(runs, Run{Time: t0, Workload: "w", Target: "t", Label: "b", Values: map[string]float64{"sustained": 1}})
	h := Build(runs, Options{Metrics: metrics(t, "sustained,p99,cost")})
	if h.Runs != 21 || len(h.Series) != 3 {
		t.Fatalf("%d runs, %d series; want 21 runs, series a/sustained, a/p99, b/sustained: %+v", h.Runs, len(h.Series), h.Series)
	}
	for _, s := range h.Series[:2] {
		if s.Label != "a" || len(s.Points) != 20 || !s.Points[0].Time.Equal(t0) {
			t.Fatalf("%s: label %s, %d points from %v", s.Metric.Name, s.Label, len(s.Points), s.Points[0].Time)
		}
		if len(s.Changes) != 1 || s.Changes[0].Index != 10 || !s.Changes[0].Regression || !s.Changes[0].Time.Equal(t0.Add(10*time.Hour)) {
			t.Errorf("%s: changes %+v, want one regression at run 11", s.Metric.Name, s.Changes)
		}
	}
	if h.Series[2].Label != "b" || len(h.Series[2].Changes) != 0 {
		t.Errorf("series b: %+v", h.Series[2])
	}
	if h.Options.Window != 50 || h.Options.MaxPValue != 0.001 {
		t.Errorf("options %+v, want Otava's defaults", h.Options)
	}
}

func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	data, err := os.ReadFile("../report/testdata/graviton-write.result.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"a/run.json": string(data), "a/compare.json": `{"schema":"platbench.compare/v1"}`, "a/notes.txt": "x"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	runs, skipped, err := ReadFiles([]string{dir}, metrics(t, "sustained,write.p99,read.p99"))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(skipped) != 1 || !strings.Contains(skipped[0], "compare.json") {
		t.Fatalf("runs %+v, skipped %v; want the result and compare.json skipped", runs, skipped)
	}
	r := runs[0]
	if r.Workload != "cassandra-write" || r.Label != "m6g.4xlarge" || r.Source != filepath.Join(dir, "a/run.json") {
		t.Errorf("run %+v", r)
	}
	if _, ok := r.Values["read.p99"]; ok || r.Values["sustained"] <= 0 || r.Values["write.p99"] <= 0 {
		t.Errorf("values %v: want sustained and write.p99, no read.p99", r.Values)
	}
	// A file given by name that is not a result, or a path that is not there, is bad input.
	for _, bad := range []string{filepath.Join(dir, "a/compare.json"), filepath.Join(dir, "missing")} {
		if _, _, err := ReadFiles([]string{bad}, metrics(t, "sustained")); err == nil || !usererr.Is(err) {
			t.Errorf("%s: %v, want a user error", bad, err)
		}
	}
}

// A run read from its file (nanoseconds) and from a store (microseconds)
// is one run, with the figures of both.
func TestBuildMergesARunReadTwice(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 123456789, time.UTC)
	runs := []Run{
		{Time: at, Workload: "w", Target: "t", Label: "a", Source: "r.json", Values: map[string]float64{"p99.9": 3}},
		{Time: at.Truncate(time.Microsecond), Workload: "w", Target: "t", Label: "a", Source: "r.json", Values: map[string]float64{"p99.9": 3, "cost": 2}},
	}
	h := Build(runs, Options{Metrics: metrics(t, "p99.9,cost")})
	if h.Runs != 1 || len(h.Series) != 2 {
		t.Fatalf("%d runs, %d series: %+v", h.Runs, len(h.Series), h.Series)
	}
}

// The runs of one commit are one point: their centre (geometric mean) with
// its 95% interval and their count; change points are found on the
// centres. Three commits of three runs, the last 20% slower.
func TestBuildCommits(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var runs []Run
	for i := range 9 {
		commit := []string{"aaa", "bbb", "ccc"}[i/3]
		sus := []float64{1000, 1010, 990}[i%3]
		if commit == "ccc" {
			sus *= 0.8
		}
		runs = append(runs, Run{Time: t0.Add(time.Duration(i) * time.Minute), Workload: "w", Target: "t", Label: "ci", Commit: commit,
			Source: "f", Values: map[string]float64{"sustained": sus, "errors": 0}})
	}
	h := Build(runs, Options{Metrics: metrics(t, "sustained,errors")})
	if h.Runs != 9 || len(h.Series) != 2 {
		t.Fatalf("%d runs, %d series", h.Runs, len(h.Series))
	}
	s := h.Series[0]
	if len(s.Points) != 3 {
		t.Fatalf("%d points, want one per commit: %+v", len(s.Points), s.Points)
	}
	c, lo, hi, _ := analysis.CentreInterval([]float64{1000, 1010, 990})
	if p := s.Points[0]; p.Commit != "aaa" || p.Runs != 3 || p.Value != c || p.Low != lo || p.High != hi || !p.Time.Equal(t0) {
		t.Errorf("commit aaa: %+v, want centre %v [%v, %v] of 3 runs", p, c, lo, hi)
	}
	if p := h.Series[1].Points[2]; p.Value != 0 || p.Runs != 3 || p.Low != 0 {
		t.Errorf("errors of commit ccc: %+v, want 0 of 3 runs, no interval", p)
	}
}
