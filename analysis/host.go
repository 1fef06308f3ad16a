package analysis

import (
	"math"
	"sort"

	"github.com/platbench/platbench/result"
)

// HostFigures are the loader host's telemetry reduced for a report (the
// host section of a run) or a comparison (its host rows): means over the
// samples unless a name says Max or End. Fractions are 0..1, rates per
// second (over the samples' summed durations), sizes in bytes.
type HostFigures struct {
	Samples    int
	IntervalNs int64

	CPUUser, CPUSystem, CPUIOWait, CPUIRQ, CPUSoftIRQ, CPUSteal, CPUIdle float64
	BusiestCoreMean, BusiestCoreMax, IRQCoreMax, Load1Max                float64
	// CPUBusy is 1 - idle - iowait: the share the CPUs worked (waiting for
	// I/O is idle time with a reason).
	CPUBusy float64

	MemUsedMax, PageCacheEnd, PageCacheMax, DirtyMax float64
	RAM                                              float64 // the platform's RAM; 0 if unknown
	// Memory is the host's paging (swap, major faults, direct reclaim).
	Memory MemoryFigures

	Disks []HostDisk // devices that did any I/O, most bytes first
	Nets  []HostNet  // interfaces that moved packets, most bytes first

	CtxSwitchesPerS, InterruptsPerS float64

	Self *result.SelfUsage // platbench's own use and the client-bound verdict
	// SelfCores is platbench's CPU time per wall-clock second (Self's
	// CPUSeconds / WallSeconds): the cores the load generator kept busy on
	// average; 0 without Self.
	SelfCores float64

	Server *HostServer // the server process on this host; nil when not sampled
	// ServerMatch is how the server process was looked for ("" when it was not).
	ServerMatch string

	Counters *CounterFigures // nil without counters
}

// HostDisk is one device over the run.
type HostDisk struct {
	Name                          string
	ReadBytesPerS, WriteBytesPerS float64
	ReadIOPS, WriteIOPS           float64
	ReadLatencyNs, WriteLatencyNs float64 // mean per I/O; 0 without I/O
	HasReads, HasWrites           bool
	BusyMean, BusyMax             float64
	totalBytes                    uint64
}

// HostNet is one network interface over the run.
type HostNet struct {
	Name                         string
	RxBytesPerS, TxBytesPerS     float64
	RxPacketsPerS, TxPacketsPerS float64
	// Sat is its capacity, use and queue (NetSatOf) when the samples
	// recorded its qdisc or a capacity is known; nil otherwise.
	Sat        *NetSat
	totalBytes uint64
}

// HostServer is the server process's use over the run.
type HostServer struct {
	Name                          string
	PIDs                          int // more than one: it restarted
	CoresMean, CoresMax           float64
	RSSMax                        int64
	ReadBytesPerS, WriteBytesPerS float64
}

// CounterFigures summarise the perf counters of a run.
type CounterFigures struct {
	Scope              string
	IPC                float64
	HasIPC             bool
	CPUsUtilized       float64
	HasCPUsUtilized    bool
	ContextSwitches    float64
	HasContextSwitches bool
	Unavailable        int
}

// Host reduces r's host series and counters; ok is false when the result has
// no host samples. Counters are recorded apart from the host sampler, so
// they are reduced whether or not there are samples.
func Host(r *result.Result) (HostFigures, bool) {
	if r == nil {
		return HostFigures{}, false
	}
	if r.Host == nil || len(r.Host.Samples) == 0 {
		return HostFigures{Counters: counterFigures(r.Counters)}, false
	}
	h := r.Host
	ss := h.Samples
	n := float64(len(ss))
	// Rates are over the samples' summed durations, as the kernel's counters
	// are; samples without a duration (hand-made files) count as 1 s each.
	var secs float64
	for _, s := range ss {
		secs += float64(s.DurationNs) / 1e9
	}
	if secs <= 0 {
		secs = n
	}
	sum := func(f func(result.HostSample) float64) float64 {
		var t float64
		for _, s := range ss {
			t += f(s)
		}
		return t
	}
	mean := func(f func(result.HostSample) float64) float64 { return sum(f) / n }
	perSec := func(f func(result.HostSample) float64) float64 { return sum(f) / secs }
	maxOf := func(f func(result.HostSample) float64) float64 {
		m := math.Inf(-1)
		for _, s := range ss {
			m = math.Max(m, f(s))
		}
		return m
	}
	f := HostFigures{
		Samples: len(ss), IntervalNs: h.IntervalNs,
		CPUUser:         mean(func(s result.HostSample) float64 { return s.CPUUser }),
		CPUSystem:       mean(func(s result.HostSample) float64 { return s.CPUSystem }),
		CPUIOWait:       mean(func(s result.HostSample) float64 { return s.CPUIOWait }),
		CPUIRQ:          mean(func(s result.HostSample) float64 { return s.CPUIRQ }),
		CPUSoftIRQ:      mean(func(s result.HostSample) float64 { return s.CPUSoftIRQ }),
		CPUSteal:        mean(func(s result.HostSample) float64 { return s.CPUSteal }),
		CPUIdle:         mean(func(s result.HostSample) float64 { return s.CPUIdle }),
		CPUBusy:         mean(func(s result.HostSample) float64 { return 1 - s.CPUIdle - s.CPUIOWait }),
		BusiestCoreMean: mean(func(s result.HostSample) float64 { return s.CPUMaxCore }),
		BusiestCoreMax:  maxOf(func(s result.HostSample) float64 { return s.CPUMaxCore }),
		IRQCoreMax:      maxOf(func(s result.HostSample) float64 { return s.CPUMaxCoreIRQ }),
		Load1Max:        maxOf(func(s result.HostSample) float64 { return s.Load1 }),
		MemUsedMax:      maxOf(func(s result.HostSample) float64 { return float64(s.MemUsedBytes) }),
		PageCacheEnd:    float64(ss[len(ss)-1].PageCacheBytes),
		PageCacheMax:    maxOf(func(s result.HostSample) float64 { return float64(s.PageCacheBytes) }),
		DirtyMax:        maxOf(func(s result.HostSample) float64 { return float64(s.DirtyBytes) }),
		RAM:             float64(r.Platform.RAMBytes),
		CtxSwitchesPerS: perSec(func(s result.HostSample) float64 { return float64(s.CtxSwitches) }),
		InterruptsPerS:  perSec(func(s result.HostSample) float64 { return float64(s.Interrupts) }),
		Disks:           hostDisks(ss, secs),
		Nets:            hostNets(ss, secs, h.Links),
		Self:            h.Self,
		SelfCores:       selfCores(h.Self),
		Server:          hostServer(h.Server, secs),
		ServerMatch:     h.ServerMatch,
		Counters:        counterFigures(r.Counters),
	}
	f.Memory = memoryOf(len(ss), func(i int) (result.Paging, int64) { return ss[i].Paging, ss[i].MemAvailableBytes }, secs)
	return f, true
}

// sampledSecs is the samples' summed durations (1 s each for hand-made
// files without them).
func sampledSecs(ss []result.HostSample) float64 {
	var secs float64
	for _, s := range ss {
		secs += float64(s.DurationNs) / 1e9
	}
	if secs <= 0 {
		secs = float64(len(ss))
	}
	return secs
}

func selfCores(u *result.SelfUsage) float64 {
	if u == nil || u.WallSeconds <= 0 {
		return 0
	}
	return u.CPUSeconds / u.WallSeconds
}

func hostDisks(ss []result.HostSample, secs float64) []HostDisk {
	type acc struct {
		result.DiskIO         // the counts summed; its latencies and busy fraction unused
		rlat, wlat    float64 // ns weighted by ops
		busy, busyMax float64
	}
	all := map[string]*acc{}
	for _, s := range ss {
		for name, d := range s.Disks {
			a := entry(all, name)
			a.AddCounts(d)
			a.rlat += float64(d.ReadLatencyNs) * float64(d.Reads)
			a.wlat += float64(d.WriteLatencyNs) * float64(d.Writes)
			a.busy += d.BusyFraction
			a.busyMax = math.Max(a.busyMax, d.BusyFraction)
		}
	}
	var out []HostDisk
	for name, a := range all {
		if a.Reads+a.Writes == 0 {
			continue
		}
		d := HostDisk{Name: name, ReadBytesPerS: float64(a.ReadBytes) / secs, WriteBytesPerS: float64(a.WriteBytes) / secs,
			ReadIOPS: float64(a.Reads) / secs, WriteIOPS: float64(a.Writes) / secs, HasReads: a.Reads > 0, HasWrites: a.Writes > 0,
			BusyMean: a.busy / float64(len(ss)), BusyMax: a.busyMax, totalBytes: a.ReadBytes + a.WriteBytes}
		if a.Reads > 0 {
			d.ReadLatencyNs = a.rlat / float64(a.Reads)
		}
		if a.Writes > 0 {
			d.WriteLatencyNs = a.wlat / float64(a.Writes)
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].totalBytes != out[j].totalBytes {
			return out[i].totalBytes > out[j].totalBytes
		}
		return out[i].Name < out[j].Name
	})
	return out
}

func hostNets(ss []result.HostSample, secs float64, links map[string]result.Link) []HostNet {
	all := map[string]*netSum{}
	for _, s := range ss {
		for name, x := range s.Nets {
			addNet(all, name, result.NodeNetIO{RxBytes: x.RxBytes, TxBytes: x.TxBytes, RxPackets: x.RxPackets, TxPackets: x.TxPackets}, s.DurationNs)
		}
	}
	sat := map[string]*NetSat{}
	for _, n := range NetSatOf(&result.HostSeries{Samples: ss, Links: links}) {
		if n.Capacity > 0 || n.Qdisc != "" {
			sat[n.Name] = &n
		}
	}
	var out []HostNet
	for _, n := range netRates(all, secs) {
		out = append(out, HostNet{Name: n.Name, RxBytesPerS: n.RxBytesPerS, TxBytesPerS: n.TxBytesPerS,
			RxPacketsPerS: n.RxPacketsPerS, TxPacketsPerS: n.TxPacketsPerS, Sat: sat[n.Name], totalBytes: n.totalBytes})
	}
	return out
}

func hostServer(ps []result.ProcSample, secs float64) *HostServer {
	if len(ps) == 0 {
		return nil
	}
	s := &HostServer{}
	var cores float64
	var rb, wb uint64
	pids := map[int]bool{}
	for _, p := range ps {
		cores += p.CPUCores
		s.CoresMax = math.Max(s.CoresMax, p.CPUCores)
		s.RSSMax = max(s.RSSMax, p.RSSBytes)
		rb += p.ReadBytes
		wb += p.WriteBytes
		pids[p.PID] = true
		s.Name = p.Name
	}
	s.CoresMean = cores / float64(len(ps))
	s.PIDs = len(pids)
	s.ReadBytesPerS, s.WriteBytesPerS = float64(rb)/secs, float64(wb)/secs
	return s
}

func counterFigures(c *result.Counters) *CounterFigures {
	if c == nil {
		return nil
	}
	f := &CounterFigures{Scope: c.Scope, Unavailable: len(c.Unavailable)}
	f.IPC, f.HasIPC = IPC(c)
	if v, ok := c.Values[result.PerfTaskClock]; ok && c.DurationNs > 0 {
		f.CPUsUtilized, f.HasCPUsUtilized = float64(v)/float64(c.DurationNs), true
	}
	if v, ok := c.Values[result.PerfContextSwitches]; ok {
		f.ContextSwitches, f.HasContextSwitches = float64(v), true
	}
	return f
}

// IPC is instructions per cycle, or false when either counter is missing.
func IPC(c *result.Counters) (float64, bool) {
	if c == nil {
		return 0, false
	}
	ins, ok1 := c.Values[result.PerfInstructions]
	cyc, ok2 := c.Values[result.PerfCycles]
	if !ok1 || !ok2 || cyc == 0 {
		return 0, false
	}
	return float64(ins) / float64(cyc), true
}
