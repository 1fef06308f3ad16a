package analysis_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// requireRedis gates the real-server event tests on the Redis the test
// scripts install and start (scripts/servers/redis.sh): locally they skip
// without it, under CI they fail.
// smallSpec is preset with 2,000 records of one 100-byte field: the real
// Redis tests' dataset.
func smallSpec(t *testing.T, preset string) workload.Spec {
	t.Helper()
	spec, err := workload.Preset(preset)
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 2000
	spec.FieldCount, spec.FieldLength = 1, 100
	spec.EnsureDefaults()
	return spec
}

func requireRedis(t *testing.T) {
	t.Helper()
	testenv.URL(t, "PLATBENCH_REDIS_URL")
	if _, err := exec.LookPath("redis-server"); err != nil {
		t.Fatalf("PLATBENCH_REDIS_URL is set but redis-server is not on PATH: %v", err)
	}
}

// privateRedis starts a redis-server of its own on a free loopback port: the
// test pauses it, and pausing the shared server would disturb the tests of
// other packages that run at the same time. It returns the URL and the PID.
func privateRedis(t *testing.T) (string, int) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	dir := t.TempDir()
	cmd := exec.Command("redis-server", "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "", "--appendonly", "no", "--dir", dir, "--logfile", filepath.Join(dir, "redis.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Kill)
		_, _ = cmd.Process.Wait()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "redis.log"))
			t.Fatalf("private redis-server on port %d not ready after 10 s: %v\n%s", port, err, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("redis://127.0.0.1:%d", port), cmd.Process.Pid
}

// A real fault: the redis-server process is stopped (SIGSTOP) 4 s into a
// fixed-rate run and continued (SIGCONT) 2 s later. The event cost must show
// what happened: nothing completed for about 2 s (a 100% dip and a stall of
// about 2 s in the fine buckets), the latency over the window is charged
// the pause (latency from the intended start), and throughput comes back to
// the rate once the backlog has drained.
func TestEventCostRealRedisPause(t *testing.T) {
	requireRedis(t)
	url, pid := privateRedis(t)
	spec := smallSpec(t, "ycsb-c")
	stop, err := runner.ParseEvent("4s:stop:" + strconv.Itoa(pid))
	if err != nil {
		t.Fatal(err)
	}
	cont, err := runner.ParseEvent("6s:cont:" + strconv.Itoa(pid))
	if err != nil {
		t.Fatal(err)
	}
	const rate = 1000
	r, err := bench.Run(context.Background(), bench.Config{Open: registry.Open,
		Target: url, Workload: spec, Load: true, Run: true,
		Runner: runner.Config{Duration: 16 * time.Second, Rate: rate, Concurrency: 64, Seed: 1, Events: []runner.Event{stop, cont}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 2 || r.Events[0].Error != "" || r.Events[1].Error != "" {
		t.Fatalf("events %+v", r.Events)
	}
	imps := analysis.EventImpacts(r)
	var b strings.Builder
	if err := report.WriteEventsText(&b, r, imps); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + b.String())
	if len(imps) != 2 {
		t.Fatalf("%d impacts", len(imps))
	}
	im := imps[0]
	sec := float64(time.Second)
	if im.BaselineOpsPerS < 0.9*rate || im.BaselineOpsPerS > 1.1*rate {
		t.Errorf("baseline %.0f op/s at a rate of %d", im.BaselineOpsPerS, rate)
	}
	// SIGSTOP at 4 s: the interval from 4 s to 5 s has (almost) nothing.
	if im.DipPercent < 90 {
		t.Errorf("dip %.0f%%, want >= 90%% (the server was stopped for 2 s)", im.DipPercent)
	}
	if im.MinFineOpsPerS != 0 {
		t.Errorf("lowest fine throughput %.0f op/s, want 0", im.MinFineOpsPerS)
	}
	if s := float64(im.LongestStallNs) / sec; s < 1.5 || s > 2.6 {
		t.Errorf("longest stall %.2f s, want about 2 s", s)
	}
	// Requests waited up to the whole pause: the window's p99 is above 1 s
	// (the pause is 2 s; ops scheduled during it waited less).
	if im.P99Ns < int64(time.Second) || im.P99Ns <= 5*im.BaselineP99Ns {
		t.Errorf("window p99 %s (before %s): the pause is not charged", time.Duration(im.P99Ns), time.Duration(im.BaselineP99Ns))
	}
	// Back within 10% of the rate after the pause and the catch-up burst:
	// not before the cont (2 s), and well before the end of the run.
	if !im.Recovered {
		t.Errorf("not recovered: %s", im.Verdict)
	} else if s := float64(im.RecoveryNs) / sec; s < 2 || s > 6 {
		t.Errorf("recovered after %.1f s, want between 2 s (the cont) and 6 s", s)
	}
	if im.Errors != 0 {
		t.Errorf("%d errors: a 2 s pause is shorter than the client's timeouts", im.Errors)
	}
	for _, want := range []string{"Fault events", "stop " + strconv.Itoa(pid), "cont " + strconv.Itoa(pid), "recovery", "longest stall"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	// The frozen server held every worker: its queue is charged to it in
	// the server-attributable latency too (p95 and p99 within 5% of
	// latency's), the loader's own lateness being small beside it.
	o := r.MainPhase().Ops[0]
	if o.Attributable == nil {
		t.Fatal("no server-attributable latency in the fixed-rate phase")
	}
	t.Logf("latency p95 %v p99 %v; server-attributable p95 %v p99 %v", time.Duration(o.Latency.P95Ns), time.Duration(o.Latency.P99Ns),
		time.Duration(o.Attributable.P95Ns), time.Duration(o.Attributable.P99Ns))
	for _, q := range [][2]int64{{o.Latency.P95Ns, o.Attributable.P95Ns}, {o.Latency.P99Ns, o.Attributable.P99Ns}} {
		if d := float64(q[1] - q[0]); d < -0.05*float64(q[0]) || d > 0.05*float64(q[0]) {
			t.Errorf("attributable %v against latency %v: more than 5%% apart while the server was frozen", time.Duration(q[1]), time.Duration(q[0]))
		}
	}
}

// The real Redis at a fixed rate it sustains, with workers to spare: no
// request waits for a slot, so the server-attributable latency is the
// service time (medians within 10%), while latency also holds the loader's
// own lateness (the schedule lag).
func TestAttributableRealRedisFixedRate(t *testing.T) {
	requireRedis(t)
	url, _ := privateRedis(t)
	spec := smallSpec(t, "ycsb-c")
	r, err := bench.Run(context.Background(), bench.Config{Open: registry.Open,
		Target: url, Workload: spec, Load: true, Run: true,
		Runner: runner.Config{Duration: 4 * time.Second, Rate: 2000, Concurrency: 32, Seed: 1},
	})
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	o := p.Ops[0]
	if o.Attributable == nil || o.Lag == nil {
		t.Fatal("no server-attributable latency or schedule lag in the fixed-rate phase")
	}
	t.Logf("latency median %v, service %v, attributable %v, lag %v; delayed %d, late client %d", time.Duration(o.Latency.P50Ns),
		time.Duration(o.Service.P50Ns), time.Duration(o.Attributable.P50Ns), time.Duration(o.Lag.P50Ns), p.Delayed, p.LateClient)
	if d := float64(o.Attributable.P50Ns - o.Service.P50Ns); d < -0.1*float64(o.Service.P50Ns) || d > 0.1*float64(o.Service.P50Ns) {
		t.Errorf("attributable median %v, service time median %v: more than 10%% apart with no slot waits", time.Duration(o.Attributable.P50Ns), time.Duration(o.Service.P50Ns))
	}
	if o.Attributable.P50Ns > o.Latency.P50Ns {
		t.Errorf("attributable median %v above latency median %v", time.Duration(o.Attributable.P50Ns), time.Duration(o.Latency.P50Ns))
	}
}
