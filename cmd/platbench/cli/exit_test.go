package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// runFake runs a short benchmark of the fake target through Main with extra
// flags; it returns the exit code, stdout, stderr and the result file's path.
func runFake(t *testing.T, cmd string, extra ...string) (int, string, string, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{cmd, "--target", "fake", "--records", "1000", "--concurrency", "2", "--out", out, "--quiet"}
	if cmd == "run" {
		args = append(args, "--ops", "3000")
	}
	code, stdout, stderr := run(t, append(args, extra...)...)
	return code, stdout, stderr, out
}

// Every exit status a pipeline tells apart, through the real entry point;
// the result file is written in every case but bad input.
func TestExitCodes(t *testing.T) {
	cases := []struct {
		name    string
		cmd     string
		args    []string
		code    int
		stderr  string // a phrase of the one error line
		written bool
	}{
		{"passed", "run", []string{"--threshold", "errors==0", "--threshold", "sustained>1", "--threshold", "read.p99.9<1h"}, 0, "", true},
		{"threshold failed", "run", []string{"--threshold", "p99<1ns", "--threshold", "errors==0"}, 3, "1 of 2 thresholds failed: p99<1ns", true},
		{"not measured fails", "run", []string{"--threshold", "lag.p99<1ms"}, 3, "thresholds failed: lag.p99<1ms", true},
		{"every op failed", "run", []string{"--no-load", "--target-opt", "error_every=1"}, 1, "the run failed: all 3,000 operations failed (timeout 3,000)", true},
		{"errors allowed", "run", []string{"--no-load", "--target-opt", "error_every=1", "--allow-errors"}, 0, "", true},
		{"thresholds decide", "run", []string{"--no-load", "--target-opt", "error_every=1", "--threshold", "errors<50%"}, 3, "errors<50%", true},
		{"half failed is a failed run", "run", []string{"--no-load", "--target-opt", "error_every=2"}, 1,
			"the run failed: 1,500 of 3,000 operations failed (50.0%, timeout 1,500), more than the 1.00% allowed: first error (", true},
		{"half failed, 60% allowed", "run", []string{"--no-load", "--target-opt", "error_every=2", "--max-errors", "60%"}, 0, "", true},
		{"1 in 200 failed", "run", []string{"--no-load", "--target-opt", "error_every=200"}, 0, "", true},
		{"1 in 200 failed, none allowed", "run", []string{"--no-load", "--target-opt", "error_every=200", "--max-errors", "0%"}, 1, "15 of 3,000 operations failed (0.50%, timeout 15), more than the 0.00% allowed", true},
		{"load that failed", "load", []string{"--target-opt", "error_every=1"}, 1, "every insert of the load phase failed (1000 errors), first error: timeout: timed out", true},
		{"load with 1 in 200 failed", "load", []string{"--target-opt", "error_every=200"}, 0, "", true},
		{"load with 1 in 200 failed, none allowed", "load", []string{"--target-opt", "error_every=200", "--max-errors", "0"}, 1, "5 of 1000 inserts of the load phase failed, first error: timeout: timed out", true},
		{"max-errors over 100%", "run", []string{"--max-errors", "150%"}, 2, `"150%" is not a percentage from 0% to 100%`, false},
		{"bad max-errors", "run", []string{"--max-errors", "5"}, 2, `"5" is not a percentage from 0% to 100%`, false},
		{"malformed threshold", "run", []string{"--threshold", "p99<10"}, 2, `--threshold "p99<10": "10" has no unit`, false},
		{"op the workload lacks", "run", []string{"--threshold", "scan.p99<1ms"}, 2, "no SCAN operations", false},
		{"records 0", "run", []string{"--records", "0"}, 2, "--records is 0", false},
		{"bad flag value", "run", []string{"--concurrency", "abc"}, 2, `--concurrency: "abc" is not a non-negative whole number`, false},
		{"unknown flag", "sweep", []string{"--bogus"}, 2, "unknown flag --bogus (see 'platbench sweep --help')", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr, out := runFake(t, c.cmd, c.args...)
			if code != c.code {
				t.Fatalf("exit %d, want %d\nstderr: %s\nstdout: %s", code, c.code, stderr, stdout)
			}
			if c.stderr != "" && !strings.Contains(stderr, c.stderr) {
				t.Errorf("stderr %q lacks %q", stderr, c.stderr)
			}
			if n := strings.Count(strings.TrimSpace(stderr), "\n"); c.code != 0 && n != 0 {
				t.Errorf("%d lines on stderr, want one: %q", n+1, stderr)
			}
			if c.code == exitUsage && stdout != "" {
				t.Errorf("bad input printed to stdout (the usage?):\n%s", stdout)
			}
			if _, err := os.Stat(out); (err == nil) != c.written {
				t.Errorf("result written: %v, want %v", err == nil, c.written)
			}
		})
	}
}

// The outcome is stored in the result and printed as a table.
func TestThresholdsStoredAndPrinted(t *testing.T) {
	code, stdout, stderr, out := runFake(t, "run", "--threshold", "p99<1h", "--threshold", "stalls==0", "--threshold", "update.errors<=0.5%")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// --quiet (runFake): the outcome in one line; the report has the table.
	if !strings.Contains(stdout, "thresholds: 3 of 3 passed") {
		t.Errorf("no thresholds line in the brief report:\n%s", stdout)
	}
	if _, stdout, _ = run(t, "report", out); !strings.Contains(stdout, "Thresholds: all 3 passed") || !strings.Contains(stdout, "update.errors<=0.5%") {
		t.Errorf("no thresholds table:\n%s", stdout)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Thresholds) != 3 || !r.Thresholds[0].Pass || r.Thresholds[2].Op != "UPDATE" || r.Thresholds[2].Unit != result.UnitFraction {
		t.Errorf("stored thresholds: %+v", r.Thresholds)
	}
	// report FILE prints them again.
	if code, again, _ := run(t, "report", out); code != 0 || !strings.Contains(again, "Thresholds: all 3 passed") {
		t.Errorf("report: exit %d\n%s", code, again)
	}
}

// A sweep's thresholds are judged on its best step.
func TestSweepThresholds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	code, _, stderr := run(t, "sweep", "--target", "null", "--records", "300", "--rates", "500", "--step", "2s", "--warmup", "0",
		"--quiet", "--out", out, "--threshold", "sustained>1", "--threshold", "p99<1ns")
	if code != 3 || !strings.Contains(stderr, "1 of 2 thresholds failed: p99<1ns") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Thresholds) != 2 || !r.Thresholds[0].Pass || r.Thresholds[0].Phase != "rate-500" {
		t.Errorf("thresholds: %+v", r.Thresholds)
	}
}

// compare --fail-if-worse: exit status 3 only for a difference beyond the
// limit that the group's interval calls real.
func TestCompareFailIfWorse(t *testing.T) {
	fx := func(n string) string { return filepath.Join("..", "..", "..", "report", "testdata", n+".result.json") }
	metal, i3, rerun := fx("i3-metal"), fx("i3-16xlarge"), fx("i3-16xlarge-rerun")
	cases := []struct {
		args   []string
		code   int
		stderr string
	}{
		// One run a side and no spread: the gate cannot tell, and says so.
		{[]string{metal, i3, "--fail-if-worse", "5%"}, 2, "--fail-if-worse cannot tell a regression from run-to-run noise with one run of"},
		{[]string{metal, i3, "--fail-if-worse", "5%", "--run-spread", "3%"}, 3, "sustained 23.7% worse (95% interval of the ratio"},
		{[]string{metal, i3, "--fail-if-worse", "50", "--fail-on", "sustained", "--run-spread", "3%"}, 0, ""},
		{[]string{metal, i3, "--fail-if-worse", "50", "--fail-on", "read.p99", "--run-spread", "3%"}, 3, "read.p99"},
		{[]string{i3, metal, "--fail-if-worse", "1%", "--run-spread", "3%"}, 0, ""}, // the other run is better
		{[]string{metal, i3}, 0, ""}, // no limit: no judgement
		{[]string{rerun, i3, "--fail-if-worse", "0.5%", "--fail-on", "sustained", "--run-spread", "3%"}, 0, ""}, // 0.8% worse, an interval that does not call it real
		{[]string{metal, i3, "--fail-if-worse", "0"}, 2, "not a positive percentage"},
		{[]string{metal, i3, "--fail-if-worse", "5%", "--fail-on", "speed"}, 2, `--fail-on "speed" is not a figure`},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, append([]string{"compare"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.stderr) {
			t.Errorf("compare %v: exit %d, stderr %q; want %d with %q", c.args[2:], code, stderr, c.code, c.stderr)
		}
		if c.code != exitUsage && !strings.Contains(stdout, "Method:") {
			t.Errorf("compare %v printed no comparison", c.args[2:])
		}
	}
}

// --abort-on-fail stops the run phase at the first threshold that fails once
// the warm-up is over: exit 3, the phase shorter than asked, the result says
// which rule and when. A rule that holds never stops it.
func TestAbortOnFail(t *testing.T) {
	testenv.SkipShort(t, "runs of a few seconds")
	out := filepath.Join(t.TempDir(), "a.json")
	code, _, stderr := run(t, "run", "--target", "fake?latency=2ms", "--records", "100", "--concurrency", "2", "--duration", "30s",
		"--warmup", "1s", "--threshold", "p99<1ms", "--threshold", "errors<1%", "--abort-on-fail", "--quiet", "--out", out)
	if code != 3 || !strings.Contains(stderr, "thresholds failed: p99<1ms") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	if r.Aborted == nil || r.Aborted.Threshold.Expr != "p99<1ms" || r.Aborted.WarmupNs != 1e9 || !p.Interrupted {
		t.Fatalf("aborted %+v, interrupted %v", r.Aborted, p.Interrupted)
	}
	// 1 s of warm-up and three intervals after it, checked once a second:
	// far from the 30 s asked.
	if p.DurationNs > 15e9 || r.Aborted.AtNs < 4e9 {
		t.Errorf("stopped at %v after a phase of %v: want soon after 4 s", r.Aborted.AtNs, p.DurationNs)
	}
	code, _, stderr = run(t, "run", "--target", "fake", "--records", "100", "--concurrency", "2", "--duration", "6s",
		"--warmup", "1s", "--threshold", "p99<1h", "--abort-on-fail", "--quiet", "--out", out, "--force")
	if r, err = result.Read(out); code != 0 || err != nil || r.Aborted != nil || r.MainPhase().Interrupted {
		t.Fatalf("a rule that holds: exit %d (%s), aborted %+v", code, stderr, r.Aborted)
	}
	if code, _, stderr = run(t, "run", "--target", "fake", "--abort-on-fail", "--quiet"); code != 2 || !strings.Contains(stderr, "give at least one") {
		t.Errorf("--abort-on-fail without a rule: exit %d: %s", code, stderr)
	}
}

// A run in which the target stopped serving is called that before any
// figure, and fails (exit 1), even with no error counted (seed 002).
func TestTargetStoppedServing(t *testing.T) {
	testenv.SkipShort(t, "a 5 s run")
	out := filepath.Join(t.TempDir(), "o.json")
	code, stdout, stderr := run(t, "run", "--target", "fake?latency=1ms&stall_at=500ms&stall_for=4s", "--records", "100",
		"--concurrency", "2", "--duration", "3s", "--out", out)
	if code != 1 || !strings.Contains(stderr, "the run failed: the target stopped serving: no operation completed for") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	banner := strings.Index(stdout, "TARGET STOPPED SERVING")
	if banner < 0 || banner > strings.Index(stdout, "op rate") {
		t.Errorf("the outage is not named before the figures:\n%s", stdout)
	}
	if code, _, _ = run(t, "run", "--target", "fake?latency=1ms&stall_at=500ms&stall_for=4s", "--records", "100",
		"--concurrency", "2", "--duration", "3s", "--out", out, "--force", "--allow-errors", "--quiet"); code != 0 {
		t.Errorf("--allow-errors: exit %d", code)
	}
}
