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
	"syscall"
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

// hzJar finds the Hazelcast jar scripts/servers/hazelcast.sh installed. The
// test is gated on PLATBENCH_HAZELCAST_URL like the hazelcast target's tests.
func hzJar(t *testing.T) string {
	t.Helper()
	testenv.URL(t, "PLATBENCH_HAZELCAST_URL")
	testenv.URL(t, "PLATBENCH_HAZELCAST_CTL")
	testenv.SkipShort(t, "starts a private 3-member Hazelcast cluster (about 2 minutes)")
	jar := os.Getenv("PLATBENCH_HAZELCAST_JAR")
	if jar == "" {
		root := filepath.Join(filepath.Dir(os.Getenv("PLATBENCH_HAZELCAST_CTL")), "..", "..")
		jar = filepath.Join(root, ".cache", "hazelcast", "hazelcast-5.4.0.jar")
	}
	if _, err := os.Stat(jar); err != nil {
		t.Fatalf("Hazelcast jar not found (%v): run scripts/servers/hazelcast.sh install", err)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Fatalf("java not found: %v", err)
	}
	return jar
}

// hzMemberYAML is a member of a private IMap-only cluster (no CP subsystem:
// it starts faster and the test is about partitions and a member's loss).
const hzMemberYAML = `hazelcast:
  cluster-name: %s
  network:
    public-address: 127.0.0.1:${hz.port}
    port:
      port: ${hz.port}
      auto-increment: false
    join:
      auto-detection:
        enabled: false
      multicast:
        enabled: false
      tcp-ip:
        enabled: true
        member-list: [%s]
  jet:
    enabled: false
  properties:
    hazelcast.phone.home.enabled: false
    hazelcast.wait.seconds.before.join: 0
    hazelcast.max.wait.seconds.before.join: 0
    hazelcast.heartbeat.interval.seconds: 1
    hazelcast.max.no.heartbeat.seconds: 10
    hazelcast.logging.type: jdk
`

// hzCluster is a private 3-member cluster on free loopback ports.
type hzCluster struct {
	dir, jar, cluster string
	ports             [3]int
}

// memberCmd is the shell command that starts member n (0..2) in the
// background, detached, writing its PID to member<n>.pid.
func (c *hzCluster) memberCmd(n int) string {
	opts := []string{"-Xms64m", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
		"--add-modules", "java.se", "--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
		"--add-opens", "java.base/java.lang=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
		"--add-opens", "java.management/sun.management=ALL-UNNAMED",
		"--add-opens", "jdk.management/com.sun.management.internal=ALL-UNNAMED",
		"-Dhazelcast.config=" + filepath.Join(c.dir, "member.yaml"), "-Dhz.port=" + strconv.Itoa(c.ports[n]),
		"-cp", c.jar, "com.hazelcast.core.server.HazelcastMemberStarter"}
	log := filepath.Join(c.dir, fmt.Sprintf("member%d.log", n))
	return fmt.Sprintf("setsid java %s >>%s 2>&1 </dev/null & echo $! >%s", strings.Join(opts, " "), log, filepath.Join(c.dir, fmt.Sprintf("member%d.pid", n)))
}

func (c *hzCluster) pid(t *testing.T, n int) int {
	b, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("member%d.pid", n)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func (c *hzCluster) log(n int) string {
	b, _ := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("member%d.log", n)))
	return string(b)
}

// waitMembers waits until member n's log shows a cluster of size members
// at least `times` times (a restarted member logs it again).
func (c *hzCluster) waitMembers(t *testing.T, n, size, times int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if strings.Count(c.log(n), fmt.Sprintf("Members {size:%d", size)) >= times {
			return true
		}
		time.Sleep(500 * time.Millisecond)
	}
	return false
}

func freePorts(t *testing.T, n int) []int {
	var out []int
	var ls []net.Listener
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		l.Close()
	}
	return out
}

// The scenario: a member of a real 3-member Hazelcast cluster is
// killed (SIGKILL) during a fixed-rate run and started again 5 s later; the
// event cost is measured from the run's series. The cluster is private (its
// own ports and name) so that killing a member does not disturb the shared
// cluster other packages' tests use at the same time.
func TestEventCostRealHazelcastMemberKill(t *testing.T) {
	jar := hzJar(t)
	ports := freePorts(t, 3)
	c := &hzCluster{dir: t.TempDir(), jar: jar, cluster: fmt.Sprintf("pb-events-%d", os.Getpid())}
	copy(c.ports[:], ports)
	var members []string
	for _, p := range ports {
		members = append(members, fmt.Sprintf("127.0.0.1:%d", p))
	}
	if err := os.WriteFile(filepath.Join(c.dir, "member.yaml"), []byte(fmt.Sprintf(hzMemberYAML, c.cluster, strings.Join(members, ", "))), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for n := 0; n < 3; n++ {
			if b, err := os.ReadFile(filepath.Join(c.dir, fmt.Sprintf("member%d.pid", n))); err == nil {
				if p, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && p > 1 {
					_ = syscall.Kill(p, syscall.SIGKILL)
				}
			}
		}
	})
	start := time.Now()
	for n := 0; n < 3; n++ {
		if out, err := exec.Command("sh", "-c", c.memberCmd(n)).CombinedOutput(); err != nil {
			t.Fatalf("start member %d: %v %s", n, err, out)
		}
	}
	if !c.waitMembers(t, 0, 3, 1, 3*time.Minute) {
		t.Fatalf("private cluster not formed after 3 min; member 0 log:\n%s", tail(c.log(0), 20))
	}
	t.Logf("private cluster of 3 up in %s", time.Since(start).Round(time.Second))

	spec, err := workload.Preset("ycsb-b")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 1000
	spec.FieldCount, spec.FieldLength = 1, 100
	spec.EnsureDefaults()
	victim := c.pid(t, 2)
	kill, err := runner.ParseEvent(fmt.Sprintf("10s:kill:%d", victim))
	if err != nil {
		t.Fatal(err)
	}
	restart, err := runner.ParseEvent("15s:exec:" + c.memberCmd(2))
	if err != nil {
		t.Fatal(err)
	}
	const rate = 300
	url := fmt.Sprintf("hazelcast://%s?cluster=%s", strings.Join(members, ","), c.cluster)
	r, err := bench.Run(context.Background(), bench.Config{Open: registry.Open,
		Target: url, TargetOpts: map[string]string{"map": "events", "timeout": "10s"}, Workload: spec, Load: true, Run: true,
		Runner: runner.Config{Duration: 60 * time.Second, Rate: rate, Concurrency: 64, Seed: 1, Events: []runner.Event{kill, restart}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Events) != 2 || r.Events[0].Error != "" || r.Events[1].Error != "" {
		t.Fatalf("events %+v", r.Events)
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", victim)); err == nil {
		if b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", victim)); !strings.Contains(string(b), ") Z") {
			t.Errorf("member pid %d still alive after the kill event", victim)
		}
	}
	// The restarted member came back and joined: the survivors saw size 3 again.
	if !c.waitMembers(t, 0, 3, 2, time.Minute) {
		t.Errorf("the restarted member did not rejoin; member 0 log:\n%s", tail(c.log(0), 20))
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
	if im.Kind != "kill" || im.BaselineOpsPerS < 0.9*rate || im.BaselineOpsPerS > 1.1*rate {
		t.Errorf("kill: baseline %.0f op/s at a rate of %d (%s)", im.BaselineOpsPerS, rate, im.Verdict)
	}
	// The window's figures are consistent with the series they come from.
	if im.Ops+im.Errors == 0 || im.WindowEndNs <= im.AtNs || im.P99Ns <= 0 {
		t.Errorf("kill: empty window %+v", im)
	}
	// How much losing a member costs depends on the client's failover timing:
	// in one CI dry run it was a 100% dip, in another only p99 x1.95 with no
	// dip at 1 s. So the cost is reported, not asserted; the synthetic tests
	// and the Redis SIGSTOP test (a deterministic 2 s stall) pin the figures.
	t.Logf("kill: dip %.0f%%, %d errors, p99 %s vs %s", im.DipPercent, im.Errors, time.Duration(im.P99Ns), time.Duration(im.BaselineP99Ns))
	if im.Recovered && im.RecoveryNs > int64(50*time.Second) {
		t.Errorf("recovery %s is past the end of the run", time.Duration(im.RecoveryNs))
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
