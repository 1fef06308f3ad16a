package telemetry

import (
	"testing"

	"github.com/platbench/platbench/result"
)

func TestSummarize(t *testing.T) {
	r := &result.Result{
		Host: &result.HostSeries{
			Samples: []result.HostSample{
				{DurationNs: 1e9, CPUUser: 0.5, CPUSystem: 0.1, CPUIOWait: 0.1, CPUIdle: 0.3, CPUMaxCore: 0.9, MemUsedBytes: 100, PageCacheBytes: 5,
					Disks: map[string]result.DiskIO{"vda": {WriteBytes: 4000}, "vdb": {ReadBytes: 1000}}, Nets: map[string]result.NetIO{"lo": {RxBytes: 10, TxBytes: 20}}},
				{DurationNs: 1e9, CPUUser: 0.3, CPUIdle: 0.6, CPUSteal: 0.1, CPUMaxCore: 0.5, MemUsedBytes: 300, PageCacheBytes: 7,
					Disks: map[string]result.DiskIO{"vda": {WriteBytes: 2000}}},
			},
			Self:   &result.SelfUsage{WallSeconds: 2, CPUSeconds: 1, ClientBound: true, Reason: "x"},
			Server: []result.ProcSample{{CPUCores: 1, RSSBytes: 10}, {CPUCores: 0.5, RSSBytes: 30}},
		},
		Counters: &result.Counters{Values: map[string]uint64{"cycles": 1000, "instructions": 500}},
	}
	s := Summarize(r)
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !s.HasHost || !s.HasServer || !s.HasCounters || s.Samples != 2 {
		t.Fatalf("flags %+v", s)
	}
	// busy: (1-0.3-0.1 + 1-0.6-0)/2 = 0.5
	if !near(s.CPUBusyMean, 0.5) || !near(s.CPUStealMean, 0.05) || !near(s.BusiestCoreMax, 0.9) {
		t.Errorf("cpu busy %.3f steal %.3f busiest %.3f", s.CPUBusyMean, s.CPUStealMean, s.BusiestCoreMax)
	}
	if s.MemUsedMaxBytes != 300 || s.PageCacheEndBytes != 7 {
		t.Errorf("mem %d cache %d", s.MemUsedMaxBytes, s.PageCacheEndBytes)
	}
	if !near(s.DiskWriteBytesPerS, 3000) || !near(s.DiskReadBytesPerS, 500) || !near(s.NetTxBytesPerS, 10) {
		t.Errorf("disk w %.0f r %.0f net tx %.0f", s.DiskWriteBytesPerS, s.DiskReadBytesPerS, s.NetTxBytesPerS)
	}
	if !near(s.SelfCoresMean, 0.5) || !s.ClientBound || !near(s.ServerCoresMean, 0.75) || s.ServerRSSMax != 30 {
		t.Errorf("self %.2f bound %v server %.2f rss %d", s.SelfCoresMean, s.ClientBound, s.ServerCoresMean, s.ServerRSSMax)
	}
	if !s.HasIPC || !near(s.IPC, 0.5) {
		t.Errorf("ipc %v %v", s.IPC, s.HasIPC)
	}
	if z := Summarize(&result.Result{}); z.HasHost || z.HasCounters {
		t.Errorf("empty result summary %+v", z)
	}
}
