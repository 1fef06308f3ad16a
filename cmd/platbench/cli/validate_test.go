package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// --validate end to end on the embedded store: a checked load and run
// reports no validation error; a run that checks a dataset loaded without
// --validate finds every value corrupt, per operation, in the result and
// the report; a target that cannot check refuses with one line.
func TestValidateEmbedded(t *testing.T) {
	dir := t.TempDir()
	db := "embedded://" + filepath.Join(dir, "db")
	errorsOf := func(out string) map[string]map[string]uint64 {
		r, err := result.Read(out)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]map[string]uint64{}
		for _, o := range r.Phases[len(r.Phases)-1].Ops {
			m[o.Op] = o.Errors
		}
		return m
	}
	clean := filepath.Join(dir, "clean.json")
	code, stdout, stderr := run(t, "run", "--target", db, "--validate", "--records", "500", "--ops", "3000", "--concurrency", "2", "--out", clean, "--quiet")
	if code != 0 {
		t.Fatalf("clean run: exit %d: %s\n%s", code, stderr, stdout)
	}
	for op, e := range errorsOf(clean) {
		if len(e) != 0 {
			t.Errorf("clean run: %s errors %v", op, e)
		}
	}

	other := "embedded://" + filepath.Join(dir, "db2")
	if code, _, stderr := run(t, "load", "--target", other, "--records", "500", "--out", filepath.Join(dir, "load.json"), "--quiet"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	code, stdout, stderr = run(t, "run", "--target", other, "--no-load", "--validate", "--records", "500", "--ops", "1000", "--mix", "read=1", "--out", bad, "--allow-errors") // the full report: no --quiet
	if code != 0 {
		t.Fatalf("unchecked dataset: exit %d: %s", code, stderr)
	}
	if e := errorsOf(bad)["READ"]; e["validation_corrupt"] != 1000 {
		t.Errorf("reads of values written without --validate: %v, want 1000 validation_corrupt", e)
	}
	if !strings.Contains(stdout, "validation_corrupt") {
		t.Errorf("the report does not show validation_corrupt:\n%s", stdout)
	}

	code, _, stderr = run(t, "run", "--target", "null", "--validate", "--ops", "10", "--out", filepath.Join(dir, "n.json"), "--quiet")
	if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--validate") {
		t.Errorf("null --validate: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "run", "--target", db, "--validate", "--field-length", "4", "--ops", "10", "--quiet", "--out", filepath.Join(dir, "f.json"))
	if code != 2 || !strings.Contains(stderr, "--field-length") {
		t.Errorf("4-byte fields with --validate: exit %d, %q", code, stderr)
	}
}

// suite --validate makes every cell checked: an embedded cell runs clean, a
// null cell fails with the refusal.
func TestSuiteValidate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yml := "name: v\nduration: 1s\nconcurrency: 2\nrecords: [300]\ntargets: [{url: 'embedded'}, {url: 'null'}]\nworkloads: [ycsb-a]\n"
	if err := os.WriteFile(file, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	code, stdout, stderr := run(t, "suite", "--out", out, "--validate", "--quiet", file)
	if code == 0 || !strings.Contains(stderr+stdout, "does not check reads") {
		t.Fatalf("exit %d, want the null cell refused:\n%s\n%s", code, stderr, stdout)
	}
	matches, _ := filepath.Glob(filepath.Join(out, "embedded*.json"))
	if len(matches) != 1 {
		t.Fatalf("embedded cell results: %v", matches)
	}
	r, err := result.Read(matches[0])
	if err != nil {
		t.Fatal(err)
	}
	if !r.Config.Workload.CheckValues {
		t.Error("the embedded cell's workload is not checked")
	}
	for _, o := range r.Phases[len(r.Phases)-1].Ops {
		if len(o.Errors) != 0 || o.Count == 0 {
			t.Errorf("embedded cell: %s count %d errors %v", o.Op, o.Count, o.Errors)
		}
	}
}
