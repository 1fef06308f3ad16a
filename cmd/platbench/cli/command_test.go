package cli

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// Bad command templates, and templates for a target that does not run
// them, are one line each and exit status 2.
func TestCommandFlagsErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--command", "SET __keys__ __data__"}, "unknown placeholder __keys__"},
		{[]string{"--command", `EVAL "return 1`}, "unterminated"},
		{[]string{"--command-weight", "2", "--command", "GET __key__"}, "before any --command"},
		{[]string{"--command", "GET __key__", "--command-weight", "-1"}, "not a number above 0"},
		{[]string{"--command", "GET __key__", "--command-name", "g", "--command", "SET __key__ x", "--command-name", "g"}, "twice"},
		{[]string{"--target", "null", "--command", "GET __key__"}, "--command"},
		{[]string{"--command", "GET __key__", "--mix", "gett=1"}, "get (this workload's operations)"},
	} {
		args := append([]string{"run", "--ops", "10", "--out", filepath.Join(dir, "x.json"), "--quiet"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--target") {
			args = append(args, "--target", "redis://127.0.0.1:1")
		}
		code, _, stderr := run(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "fix") {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q and a fix", c.args, code, stderr, c.want)
		}
	}
}

// Against the real Redis: each template is an operation of the result and
// the report, under the name given or its command's.
func TestCommandRun(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_REDIS_URL")
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := run(t, "run", "--target", raw, "--records", "100", "--ops", "2000", "--concurrency", "4", "--out", out, "--quiet",
		"--command", "LPUSH clilist:__key__ __data__", "--command-name", "push", "--command-weight", "3",
		"--command", "HINCRBY clihash:__key__ f 1", "--target-opt", "pipeline=4")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]uint64{}
	for _, o := range r.Phases[len(r.Phases)-1].Ops {
		ops[o.Op] = o.Count
	}
	if len(ops) != 2 || ops["push"] == 0 || ops["hincrby"] == 0 || ops["push"]+ops["hincrby"] != 2000 {
		t.Errorf("ops in the result: %v, want push and hincrby adding up to 2000", ops)
	}
	if !strings.Contains(stdout, "push") || !strings.Contains(stdout, "hincrby") {
		t.Errorf("the report does not name the templates:\n%s", stdout)
	}
}
