package main

import (
	"bytes"
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
	cmd := exec.Command(bin, "run", "--hlog", "--target", "embedded://"+filepath.Join(dir, "db"), "--records", "2000", "--duration", "1h", "--out", out, "--quiet")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Interrupt once the run phase has closed a second (its line in the
	// journal): an event, not a time, so a slow load phase on a loaded
	// machine cannot make the interrupt land before the run began.
	journal := out + result.JournalSuffix
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if b := readPlain(journal); bytes.Contains(b, []byte(`"phase":"run","interval"`)) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no second of the run phase in %s after two minutes: %s", journal, stderr.String())
		}
	}
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

// SIGKILL mid-run (the OOM killer, a preempted spot loader): nothing can
// catch it, so the run's journal, written as it goes, is what is left.
// report and compare read it: the load phase whole, the run phase with
// every second it completed, marked cut short.
func TestKillLeavesAReadableJournal(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "r.json")
	cmd := exec.Command(bin, "run", "--hlog", "--target", "null", "--records", "500", "--rate", "1000", "--duration", "1h", "--out", out, "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	journal := out + ".partial"
	// Wait for three complete seconds of the run phase in the journal.
	for end := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		b := readPlain(journal)
		if strings.Count(string(b), `"phase":"run"`) >= 3 {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("no three seconds of the run in the journal after a minute:\n%.500s", b)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if _, err := os.Stat(out); err == nil {
		t.Fatal("a result file after SIGKILL: the test did not kill mid-run")
	}
	r, err := result.Read(journal)
	if err != nil {
		t.Fatalf("the journal left by SIGKILL does not read: %v", err)
	}
	load, run := r.Phase("load"), r.Phase("run")
	if !r.CutShort || load == nil || load.Interrupted || run == nil || !run.Interrupted || len(run.Intervals) < 3 || len(run.Ops) == 0 {
		t.Fatalf("cut short %v, load %v, run %+v", r.CutShort, load != nil, run)
	}
	// The fine buckets waited beside the journal, flushed every second:
	// the phase cut short has those of the seconds it completed.
	secs := len(run.Intervals)
	var done uint64
	for _, n := range run.Buckets.All {
		done += uint64(n)
	}
	if b := run.Buckets; b.WidthNs != 100e6 || len(b.All) < 10*secs-5 || len(b.All) > 10*secs || len(b.Outstanding) != len(b.All) ||
		done < uint64(secs)*900 || done > uint64(secs)*1100 || !strings.Contains(strings.Join(r.Notes, " "), "fine buckets are kept") {
		t.Errorf("the run phase cut short after %d seconds has %d fine buckets of %d ns, %d completions in them; notes %q", secs, len(b.All), b.WidthNs, done, r.Notes)
	}
	// The .hlog was written as the run went, beside the journal (renamed
	// into place only once a result is written): a line per op per second.
	if _, err := os.Stat(filepath.Join(dir, "r.hlog")); err == nil {
		t.Error("r.hlog after SIGKILL: the log of a run cut short is beside its journal, not where a result's is")
	}
	if hl, err := os.ReadFile(result.PartialHlogPath(out)); err != nil || hlogLines(t, hl) < 3 {
		t.Errorf("the .hlog left by SIGKILL: %v, %d lines of seconds", err, hlogLines(t, hl))
	}
	// The host's samples went to the journal as they were taken.
	if r.Host == nil || len(r.Host.Samples) < 3 || r.Host.Samples[0].CPUIdle+r.Host.Samples[0].CPUUser == 0 {
		t.Errorf("the journal gave no host series (%+v)", r.Host)
	}
	var ops uint64
	for _, o := range run.Ops {
		ops += o.Count
	}
	if want := uint64(len(run.Intervals)) * 1000; ops < want*9/10 || ops > want*11/10 {
		t.Errorf("run phase: %d ops in %d complete seconds at 1,000 op/s", ops, len(run.Intervals))
	}
	rep, err := exec.Command(bin, "report", journal).CombinedOutput()
	if err != nil || !strings.Contains(string(rep), "cut short") || !strings.Contains(string(rep), "op rate") {
		t.Errorf("report of the journal: %v\n%s", err, rep)
	}
	if cmp, err := exec.Command(bin, "compare", journal, journal).CombinedOutput(); err != nil {
		t.Errorf("compare of the journal: %v\n%s", err, cmp)
	}
}

// A run that ends keeps its journal as the result's seconds file: the
// result holds the stored series without interval histograms (schema v2),
// and the latency of a window is read back from the seconds, exactly the
// operations the window's intervals count.
func TestRunKeepsItsSeconds(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out := filepath.Join(dir, "r.json")
	if b, err := exec.Command(bin, "run", "--hlog", "--target", "null", "--records", "500", "--rate", "1000", "--duration", "4s", "--out", out, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	if _, err := os.Stat(out + ".partial"); err == nil {
		t.Error("the journal is still there after the result was written")
	}
	if _, err := os.Stat(result.FinePath(out + ".partial")); err == nil {
		t.Error("the fine-bucket file is still there after the result was written")
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	run := r.Phase("run")
	if r.Schema != result.SchemaVersion || r.CutShort || run == nil || run.HasIntervalHists() || !run.HasSeconds() || len(run.Buckets.All) == 0 {
		t.Fatalf("schema %s, cut short %v, run phase streamed: %v", r.Schema, r.CutShort, run != nil && run.HasSeconds())
	}
	n := len(run.Intervals)
	var want uint64
	for _, iv := range run.Intervals[1:] {
		for _, o := range iv.Ops {
			want += o.Count
		}
	}
	h, err := run.MergedHist(1, n, result.HistLatency)
	if err != nil || uint64(h.TotalCount()) != want || want == 0 {
		t.Fatalf("window [1, %d): %v latencies (err %v), intervals count %d ops", n, h.TotalCount(), err, want)
	}
	s, err := result.Read(result.SecondsPath(out))
	if err != nil || s.CutShort || s.Phase("run") == nil {
		t.Fatalf("the seconds file reads as a result: %v (cut short %v)", err, s != nil && s.CutShort)
	}
	if rep, err := exec.Command(bin, "report", out).CombinedOutput(); err != nil || !strings.Contains(string(rep), "op rate") {
		t.Errorf("report: %v\n%s", err, rep)
	}
	// The .hlog, written as the run went, has a line per op per second.
	var lines int
	for _, iv := range run.Intervals {
		for _, o := range iv.Ops {
			if o.Count > 0 {
				lines++
			}
		}
	}
	hl, err := os.ReadFile(filepath.Join(dir, "r.hlog"))
	if got := hlogLines(t, hl); err != nil || got != lines {
		t.Errorf(".hlog: %v, %d lines of seconds, the run's intervals have %d", err, got, lines)
	}
}

// hlogLines counts an .hlog's interval lines, each of whose histograms
// must decode.
func hlogLines(t *testing.T, hl []byte) int {
	n := 0
	for _, l := range strings.Split(string(hl), "\n") {
		if !strings.HasPrefix(l, "Tag=") {
			continue
		}
		f := strings.Split(l, ",")
		if _, err := result.DecodeHist(f[len(f)-1]); err != nil {
			t.Errorf(".hlog line %.60q: %v", l, err)
		}
		n++
	}
	return n
}
