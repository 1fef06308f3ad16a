package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// run --like repeats the benchmark a result records on another target:
// the same config but the target, the file named in the new result, flags
// given overriding it, and compare finding no setup difference.
func TestRunLike(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "c.json")
	code, _, stderr := run(t, "run", "--target", "embedded://"+filepath.Join(dir, "da"), "--workload", "ds-80-20", "--records", "1500", "--field-length", "50",
		"--duration", "2s", "--concurrency", "3", "--rate", "400", "--seed", "7", "--warmup", "1s", "--out", a, "--quiet")
	if code != 0 {
		t.Fatalf("first run: exit %d %s", code, stderr)
	}
	if code, _, stderr = run(t, "run", "--like", a, "--target", "embedded://"+filepath.Join(dir, "db"), "--out", b, "--quiet"); code != 0 {
		t.Fatalf("--like: exit %d %s", code, stderr)
	}
	ra, err := result.Read(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := result.Read(b)
	if err != nil {
		t.Fatal(err)
	}
	ca, cb := ra.Config, rb.Config
	ca.Target, cb.Target = "", ""
	if !reflect.DeepEqual(ca, cb) || rb.Like != a {
		t.Errorf("--like ran another benchmark:\n%+v\n%+v\nlike %q", ca, cb, rb.Like)
	}
	code, stdout, stderr := run(t, "compare", a, b)
	if code != 0 || strings.Contains(stdout, "in more than the platform") {
		t.Errorf("compare of a run and its --like: exit %d %s\n%s", code, stderr, stdout)
	}
	// A flag given overrides the result.
	if code, _, stderr = run(t, "run", "--like", a, "--target", "embedded://"+filepath.Join(dir, "dc"), "--concurrency", "2", "--records", "900", "--out", c, "--quiet"); code != 0 {
		t.Fatalf("--like with overrides: exit %d %s", code, stderr)
	}
	rc, err := result.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Config.Concurrency != 2 || rc.Config.Workload.Records != 900 || rc.Config.RateOpsPerS != 400 || rc.Config.Workload.FieldLength != 50 {
		t.Errorf("overrides: %+v", rc.Config)
	}
	// A file that is no result: one line, exit 2.
	code, _, stderr = run(t, "run", "--like", filepath.Join(dir, "missing.json"))
	if code != 2 || !strings.Contains(stderr, "--like") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("--like of a missing file: exit %d %q", code, stderr)
	}
}
