package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// The Redis case against the real server: SET k:KEY to a record's
// bytes, INCR the same key. Every INCR of a key SET before fails with
// Redis's own words, which the one-line failure and the result carry, and
// the run fails (about half the operations failed: more than 1%).
func TestRedisIncrOnAStringFails(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/9" // a database of its own
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := run(t, "run", "--target", u, "--records", "50", "--ops", "2000", "--concurrency", "2",
		"--command", "SET k:__key__ __data__", "--command", "INCR k:__key__", "--out", out, "--quiet")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	const said = "redis: ERR value is not an integer or out of range"
	if !strings.Contains(stderr, "first error (incr, other): "+said) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stderr does not end with Redis's words on one line: %q", stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	if len(p.ErrorMessages) == 0 || p.ErrorMessages[0].Message != said || p.ErrorMessages[0].Op != "incr" {
		t.Errorf("result's error messages: %+v", p.ErrorMessages)
	}
}
