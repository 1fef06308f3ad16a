package analysis

import (
	"math"
	"sort"

	"github.com/platbench/platbench/result"
)

// The "what saturated" thresholds: a resource of a node saturated when its
// per-sample figure was at or over the threshold for at least
// SaturatedShare of the node's sampled time.
const (
	// SaturatedCPU is the node's CPU busy share (all cores; iowait is idle).
	SaturatedCPU = 0.90
	// SaturatedCore is the busiest core's busy share: one thread (or one
	// queue) bound while the others have room.
	SaturatedCore = 0.95
	// SaturatedIRQCore is the irq+softirq share of one core: a core spending
	// half its time in interrupt handling has little left for the work the
	// network or disk queues pinned to it bring (seed 001's interrupt cores).
	SaturatedIRQCore = 0.50
	// SaturatedDisk is a device's busy share (iostat's %util / 100). On
	// devices that serve many I/Os at once (NVMe, RAID) 100% busy is not yet
	// full: read it with the latency beside it.
	SaturatedDisk = 0.90
	// SaturatedNet is an interface's use of its link speed (the larger of
	// receive and transmit), checked only when the exporter reports the speed.
	SaturatedNet = 0.90
	// SaturatedShare is the share of the sampled time a resource must spend
	// at or over its threshold to be called saturated, not only busy for a
	// moment.
	SaturatedShare = 0.5
)

// Saturation kinds (Saturation.Kind).
const (
	SatCPU     = "cpu"
	SatCore    = "core"
	SatIRQCore = "irq core"
	SatDisk    = "disk"
	SatNet     = "net"
	// SatQueue: an interface whose queueing disciplines dropped, held back
	// or queued packets (node_exporter's qdisc collector) in SaturatedShare
	// of the sampled time: a link full whatever its reported speed (a
	// shaper, a cloud's cap), as the loader host's QdiscShare.
	SatQueue = "net queue"
)

// NodeFigures are one server node's telemetry over the run (from its
// node_exporter), reduced as Host reduces the loader's: fractions 0..1
// weighted by each sample's duration, rates per second of sampled time,
// sizes in bytes. Missing samples are counted and grouped into gaps; they
// add nothing else (the good sample after a gap spans it).
type NodeFigures struct {
	Node, URL  string
	IntervalNs int64
	Samples    int // good samples
	Missing    int // failed scrapes
	Gaps       []NodeGap
	CPUs       int

	CPUUser, CPUSystem, CPUIOWait, CPUIRQ, CPUSoftIRQ, CPUSteal, CPUIdle float64
	// CPUSamples is how many samples read CPU time (hasCPU): the CPU
	// figures are theirs; none, and they are unknown.
	CPUSamples                                  int
	CPUBusy                                     float64 // 1 - idle - iowait
	BusiestCoreMean, BusiestCoreMax, IRQCoreMax float64

	MemTotal, MemUsedMax, MemAvailableMin      float64
	PageCacheStart, PageCacheEnd, PageCacheMax float64
	DirtyMax                                   float64
	// Memory is the node's paging (swap, major faults, direct reclaim).
	Memory MemoryFigures

	Disks []HostDisk // devices that did any I/O, most bytes first
	Nets  []NodeNet  // interfaces that moved packets, most bytes first
	// TCPRetransPerS and TCPRetransShare are TCP's retransmitted segments a
	// second and their share of those sent (TCPKnown: the exporter's
	// netstat collector gave them).
	TCPRetransPerS, TCPRetransShare float64
	TCPKnown                        bool

	// Checks are the saturation checks made, in the order cpu, core, irq
	// core, each disk, each interface with a known speed.
	Checks []Saturation
	// Saturated are the checks that found the resource saturated; empty: none.
	Saturated []Saturation
	// PageCache is the node's page-cache verdict when the run read (seed
	// 003's finding, node by node): NodeCacheServed (the node read almost
	// nothing from its disks: its reads came from memory) or NodeCacheMissed
	// (its disks were read: the page cache did not hold what it served);
	// empty when the run did not read or the node was not sampled.
	// DiskReadBytesPerS is the node's disk reads over the run, all devices.
	PageCache         string
	DiskReadBytesPerS float64
}

// Node page-cache verdicts (NodeFigures.PageCache).
const (
	NodeCacheServed = "served from memory"
	NodeCacheMissed = "read from disk"
)

// NodeCacheMissBytesPerS is the disk read rate from which a node's reads
// count as going to disk: a few pages a second are metadata and logs, not a
// dataset that missed the page cache.
const NodeCacheMissBytesPerS = 256 << 10

// NodeNet is one interface of a node over the run.
type NodeNet struct {
	Name                         string
	RxBytesPerS, TxBytesPerS     float64
	RxPacketsPerS, TxPacketsPerS float64
	RxDrops, TxDrops             uint64  // packets dropped over the run
	SpeedBytesPerS               float64 // link speed; 0 when unknown
	UseMax                       float64 // highest per-sample use of the link; 0 when the speed is unknown
	totalBytes                   uint64
}

// NodeGap is a run of failed scrapes of one node: from the first failure's
// offset to the end of the last one's interval (offsets from the series'
// start), how many, and the first error.
type NodeGap struct {
	StartNs, EndNs int64
	Samples        int
	Error          string
}

// Saturation is one "what saturated" check on a node.
type Saturation struct {
	Kind      string  // SatCPU, SatCore, SatIRQCore, SatDisk, SatNet or SatQueue
	Name      string  // the device or interface (disk, net); empty otherwise
	Threshold float64 // the per-sample figure that counts as saturated
	Peak      float64 // the highest per-sample figure
	Share     float64 // share of the sampled time at or over Threshold
	Saturated bool    // Share >= SaturatedShare
}

// ClusterFigures sum up the nodes: totals of I/O rates, the mean and the
// highest node CPU busy share, and which nodes saturated.
type ClusterFigures struct {
	Nodes, NodesWithGaps, Missing  int
	CPUBusyMean, CPUBusyMax        float64
	BusiestNode                    string
	DiskReadBytesPerS              float64
	DiskWriteBytesPerS             float64
	DiskIOPS                       float64
	NetRxBytesPerS, NetTxBytesPerS float64
	NetDrops                       uint64
	// SaturatedNodes counts the nodes with at least one saturated resource.
	SaturatedNodes int
}

// Nodes reduces r's node series; ok is false when the result has none.
func Nodes(r *result.Result) (nodes []NodeFigures, cluster ClusterFigures, ok bool) {
	if r == nil || len(r.Nodes) == 0 {
		return nil, cluster, false
	}
	reads := false
	if p := r.MainPhase(); p != nil && p.Name != "load" {
		for _, t := range p.Ops {
			reads = reads || (readOps[t.Op] && t.Count > 0)
		}
	}
	for _, s := range r.Nodes {
		f := nodeFigures(s)
		for _, d := range f.Disks {
			f.DiskReadBytesPerS += d.ReadBytesPerS
		}
		if reads && f.Samples > 0 {
			f.PageCache = NodeCacheServed
			if f.DiskReadBytesPerS >= NodeCacheMissBytesPerS {
				f.PageCache = NodeCacheMissed
			}
		}
		nodes = append(nodes, f)
	}
	return nodes, clusterFigures(nodes), true
}

func clusterFigures(nodes []NodeFigures) ClusterFigures {
	c := ClusterFigures{Nodes: len(nodes)}
	var busy float64
	counted := 0
	for _, n := range nodes {
		c.Missing += n.Missing
		if len(n.Gaps) > 0 {
			c.NodesWithGaps++
		}
		if len(n.Saturated) > 0 {
			c.SaturatedNodes++
		}
		for _, d := range n.Disks {
			c.DiskReadBytesPerS += d.ReadBytesPerS
			c.DiskWriteBytesPerS += d.WriteBytesPerS
			c.DiskIOPS += d.ReadIOPS + d.WriteIOPS
		}
		for _, x := range n.Nets {
			c.NetRxBytesPerS += x.RxBytesPerS
			c.NetTxBytesPerS += x.TxBytesPerS
			c.NetDrops += x.RxDrops + x.TxDrops
		}
		if n.CPUSamples == 0 {
			continue // no CPU read: unknown, not idle
		}
		counted++
		busy += n.CPUBusy
		if n.CPUBusy > c.CPUBusyMax || c.BusiestNode == "" {
			c.CPUBusyMax, c.BusiestNode = n.CPUBusy, n.Node
		}
	}
	if counted > 0 {
		c.CPUBusyMean = busy / float64(counted)
	}
	return c
}

// nodeFigures reduces one node's series.
func nodeFigures(s result.NodeSeries) NodeFigures {
	f := NodeFigures{Node: s.Node, URL: s.URL, IntervalNs: s.IntervalNs}
	var good []result.NodeSample
	for _, x := range s.Samples {
		if x.Missing {
			f.Missing++
			continue
		}
		good = append(good, x)
	}
	f.Gaps = scrapeGaps(s.Samples, s.IntervalNs, func(x result.NodeSample) (bool, int64, string) {
		return x.Missing, x.OffsetNs, x.Error
	})
	f.Samples = len(good)
	if len(good) == 0 {
		return f
	}
	w := func(x result.NodeSample) float64 { return float64(x.DurationNs) / 1e9 }
	var secs float64
	for _, x := range good {
		secs += w(x)
	}
	if secs <= 0 {
		// Hand-made files without durations: 1 s each, as Host does.
		secs, w = float64(len(good)), func(result.NodeSample) float64 { return 1 }
	}
	maxOf := func(v func(result.NodeSample) float64) float64 {
		m := math.Inf(-1)
		for _, x := range good {
			m = math.Max(m, v(x))
		}
		return m
	}
	last := good[len(good)-1]
	f.CPUs = last.CPUs
	cpuFigures(&f, good, w)
	f.MemTotal = float64(last.MemTotalBytes)
	f.MemUsedMax = maxOf(func(x result.NodeSample) float64 { return float64(x.MemUsedBytes) })
	f.MemAvailableMin = -maxOf(func(x result.NodeSample) float64 { return -float64(x.MemAvailableBytes) })
	f.PageCacheStart, f.PageCacheEnd = float64(good[0].PageCacheBytes), float64(last.PageCacheBytes)
	f.PageCacheMax = maxOf(func(x result.NodeSample) float64 { return float64(x.PageCacheBytes) })
	f.DirtyMax = maxOf(func(x result.NodeSample) float64 { return float64(x.DirtyBytes) })
	f.Memory = memoryOf(len(good), func(i int) (result.Paging, int64) { return good[i].Paging, good[i].MemAvailableBytes }, secs)
	hs := make([]result.HostSample, len(good))
	for i, x := range good {
		hs[i] = result.HostSample{DurationNs: x.DurationNs, Disks: x.Disks}
	}
	f.Disks = hostDisks(hs, secs)
	f.Nets = nodeNets(good, secs)
	var out, re uint64
	for _, x := range good {
		out, re = out+x.TCPOutSegs, re+x.TCPRetransSegs
	}
	if out > 0 {
		f.TCPKnown, f.TCPRetransPerS, f.TCPRetransShare = true, float64(re)/secs, float64(re)/float64(out)
	}
	f.Checks = nodeChecks(good, w, secs)
	for _, c := range f.Checks {
		if c.Saturated {
			f.Saturated = append(f.Saturated, c)
		}
	}
	return f
}

func nodeBusy(x result.NodeSample) float64 { return 1 - x.CPUIdle - x.CPUIOWait }

// hasCPU says whether a sample read CPU time: an exporter whose counters
// did not move between two scrapes (a static exposition, a node whose
// /proc/stat is not the host's) has no share of any mode, which would
// read as 100% busy.
func hasCPU(x result.NodeSample) bool {
	return x.CPUUser+x.CPUSystem+x.CPUIOWait+x.CPUIRQ+x.CPUSoftIRQ+x.CPUSteal+x.CPUIdle > 0
}

// cpuFigures fills f's CPU figures: means and maxima over the samples that
// read CPU time (hasCPU), weighted by w; none, and the figures stay zero
// (CPUSamples 0: unknown, not idle).
func cpuFigures(f *NodeFigures, good []result.NodeSample, w func(result.NodeSample) float64) {
	var cpu []result.NodeSample
	var secs float64
	for _, x := range good {
		if hasCPU(x) {
			cpu = append(cpu, x)
			secs += w(x)
		}
	}
	f.CPUSamples = len(cpu)
	if len(cpu) == 0 || secs <= 0 {
		return
	}
	mean := func(v func(result.NodeSample) float64) float64 {
		var t float64
		for _, x := range cpu {
			t += v(x) * w(x)
		}
		return t / secs
	}
	f.CPUUser = mean(func(x result.NodeSample) float64 { return x.CPUUser })
	f.CPUSystem = mean(func(x result.NodeSample) float64 { return x.CPUSystem })
	f.CPUIOWait = mean(func(x result.NodeSample) float64 { return x.CPUIOWait })
	f.CPUIRQ = mean(func(x result.NodeSample) float64 { return x.CPUIRQ })
	f.CPUSoftIRQ = mean(func(x result.NodeSample) float64 { return x.CPUSoftIRQ })
	f.CPUSteal = mean(func(x result.NodeSample) float64 { return x.CPUSteal })
	f.CPUIdle = mean(func(x result.NodeSample) float64 { return x.CPUIdle })
	f.CPUBusy = mean(nodeBusy)
	f.BusiestCoreMean = mean(func(x result.NodeSample) float64 { return x.CPUMaxCore })
	for _, x := range cpu {
		f.BusiestCoreMax = math.Max(f.BusiestCoreMax, x.CPUMaxCore)
		f.IRQCoreMax = math.Max(f.IRQCoreMax, x.CPUMaxCoreIRQ)
	}
}

// scrapeGaps groups consecutive missing samples of a scraped series (a
// node's exporter, a data system's own metrics) into gaps, each ending one
// interval after its last missing sample; missing tells whether a sample
// is missing, with its offset and error.
func scrapeGaps[S any](samples []S, intervalNs int64, missing func(S) (bool, int64, string)) []NodeGap {
	var gaps []NodeGap
	open := false
	for _, x := range samples {
		miss, offset, err := missing(x)
		if !miss {
			open = false
			continue
		}
		if !open {
			gaps = append(gaps, NodeGap{StartNs: offset, Error: err})
			open = true
		}
		g := &gaps[len(gaps)-1]
		g.Samples++
		g.EndNs = offset + intervalNs
	}
	return gaps
}

func nodeNets(good []result.NodeSample, secs float64) []NodeNet {
	all := map[string]*netSum{}
	for _, x := range good {
		for name, n := range x.Nets {
			addNet(all, name, n, x.DurationNs)
		}
	}
	return netRates(all, secs)
}

// netSum is one interface's traffic summed over samples; the loader host's
// and the server nodes' alike (hostNets, nodeNets).
type netSum struct {
	result.NodeNetIO // the counts summed; its speed unused
	speed, useMax    float64
}

// addNet adds one sample (durNs long) of interface name.
func addNet(all map[string]*netSum, name string, n result.NodeNetIO, durNs int64) {
	a := entry(all, name)
	a.AddCounts(n)
	if n.SpeedBytesPerS > 0 {
		a.speed = n.SpeedBytesPerS
		a.useMax = math.Max(a.useMax, netUse(durNs, n))
	}
}

// entry is all's sum of name, made zero the first time (the per-device
// totals: hostDisks, addNet).
func entry[T any](all map[string]*T, name string) *T {
	a := all[name]
	if a == nil {
		a = new(T)
		all[name] = a
	}
	return a
}

// netRates is the interfaces that carried a packet, per second over secs,
// the busiest first.
func netRates(all map[string]*netSum, secs float64) []NodeNet {
	var out []NodeNet
	for name, a := range all {
		if a.RxPackets+a.TxPackets == 0 {
			continue
		}
		out = append(out, NodeNet{Name: name, RxBytesPerS: float64(a.RxBytes) / secs, TxBytesPerS: float64(a.TxBytes) / secs,
			RxPacketsPerS: float64(a.RxPackets) / secs, TxPacketsPerS: float64(a.TxPackets) / secs,
			RxDrops: a.RxDrops, TxDrops: a.TxDrops, SpeedBytesPerS: a.speed, UseMax: a.useMax, totalBytes: a.RxBytes + a.TxBytes})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].totalBytes != out[j].totalBytes {
			return out[i].totalBytes > out[j].totalBytes
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// netUse is one sample's use of the link: the larger direction over the speed.
func netUse(durNs int64, n result.NodeNetIO) float64 {
	if n.SpeedBytesPerS <= 0 || durNs <= 0 {
		return 0
	}
	return float64(max(n.RxBytes, n.TxBytes)) / (float64(durNs) / 1e9) / n.SpeedBytesPerS
}

// nodeChecks runs the saturation checks over the good samples (w weighs a
// sample by its duration, secs is their sum).
func nodeChecks(good []result.NodeSample, w func(result.NodeSample) float64, secs float64) []Saturation {
	check := func(kind, name string, threshold float64, v func(result.NodeSample) (float64, bool)) (Saturation, bool) {
		c := Saturation{Kind: kind, Name: name, Threshold: threshold}
		seen := false
		for _, x := range good {
			y, ok := v(x)
			if !ok {
				continue
			}
			seen = true
			c.Peak = math.Max(c.Peak, y)
			if y >= threshold {
				c.Share += w(x) / secs
			}
		}
		c.Saturated = seen && c.Share >= SaturatedShare
		return c, seen
	}
	var out []Saturation
	add := func(c Saturation, ok bool) {
		// A device that never had I/O in flight is not worth a line.
		if ok && (c.Kind != SatDisk || c.Peak > 0) {
			out = append(out, c)
		}
	}
	cpu := func(f func(result.NodeSample) float64) func(result.NodeSample) (float64, bool) {
		return func(x result.NodeSample) (float64, bool) { return f(x), hasCPU(x) }
	}
	add(check(SatCPU, "", SaturatedCPU, cpu(nodeBusy)))
	add(check(SatCore, "", SaturatedCore, cpu(func(x result.NodeSample) float64 { return x.CPUMaxCore })))
	add(check(SatIRQCore, "", SaturatedIRQCore, cpu(func(x result.NodeSample) float64 { return x.CPUMaxCoreIRQ })))
	for _, name := range sortedNames(good, func(x result.NodeSample) []string { return keys(x.Disks) }) {
		add(check(SatDisk, name, SaturatedDisk, func(x result.NodeSample) (float64, bool) {
			d, ok := x.Disks[name]
			return d.BusyFraction, ok
		}))
	}
	for _, name := range sortedNames(good, func(x result.NodeSample) []string { return keys(x.Nets) }) {
		add(check(SatNet, name, SaturatedNet, func(x result.NodeSample) (float64, bool) {
			n, ok := x.Nets[name]
			return netUse(x.DurationNs, n), ok && n.SpeedBytesPerS > 0
		}))
		add(check(SatQueue, name, 1, func(x result.NodeSample) (float64, bool) {
			n, ok := x.Nets[name]
			if n.Queued() {
				return 1, true
			}
			return 0, ok && n.QdiscRead
		}))
	}
	return out
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// sortedNames is every name any sample has, sorted.
func sortedNames(good []result.NodeSample, names func(result.NodeSample) []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range good {
		for _, n := range names(x) {
			if !seen[n] {
				seen[n] = true
				out = append(out, n)
			}
		}
	}
	sort.Strings(out)
	return out
}
