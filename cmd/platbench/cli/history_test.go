package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/otavatest"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/report"
)

// realRuns runs the fake target n times with latency lat1, then n times
// with lat2, into a directory; each a real platbench run and result file.
func realRuns(t *testing.T, n int, lat1, lat2 string, extra ...string) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 2 * n {
		lat := lat1
		if i >= n {
			lat = lat2
		}
		out := filepath.Join(dir, fmt.Sprintf("run%02d.json", i))
		args := append([]string{"run", "--target", "fake", "--target-opt", "latency=" + lat, "--records", "100", "--ops", "200",
			"--concurrency", "2", "--label", "ci", "--out", out, "--quiet"}, extra...)
		if code, _, stderr := run(t, args...); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
	}
	return dir
}

type historyJSON struct {
	Schema string `json:"schema"`
	Runs   int    `json:"runs"`
	Series []struct {
		Workload, Target, Label string
		Metric                  struct{ Name string }
		Points                  []struct{ Value float64 }
		Changes                 []struct {
			Index      int
			MeanBefore float64 `json:"mean_before"`
			MeanAfter  float64 `json:"mean_after"`
			PValue     float64 `json:"pvalue"`
			Regression bool
		}
	} `json:"series"`
}

func historyOf(t *testing.T, args ...string) historyJSON {
	t.Helper()
	code, stdout, stderr := run(t, append([]string{"history", "--format", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	var h historyJSON
	if err := json.Unmarshal([]byte(stdout), &h); err != nil {
		t.Fatalf("history JSON: %v\n%s", err, stdout)
	}
	return h
}

// A step in real runs (the fake target's service time ten times longer) is
// found where it happened, as a regression of throughput and latency. (A
// 5x step once went unfound on a loaded machine, whose 1 ms sleeps ran
// long: the runs before the step were as slow as some after it.)
func TestHistoryFindsAStepInRealRuns(t *testing.T) {
	defer report.SetWidth(500)() // rows read whole, whatever the terminal
	dir := realRuns(t, 6, "1ms", "10ms")
	h := historyOf(t, dir, "--figures", "sustained,p99,read.p99,errors", "--pvalue", "0.01")
	if h.Schema != "platbench.history/v1" || h.Runs != 12 {
		t.Fatalf("schema %q, %d runs; want 12", h.Schema, h.Runs)
	}
	found := map[string]bool{}
	for _, s := range h.Series {
		if s.Label != "ci" || s.Target != "fake" || len(s.Points) != 12 {
			t.Errorf("series %s: label %q target %q, %d points", s.Metric.Name, s.Label, s.Target, len(s.Points))
		}
		for _, c := range s.Changes {
			if c.Index == 6 && c.Regression {
				found[s.Metric.Name] = true
			}
		}
	}
	// Throughput (two workers over the service time) steps cleanly. A p99
	// of runs this short is noisy on a busy machine, and one high p99 just
	// before the step can hide it, in Otava as here (its merge step
	// re-tests only the point after a removed one): TestHistoryOfRealRunsMatchesOtava
	// holds the latencies to Otava's answer instead.
	if !found["sustained"] {
		t.Errorf("sustained: no regression found at run 7 of 12: %+v", h.Series)
	}
	// The text, Markdown and HTML forms name the change: the step at run 7
	// of 12, worse. (Other change points may be real too: on a loaded CI
	// machine the first runs were once 5.7% slower, p 0.006.)
	for _, f := range []string{"term", "md", "html"} {
		code, stdout, stderr := run(t, "history", dir, "--figures", "sustained", "--pvalue", "0.01", "--format", f)
		named := false
		for _, line := range strings.Split(stdout, "\n") {
			named = named || (strings.Contains(line, "7/12") && strings.Contains(line, "worse"))
		}
		if f == "html" { // the verdict in its table cell (the page's CSS names td.worse too)
			named = strings.Contains(stdout, ">7/12</td>") && strings.Contains(stdout, "<td>worse</td>")
		}
		if code != 0 || !named || !strings.Contains(stdout, "12 runs, 1 series, ") {
			t.Errorf("--format %s: exit %d %s\n%s", f, code, stderr, stdout)
		}
		if f == "html" && (!strings.Contains(stdout, `class="mark"`) || !strings.Contains(stdout, `data-series="1"`)) {
			t.Errorf("the HTML draws no series with a change point marked")
		}
	}
}

// The change points of series from real platbench results are Otava's.
func TestHistoryOfRealRunsMatchesOtava(t *testing.T) {
	testenv.URL(t, otavatest.Env)
	dir := realRuns(t, 8, "2ms", "4ms")
	h := historyOf(t, dir, "--figures", "sustained,p50,p99,read.p99,update.p99,service.p99")
	series := map[string][]float64{}
	for _, s := range h.Series {
		for _, p := range s.Points {
			k := strings.ReplaceAll(s.Metric.Name, ".", "")
			series[k] = append(series[k], p.Value)
		}
	}
	want := otavatest.Run(t, series, otavatest.Options{})
	n := 0
	for _, s := range h.Series {
		name := strings.NewReplacer(".", "").Replace(s.Metric.Name)
		var got []int
		for _, c := range s.Changes {
			got = append(got, c.Index)
		}
		var w []int
		for _, c := range want[name] {
			w = append(w, c.Index)
		}
		if fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s %v: change points %v, Otava finds %v", s.Metric.Name, series[name], got, w)
		}
		n += len(got)
	}
	if n == 0 {
		t.Error("no change point in any series of the real runs: the comparison does not bite")
	}
}

func TestHistoryBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"history"}, "history needs result files"},
		{[]string{"history", "../../../report/testdata", "--figures", "p99,bogus"}, `--figures "bogus": unknown figure`},
		{[]string{"history", "../../../report/testdata", "--figures", "read.cost"}, "cost is a figure of the whole run"},
		{[]string{"history", "../../../report/testdata", "--window", "1"}, "--window 1 is too short"},
		{[]string{"history", "../../../report/testdata", "--pvalue", "2"}, "--pvalue 2 is not a probability"},
		{[]string{"history", "../../../report/testdata", "--store", "mysql://db/x"}, `--store "mysql://db/x" is not a PostgreSQL URL`},
		{[]string{"history", "no-such-dir"}, "no-such-dir"},
		{[]string{"run", "--target", "fake", "--store", "http://x"}, "is not a PostgreSQL URL"},
	} {
		code, _, stderr := run(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A store that is down: the result file is written, the run exits 1 and
// says its rows were not stored.
func TestRunStoreDown(t *testing.T) {
	code, _, stderr, out := runFake(t, "run", "--store", "postgres://platbench@127.0.0.1:1/platbench?sslmode=disable&connect_timeout=2")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	if _, err := os.Stat(out); err != nil {
		t.Errorf("the result file was not written: %v", err)
	}
	if !strings.Contains(stderr, "rows were not stored in --store (the result file "+out+" was written)") {
		t.Errorf("stderr %q does not say the row was not stored", stderr)
	}
}

// run --store appends rows to a real PostgreSQL; history --store reads them.
func TestRunStoreAndHistoryFromStore(t *testing.T) {
	url := testenv.URL(t, "PLATBENCH_POSTGRES_URL")
	label := fmt.Sprintf("store-test-%d", os.Getpid())
	var files []string
	for range 3 {
		code, _, stderr, out := runFake(t, "run", "--label", label, "--store", url)
		if code != 0 {
			t.Fatalf("run --store: exit %d: %s", code, stderr)
		}
		files = append(files, out)
	}
	// From the store alone, and from the store and the files: each run once.
	for _, args := range [][]string{{"--store", url}, append([]string{"--store", url}, files...)} {
		h := historyOf(t, append(args, "--figures", "sustained,*.p99")...)
		var names []string
		for _, s := range h.Series {
			if s.Label == label {
				names = append(names, s.Metric.Name)
				if len(s.Points) != 3 {
					t.Errorf("%d args: %s: %d points, want 3", len(args), s.Metric.Name, len(s.Points))
				}
			}
		}
		if fmt.Sprint(names) != "[sustained read.p99 update.p99]" {
			t.Errorf("series of label %s: %v, want sustained and the p99 of each op type", label, names)
		}
	}
}

// suite --store and sweep --store: every cell's rows, and a sweep's; a
// suite whose store is down still writes its results and exits 1.
func TestSuiteAndSweepStore(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yml := "name: st\nops: 2000\nconcurrency: 2\nrecords: [300]\ntargets: [{url: 'null'}]\nworkloads: [ds-100r, ds-50-50]\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	down := "postgres://platbench@127.0.0.1:1/platbench?sslmode=disable&connect_timeout=2"
	code, _, stderr := run(t, "suite", "--quiet", "--out", filepath.Join(dir, "down"), "--store", down, file)
	if code != exitFailed || !strings.Contains(stderr, "rows were not stored in --store") {
		t.Errorf("suite with a store down: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "down", "summary.md")); err != nil {
		t.Errorf("the suite's results were not written: %v", err)
	}
	url := testenv.URL(t, "PLATBENCH_POSTGRES_URL")
	label := fmt.Sprintf("suite-test-%d", os.Getpid())
	if code, _, stderr := run(t, "suite", "--quiet", "--out", filepath.Join(dir, "up"), "--store", url, file); code != 0 {
		t.Fatalf("suite --store: exit %d: %s", code, stderr)
	}
	if code, _, stderr, _ := runFake(t, "sweep", "--rates", "500,1k", "--step", "2s", "--label", label, "--store", url); code != 0 {
		t.Fatalf("sweep --store: exit %d: %s", code, stderr)
	}
	h := historyOf(t, "--store", url, "--figures", "sustained")
	workloads := map[string]bool{}
	for _, s := range h.Series {
		if s.Target == "null" || s.Label == label {
			workloads[s.Workload] = true
		}
	}
	for _, w := range []string{"ds-100r", "ds-50-50", "ycsb-a"} {
		if !workloads[w] {
			t.Errorf("no stored series of %s (the suite's cells and the sweep): %v", w, workloads)
		}
	}
}
