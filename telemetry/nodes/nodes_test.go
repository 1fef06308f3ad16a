package nodes

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/procfs"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/host"
	"github.com/platbench/platbench/telemetry/promtext"
)

// waitFor polls cond until it holds; the test fails after a minute (a
// collector that never gets there), which is a hang guard, not a timing
// assertion.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// counts returns the node's good and missing samples so far.
func (n *node) counts() (good, missing int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, s := range n.series.Samples {
		if s.Missing {
			missing++
		} else {
			good++
		}
	}
	return good, missing
}

// coveredUntil is the end of the node's last good sample (the zero time before one).
func (n *node) coveredUntil() time.Time {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.prev == nil {
		return time.Time{}
	}
	return n.prevAt
}

func procStatBusy(t *testing.T, a, b procfs.Stat) float64 {
	t.Helper()
	x, y := a.CPUTotal, b.CPUTotal
	idle := (y.Idle - x.Idle) + (y.Iowait - x.Iowait)
	total := idle + (y.User - x.User) + (y.Nice - x.Nice) + (y.System - x.System) + (y.IRQ - x.IRQ) + (y.SoftIRQ - x.SoftIRQ) + (y.Steal - x.Steal)
	if total <= 0 {
		t.Fatalf("/proc/stat did not move")
	}
	return 1 - idle/total
}

// busyOf is the CPU busy share over a series' good samples, weighted by
// their durations (each sample's fractions are of its own CPU time).
func busyOf(s result.NodeSeries) (busy float64, secs float64) {
	for _, x := range s.Samples {
		if x.Missing {
			continue
		}
		d := float64(x.DurationNs) / 1e9
		busy += (1 - x.CPUIdle - x.CPUIOWait) * d
		secs += d
	}
	return busy / secs, secs
}

// The node's CPU busy share from node_exporter agrees with /proc/stat's
// deltas over the same seconds (the exporter on this host reads the same
// file, so they differ only by the few milliseconds at each end). One core
// is kept busy so the figure is not just the machine's background.
func TestCPUBusyAgainstProcStat(t *testing.T) {
	url := testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL")
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		t.Fatal(err)
	}
	before, err := fs.Stat()
	if err != nil {
		t.Fatal(err)
	}
	c := Start(context.Background(), []string{url}, 500*time.Millisecond)
	stop := make(chan struct{})
	go func() {
		x := 0
		for {
			select {
			case <-stop:
				return
			default:
				for i := range 100000 {
					x += i
				}
			}
		}
	}()
	waitFor(t, "6 good samples", func() bool { g, _ := c.nodes[0].counts(); return g >= 6 })
	close(stop)
	series := c.Stop()
	after, err := fs.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 || series[0].URL != url {
		t.Fatalf("series %+v", series)
	}
	got, secs := busyOf(series[0])
	want := procStatBusy(t, before, after)
	t.Logf("node_exporter busy %.1f%% over %.1f s, /proc/stat %.1f%%", 100*got, secs, 100*want)
	if math.Abs(got-want) > 0.10 {
		t.Errorf("CPU busy %.3f from node_exporter, %.3f from /proc/stat: more than 10 points apart", got, want)
	}
	s := series[0].Samples[len(series[0].Samples)-1]
	if s.CPUs != len(after.CPU) || s.MemTotalBytes <= 0 || s.PageCacheBytes <= 0 || s.CPUMaxCoreID < 0 {
		t.Errorf("last sample: %d cpus (want %d), mem total %d, page cache %d, busiest core %d",
			s.CPUs, len(after.CPU), s.MemTotalBytes, s.PageCacheBytes, s.CPUMaxCoreID)
	}
}

// A known fsync'd write to the disk holding a temporary directory shows up
// in that device's written bytes (at least as many: the journal and other
// processes add to it).
func TestDiskWriteBytes(t *testing.T) {
	url := testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL")
	dir := t.TempDir()
	dev, err := host.DeviceOf(dir)
	if err != nil {
		testenv.Skip(t, testenv.Host, "the temporary directory is not on a block device: %v", err)
	}
	c := Start(context.Background(), []string{url}, 500*time.Millisecond)
	defer c.Stop()
	n := c.nodes[0]
	waitFor(t, "a first good scrape", func() bool { return !n.coveredUntil().IsZero() })
	const size = 32 << 20
	f, err := os.Create(filepath.Join(dir, "w"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 7)
	}
	for range size / len(buf) {
		if _, err := f.Write(buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	synced := time.Now()
	waitFor(t, "a scrape after the fsync", func() bool { return n.coveredUntil().After(synced) })
	series := c.Stop()
	var written uint64
	for _, s := range series[0].Samples {
		written += s.Disks[dev].WriteBytes
	}
	t.Logf("%s: %d bytes written during the test, %d by it", dev, written, size)
	if written < size {
		t.Errorf("%s: node_exporter counted %d bytes written, fewer than the %d written and fsync'd", dev, written, size)
	}
}

// An exporter stopped mid-collection: the collector goes on, the gap is
// recorded as missing samples with their errors, and once the exporter is
// back the next good sample spans the gap.
func TestExporterStoppedMidCollection(t *testing.T) {
	testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL") // the servers script ran
	bin := os.Getenv("PLATBENCH_NODE_EXPORTER")
	if bin == "" {
		bin = "prometheus-node-exporter"
	}
	addr := freeAddr(t)
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults", "--collector.cpu", "--collector.meminfo")
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", bin, err)
		}
		return cmd
	}
	stop := func(cmd *exec.Cmd) {
		cmd.Process.Kill()
		cmd.Wait()
	}
	cmd := start()
	defer func() { stop(cmd) }()
	waitFor(t, "the exporter to answer", func() bool {
		r, err := http.Get("http://" + addr + "/metrics")
		ok := err == nil
		if ok {
			r.Body.Close()
		}
		return ok
	})

	c := Start(context.Background(), []string{addr}, 200*time.Millisecond)
	n := c.nodes[0]
	waitFor(t, "2 good samples", func() bool { g, _ := n.counts(); return g >= 2 })
	stop(cmd)
	waitFor(t, "2 missing samples", func() bool { _, m := n.counts(); return m >= 2 })
	cmd = start()
	goodBefore, _ := n.counts()
	waitFor(t, "a good sample after the gap", func() bool { g, _ := n.counts(); return g > goodBefore })
	series := c.Stop()[0]

	if series.Node != addr || series.URL != "http://"+addr+"/metrics" {
		t.Errorf("node %q url %q", series.Node, series.URL)
	}
	var firstMiss, lastMiss = -1, -1
	for i, s := range series.Samples {
		if s.Missing {
			if firstMiss < 0 {
				firstMiss = i
			}
			lastMiss = i
			if s.Error == "" || s.DurationNs != 0 {
				t.Errorf("missing sample %d: %+v", i, s)
			}
		}
	}
	if firstMiss < 1 || lastMiss+1 >= len(series.Samples) {
		t.Fatalf("no gap between good samples: %+v", series.Samples)
	}
	after := series.Samples[lastMiss+1]
	gap := series.Samples[firstMiss]
	if after.Missing || after.OffsetNs > gap.OffsetNs || after.OffsetNs+after.DurationNs < series.Samples[lastMiss].OffsetNs {
		t.Errorf("the sample after the gap (%d+%d ns) does not span it (%d..%d ns)", after.OffsetNs, after.DurationNs, gap.OffsetNs, series.Samples[lastMiss].OffsetNs)
	}
	t.Logf("gap: %d missing samples, first error %q", lastMiss-firstMiss+1, gap.Error)
}

// A URL that does not answer (a listener that accepts and says nothing) and
// one that refuses: every sample is missing, the errors say why, and Stop
// returns without waiting for them (a hang here fails the test by its timeout).
func TestUnansweredURL(t *testing.T) {
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	refused := freeAddr(t)
	c := Start(context.Background(), []string{silent.Addr().String(), refused}, 100*time.Millisecond)
	waitFor(t, "3 missing samples of each", func() bool {
		_, a := c.nodes[0].counts()
		_, b := c.nodes[1].counts()
		return a >= 3 && b >= 3
	})
	series := c.Stop()
	for i, want := range []string{"no answer within 50ms", "connection refused"} {
		for _, s := range series[i].Samples {
			if !s.Missing || !strings.Contains(s.Error, want) {
				t.Errorf("%s: sample %+v, want missing with %q", series[i].Node, s, want)
			}
		}
	}
	if again := c.Stop(); len(again) != 2 {
		t.Errorf("second Stop: %d series", len(again))
	}
}

// A body over promtext.MaxBody is refused, not read cut short: its figures before
// the cut are the fixture's, and the line at the cut would be a wrong one.
func TestBodyOverTheLimit(t *testing.T) {
	fix := readFixture(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Write(fix)
		pad := []byte("# " + strings.Repeat("x", 1<<20) + "\n")
		for sent := len(fix); sent <= promtext.MaxBody; sent += len(pad) {
			if _, err := w.Write(pad); err != nil {
				return
			}
		}
	})}
	go srv.Serve(l)
	defer srv.Close()
	n := &node{url: "http://" + l.Addr().String() + "/metrics", timeout: 10 * time.Second, client: &http.Client{}}
	if _, err := n.get(context.Background()); err == nil || !strings.Contains(err.Error(), "over 16 MiB") {
		t.Fatalf("a body over %d bytes gave %v", promtext.MaxBody, err)
	}
	if n.spare == nil {
		t.Error("the refused scrape's frame was not kept for the next")
	}
}

// freeAddr is a loopback address with a port nothing listens on (now).
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func TestURLs(t *testing.T) {
	for _, c := range []struct {
		explicit []string
		port     int
		nodes    []string
		want     string
		err      string
	}{
		// explicit URLs win, normalised, duplicates dropped
		{[]string{"10.0.0.5:9100", "http://10.0.0.5:9100/metrics", "https://n2/m"}, 9100, []string{"x:1"},
			"http://10.0.0.5:9100/metrics https://n2/m", ""},
		// the target's nodes as CQL, Kafka and the embedded store describe them; two on one host share its exporter
		{nil, 9100, []string{"10.0.0.1:9042 (dc dc1, UP)", "10.0.0.1:9043 (dc dc1, UP)", "broker:9092", "[::1]:6379", "local"},
			"http://10.0.0.1:9100/metrics http://broker:9100/metrics http://[::1]:9100/metrics http://127.0.0.1:9100/metrics", ""},
		{nil, 0, []string{"a:1"}, "", ""}, // off
		{nil, 9100, nil, "", "server_metrics_port is set but the target named no nodes"},
		// auto: the target's nodes on node_exporter's port, or the one given
		{[]string{"auto"}, 0, []string{"10.0.0.1:9042 (dc dc1, UP)", "10.0.0.2:9042"},
			"http://10.0.0.1:9100/metrics http://10.0.0.2:9100/metrics", ""},
		{[]string{" AUTO "}, 19100, []string{"10.0.0.1:9042"}, "http://10.0.0.1:19100/metrics", ""},
	} {
		got, err := URLs(c.explicit, c.port, c.nodes)
		if fmt.Sprint(err) != "<nil>" || c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%v %d %v: error %v, want %q", c.explicit, c.port, c.nodes, err, c.err)
			}
			continue
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("%v %d %v:\n got %s\nwant %s", c.explicit, c.port, c.nodes, s, c.want)
		}
	}
	l := Problems([]string{"ftp://x", "ok:9100", "h:0"}, 70000)
	if len(l) != 3 || l[0].Field != "server_metrics" || l[2].Field != "server_metrics_port" {
		t.Errorf("problems %v", l)
	}
	if l := Problems([]string{"auto"}, 0); len(l) != 0 {
		t.Errorf("auto alone: %v", l)
	}
	if l := Problems([]string{"auto", "10.0.0.5:9100"}, 0); len(l) != 1 || !strings.Contains(l[0].Error(), "auto stands for the target's nodes") {
		t.Errorf("auto with a URL: %v", l)
	}
}
