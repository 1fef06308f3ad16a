package telemetry

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/target"
)

// startNamed runs a copy of a system binary under a unique name, so a
// by-name match cannot hit anything else.
func startNamed(t *testing.T, bin, name string, args ...string) *exec.Cmd {
	t.Helper()
	src, err := exec.LookPath(bin)
	if err != nil {
		t.Skipf("%s not found: %v", bin, err)
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
	time.Sleep(100 * time.Millisecond)
	tel, err := Start(context.Background(), Config{ServerProcess: name, Interval: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2200 * time.Millisecond)
	res := result.Result{Platform: Fingerprint()}
	tel.Stop(&res)
	if res.Host == nil || len(res.Host.Samples) < 3 {
		t.Fatalf("host series %+v", res.Host)
	}
	if len(res.Host.Server) < 3 {
		t.Fatalf("%d server samples, want >= 3", len(res.Host.Server))
	}
	var cores float64
	for _, p := range res.Host.Server {
		if p.PID != cmd.Process.Pid {
			t.Errorf("server sample of pid %d, want %d", p.PID, cmd.Process.Pid)
		}
		cores += p.CPUCores
	}
	cores /= float64(len(res.Host.Server))
	// A shell spinning shares 2 loaded cores with everything else: at least a
	// fifth of a core, at most one (it is single-threaded).
	if cores < 0.2 || cores > 1.1 {
		t.Errorf("server used %.2f cores, want 0.2..1.1", cores)
	}
	if res.Host.Self == nil || res.Host.Self.CPUSeconds <= 0 {
		t.Errorf("self usage %+v", res.Host.Self)
	}
	if res.Counters == nil || (len(res.Counters.Values) == 0 && res.Counters.UnavailableReason == "") {
		t.Errorf("counters %+v", res.Counters)
	}
	var buf bytes.Buffer
	WriteHostText(&buf, &res)
	out := buf.String()
	for _, want := range []string{"cpu ", "memory", "platbench", "server     " + name, "process " + name, "counters"} {
		if !strings.Contains(out, want) {
			t.Errorf("host text lacks %q:\n%s", want, out)
		}
	}
	t.Log("\n" + out)
}

func TestStartBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{ServerPID: 1 << 30},
		{ServerProcess: "no-such-process-platbench-test"},
		{PerfScope: "cluster"},
		{ServerPID: -3, Interval: -time.Second},
	} {
		tel, err := Start(context.Background(), cfg)
		if err == nil {
			tel.Stop(nil)
			t.Errorf("%+v: no error", cfg)
			continue
		}
		var ce *target.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%+v: %v: want a config error with a fix", cfg, err)
		}
	}
}

func TestFlagsRegister(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f.Register(fs)
	if err := fs.Parse([]string{"--server-process", "redis-server", "--perf-scope", "system", "--metrics-addr", ":9100"}); err != nil {
		t.Fatal(err)
	}
	if f.ServerProcess != "redis-server" || f.PerfScope != "system" || f.MetricsAddr != ":9100" || f.Interval != time.Second {
		t.Errorf("parsed %+v", f)
	}
}
