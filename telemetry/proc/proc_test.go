package proc

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
)

func copyBinary(t *testing.T, bin, name string) string {
	t.Helper()
	src, err := exec.LookPath(bin)
	if err != nil {
		testenv.Skip(t, testenv.Tool, "%s not found: %v", bin, err)
	}
	dst := filepath.Join(t.TempDir(), name)
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	return dst
}

// A tracker by name follows the server when it is killed and started again
// (a fault event), and starts the new process's deltas afresh.
func TestByNameFollowsRestart(t *testing.T) {
	bin := copyBinary(t, "sleep", "pbsleeptest")
	start := func() *exec.Cmd {
		c := exec.Command(bin, "30")
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Process.Kill(); c.Wait() })
		// Started is not yet running the program: on a loaded machine a
		// sample between fork and exec read an RSS of 0 (CI of
		// 2026-11-27), and so did one right after the exec, before the
		// program had run to touch a page (CI of 2026-11-29). Wait until
		// the process is the program (its comm, read first) and its memory
		// the program's (statm, read after: the new address space).
		proc := filepath.Join("/proc", strconv.Itoa(c.Process.Pid))
		for end := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			comm, _ := os.ReadFile(filepath.Join(proc, "comm"))
			statm, err := os.ReadFile(filepath.Join(proc, "statm"))
			if f := strings.Fields(string(statm)); strings.TrimSpace(string(comm)) == "pbsleeptest" && err == nil && len(f) > 1 && f[1] != "0" {
				return c
			}
			if time.Now().After(end) {
				t.Fatalf("pid %d has no resident memory 10 s after it was started (statm %q, %v)", c.Process.Pid, statm, err)
			}
		}
	}
	first := start()
	tr, err := ByName("pbsleeptest")
	if err != nil {
		t.Fatal(err)
	}
	if tr.PID() != first.Process.Pid {
		t.Fatalf("matched pid %d, want %d", tr.PID(), first.Process.Pid)
	}
	now := time.Now()
	if _, ok, err := tr.Sample(now); ok || err != nil {
		t.Fatalf("first sample: ok %v err %v, want a baseline only", ok, err)
	}
	s, ok, err := tr.Sample(now.Add(time.Second))
	if !ok || err != nil || s.PID != first.Process.Pid || s.RSSBytes <= 0 || s.Name != "pbsleeptest" {
		t.Fatalf("second sample %+v ok %v err %v", s, ok, err)
	}
	first.Process.Kill()
	first.Wait()
	if _, _, err := tr.Sample(now.Add(2 * time.Second)); err != ErrGone {
		t.Fatalf("after kill: err %v, want ErrGone", err)
	}
	second := start()
	if _, ok, err := tr.Sample(now.Add(3 * time.Second)); ok || err != nil {
		t.Fatalf("first sample of the restarted process: ok %v err %v, want a baseline", ok, err)
	}
	s, ok, _ = tr.Sample(now.Add(4 * time.Second))
	if !ok || s.PID != second.Process.Pid {
		t.Fatalf("restarted: sample %+v ok %v, want pid %d", s, ok, second.Process.Pid)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, f := range []func() error{
		func() error { _, err := ByPID(0); return err },
		func() error { _, err := ByPID(1 << 30); return err },
		func() error { _, err := ByName(" "); return err },
		func() error { _, err := ByName("no-such-process-pbtest"); return err },
	} {
		if err := f(); err == nil || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("got %v, want an error with a fix", err)
		}
	}
}

func TestStatCPUWithSpacesInName(t *testing.T) {
	line := []byte("123 (my (odd) name) S 1 123 123 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0")
	c, ok := statCPU(line)
	if !ok || c != 3.0 {
		t.Errorf("statCPU = %v %v, want 3.0 s", c, ok)
	}
}

// statCPUFields is the parse statCPU replaced (strings.Fields on the text
// after the last ')'), kept as its oracle.
func statCPUFields(b []byte) (float64, bool) {
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseUint(f[11], 10, 64)
	k, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return float64(u+k) / userHZ, true
}

// FuzzStatCPU: statCPU reads what the strings.Fields parse read, on any
// line whose text after the last ')' is ASCII (the kernel's is).
func FuzzStatCPU(f *testing.F) {
	f.Add([]byte("123 (my (odd) name) S 1 123 123 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 0 0\n"))
	f.Add([]byte("1 (a) S 1 1 1 0 -1 0 0 0 0 0 18446744073709551615 0 0\n"))
	f.Add([]byte("1 (a) S 1 1 1 0 -1 0 0 0 0 0 18446744073709551616 0 0\n"))
	f.Add([]byte("1 (a)\tS\v1\f1\r1 0 -1 0 0 0 0 0 +5 7\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 {
			for _, c := range b[i+1:] {
				if c >= 0x80 {
					return
				}
			}
		}
		c, ok := statCPU(b)
		wc, wok := statCPUFields(b)
		if ok != wok || c != wc {
			t.Fatalf("%q: statCPU %v %v, strings.Fields %v %v", b, c, ok, wc, wok)
		}
	})
}

// A second sample of a process's threads reads their stat files with no
// allocation of its own but the directory listing and the paths.
func TestThreadsReuse(t *testing.T) {
	tr, err := Self()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	tr.Sample(now)
	tr.Sample(now.Add(time.Second))
	first := tr.prevThr
	tr.Sample(now.Add(2 * time.Second))
	tr.Sample(now.Add(3 * time.Second))
	if len(tr.prevThr) == 0 || reflect.ValueOf(tr.prevThr).UnsafePointer() != reflect.ValueOf(first).UnsafePointer() {
		t.Errorf("the threads' maps are not reused: %d threads", len(tr.prevThr))
	}
}
