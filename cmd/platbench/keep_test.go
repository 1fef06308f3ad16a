package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
	"github.com/platbench/platbench/result"
)

// binDir holds the binary buildOnce builds, removed by TestMain.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// buildOnce builds the binary once for the tests of this file.
var buildOnce = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "platbench-keep-")
	if err != nil {
		return "", err
	}
	binDir = dir
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		return "", &buildError{err, out}
	}
	return bin, nil
})

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + string(e.out) }

func binary(t *testing.T) string {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatalf("go build: %v", err)
	}
	return bin
}

// startKilled starts a long run of the null target to out and kills it
// (SIGKILL) once its journal holds secs complete seconds of the run phase.
// The wait is for that event; its deadline only turns a run that never
// gets there into a failure.
func startKilled(t *testing.T, bin, out string, secs int, extra ...string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"run", "--hlog", "--target", "null", "--records", "500", "--rate", "1000", "--duration", "1h", "--out", out, "--quiet"}, extra...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	journal := out + result.JournalSuffix
	for end := time.Now().Add(2 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		b := readPlain(journal)
		if bytes.Count(b, []byte(`{"phase":"run","interval":`)) >= secs {
			break
		}
		select {
		case <-exited:
			t.Fatalf("the run exited before %d seconds: %s", secs, stderr.String())
		default:
		}
		if time.Now().After(end) {
			cmd.Process.Kill()
			t.Fatalf("no %d seconds of the run in the journal after two minutes", secs)
		}
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// A run killed with SIGKILL, then the same command again (with and
// without --force): the second is refused in one line naming `platbench
// report r.json.partial`, and the first run's journal, fine-bucket file
// and .hlog are intact byte for byte; report reads the journal, and
// report of r.json names it.
func TestKilledRunIsNotTruncatedByTheNext(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	startKilled(t, bin, out, 2)
	journal := out + result.JournalSuffix
	left := map[string][]byte{}
	for _, p := range []string{journal, result.FinePath(journal), result.PartialHlogPath(out)} {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			t.Fatalf("after SIGKILL: %s: %v (%d bytes)", p, err, len(b))
		}
		left[p] = b
	}
	ents, _ := os.ReadDir(dir)
	for _, force := range []bool{false, true} {
		args := []string{"run", "--hlog", "--target", "null", "--records", "500", "--rate", "1000", "--duration", "1h", "--out", out, "--quiet"}
		if force {
			args = append(args, "--force")
		}
		var stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stderr = &stderr
		err := cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 || err == nil {
			t.Errorf("the same command again (--force %v): exit %d, want 2: %s", force, code, stderr.String())
		}
		if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "platbench report "+journal) {
			t.Errorf("--force %v: stderr %q: want one line naming platbench report %s", force, stderr.String(), journal)
		}
		for p, b := range left {
			if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, b) {
				t.Errorf("--force %v: %s changed: %v, %d bytes, %d before", force, p, err, len(now), len(b))
			}
		}
		if now, _ := os.ReadDir(dir); len(now) != len(ents) {
			t.Errorf("--force %v: %d files in the directory, %d before", force, len(now), len(ents))
		}
	}
	rep, err := exec.Command(bin, "report", journal).CombinedOutput()
	if err != nil || !bytes.Contains(rep, []byte("cut short")) || !bytes.Contains(rep, []byte("op rate")) {
		t.Errorf("report %s: %v\n%s", journal, err, rep)
	}
	r, err := result.Read(journal)
	if run := r.Phase("run"); err != nil || !r.CutShort || run == nil || len(run.Intervals) < 2 {
		t.Errorf("the journal reads as %v, %+v", err, r)
	}
	rep, err = exec.Command(bin, "report", out).CombinedOutput()
	if err == nil || !bytes.Contains(rep, []byte("platbench report "+journal)) {
		t.Errorf("report %s: %v\n%s", out, err, rep)
	}
}

// A run with --force over a completed result, killed mid-run: the old
// result, .hlog and seconds file are intact byte for byte (never an old
// .json beside a new .hlog), and read as they did.
func TestKilledForcedRerunKeepsTheOldResult(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if b, err := exec.Command(bin, "run", "--hlog", "--target", "null", "--records", "500", "--rate", "1000", "--duration", "3s", "--out", out, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	old := map[string][]byte{}
	for _, p := range []string{out, result.HlogPath(out), result.SecondsPath(out)} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		old[p] = b
	}
	startKilled(t, bin, out, 2, "--force")
	for p, b := range old {
		if now, err := os.ReadFile(p); err != nil || !bytes.Equal(now, b) {
			t.Errorf("%s changed by a killed --force run: %v, %d bytes, %d before", p, err, len(now), len(b))
		}
	}
	r, err := result.Read(out)
	if err != nil || r.CutShort {
		t.Fatalf("the old result: %v", err)
	}
	if _, err := r.MainPhase().MergedHist(0, len(r.MainPhase().Intervals), result.HistLatency); err != nil {
		t.Errorf("the old result's seconds: %v", err)
	}
	if _, err := os.Stat(result.PartialHlogPath(out)); err != nil {
		t.Errorf("the killed run's log: %v", err)
	}
}

// report and compare of a 2 GB sparse file, and of files within the size
// limit that are zeros (one of them a real result extended by truncate):
// one line, exit 2, and the child's peak RSS (getrusage, after it exited)
// under 100 MB. Before the limit, report of the 2 GB file took 2.14 GB.
func TestHugeResultFileBoundedMemory(t *testing.T) {
	bin := binary(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "real.json")
	if b, err := exec.Command(bin, "run", "--target", "null", "--records", "100", "--ops", "1000", "--out", real, "--quiet").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, b)
	}
	sparse := func(name string, size int64, from string) string {
		p := filepath.Join(dir, name)
		var head []byte
		if from != "" {
			head, _ = os.ReadFile(from)
		}
		if err := os.WriteFile(p, head, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(p, size); err != nil {
			t.Fatal(err)
		}
		return p
	}
	big := sparse("big.json", 2<<30, "")
	// A real result beside a 2 GB sparse seconds file, and a journal whose
	// header line is followed by 2 GB of zeros (no size limit on either:
	// a day's are gigabytes; they are read a line at a time).
	os.Mkdir(filepath.Join(dir, "s"), 0o755)
	withSeconds := sparse(filepath.Join("s", "real.json"), int64(len(must(os.ReadFile(real)))), real)
	sparse(filepath.Join("s", "real.seconds.jsonl"), 2<<30, "")
	zr, err := zstd.NewReader(bytes.NewReader(must(os.ReadFile(result.SecondsPath(real)))))
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := bytes.Cut(must(io.ReadAll(zr)), []byte("\n"))
	os.WriteFile(filepath.Join(dir, "head"), append(head, '\n'), 0o644)
	journal := sparse("j.json.partial", 2<<30, filepath.Join(dir, "head"))
	within := sparse("within.json", 900<<20, "")
	extended := sparse("extended.json", 900<<20, real)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", big}, "more than the 1.0 GiB a result file may be"},
		{[]string{"compare", big, real}, "more than the 1.0 GiB a result file may be"},
		{[]string{"merge", big, "--out", filepath.Join(dir, "m.json")}, "more than the 1.0 GiB a result file may be"},
		{[]string{"report", withSeconds}, "its first line is not a platbench journal header"},
		{[]string{"report", journal}, "the journal holds no complete second"},
		{[]string{"report", within}, "byte 0 is a NUL"},
		{[]string{"report", extended}, "is a NUL"},
		{[]string{"compare", real, extended}, "is a NUL"},
	} {
		var stderr bytes.Buffer
		cmd := exec.Command(bin, c.args...)
		cmd.Stderr = &stderr
		cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", c.args, code, stderr.String())
		}
		if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: stderr %q, want one line saying %q", c.args, stderr.String(), c.want)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Fatal("no rusage for the child")
		}
		if rss := ru.Maxrss * 1024; rss > 100<<20 { // Linux: kilobytes
			t.Errorf("%v: peak RSS %.1f MB, want under 100 MB", c.args, float64(rss)/1e6)
		} else {
			t.Logf("%v: peak RSS %.1f MB", c.args, float64(rss)/1e6)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// readPlain is the text of a journal or seconds file (a zstd stream since
// issue 47), as far as it reads; nothing when it is not there yet.
func readPlain(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, _ := io.ReadAll(result.PlainLines(f))
	return b
}
