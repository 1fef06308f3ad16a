package analysis

import (
	"math"
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// nodeSample is a one-second sample with the node's busy share split as
// user time, the busiest core and its interrupt share, one disk and one
// interface.
func nodeSample(off int64, busy, core, irq, diskBusy float64, rxBytes uint64) result.NodeSample {
	return result.NodeSample{OffsetNs: off * 1e9, DurationNs: 1e9, CPUs: 4,
		CPUUser: busy, CPUIdle: 1 - busy, CPUMaxCore: core, CPUMaxCoreID: 2, CPUMaxCoreIRQ: irq,
		MemTotalBytes: 8 << 30, MemUsedBytes: 2 << 30, MemAvailableBytes: 5 << 30, PageCacheBytes: (1 + off) << 30,
		Disks: map[string]result.DiskIO{"sda": {Reads: 100, ReadBytes: 100 << 12, ReadLatencyNs: 2e5, BusyFraction: diskBusy},
			"zram0": {}},
		Nets: map[string]result.NodeNetIO{"eth0": {RxBytes: rxBytes, TxBytes: 1000, RxPackets: 10, TxPackets: 10, RxDrops: 1, SpeedBytesPerS: 125e6}},
	}
}

func TestNodes(t *testing.T) {
	missing := func(off int64, err string) result.NodeSample {
		return result.NodeSample{OffsetNs: off * 1e9, Missing: true, Error: err, CPUMaxCoreID: -1}
	}
	r := &result.Result{Nodes: []result.NodeSeries{
		// n1: its CPU is saturated in 3 of 4 seconds, and its link in 2 of 4 (119 MB/s of 125).
		{Node: "n1:9100", IntervalNs: 1e9, Samples: []result.NodeSample{
			nodeSample(0, 0.5, 0.6, 0.1, 0.2, 119e6), nodeSample(1, 0.95, 0.99, 0.1, 0.2, 119e6),
			nodeSample(2, 0.95, 0.99, 0.1, 0.2, 1e6), nodeSample(3, 0.95, 0.99, 0.1, 0.2, 1e6)}},
		// n2: one core busy on interrupts, the disk busy; the exporter was down
		// for two scrapes, and the sample after the gap spans it (3 s).
		{Node: "n2:9100", IntervalNs: 1e9, Samples: []result.NodeSample{
			nodeSample(0, 0.3, 0.97, 0.7, 0.95, 1e6), missing(1, "connection refused"), missing(2, "connection refused"),
			func() result.NodeSample { s := nodeSample(0, 0.3, 0.97, 0.7, 0.95, 3e6); s.DurationNs = 3e9; return s }()}},
		// n3: never answered.
		{Node: "n3:9100", IntervalNs: 1e9, Samples: []result.NodeSample{missing(0, "no answer within 500ms")}},
	}}
	nodes, cluster, ok := Nodes(r)
	if !ok || len(nodes) != 3 {
		t.Fatalf("ok %v, %d nodes", ok, len(nodes))
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	n1, n2, n3 := nodes[0], nodes[1], nodes[2]
	near("n1 busy", n1.CPUBusy, (0.5+0.95*3)/4)
	near("n1 busiest core max", n1.BusiestCoreMax, 0.99)
	near("n1 page cache end", n1.PageCacheEnd, 4<<30)
	near("n1 page cache start", n1.PageCacheStart, 1<<30)
	if got := satKinds(n1.Saturated); got != "cpu core net:eth0" {
		t.Errorf("n1 saturated: %s, want cpu core net:eth0", got)
	}
	near("n1 net use max", n1.Nets[0].UseMax, 119e6/125e6)
	if n1.Nets[0].RxDrops != 4 || len(n1.Disks) != 1 || n1.Disks[0].Name != "sda" {
		t.Errorf("n1 nets %+v disks %+v", n1.Nets, n1.Disks)
	}
	// n2: rates are over the 4 sampled seconds, fractions weighted by them.
	near("n2 net rx", n2.Nets[0].RxBytesPerS, 4e6/4)
	near("n2 disk read IOPS", n2.Disks[0].ReadIOPS, 200.0/4)
	if got := satKinds(n2.Saturated); got != "core irq core disk:sda" {
		t.Errorf("n2 saturated: %s, want core irq core disk:sda", got)
	}
	if n2.Missing != 2 || len(n2.Gaps) != 1 || n2.Gaps[0] != (NodeGap{StartNs: 1e9, EndNs: 3e9, Samples: 2, Error: "connection refused"}) {
		t.Errorf("n2 missing %d gaps %+v", n2.Missing, n2.Gaps)
	}
	if n3.Samples != 0 || n3.Missing != 1 || len(n3.Checks) != 0 {
		t.Errorf("n3 %+v", n3)
	}
	if cluster.Nodes != 3 || cluster.SaturatedNodes != 2 || cluster.NodesWithGaps != 2 || cluster.Missing != 3 || cluster.BusiestNode != "n1:9100" {
		t.Errorf("cluster %+v", cluster)
	}
	near("cluster busy mean", cluster.CPUBusyMean, (n1.CPUBusy+n2.CPUBusy)/2)
	near("cluster rx", cluster.NetRxBytesPerS, n1.Nets[0].RxBytesPerS+n2.Nets[0].RxBytesPerS)
	if _, _, ok := Nodes(&result.Result{}); ok {
		t.Error("a result without nodes has node figures")
	}
}

func satKinds(ss []Saturation) string {
	s := ""
	for i, x := range ss {
		if i > 0 {
			s += " "
		}
		s += x.Kind
		if x.Name != "" {
			s += ":" + x.Name
		}
	}
	return s
}

// The page-cache verdict node by node: with reads in the run, a node whose
// disks gave ~400 KiB/s was read from disk, one whose disks gave nothing
// served from memory; a run without reads gets no verdict.
func TestNodePageCache(t *testing.T) {
	quiet := func(off int64) result.NodeSample {
		s := nodeSample(off, 0.3, 0.4, 0.1, 0.1, 1e6)
		s.Disks = map[string]result.DiskIO{"sda": {Writes: 10, WriteBytes: 10 << 12}}
		return s
	}
	r := &result.Result{
		Phases: []result.Phase{{Name: "run", Ops: []result.OpTotal{{Op: "READ", Count: 1000}}}},
		Nodes: []result.NodeSeries{
			{Node: "cold:9100", IntervalNs: 1e9, Samples: []result.NodeSample{nodeSample(0, 0.3, 0.4, 0.1, 0.1, 1e6), nodeSample(1, 0.3, 0.4, 0.1, 0.1, 1e6)}},
			{Node: "warm:9100", IntervalNs: 1e9, Samples: []result.NodeSample{quiet(0), quiet(1)}},
		}}
	nodes, _, _ := Nodes(r)
	if nodes[0].PageCache != NodeCacheMissed || nodes[0].DiskReadBytesPerS != 100<<12 {
		t.Errorf("cold node: %q at %.0f B/s read, want read from disk at %d", nodes[0].PageCache, nodes[0].DiskReadBytesPerS, 100<<12)
	}
	if nodes[1].PageCache != NodeCacheServed {
		t.Errorf("warm node: %q, want served from memory", nodes[1].PageCache)
	}
	r.Phases[0].Ops[0].Op = "UPDATE"
	if nodes, _, _ := Nodes(r); nodes[0].PageCache != "" {
		t.Errorf("a run without reads: %q", nodes[0].PageCache)
	}
}

// An exporter whose CPU counters do not move between scrapes (a static
// exposition, as the soak serves) read as 100% busy and saturated: no CPU
// time is no CPU figure, not a saturated CPU.
func TestNodeCountersThatDoNotMove(t *testing.T) {
	still := result.NodeSample{DurationNs: 1e9, CPUs: 2, MemTotalBytes: 1 << 30}
	busy := still
	busy.CPUUser, busy.CPUIdle, busy.CPUMaxCore = 0.95, 0.05, 1
	f := nodeFigures(result.NodeSeries{Node: "n1", IntervalNs: 1e9, Samples: []result.NodeSample{still, still, still}})
	if f.CPUSamples != 0 || f.CPUBusy != 0 || len(f.Saturated) != 0 {
		t.Errorf("still counters: %d CPU samples, busy %.2f, saturated %v", f.CPUSamples, f.CPUBusy, f.Saturated)
	}
	f = nodeFigures(result.NodeSeries{Node: "n1", IntervalNs: 1e9, Samples: []result.NodeSample{still, busy, busy}})
	if f.CPUSamples != 2 || f.CPUBusy < 0.94 || len(f.Saturated) == 0 {
		t.Errorf("two busy samples and one still: %d CPU samples, busy %.2f, saturated %v", f.CPUSamples, f.CPUBusy, f.Saturated)
	}
}

// A node whose interface's qdiscs dropped or held back packets in most
// seconds (node_exporter's qdisc collector) has its link saturated even far
// under its reported speed (a shaper, a cloud's cap): the run's limit is
// the network at that node; in a third of the seconds it is not; an
// exporter without the qdisc collector gives no such check.
func TestNodeQueueSaturated(t *testing.T) {
	run := func(queued func(i int) bool, read bool) *result.Result {
		var ss []result.NodeSample
		for i := range 9 {
			s := nodeSample(int64(i), 0.3, 0.4, 0.05, 0.1, 2e6) // 2 MB/s of a 125 MB/s link
			n := s.Nets["eth0"]
			n.QdiscRead = read
			if read && queued(i) {
				n.QdiscDrops, n.QdiscOverlimits = 3, 40
			}
			s.Nets["eth0"] = n
			ss = append(ss, s)
		}
		return &result.Result{Target: vocab.Info{Kind: "redis"}, Config: result.Config{Concurrency: 8},
			Phases: []result.Phase{{Name: "run", Mode: "closed", DurationNs: 9e9, Ops: []result.OpTotal{{Op: "READ", Count: 9000}}}},
			Nodes:  []result.NodeSeries{{Node: "n1:9100", IntervalNs: 1e9, Samples: ss}}}
	}
	r := run(func(i int) bool { return i%3 != 0 }, true) // 6 of 9 seconds
	nodes, _, _ := Nodes(r)
	if got := satKinds(nodes[0].Saturated); got != "net queue:eth0" {
		t.Errorf("saturated %q, want net queue:eth0", got)
	}
	if b := BottleneckOf(r); b.Limit != LimitNet || b.Where != "node n1:9100" {
		t.Errorf("limit %s at %q, want network at node n1:9100", b.Limit, b.Where)
	}
	nodes, _, _ = Nodes(run(func(i int) bool { return i%3 == 0 }, true)) // 3 of 9
	if len(nodes[0].Saturated) != 0 {
		t.Errorf("a third of the seconds: saturated %s", satKinds(nodes[0].Saturated))
	}
	nodes, _, _ = Nodes(run(func(int) bool { return true }, false))
	for _, c := range nodes[0].Checks {
		if c.Kind == SatQueue {
			t.Errorf("no qdisc collector, yet a queue check: %+v", c)
		}
	}
}

// A node's TCP retransmits (the netstat collector): 3% of the segments
// sent is a caveat when the node's network is not the limit, and evidence
// when it is; under 1% says nothing.
func TestNodeRetrans(t *testing.T) {
	run := func(re uint64, queued bool) *result.Bottleneck {
		var ss []result.NodeSample
		for i := range 6 {
			s := nodeSample(int64(i), 0.3, 0.4, 0.05, 0.1, 2e6)
			s.TCPOutSegs, s.TCPRetransSegs = 10000, re
			n := s.Nets["eth0"]
			n.QdiscRead, n.QdiscDrops = true, map[bool]uint64{true: 5}[queued]
			s.Nets["eth0"] = n
			ss = append(ss, s)
		}
		return BottleneckOf(&result.Result{Target: vocab.Info{Kind: "redis"}, Config: result.Config{Concurrency: 8},
			Phases: []result.Phase{{Name: "run", Mode: "closed", DurationNs: 6e9, Ops: []result.OpTotal{{Op: "READ", Count: 6000}}}},
			Nodes:  []result.NodeSeries{{Node: "n1:9100", IntervalNs: 1e9, Samples: ss}}})
	}
	has := func(ps []result.Phrase) bool {
		for _, p := range ps {
			if p.Kind == PhraseTCPRetrans && len(p.S) == 1 && p.S[0] == "n1:9100" && p.F[0] == 300 && p.F[1] == 0.03 {
				return true
			}
		}
		return false
	}
	if b := run(300, false); b.Limit == LimitNet || !has(b.Says.Caveats) {
		t.Errorf("3%% retransmitted, network not the limit: limit %s, caveats %+v", b.Limit, b.Says.Caveats)
	}
	if b := run(300, true); b.Limit != LimitNet || !has(b.Says.Evidence) {
		t.Errorf("3%% retransmitted, the node's queue full: limit %s, evidence %+v", b.Limit, b.Says.Evidence)
	}
	for _, c := range run(50, false).Says.Caveats {
		if c.Kind == PhraseTCPRetrans {
			t.Errorf("0.5%% retransmitted said: %+v", c)
		}
	}
}
