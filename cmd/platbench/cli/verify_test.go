package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// --verify and `platbench verify` end to end on the embedded store: a
// clean verified run exits 0 and says none lost; after other platbench
// runs (unchecked updates, deletes) behind its back, `verify RESULT` finds
// wrong and missing writes, stores them in the result and exits 1; bad
// input exits 2 with one line.
func TestVerifyEmbeddedCLI(t *testing.T) {
	dir := t.TempDir()
	db := "embedded://" + filepath.Join(dir, "db")
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := run(t, "run", "--target", db, "--verify", "--records", "500", "--ops", "2000", "--mix", "read=1,update=1,insert=1", "--concurrency", "3", "--out", out, "--quiet")
	if code != 0 || !strings.Contains(stdout, "read back: none lost") {
		t.Fatalf("clean verified run: exit %d: %s\n%s", code, stderr, stdout)
	}
	for _, mix := range []string{"update=1", "delete=1"} {
		if code, _, stderr := run(t, "run", "--target", db, "--no-load", "--records", "500", "--ops", "100", "--mix", mix, "--distribution", "uniform", "--out", filepath.Join(dir, "other-"+mix+".json"), "--quiet", "--allow-errors"); code != 0 {
			t.Fatalf("another run (%s): exit %d: %s", mix, code, stderr)
		}
	}
	code, stdout, stderr = run(t, "verify", out, "--concurrency", "2")
	if code != 1 || !strings.Contains(stderr, "acknowledged writes were missing or wrong") || !strings.Contains(stdout, "Acknowledged writes, read back") {
		t.Fatalf("verify after other runs: exit %d: %s\n%s", code, stderr, stdout)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if v := r.Verification; v == nil || v.Missing == 0 || v.Wrong == 0 || v.Checked != v.AckedKeys {
		t.Fatalf("stored verification: %+v", r.Verification)
	}
	for _, c := range [][]string{
		{"verify", out, "--sample", "nope"},
		{"verify"},
		{"run", "--target", db, "--verify-sample", "10"},
	} {
		if code, _, stderr := run(t, c...); code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, %q", c, code, stderr)
		}
	}
	// A target without checked reads: refused naming --verify, and the fix
	// names the option given.
	code, _, stderr = run(t, "run", "--target", "null", "--verify", "--duration", "1s")
	if code != 2 || !strings.Contains(stderr, "--verify is not supported by null") || !strings.Contains(stderr, "drop verify") {
		t.Errorf("--verify on null: exit %d, %q", code, stderr)
	}
}
