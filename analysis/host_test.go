package analysis

import (
	"math"
	"testing"

	"github.com/platbench/platbench/result"
)

// hostResult is two 2 s samples whose figures are worked out by hand in
// TestHost.
func hostResult() *result.Result {
	const k = 1024
	return &result.Result{
		Platform: result.Platform{RAMBytes: 64 * k * k * k},
		Host: &result.HostSeries{
			IntervalNs: 2e9,
			Samples: []result.HostSample{
				{DurationNs: 2e9, CPUUser: 0.5, CPUSystem: 0.1, CPUIOWait: 0.1, CPUIdle: 0.3, CPUMaxCore: 0.9, CPUMaxCoreIRQ: 0.2, Load1: 3,
					MemUsedBytes: 100, PageCacheBytes: 50, DirtyBytes: 7, CtxSwitches: 1000, Interrupts: 400,
					Disks: map[string]result.DiskIO{
						"vda": {Reads: 100, Writes: 200, ReadBytes: 100 * 4 * k, WriteBytes: 200 * 8 * k, ReadLatencyNs: 1000, WriteLatencyNs: 3000, BusyFraction: 0.4},
						"vdb": {}, // no I/O: left out
					},
					Nets: map[string]result.NetIO{
						"lo":   {RxBytes: 10, TxBytes: 20, RxPackets: 1, TxPackets: 2},
						"eth0": {}, // no packets: left out
					}},
				{DurationNs: 2e9, CPUUser: 0.3, CPUIdle: 0.6, CPUSteal: 0.1, CPUMaxCore: 0.5, Load1: 1,
					MemUsedBytes: 300, PageCacheBytes: 40, CtxSwitches: 3000,
					Disks: map[string]result.DiskIO{
						"vda": {Reads: 300, ReadBytes: 300 * 4 * k, ReadLatencyNs: 2000, BusyFraction: 0.2},
						"sda": {Writes: 1, WriteBytes: 512},
					}},
			},
			Self: &result.SelfUsage{WallSeconds: 4, CPUSeconds: 6},
			// Three samples, two processes: the server restarted.
			Server: []result.ProcSample{
				{PID: 1, Name: "redis-server", CPUCores: 1, RSSBytes: 10, ReadBytes: 400},
				{PID: 1, Name: "redis-server", CPUCores: 0.5, RSSBytes: 30},
				{PID: 2, Name: "redis-server", CPUCores: 2.1, RSSBytes: 20},
			},
			ServerMatch: "redis-server",
		},
		Counters: &result.Counters{Scope: "process", DurationNs: 4e9, Unavailable: []string{"branch-misses"},
			Values: map[string]uint64{result.PerfCycles: 1000, result.PerfInstructions: 1500, result.PerfTaskClock: 6e9, result.PerfContextSwitches: 77}},
	}
}

func TestHost(t *testing.T) {
	f, ok := Host(hostResult())
	if !ok || f.Samples != 2 || f.IntervalNs != 2e9 {
		t.Fatalf("ok %v, %d samples of %d ns", ok, f.Samples, f.IntervalNs)
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	// CPU: means over the two samples; busy is 1 - idle - iowait:
	// (1-0.3-0.1 + 1-0.6-0)/2 = 0.5.
	near("CPUBusy", f.CPUBusy, 0.5)
	near("CPUUser", f.CPUUser, 0.4)
	near("CPUSystem", f.CPUSystem, 0.05)
	near("CPUIOWait", f.CPUIOWait, 0.05)
	near("CPUSteal", f.CPUSteal, 0.05)
	near("CPUIdle", f.CPUIdle, 0.45)
	near("BusiestCoreMean", f.BusiestCoreMean, 0.7)
	near("BusiestCoreMax", f.BusiestCoreMax, 0.9)
	near("IRQCoreMax", f.IRQCoreMax, 0.2)
	near("Load1Max", f.Load1Max, 3)
	// Memory: max and end.
	near("MemUsedMax", f.MemUsedMax, 300)
	near("PageCacheEnd", f.PageCacheEnd, 40)
	near("PageCacheMax", f.PageCacheMax, 50)
	near("DirtyMax", f.DirtyMax, 7)
	near("RAM", f.RAM, 64<<30)
	// Kernel counters per second over the 4 s the samples cover.
	near("CtxSwitchesPerS", f.CtxSwitchesPerS, 1000)
	near("InterruptsPerS", f.InterruptsPerS, 100)

	// Disks: vda moved the most bytes, sda a little, vdb nothing (left out).
	// vda over 4 s: 400 reads (100 IOPS) of 4 KiB, 200 writes (50 IOPS) of
	// 8 KiB; read latency weighted by reads: (100*1000 + 300*2000)/400.
	if len(f.Disks) != 2 || f.Disks[0].Name != "vda" || f.Disks[1].Name != "sda" {
		t.Fatalf("disks %+v", f.Disks)
	}
	d := f.Disks[0]
	near("vda ReadIOPS", d.ReadIOPS, 100)
	near("vda WriteIOPS", d.WriteIOPS, 50)
	near("vda ReadBytesPerS", d.ReadBytesPerS, 400*4096/4.0)
	near("vda WriteBytesPerS", d.WriteBytesPerS, 200*8192/4.0)
	near("vda ReadLatencyNs", d.ReadLatencyNs, 1750)
	near("vda WriteLatencyNs", d.WriteLatencyNs, 3000)
	near("vda BusyMean", d.BusyMean, 0.3)
	near("vda BusyMax", d.BusyMax, 0.4)
	if !d.HasReads || !d.HasWrites {
		t.Errorf("vda reads %v writes %v", d.HasReads, d.HasWrites)
	}
	if s := f.Disks[1]; s.HasReads || !s.HasWrites || s.ReadLatencyNs != 0 {
		t.Errorf("sda %+v: writes only", s)
	}
	// Networks: lo only (eth0 moved no packets).
	if len(f.Nets) != 1 || f.Nets[0].Name != "lo" {
		t.Fatalf("nets %+v", f.Nets)
	}
	near("lo RxBytesPerS", f.Nets[0].RxBytesPerS, 2.5)
	near("lo TxPacketsPerS", f.Nets[0].TxPacketsPerS, 0.5)

	// platbench: 6 CPU seconds over 4 wall seconds.
	near("SelfCores", f.SelfCores, 1.5)
	// Server: mean and max of the process samples, two pids.
	s := f.Server
	if s == nil || s.Name != "redis-server" || s.PIDs != 2 || s.RSSMax != 30 || f.ServerMatch != "redis-server" {
		t.Fatalf("server %+v match %q", s, f.ServerMatch)
	}
	near("server CoresMean", s.CoresMean, 1.2)
	near("server CoresMax", s.CoresMax, 2.1)
	near("server ReadBytesPerS", s.ReadBytesPerS, 100)

	// Counters: IPC 1500/1000; task-clock 6 s over 4 s is 1.5 CPUs.
	c := f.Counters
	if c == nil || !c.HasIPC || !c.HasCPUsUtilized || !c.HasContextSwitches || c.Unavailable != 1 || c.Scope != "process" {
		t.Fatalf("counters %+v", c)
	}
	near("IPC", c.IPC, 1.5)
	near("CPUsUtilized", c.CPUsUtilized, 1.5)
	near("ContextSwitches", c.ContextSwitches, 77)
}

// Without host samples there are no host figures, but counters (recorded
// apart from the sampler) are still reduced; without cycles there is no IPC.
func TestHostWithoutSamples(t *testing.T) {
	if _, ok := Host(nil); ok {
		t.Error("nil result has host figures")
	}
	r := hostResult()
	r.Host.Samples = nil
	f, ok := Host(r)
	if ok || f.Server != nil || f.SelfCores != 0 || f.Samples != 0 {
		t.Errorf("no samples, yet figures: ok %v %+v", ok, f)
	}
	if f.Counters == nil || !f.Counters.HasIPC || f.Counters.IPC != 1.5 {
		t.Errorf("counters without samples: %+v", f.Counters)
	}
	delete(r.Counters.Values, result.PerfCycles)
	if f, _ := Host(r); f.Counters.HasIPC {
		t.Errorf("IPC without cycles: %+v", f.Counters)
	}
	if f, ok := Host(&result.Result{}); ok || f.Counters != nil {
		t.Errorf("empty result: ok %v counters %+v", ok, f.Counters)
	}
}

// Samples without a duration (a hand-written file) count as 1 s each, so
// rates stay finite.
func TestHostSamplesWithoutDuration(t *testing.T) {
	r := &result.Result{Host: &result.HostSeries{Samples: []result.HostSample{
		{CtxSwitches: 10, Disks: map[string]result.DiskIO{"vda": {Reads: 4, ReadBytes: 4096}}},
		{CtxSwitches: 30},
	}}}
	f, ok := Host(r)
	if !ok || f.CtxSwitchesPerS != 20 || len(f.Disks) != 1 || f.Disks[0].ReadIOPS != 2 || f.Disks[0].ReadBytesPerS != 2048 {
		t.Errorf("ok %v ctx %v disks %+v", ok, f.CtxSwitchesPerS, f.Disks)
	}
}
