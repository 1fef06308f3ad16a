package cli

import (
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
	if code, _, stderr := run(t, "load", "--target", other, "--records", "500", "--quiet"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	bad := filepath.Join(dir, "bad.json")
	code, stdout, stderr = run(t, "run", "--target", other, "--no-load", "--validate", "--records", "500", "--ops", "1000", "--mix", "read=1", "--out", bad, "--quiet", "--allow-errors")
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
