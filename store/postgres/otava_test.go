package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
	"github.com/platbench/platbench/internal/otavatest"
	"github.com/platbench/platbench/internal/testenv"
)

// otavaConfig is docs/history.md's Otava configuration for the series of
// a label, given as --branch: Otava 0.8.0 fails on a query without the
// %{BRANCH} placeholder (it passes pg8000 None for the parameters).
const otavaConfig = `tests:
  platbench-ycsb-a:
    type: postgres
    time_column: time
    attributes: [label, platform, result_path]
    query: >
      SELECT time, label, platform, result_path, sustained_ops_per_s, p99_ns, error_rate
      FROM platbench_runs
      WHERE workload = 'ycsb-a' AND target = 'cql://10.0.0.1:9042' AND label = %{BRANCH} AND op = 'ALL'
      ORDER BY time
    metrics:
      sustained:
        column: sustained_ops_per_s
        direction: 1
      p99:
        column: p99_ns
        direction: -1
`

// Apache Otava reads the table itself with the documented configuration,
// and finds the change points platbench history finds in the same rows.
func TestOtavaReadsTheTable(t *testing.T) {
	dsn := testenv.URL(t, "PLATBENCH_POSTGRES_URL")
	bin := testenv.URL(t, otavatest.Env)
	label := fmt.Sprintf("otava-test-%d", time.Now().UnixNano())
	rng := rand.New(rand.NewPCG(17, 4))
	t0 := time.Date(2026, 10, 1, 3, 0, 0, 0, time.UTC)
	var rows []history.Row
	for i := range 60 {
		sus, p99 := 40000.0, 8e6
		if i >= 25 {
			sus = 34000 // a regression at run 26
		}
		if i >= 45 {
			p99 = 6e6 // an improvement at run 46
		}
		rows = append(rows, history.Row{Time: t0.Add(time.Duration(i) * 24 * time.Hour), Label: label, Platform: "i3.2xlarge",
			Target: "cql://10.0.0.1:9042", Workload: "ycsb-a", Op: history.AllOps, ResultPath: fmt.Sprintf("nightly/%02d.json", i),
			Values: map[string]float64{"sustained": sus + rng.NormFloat64()*800, "p99": p99 + rng.NormFloat64()*3e5, "errors": 0}})
	}
	ctx := context.Background()
	if err := Append(ctx, dsn, rows); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "otava.yaml")
	if err := os.WriteFile(conf, []byte(otavaConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := u.User.Password()
	cmd := exec.Command(bin, "analyze", "--config-file", conf, "--output", "json",
		"--postgres-hostname", u.Hostname(), "--postgres-port", u.Port(), "--postgres-username", u.User.Username(),
		"--postgres-password", pass, "--postgres-database", strings.TrimPrefix(u.Path, "/"), "--branch", label, "platbench-ycsb-a")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("otava: %v\n%s", err, stderr.String())
	}
	var rep map[string][]struct {
		Changes []struct {
			Metric string `json:"metric"`
			Index  int    `json:"index"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("otava's JSON: %v\n%s", err, out)
	}
	otava := map[string][]int{}
	for _, g := range rep["platbench-ycsb-a"] {
		for _, c := range g.Changes {
			otava[c.Metric] = append(otava[c.Metric], c.Index)
		}
	}
	stored, err := Rows(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := analysis.ParseMetrics("sustained,p99")
	h := history.Build(history.RunsOfRows(stored, ms), history.Options{Metrics: ms})
	seen := 0
	for _, s := range h.Series {
		if s.Label != label {
			continue
		}
		seen++
		var got []int
		for _, c := range s.Changes {
			got = append(got, c.Index)
		}
		want := map[string][]int{"sustained": {25}, "p99": {45}}[s.Metric.Name]
		if fmt.Sprint(got) != fmt.Sprint(otava[s.Metric.Name]) || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: history finds %v, Otava reading the table %v, the steps are at %v", s.Metric.Name, got, otava[s.Metric.Name], want)
		}
	}
	if seen != 2 {
		t.Errorf("%d series of the test's label, want 2", seen)
	}
}
