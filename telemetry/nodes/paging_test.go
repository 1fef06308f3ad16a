//go:build linux

package nodes

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
)

// The vmstat fixture is a real body of Debian's node_exporter 1.5.0 run
// with its vmstat and meminfo collectors (what --collector.vmstat adds to
// scripts/servers/node_exporter.sh's): its default vmstat fields
// (pgmajfault, pswpin, pswpout among them) and the swap gauges.
func TestParseVMStatFixture(t *testing.T) {
	b, err := os.ReadFile("testdata/node_exporter-1.5.0-vmstat.txt")
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseExposition(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if want := (machine.VMCounters{MajorFaults: 83653, Read: true}); r.VM != want {
		t.Errorf("vm %+v, want %+v", r.VM, want)
	}
	if v, ok := r.Mem["SwapTotal"]; !ok || v != 0 {
		t.Errorf("SwapTotal %v %v", v, ok)
	}
	// The exporter without its vmstat collector (the other fixture): unknown, not zero.
	r, err = parseExposition(bytes.NewReader(readFixture(t)))
	if err != nil || r.VM.Read {
		t.Errorf("fixture without vmstat: %+v, %v", r.VM, err)
	}
}

// Two hand-made scrapes: the sample's paging figures are the counters'
// increase (allocstall zones summed), swap in use total - free.
func TestSamplePaging(t *testing.T) {
	before := "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1\nnode_vmstat_pgmajfault 100\nnode_vmstat_pswpin 10\nnode_vmstat_pswpout 1\n" +
		"node_vmstat_allocstall_normal 1\nnode_vmstat_allocstall_movable 2\nnode_vmstat_pgfault 5\n"
	after := "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 2\nnode_vmstat_pgmajfault 400\nnode_vmstat_pswpin 138\nnode_vmstat_pswpout 1\n" +
		"node_vmstat_allocstall_normal 4\nnode_vmstat_allocstall_movable 2\nnode_vmstat_pgfault 9\n" +
		"node_memory_SwapTotal_bytes 4096\nnode_memory_SwapFree_bytes 1024\n"
	a, err := parseExposition(strings.NewReader(before))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseExposition(strings.NewReader(after))
	if err != nil {
		t.Fatal(err)
	}
	got := sample(a, b, time.Second).Paging
	want := result.Paging{VMStat: true, MajorFaults: 300, SwapInPages: 128, AllocStalls: 3, SwapTotalBytes: 4096, SwapUsedBytes: 3072}
	if got != want {
		t.Errorf("%+v, want %+v", got, want)
	}
}

// A real node_exporter with its vmstat collector, scraped while this
// process takes major faults (testenv.MajorFaults): the node's samples
// count at least those, and read the swap this machine has.
func TestExporterCountsMajorFaults(t *testing.T) {
	testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL") // the servers script ran
	bin := os.Getenv("PLATBENCH_NODE_EXPORTER")
	if bin == "" {
		bin = "prometheus-node-exporter"
	}
	addr := freeAddr(t)
	cmd := exec.Command(bin, "--web.listen-address="+addr, "--collector.disable-defaults", "--collector.vmstat", "--collector.meminfo")
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	waitFor(t, "the exporter to answer", func() bool {
		r, err := http.Get("http://" + addr + "/metrics")
		if err == nil {
			r.Body.Close()
		}
		return err == nil
	})
	c := Start(context.Background(), []string{addr}, 200*time.Millisecond)
	n := c.nodes[0]
	waitFor(t, "a good sample", func() bool { g, _ := n.counts(); return g >= 1 })
	made := testenv.MajorFaults(t, 512)
	g0, _ := n.counts()
	waitFor(t, "a sample after the faults", func() bool { g, _ := n.counts(); return g >= g0+2 })
	series := c.Stop()[0]
	var got uint64
	for _, x := range series.Samples {
		if x.Missing || !x.VMStat {
			t.Fatalf("sample without paging counters: %+v", x)
		}
		got += x.MajorFaults
	}
	if made < 256 || got < uint64(made) {
		t.Errorf("the process took %d major faults, the node's samples count %d", made, got)
	}
	t.Logf("made %d major faults, the exporter's samples count %d", made, got)
}
