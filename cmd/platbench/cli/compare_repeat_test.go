package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
)

// compareJSON runs compare with args and returns its JSON and exit status.
type compareCell struct {
	Phrase, Verdict, Basis, Text string
	Ratio                        float64
	RatioLow                     float64 `json:"ratio_low"`
	RatioHigh                    float64 `json:"ratio_high"`
}

type compareOut struct {
	Grouping string
	Warnings []string
	Groups   []struct {
		Name string
		Runs []int
	}
	Rows []struct {
		Figure   string
		Verdicts []compareCell
	}
}

func compareJSON(t *testing.T, args ...string) (compareOut, int, string) {
	t.Helper()
	code, out, errs := run(t, append([]string{"compare", "--format", "json"}, args...)...)
	var c compareOut
	if code != 2 {
		if err := json.Unmarshal([]byte(out), &c); err != nil {
			t.Fatalf("compare %v: exit %d, %v: %s", args, code, err, errs)
		}
	}
	return c, code, errs
}

// cellOf is group 1's cell of figure against group 0.
func cellOf(t *testing.T, c compareOut, figure string) compareCell {
	t.Helper()
	for _, r := range c.Rows {
		if r.Figure == figure {
			v := r.Verdicts[1]
			t.Logf("%s: %s (ratio %.4f [%.4f, %.4f], %s)", figure, v.Text, v.Ratio, v.RatioLow, v.RatioHigh, v.Basis)
			return v
		}
	}
	t.Fatalf("no row %q", figure)
	return compareCell{}
}

// repeatRuns runs `run --repeat n` of one setup into dir with label and
// returns the files, as a user would.
func repeatRuns(t *testing.T, dir, label, target string, n int, extra ...string) []string {
	t.Helper()
	out := filepath.Join(dir, label+".json")
	args := append([]string{"run", "--target", target, "--records", "200", "--duration", "1s", "--warmup", "0",
		"--concurrency", "4", "--label", label, "--repeat", fmt.Sprint(n), "--out", out, "--quiet"}, extra...)
	code, stdout, stderr := run(t, args...)
	if code != 0 {
		t.Fatalf("run --repeat: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(dir, label+".r*.json"))
	if len(files) != n || !strings.Contains(stdout, fmt.Sprintf("%d runs: ", n)) {
		t.Fatalf("run --repeat %d wrote %v; stdout %q", n, files, stdout[max(0, len(stdout)-300):])
	}
	return files
}

// interleavedRuns runs the setups (label: fake URL) as a user compares
// alternatives: a suite with repeat: n, n rounds each running every setup
// once in a fresh random order, and returns each label's files.
func interleavedRuns(t *testing.T, dir string, n int, setups [][2]string) map[string][]string {
	t.Helper()
	var y strings.Builder
	fmt.Fprintf(&y, "duration: 1s\nwarmup: \"0\"\nconcurrency: 4\nrecords: [200]\nrepeat: %d\nseed: 7\nworkloads: [ycsb-a]\ntargets:\n", n)
	for _, s := range setups {
		fmt.Fprintf(&y, "  - {url: %q, name: %s, label: %s}\n", s[1], s[0], s[0])
	}
	file := filepath.Join(dir, "aa.yaml")
	if err := os.WriteFile(file, []byte(y.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs")
	if code, _, stderr := run(t, "suite", "--quiet", "--out", out, file); code != 0 {
		t.Fatalf("suite repeat: %d: exit %d: %s", n, code, stderr)
	}
	files := map[string][]string{}
	for _, s := range setups {
		fs, _ := filepath.Glob(filepath.Join(out, s[0]+".*.r*.json"))
		if len(fs) != n {
			t.Fatalf("suite repeat: %d wrote %v for %s", n, fs, s[0])
		}
		files[s[0]] = fs
	}
	return files
}

// TestRepeatedFakeRuns: repeated identical runs of the fake target whose
// latency drifts from run to run (2%, as runs on real machines differ),
// five of each interleaved in random rounds (a suite's repeat:), do not
// fire --fail-if-worse 5% on the median and its verdict is not
// "different"; the same target with 20% more latency configured (a 1.2 ms
// sleep, which the kernel's timers make about twice a 1 ms one) is called
// different with an interval that excludes 1, and the gate fires.
//
// Interleaved, because that is what makes the between-run interval
// honest: run --repeat of one setup and then of the other (this test until
// 2026-11-27) put each group in its own stretch of time, and in CI the load
// of the other packages' tests changed between the stretches: twice in a
// row the A/A pair's throughput was "8.5% worse [0.863, 0.970]" and "13.4%
// worse [0.754, 0.996]", a real difference between two moments that compare
// now warns of (TestBlocksWarned).
//
// Only the median is held to "not different" and gated: every operation's
// sleep sets it, and the other packages' tests move it by 1-3% from run to
// run, so its interval cannot reach the 10% that matters here. Throughput
// and the p99 are logged: in a closed loop they follow the slowest
// operations, which a burst of that load sets in one run and not the next
// (interleaved, three runs a side, CI saw throughput "+9.9% [+0.1, +21]
// better"; at a fixed rate throughput holds but the median swings by
// ±35%), and an A/A pair is "different" in 5% of trials of any calibrated
// 95% interval, more with such tails: asserting otherwise would make this
// test flake. The model's false-positive rate is checked where the noise is
// known: analysis's GroupRatio simulations.
func TestRepeatedFakeRuns(t *testing.T) {
	runs := interleavedRuns(t, t.TempDir(), 5, [][2]string{
		{"a", "fake://?latency=1ms&drift=0.02&drift_seed=3101"},
		{"b", "fake://?latency=1ms&drift=0.02&drift_seed=3102"},
		{"slow", "fake://?latency=1.2ms&drift=0.02&drift_seed=3103"},
	})
	a, b, slow := runs["a"], runs["b"], runs["slow"]

	// A/A: the smallest difference that matters is 10% here, wider than the
	// default, because a loaded two-core machine moves sleeps by more than
	// 2% from run to run; the interval then has room to say "same".
	c, code, errs := compareJSON(t, append(append(append([]string{}, a...), b...),
		"--fail-if-worse", "5%", "--fail-on", "median", "--min-effect", "10%")...)
	if code != 0 {
		t.Fatalf("A/A: --fail-if-worse fired: exit %d: %s", code, errs)
	}
	if len(c.Groups) != 2 || c.Groups[0].Name != "a ycsb-a 200" || len(c.Groups[0].Runs) != 5 || !strings.HasPrefix(c.Grouping, "by label") {
		t.Fatalf("groups %+v (%s)", c.Groups, c.Grouping)
	}
	for _, w := range c.Warnings {
		if strings.Contains(w, "interleaved") {
			t.Errorf("interleaved runs: warned %q", w)
		}
	}
	if v := cellOf(t, c, "Latency median"); v.Verdict == "different" || v.Basis != "between runs" {
		t.Errorf("A/A Latency median: %s on %s, want not different, on between runs", v.Verdict, v.Basis)
	}
	for _, f := range []string{"Sustained throughput", "Latency p99"} {
		if v := cellOf(t, c, f); v.Basis != "between runs" {
			t.Errorf("A/A %s judged on %s, want between runs", f, v.Basis)
		}
	}

	// More latency: the median, which every operation's sleep sets, is
	// worse and different, the interval excludes 1, and the gate on it fires.
	c, code, errs = compareJSON(t, append(append(append([]string{}, a...), slow...), "--fail-if-worse", "5%", "--fail-on", "median")...)
	if code != exitThresholds || !strings.Contains(errs, "slow ycsb-a 200: median") {
		t.Errorf("slower: exit %d, %q; want %d naming slow's median", code, errs, exitThresholds)
	}
	v := cellOf(t, c, "Latency median")
	if v.Verdict != "different" || v.Phrase != "worse" || v.RatioLow <= 1 {
		t.Errorf("slower median: %s %s [%.3f, %.3f], want worse and different, the interval above 1", v.Phrase, v.Verdict, v.RatioLow, v.RatioHigh)
	}
	if v := cellOf(t, c, "Sustained throughput"); v.Phrase == "better" && v.Verdict == "different" {
		t.Errorf("slower throughput called better: %s", v.Text)
	}
}

// TestBlocksWarned: runs of one setup and then of the other (run --repeat
// of each in turn, as this package's A/A test did until it met the CI's
// load changing between the two stretches) are compared with a warning
// that names the groups, says when each ran and gives the fix, in the
// JSON and on the terminal; the verdicts are left as the intervals say,
// and a gate that fires on such a group says in its line how it ran.
func TestBlocksWarned(t *testing.T) {
	dir := t.TempDir()
	a := repeatRuns(t, dir, "a", "fake://?latency=1ms", 2)
	b := repeatRuns(t, dir, "b", "fake://?latency=1ms", 2)
	files := append(append([]string{}, a...), b...)
	c, code, errs := compareJSON(t, files...)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	want := "b's 2 runs all ran after a's 2 ("
	if w := warningWith(c, "interleaved"); !strings.HasPrefix(w, want) || !strings.Contains(w, "not interleaved") ||
		!strings.Contains(w, "fix: run the setups in interleaved rounds") {
		t.Errorf("warnings %q, want one starting %q", c.Warnings, want)
	}
	_, text, _ := run(t, append([]string{"compare"}, files...)...)
	if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
		t.Errorf("the terminal output does not warn:\n%s", text)
	}
	// With b as the baseline, a ran before it.
	c, _, _ = compareJSON(t, append(files, "--baseline", "b")...)
	if w := warningWith(c, "interleaved"); !strings.HasPrefix(w, "a's 2 runs all ran before b's 2 (") {
		t.Errorf("baseline b: warnings %q", c.Warnings)
	}
	// A gate that fires on a group run apart says so in its one line.
	slow := repeatRuns(t, dir, "slow", "fake://?latency=3ms", 2)
	_, code, errs = compareJSON(t, append(append([]string{}, a...), append(slow, "--fail-if-worse", "5%", "--fail-on", "median")...)...)
	if code != exitThresholds || !strings.Contains(errs, "slow: median") ||
		!strings.Contains(errs, "but slow ran apart from the baseline's runs, not interleaved") || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
		t.Errorf("a slower group run apart: exit %d, %q", code, errs)
	}
}

// warningWith is the one warning of c that contains s ("" when none is or
// more than one are).
func warningWith(c compareOut, s string) string {
	var found []string
	for _, w := range c.Warnings {
		if strings.Contains(w, s) {
			found = append(found, w)
		}
	}
	if len(found) != 1 {
		return ""
	}
	return found[0]
}

// TestRunSpreadFromHistory: compare of one run per side takes each
// figure's between-run spread from a history's runs, as a user keeps them
// (run --commit C --repeat N into a directory): the runs of each commit
// are a group and the spread is pooled over the groups
// (--run-spread-from history:DIR). A run without a commit and a file that
// is not a result, in the same directory, are passed over.
func TestRunSpreadFromHistory(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "hist")
	for _, c := range []struct {
		commit string
		n      int
	}{{"c1", 3}, {"c2", 2}} {
		d := filepath.Join(hist, c.commit)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		repeatRuns(t, d, "main", "fake://?latency=1ms&drift=0.02&drift_seed=3111", c.n, "--commit", c.commit)
	}
	single := func(out, label string, extra ...string) string {
		code, _, stderr := run(t, append([]string{"run", "--target", "fake://?latency=1ms&drift=0.02&drift_seed=3112", "--records", "200",
			"--duration", "1s", "--warmup", "0", "--concurrency", "4", "--label", label, "--out", out, "--quiet"}, extra...)...)
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", label, code, stderr)
		}
		return out
	}
	single(filepath.Join(hist, "untagged.json"), "main")
	if err := os.WriteFile(filepath.Join(hist, "notes.json"), []byte(`{"not": "a result"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := single(filepath.Join(dir, "a.json"), "a"), single(filepath.Join(dir, "b.json"), "b")

	c, code, errs := compareJSON(t, a, b, "--run-spread-from", "history:"+hist)
	if code != 0 {
		t.Fatalf("compare: exit %d: %s", code, errs)
	}
	for _, f := range []string{"Sustained throughput", "Latency median", "Latency p99"} {
		if v := cellOf(t, c, f); v.Basis != "supplied spread" {
			t.Errorf("%s judged on %q, want the supplied spread", f, v.Basis)
		}
	}
	_, out, _ := run(t, "compare", "--format", "json", a, b, "--run-spread-from", "history:"+hist)
	var m struct {
		Runs   int `json:"run_spread_runs"`
		Groups int `json:"run_spread_groups"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.Runs != 5 || m.Groups != 2 {
		t.Errorf("the spread came from %d runs in %d groups (%v), want c1's 3 and c2's 2", m.Runs, m.Groups, err)
	}
	_, text, _ := run(t, "compare", a, b, "--run-spread-from", "history:"+hist)
	if !strings.Contains(strings.Join(strings.Fields(text), " "), "pooled over 5 earlier runs in 2 groups of one setup (commits)") {
		t.Errorf("the terminal output does not say where the spread came from:\n%s", text)
	}

	// A history without a commit run twice: one line, the fix, exit 2.
	code, _, errs = run(t, "compare", a, b, "--run-spread-from", "history:"+filepath.Join(hist, "c2", "main.r01.json")+","+filepath.Join(hist, "untagged.json"))
	if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "no commit was run twice in one setup among its 2 results (1 with a commit)") {
		t.Errorf("a history of single runs: exit %d, %q", code, errs)
	}
}

// TestRepeatedRedisRuns: the same against real Redis (PLATBENCH_REDIS_URL):
// runs of one setup at a fixed rate in two groups, interleaved (A, B, B, A,
// A, B, B, A, A, B: each round in another order; with three a side, CI of
// 2026-11-27 saw all three runs of one side stalled by the Cassandra tests
// beside them, and a p99 "better" by 98%), are not called different on
// the throughput the rate sets and --fail-if-worse 5% on it does not fire
// (the latencies are logged, below). ("Same" is not required even of the
// throughput the rate sets: on a loaded machine the client falls behind
// in some runs, seen as +0.4% [-9.4, +11] inconclusive. The fake target at
// a fixed 2,000 op/s, three 1 s runs a side, at the default 2%: three
// trials under a load average of 7 gave -0.2% [-4.0, +3.7], -3.1% [-13,
// +7.4] and -2.3% [-7.6, +3.4], all inconclusive: "same" needs a spread
// between runs under about 0.9% (t(0.975, 4) x sqrt(2/3) x spread under
// 2%, at no difference), which such a machine does not give.)
func TestRepeatedRedisRuns(t *testing.T) {
	url := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/13" // a database of its own (see TestMergeLoaderProcessesRedis)
	dir := t.TempDir()
	var a, b []string
	for i, lbl := range []string{"a", "b", "b", "a", "a", "b", "b", "a", "a", "b"} {
		out := filepath.Join(dir, fmt.Sprintf("%s.r%02d.json", lbl, i+1))
		code, _, stderr := run(t, "run", "--target", url, "--records", "1000", "--duration", "1s", "--warmup", "0",
			"--concurrency", "4", "--rate", "2000", "--label", lbl, "--out", out, "--quiet")
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, code, stderr)
		}
		if lbl == "a" {
			a = append(a, out)
		} else {
			b = append(b, out)
		}
	}
	c, code, errs := compareJSON(t, append(append(append([]string{}, a...), b...), "--fail-if-worse", "5%", "--fail-on", "sustained", "--min-effect", "10%")...)
	if code != 0 {
		t.Fatalf("A/A on Redis: --fail-if-worse fired: exit %d: %s", code, errs)
	}
	if v := cellOf(t, c, "Sustained throughput"); v.Verdict == "different" || v.Basis != "between runs" {
		t.Errorf("A/A on Redis throughput: %s (%s)", v.Text, v.Basis)
	}
	// The latencies are logged, not held: a Redis operation's 50-100 us
	// move with the timers and the scheduler by tens of percent from run
	// to run (seen on an idle machine: median +5.1% [-16, +31] and +13%
	// [-5.9, +36]), and an interval that wide excludes 1 in 5% of A/A
	// trials of any calibrated 95% interval, which is then "different".
	for _, f := range []string{"Latency median", "Latency p99"} {
		if v := cellOf(t, c, f); v.Basis != "between runs" {
			t.Errorf("A/A on Redis %s judged on %s, want between runs", f, v.Basis)
		}
	}
}

// run --repeat refuses what it cannot do, in one line, before any run.
func TestRepeatRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--repeat", "0"}, "--repeat 0: a number of runs, 1 or more"},
		{[]string{"--repeat", "2", "--out", "-"}, "--repeat writes one result file per run"},
	} {
		code, out, errs := run(t, append([]string{"run", "--target", "null", "--duration", "1s"}, c.args...)...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("run %v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", c.args, code, out, errs, c.want)
		}
	}
}
