package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSuiteCommand(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yml := "name: clitest\nduration: 2s\nconcurrency: 2\nrecords: [300]\ntargets: [{url: 'null'}]\nworkloads: [ds-100r, ds-50-50]\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	// --dry-run lists the cells and runs nothing.
	code, stdout, stderr := run(t, "suite", file, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "2 cells") || !strings.Contains(stdout, "null.ds-50-50.300") {
		t.Fatalf("dry run: exit %d %s\n%s", code, stderr, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "clitest-results")); !os.IsNotExist(err) {
		t.Error("--dry-run created the output directory")
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr = run(t, "suite", "--out", out, file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"Suite clitest: 2 cells", "null.ds-100r.300", "[READ: ", "summary  : " + out + "/summary.md"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	// Cells stream as runs do: each result has its seconds file beside it.
	for _, f := range []string{"summary.md", "null.ds-100r.300.json", "null.ds-50-50.300.json", "null.ds-50-50.300.seconds.jsonl.zst"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	// The cell results are ordinary results: report reads them.
	if code, _, stderr := run(t, "report", filepath.Join(out, "null.ds-50-50.300.json")); code != 0 {
		t.Errorf("report of a cell: exit %d %s", code, stderr)
	}
}

func TestSuiteCommandBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("targets: [{url: embedded}]\nworkloads: [ycsb-a]\nconcurency: 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	preset := filepath.Join(dir, "preset.yaml")
	if err := os.WriteFile(preset, []byte("targets: [{url: embedded}]\nworkloads: [nosuch]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "no suite file"},
		{[]string{"a.yaml", "b.yaml"}, 2, `unexpected argument "b.yaml"`},
		{[]string{filepath.Join(dir, "missing.yaml")}, 2, "cannot read " + filepath.Join(dir, "missing.yaml") + ": no such file"},
		{[]string{bad}, 2, `line 3: unknown field "concurency"`},
		{[]string{preset}, 2, "nosuch"},
	}
	for _, c := range cases {
		code, _, stderr := run(t, append([]string{"suite"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("suite %v: exit %d, stderr %q; want exit %d and one line with %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

// The example suite in the repository parses and expands to the DataStax matrix.
func TestExampleSuiteExpands(t *testing.T) {
	code, stdout, stderr := run(t, "suite", "--dry-run", filepath.Join("..", "..", "..", "examples", "suites", "datastax-ratios.yaml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "10 cells") || !strings.Contains(stdout, "pebble.ds-20-80.1M") {
		t.Errorf("example suite:\n%s", stdout)
	}
}

// A suite's thresholds (its file's and --threshold) judge every cell: exit
// status 3 when a cell fails one; a malformed one is bad input.
func TestSuiteThresholds(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yml := "name: th\nops: 2000\nconcurrency: 2\nrecords: [300]\nthresholds: [errors==0]\ntargets: [{url: 'null'}]\nworkloads: [ds-100r]\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run(t, "suite", "--quiet", "--out", filepath.Join(dir, "a"), file)
	if code != 0 || !strings.Contains(stdout, "thresholds 1 of 1 passed") {
		t.Fatalf("passing suite: exit %d %s\n%s", code, stderr, stdout)
	}
	code, stdout, stderr = run(t, "suite", "--quiet", "--out", filepath.Join(dir, "b"), "--threshold", "p99<1ns", file)
	if code != 3 || !strings.Contains(stderr, "1 of 1 cells failed a threshold") || !strings.Contains(stdout, "failed: p99<1ns") {
		t.Fatalf("failing suite: exit %d %s\n%s", code, stderr, stdout)
	}
	if code, _, stderr = run(t, "suite", "--threshold", "p99<", file); code != 2 || !strings.Contains(stderr, `"p99<": no value`) {
		t.Errorf("bad --threshold: exit %d %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("thresholds: [p99]\ntargets: [{url: 'null'}]\nworkloads: [ds-100r]\n"), 0o644)
	if code, _, stderr = run(t, "suite", bad); code != 2 || !strings.Contains(stderr, `thresholds "p99": no comparison`) {
		t.Errorf("bad thresholds in the file: exit %d %s", code, stderr)
	}
}
