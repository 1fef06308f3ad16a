package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// run runs platbench with args and returns its exit code, stdout and stderr.
func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

// A short real benchmark of the embedded store writes a valid result and .hlog.
func TestRunEmbeddedWritesResult(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := run(t, "run", "--hlog", "--target", "embedded://"+filepath.Join(dir, "db"), "--records", "2000", "--duration", "2s", "--concurrency", "2", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"limited by:", "op rate", "latency 99th percentile", "[READ: ", "UPDATE: ", "total errors", "load     :"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 2 || r.Phases[0].Name != "load" || r.Phases[1].Name != "run" {
		t.Fatalf("phases = %d", len(r.Phases))
	}
	if r.Phases[0].Ops[0].Count != 2000 {
		t.Errorf("loaded %d records, want 2000", r.Phases[0].Ops[0].Count)
	}
	if r.Platform.Arch == "" || r.Platform.RAMBytes == 0 {
		t.Errorf("platform fingerprint missing: %+v", r.Platform)
	}
	if r.Dataset.DiskBytes == 0 {
		t.Error("embedded target did not report bytes on disk")
	}
	hl, err := os.ReadFile(filepath.Join(dir, "r.hlog"))
	if err != nil || !bytes.Contains(hl, []byte("Tag=READ,")) {
		t.Errorf(".hlog missing or without READ lines: %v", err)
	}
	// report FILE prints the same summary again.
	code, again, stderr := run(t, "report", out)
	if code != 0 || !strings.Contains(again, "latency 99th percentile") {
		t.Errorf("report exit %d: %s\n%s", code, stderr, again)
	}
}

// Every bad input ends in one clear line on stderr and a non-zero exit.
func TestBadInputOneLineError(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("mix: [this is: not valid"), 0o644)
	unknownField := filepath.Join(dir, "unknown.yaml")
	os.WriteFile(unknownField, []byte("records: 10\nbogus: 1\n"), 0o644)
	badResult := filepath.Join(dir, "bad.json")
	os.WriteFile(badResult, []byte(`{"schema": "platbench.result/v1", "phases": [`), 0o644)
	otherJSON := filepath.Join(dir, "other.json")
	os.WriteFile(otherJSON, []byte(`{"hello": 1}`), 0o644)
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o555)

	cases := []struct {
		name string
		args []string
		want string // a phrase the error line must contain
	}{
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"run", "--frob"}, "unknown flag --frob"},
		{"unknown workload", []string{"run", "--workload", "ycsb-z"}, "ycsb-z"},
		{"unknown target", []string{"run", "--target", "mongo://x", "--out", filepath.Join(dir, "x.json")}, "unknown target"},
		{"bad duration", []string{"run", "--duration", "ten minutes"}, "duration"},
		{"negative duration", []string{"run", "--duration", "-5s"}, "duration"},
		{"negative records", []string{"run", "--records", "-1"}, "records"},
		{"bad size", []string{"run", "--value-size", "lots"}, "value-size"},
		{"zero concurrency", []string{"run", "--concurrency", "0"}, "concurrency"},
		{"bad rate", []string{"run", "--rate", "fast"}, "rate"},
		{"bad mix", []string{"run", "--mix", "read=x"}, "mix"},
		{"bad distribution", []string{"run", "--distribution", "pareto"}, "pareto"},
		{"malformed workload file", []string{"run", "--workload", bad}, "bad.yaml"},
		{"unknown field in workload file", []string{"run", "--workload", unknownField}, "bogus"},
		{"missing workload file", []string{"run", "--workload", filepath.Join(dir, "nope.yaml")}, "nope.yaml"},
		{"unwritable result", []string{"run", "--out", filepath.Join(readOnly, "r.json"), "--duration", "1s"}, "cannot write"},
		{"unwritable data dir", []string{"run", "--target", "embedded://" + filepath.Join(readOnly, "db"), "--duration", "1s", "--out", filepath.Join(dir, "y.json")}, "embedded"},
		{"malformed result", []string{"report", badResult}, "bad.json"},
		{"not a result", []string{"report", otherJSON}, "other.json"},
		{"missing result", []string{"report", filepath.Join(dir, "none.json")}, "none.json"},
		{"bad shard", []string{"run", "--shard", "3/2"}, `--shard "3/2" is not i/N`},
		// 0 is not silently the default (it once loaded 100,000 records).
		{"zero records", []string{"run", "--records", "0"}, "--records is 0 (fix: the dataset size"},
		{"zero ops", []string{"run", "--ops", "0"}, "--ops is 0"},
		{"zero duration", []string{"run", "--duration", "0"}, "--duration is 0"},
		{"zero telemetry interval", []string{"load", "--telemetry-interval", "0s"}, "--telemetry-interval is 0"},
		{"zero pace tick", []string{"run", "--rate", "1k", "--pace-tick", "0"}, "--pace-tick is 0"},
		{"pace tick too long", []string{"run", "--rate", "1k", "--pace-tick", "5s"}, "--pace-tick 5s is not a pace tick (fix: a duration up to 1s"},
		{"pace tick without a rate", []string{"run", "--pace-tick", "1ms"}, "--pace-tick paces a fixed rate: give --rate too"},
		{"bad pace tick", []string{"run", "--rate", "1k", "--pace-tick", "soon"}, "--pace-tick"},
		// The library names config fields; the command line shows the flags.
		{"bad perf scope", []string{"run", "--perf-scope", "cluster", "--distribution", "pareto"}, `--distribution "pareto" is unknown`},
		{"every problem at once", []string{"run", "--perf-scope", "cluster", "--distribution", "pareto"}, `--perf-scope "cluster" is not process`},
		// Before the benchmark, not after it.
		{"bad warmup", []string{"run", "--warmup", "soon", "--out", filepath.Join(dir, "w.json")}, `--warmup "soon" is not auto, 0 or a duration`},
		{"event after the end", []string{"run", "--duration", "5s", "--event", "90:kill:4242"}, "--event kill:4242 at 1m30s is not within the 5s run phase"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if os.Geteuid() == 0 && strings.Contains(c.name, "unwritable") {
				testenv.Skip(t, testenv.Host, "root can write anywhere: an unwritable directory cannot be shown as root")
			}
			code, _, stderr := run(t, c.args...)
			if code == 0 {
				t.Fatalf("exit 0, want non-zero")
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 {
				t.Errorf("want one error line, got %d:\n%s", len(lines), stderr)
			}
			if !strings.Contains(stderr, c.want) {
				t.Errorf("error line %q does not mention %q", strings.TrimSpace(stderr), c.want)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr: %s", stderr)
			}
		})
	}
}

func TestHelpAndLists(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"report", "--help"}, {"workloads"}, {"targets"}, {"version"}} {
		code, out, stderr := run(t, args...)
		if code != 0 || out == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
	}
	_, out, _ := run(t, "workloads")
	for _, w := range []string{"ycsb-a", "ycsb-f", "write", "read", "mixed"} {
		if !strings.Contains(out, w) {
			t.Errorf("workloads lacks %s", w)
		}
	}
	_, out, _ = run(t, "targets")
	for _, w := range []string{"embedded", "null", "fake"} {
		if !strings.Contains(out, w) {
			t.Errorf("targets lacks %s", w)
		}
	}
}

// A full disk: the embedded store refuses a dataset that cannot fit, and a
// result that cannot be written leaves nothing half-written. Uses a 4 MiB
// tmpfs (needs root, as CI runs).
func TestFullDisk(t *testing.T) {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny")
	os.Mkdir(tiny, 0o755)
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4M", "tmpfs", tiny).CombinedOutput(); err != nil {
		testenv.Skip(t, testenv.Host, "cannot mount a small tmpfs here (%v: %s)", err, out)
	}
	defer exec.Command("umount", tiny).Run()

	code, _, stderr := run(t, "run", "--target", "embedded://"+filepath.Join(tiny, "db"), "--records", "100000", "--duration", "1s", "--out", filepath.Join(dir, "a.json"), "--quiet")
	if code == 0 || !strings.Contains(stderr, "free") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("dataset larger than the disk: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(filepath.Join(tiny, "fill"), make([]byte, 8<<20), 0o644) // fills it: ENOSPC part-way
	out := filepath.Join(tiny, "r.json")
	code, _, stderr = run(t, "run", "--target", "null", "--no-load", "--duration", "1s", "--out", out, "--quiet")
	if code == 0 || !strings.Contains(stderr, "no space left") {
		t.Errorf("result on a full disk: exit %d, stderr %q", code, stderr)
	}
	ents, _ := os.ReadDir(tiny)
	for _, e := range ents {
		if e.Name() != "fill" && e.Name() != "db" {
			t.Errorf("left on the full disk: %s", e.Name())
		}
	}
}
