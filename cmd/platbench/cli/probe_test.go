package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

func probeCLI(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(args, &Env{Stdout: &o, Stderr: &e})
	return code, o.String(), e.String()
}

// A short fio-like test end to end: exit 0, a readable result file with one
// phase, the engine recorded, the test file removed.
func TestProbeDiskCLI(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "probe.json")
	code, stdout, stderr := probeCLI("probe", "disk", dir, "--size", "32m", "--duration", "300ms",
		"--rw", "randread", "--iodepth", "4", "--bucket", "10ms", "--iodepth-batch-submit", "2", "--registerfiles", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "randread-4k") || !strings.Contains(stdout, "IOPS") {
		t.Errorf("report lacks the test line:\n%s", stdout)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 1 || r.Phases[0].Buckets.WidthNs != 10e6 || r.Config.Extra["engine"] == "" || r.Analysis == nil {
		t.Errorf("result: %d phases, bucket %d ns, engine %q, analysis %v", len(r.Phases), r.Phases[0].Buckets.WidthNs, r.Config.Extra["engine"], r.Analysis != nil)
	}
	if x := r.Config.Extra; x["engine"] == "io_uring" && (x["iodepth_batch_submit"] != "2" || x["registerfiles"] != "true" || x["fixedbufs"] != "false") {
		t.Errorf("io_uring modes recorded as %q/%q/%q; want 2/true/false", x["iodepth_batch_submit"], x["registerfiles"], x["fixedbufs"])
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("test file left behind: %v", left)
	}
}

// Bad input: exit 2, one line on stderr naming the problem and the fix, and
// no result file.
func TestProbeDiskBadInput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(t.TempDir(), "never.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"bad size", []string{dir, "--size", "10X"}, "--size"},
		{"bad duration", []string{dir, "--duration", "soon"}, "duration"},
		{"bad bs", []string{dir, "--rw", "randread", "--bs", "1000"}, "multiple of 512"},
		{"bs without rw", []string{dir, "--bs", "4k"}, "--bs needs --rw"},
		{"bad rw", []string{dir, "--rw", "sideways"}, "--rw"},
		{"no path", []string{"--size", "1G"}, "PATH"},
		{"two paths", []string{dir, dir}, "exactly one PATH"},
		{"bad throttle", []string{dir, "--throttle", "1s/200ms"}, "--throttle"},
		// (Small and short, should one be accepted by mistake.)
		{"submit batch over iodepth", []string{dir, "--size", "8m", "--duration", "200ms", "--iodepth", "8", "--iodepth-batch-submit", "16"}, "--iodepth-batch-submit 16 out of range"},
		{"submit batch of 0 (fio's 'iodepth')", []string{dir, "--size", "8m", "--duration", "200ms", "--iodepth-batch-submit", "0"}, "--iodepth-batch-submit 0 is not supported"},
		{"completion batch of 0", []string{dir, "--size", "8m", "--duration", "200ms", "--iodepth-batch-complete-min", "0"}, "--iodepth-batch-complete-min 0"},
		{"fixed buffers with sync", []string{dir, "--size", "8m", "--duration", "200ms", "--engine", "sync", "--fixedbufs"}, "--engine"},
	} {
		args := append([]string{"probe", "disk", "--out", out}, tc.args...)
		code, _, stderr := probeCLI(args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 and one line with %q", tc.name, code, stderr, tc.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a result file was written for bad input")
	}
	// A size this machine cannot hold is bad input too (exit 2), found only
	// when the probe looks at the free space: one line, no result.
	code, _, stderr := probeCLI("probe", "disk", dir, "--size", "1000t", "--out", out)
	if code != 2 || !strings.Contains(stderr, "not enough free space") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("huge size: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a result file was written for a refused probe")
	}
	code, _, stderr = probeCLI("probe", "tape")
	if code != 2 || !strings.Contains(stderr, "unknown probe") {
		t.Errorf("unknown probe: exit %d, %q", code, stderr)
	}
}
