package report

import (
	"bytes"
	"testing"

	"github.com/platbench/platbench/result"
)

// nodesResult is a three-node cluster: n1 CPU-bound with a busy link, n2
// with an interrupt core and a busy disk whose exporter missed two scrapes,
// n3 whose exporter never answered.
func nodesResult() *result.Result {
	s := func(off int64, busy, core, irq, diskBusy float64, rx uint64) result.NodeSample {
		return result.NodeSample{OffsetNs: off * 1e9, DurationNs: 1e9, CPUs: 8,
			CPUUser: busy * 0.8, CPUSystem: busy * 0.2, CPUIdle: 1 - busy, CPUMaxCore: core, CPUMaxCoreID: 3, CPUMaxCoreIRQ: irq,
			MemTotalBytes: 32 << 30, MemUsedBytes: 6 << 30, MemAvailableBytes: 20 << 30, PageCacheBytes: (4 + off) << 30, DirtyBytes: 64 << 20,
			Disks: map[string]result.DiskIO{"nvme0n1": {Reads: 2000, Writes: 500, ReadBytes: 2000 << 12, WriteBytes: 500 << 16,
				ReadLatencyNs: 120e3, WriteLatencyNs: 40e3, BusyFraction: diskBusy}},
			Nets: map[string]result.NodeNetIO{"eth0": {RxBytes: rx, TxBytes: rx / 2, RxPackets: rx / 1000, TxPackets: rx / 2000, RxDrops: 3, SpeedBytesPerS: 1.25e9}},
		}
	}
	miss := func(off int64, err string) result.NodeSample {
		return result.NodeSample{OffsetNs: off * 1e9, Missing: true, Error: err, CPUMaxCoreID: -1}
	}
	return &result.Result{Nodes: []result.NodeSeries{
		{Node: "10.0.0.1:9100", URL: "http://10.0.0.1:9100/metrics", IntervalNs: 1e9, Samples: []result.NodeSample{
			s(0, 0.7, 0.8, 0.1, 0.3, 1.2e9), s(1, 0.96, 0.99, 0.1, 0.3, 1.2e9), s(2, 0.97, 1, 0.1, 0.3, 0.2e9)}},
		{Node: "10.0.0.2:9100", URL: "http://10.0.0.2:9100/metrics", IntervalNs: 1e9, Samples: []result.NodeSample{
			s(0, 0.4, 0.97, 0.6, 0.95, 1e8), miss(1, "no answer within 500ms"), miss(2, "no answer within 500ms"), s(1, 0.4, 0.97, 0.6, 0.95, 1e8)}},
		{Node: "10.0.0.3:9100", URL: "http://10.0.0.3:9100/metrics", IntervalNs: 1e9, Samples: []result.NodeSample{
			miss(0, "connection refused"), miss(1, "connection refused")}},
	}}
}

func TestWriteNodes(t *testing.T) {
	var txt, md bytes.Buffer
	WriteNodesText(&txt, nodesResult())
	golden(t, "nodes.txt", txt.Bytes())
	writeNodesMarkdown(&md, nodesResult())
	golden(t, "nodes.md", md.Bytes())

	txt.Reset()
	WriteNodesText(&txt, &result.Result{})
	if txt.Len() != 0 {
		t.Errorf("a result without nodes wrote %q", txt.String())
	}
}

// The HTML report draws the nodes: a chart per figure, a line per node that
// answered, with a gap (no zero) where a scrape failed.
func TestNodeCharts(t *testing.T) {
	cs := nodeCharts(nodesResult())
	if len(cs) != 4 {
		t.Fatalf("%d node charts, want cpu, busiest core, disk reads and writes", len(cs))
	}
	cpu := cs[0]
	if cpu.title != "Server nodes: CPU busy" || len(cpu.series) != 3 || cpu.series[0].name != "10.0.0.1:9100" {
		t.Fatalf("cpu chart %q with %d series", cpu.title, len(cpu.series))
	}
	if n := len(cpu.series[1].xs); n != 2 {
		t.Errorf("node 2 has %d points, want its 2 answered scrapes (the missing ones left out)", n)
	}
	if len(cpu.series[2].xs) != 0 {
		t.Error("a node that never answered has points")
	}
	if got := cpu.series[0].ys[1]; got < 0.959 || got > 0.961 {
		t.Errorf("node 1 busy in its 2nd second = %v, want 0.96", got)
	}
	if got := cs[2].series[0].ys[0]; got != 2000<<12 {
		t.Errorf("node 1 disk reads = %v B/s, want %d", got, 2000<<12)
	}
	if nodeCharts(&result.Result{}) != nil {
		t.Error("charts for a result without nodes")
	}
}
