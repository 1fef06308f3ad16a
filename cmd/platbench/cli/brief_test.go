package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// --quiet prints the headline, what limited the run and the result's path,
// nothing else; run --repeat prints each round that briefly and one summary
// of the rounds with the compare command.
func TestQuietIsBrief(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "q.json")
	code, stdout, stderr := run(t, "run", "--target", "fake://?latency=200us", "--records", "200", "--duration", "2s", "--concurrency", "2", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) > 8 || !strings.Contains(lines[0], "sustained") || !strings.HasPrefix(lines[1], "limited by: ") ||
		!strings.Contains(stdout, "result   : "+out) || strings.Contains(stdout, "op rate") {
		t.Errorf("--quiet printed %d lines, want the headline, the limit and the result's path:\n%s", len(lines), stdout)
	}

	code, stdout, stderr = run(t, "run", "--target", "fake://?latency=200us", "--records", "200", "--duration", "1s", "--concurrency", "2",
		"--out", filepath.Join(dir, "rep.json"), "--repeat", "2", "--label", "fake")
	if code != 0 {
		t.Fatalf("--repeat: exit %d: %s", code, stderr)
	}
	for _, want := range []string{"2 runs of ycsb-a:", "  sustained ", "(lowest ", "  p99       ", "  limited by (", "compare them with another group: platbench compare "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("--repeat's summary lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "op rate") {
		t.Errorf("--repeat printed a full report per round:\n%s", stdout)
	}
}
