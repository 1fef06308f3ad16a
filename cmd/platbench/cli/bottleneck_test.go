package cli

import (
	"net"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

// privateRedis starts a redis-server of the test's own, pinned to CPU 0
// with taskset, and returns its URL and pid.
func privateRedis(t *testing.T) (string, int) {
	t.Helper()
	testenv.URL(t, "PLATBENCH_REDIS_URL") // only where make test installed redis
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		testenv.Skip(t, testenv.Tool, "redis-server is not on PATH: %v", err)
	}
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		testenv.Skip(t, testenv.Tool, "taskset is not on PATH: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(taskset, "-c", "0", bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the private redis-server did not start in a minute")
		}
	}
	return "redis://127.0.0.1:" + port, cmd.Process.Pid // taskset execs redis-server: one pid
}

// runBottleneckResult runs platbench against url with the server's pid
// sampled and returns the bottleneck its analysis named, and the result.
func runBottleneckResult(t *testing.T, url string, pid int, args ...string) (*result.Bottleneck, *result.Result) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.json")
	args = append([]string{"run", "--target", url, "--records", "200", "--duration", "4s", "--out", out, "--quiet",
		"--server-pid", strconv.Itoa(pid)}, args...)
	if code, _, stderr := run(t, args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	b := r.Analysis.Bottleneck
	if b == nil {
		t.Fatal("the result has no bottleneck")
	}
	w := report.WordsOf(b)
	t.Logf("%s (%s, %s): %s; evidence %q; caveats %q; headroom %q", b.Limit, b.Where, b.Strength, w.Summary, w.Evidence, w.Caveats, w.Headroom)
	return b, r
}

// A known bottleneck, on a real server: a Lua loop in every command keeps
// a redis-server pinned to one core busy while platbench waits. The limit
// is that core (or, on a host busy with other tests, the neighbours; or
// every core, the server's): never the loader, nor the requests in flight.
func TestBottleneckServerCore(t *testing.T) {
	url, pid := privateRedis(t)
	b, r := runBottleneckResult(t, url, pid, "--concurrency", "4",
		"--command", `EVAL "local x=0 for i=1,200000 do x=x+i end return x" 0`)
	h, _ := analysis.Host(r)
	server := b.Where == "the server process on the loader host" && (b.Limit == analysis.LimitCore || b.Limit == analysis.LimitCPU)
	busy := h.CPUBusy >= analysis.BusyAll*0.9 && b.Limit == analysis.LimitNeighbours
	if !server && !busy {
		t.Errorf("limit %q (%s) with the host %.0f%% busy: want the server's one core", b.Limit, b.Where, 100*h.CPUBusy)
	}
}

// One request in flight against the same server, cheap commands: nothing
// saturates, so the closed loop's concurrency sets the throughput. On a
// host that other tests saturated, the host's CPU or the neighbours are
// the honest answer instead; never the server's core.
func TestBottleneckOneInFlight(t *testing.T) {
	url, pid := privateRedis(t)
	b, r := runBottleneckResult(t, url, pid, "--concurrency", "1")
	h, _ := analysis.Host(r)
	want := []string{analysis.LimitConcurrency}
	if h.CPUBusy >= analysis.BusyAll*0.9 { // near the threshold: the phase's samples may be over it
		want = append(want, analysis.LimitNeighbours, analysis.LimitCPU, analysis.LimitLoader)
	}
	if !slices.Contains(want, b.Limit) || b.Where == "the server process on the loader host" {
		t.Errorf("limit %q (%s) with the host %.0f%% busy: want one of %q", b.Limit, b.Where, 100*h.CPUBusy, want)
	}
	if b.Limit == analysis.LimitConcurrency && (b.Says == nil || len(b.Says.Evidence) == 0) {
		t.Error("no Little's law evidence")
	}
}
