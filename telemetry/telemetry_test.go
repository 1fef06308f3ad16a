package telemetry

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/platform"
)

// startNamed runs a copy of a system binary under a unique name, so a
// by-name match cannot hit anything else.
func startNamed(t *testing.T, bin, name string, args ...string) *exec.Cmd {
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
	cmd := exec.Command(dst, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// A busy "server" found by name shows its CPU in HostSeries.Server, apart
// from platbench's own samples, and the text report shows both.
func TestSessionServerByName(t *testing.T) {
	name := "pbsrv" + strings.ReplaceAll(t.Name(), "/", "")[:6] + "x"
	cmd := startNamed(t, "sh", name, "-c", "while :; do :; done")
	tel, err := Start(context.Background(), Config{ServerProcess: name, Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2200 * time.Millisecond)
	res := result.Result{Platform: platform.Fingerprint()}
	tel.Stop(&res)
	if res.Host == nil || len(res.Host.Samples) < 3 {
		t.Fatalf("host series %+v", res.Host)
	}
	if len(res.Host.Server) < 3 {
		t.Fatalf("%d server samples, want >= 3", len(res.Host.Server))
	}
	cmd.Process.Kill()
	cmd.Wait()
	dur := map[int64]int64{}
	for _, h := range res.Host.Samples {
		dur[h.OffsetNs] = h.DurationNs
	}
	var cpu, maxCores float64
	for _, p := range res.Host.Server {
		if p.PID != cmd.Process.Pid {
			t.Errorf("server sample of pid %d, want %d", p.PID, cmd.Process.Pid)
		}
		cpu += p.CPUCores * float64(dur[p.OffsetNs]) / 1e9
		maxCores = max(maxCores, p.CPUCores)
	}
	// The kernel's own account of the child (wait4's rusage) covers its
	// whole life, a little longer than the samples: they must not exceed
	// it, and must hold most of it. The shell is single-threaded: at most
	// one core in any sample.
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	life := float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	if cpu > life*1.05+0.02 || cpu < life*0.5 || maxCores > 1.1 {
		t.Errorf("server samples add up to %.3f CPU s (max %.2f cores); the kernel says the process used %.3f s in all", cpu, maxCores, life)
	}
	t.Logf("server samples %.3f CPU s, rusage %.3f s", cpu, life)
	if res.Host.Self == nil || res.Host.Self.CPUSeconds <= 0 {
		t.Errorf("self usage %+v", res.Host.Self)
	}
	if res.Counters == nil || (len(res.Counters.Values) == 0 && res.Counters.UnavailableReason == "") {
		t.Errorf("counters %+v", res.Counters)
	}
	if res.Host.ServerMatch != "process "+name || len(res.Host.Server) == 0 || res.Host.Server[0].Name != name {
		t.Errorf("server %q: match %q, samples %+v", name, res.Host.ServerMatch, res.Host.Server)
	}
}

func TestStartBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{ServerPID: 1 << 30},
		{ServerProcess: "no-such-process-platbench-test"},
		{PerfScope: "cluster"},
		{PerfScope: "server"},
		{ServerPID: -3, Interval: -time.Second},
	} {
		tel, err := Start(context.Background(), cfg)
		if err == nil {
			tel.Stop(nil)
			t.Errorf("%+v: no error", cfg)
			continue
		}
		var ce *usererr.Error
		if !errors.As(err, &ce) || ce.Field == "" || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %v: want a user error naming a field (not a flag) with a fix", cfg, err)
		}
	}
}

// Scope server counts the server process's threads, not platbench's.
func TestSessionPerfServerScope(t *testing.T) {
	cmd := startNamed(t, "sh", "pbperfsrv", "-c", "while :; do :; done")
	tel, err := Start(context.Background(), Config{ServerPID: cmd.Process.Pid, PerfScope: "server", Interval: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	var res result.Result
	tel.Stop(&res)
	c := res.Counters
	if c == nil || c.Scope != "server" {
		t.Fatalf("counters %+v", c)
	}
	clk, ok := c.Values["task-clock"]
	if !ok {
		if c.UnavailableReason == "" {
			t.Fatal("no task-clock and no reason")
		}
		testenv.Skip(t, testenv.Host, "counting another process is not permitted here: %s", c.UnavailableReason)
	}
	// The spinning shell's CPU time, as the server samples saw it.
	dur := map[int64]int64{}
	for _, h := range res.Host.Samples {
		dur[h.OffsetNs] = h.DurationNs
	}
	var cpu float64
	for _, p := range res.Host.Server {
		cpu += p.CPUCores * float64(dur[p.OffsetNs]) / 1e9
	}
	// No absolute floor: on a loaded machine the spinner may get little CPU.
	if got := float64(clk) / 1e9; got <= 0 || got < 0.6*cpu-0.01 || got > 1.5*cpu+0.05 {
		t.Errorf("server task-clock %.3f s, server samples %.3f CPU s: want them close", got, cpu)
	}
	t.Logf("server task-clock %.3f s; server samples %.3f CPU s", float64(clk)/1e9, cpu)
}

// A cancelled context (Ctrl-C) stops sampling; Stop still returns what was
// sampled and releases everything, and a second Stop is harmless.
func TestSessionStopAfterCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	tel, err := Start(ctx, Config{Interval: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	cancel()
	time.Sleep(300 * time.Millisecond)
	done := make(chan struct{})
	var res result.Result
	go func() {
		tel.Stop(&res)
		tel.Stop(&res)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Stop hung after the context was cancelled")
	}
	if res.Host == nil || len(res.Host.Samples) < 2 {
		t.Fatalf("host series %+v", res.Host)
	}
	for i := 1; i < len(res.Host.Samples); i++ {
		a, b := res.Host.Samples[i-1], res.Host.Samples[i]
		if b.OffsetNs != a.OffsetNs+a.DurationNs {
			t.Errorf("sample %d starts at %d, previous ends at %d", i, b.OffsetNs, a.OffsetNs+a.DurationNs)
		}
	}
	if len(res.Notes) != len(uniq(res.Notes)) {
		t.Errorf("a second Stop duplicated notes: %q", res.Notes)
	}
}

func uniq(s []string) map[string]bool {
	m := map[string]bool{}
	for _, x := range s {
		m[x] = true
	}
	return m
}
