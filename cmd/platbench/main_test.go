package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// Ctrl-C during a run stops it cleanly: the process exits non-zero with one
// line saying so, and the result of what ran is written whole, marked
// interrupted.
func TestCtrlCWritesWhatRan(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "r.json")
	cmd := exec.Command(bin, "run", "--target", "embedded://"+filepath.Join(dir, "db"), "--records", "2000", "--duration", "1h", "--out", out, "--quiet")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("exit 0 after an interrupt")
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("did not stop within 30 s of SIGINT")
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "interrupted") {
		t.Errorf("stderr = %q, want one line saying it was interrupted", stderr.String())
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatalf("no valid result after Ctrl-C: %v", err)
	}
	run := r.Phase("run")
	if run == nil || !run.Interrupted || len(run.Ops) == 0 || run.Ops[0].Count == 0 {
		t.Fatalf("run phase = %+v, want an interrupted phase with operations", run)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.hlog")); err != nil {
		t.Error("no .hlog written")
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
