package telemetry

import (
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/perf"
)

// Summary is a run's host telemetry reduced to the figures a comparison
// or an HTML table shows side by side. Fractions are 0..1; means are over
// the samples. A field whose source is absent is zero, and the Has* flags
// say which parts were recorded.
type Summary struct {
	HasHost, HasServer, HasCounters bool

	Samples                 int
	CPUBusyMean             float64 // 1 - idle - iowait
	CPUUserMean, CPUSysMean float64
	CPUStealMean            float64
	CPUIOWaitMean           float64
	BusiestCoreMax          float64
	MemUsedMaxBytes         int64
	PageCacheEndBytes       int64
	DiskReadBytesPerS       float64 // all disks
	DiskWriteBytesPerS      float64
	NetRxBytesPerS          float64 // all interfaces, loopback included
	NetTxBytesPerS          float64

	SelfCoresMean float64 // platbench
	ClientBound   bool
	Reason        string

	ServerCoresMean float64
	ServerRSSMax    int64

	IPC    float64 // 0 when cycles or instructions were not counted
	HasIPC bool
}

// Summarize reduces r's host series and counters.
func Summarize(r *result.Result) Summary {
	var s Summary
	if r == nil {
		return s
	}
	if c := r.Counters; c != nil {
		s.HasCounters = true
		s.IPC, s.HasIPC = perf.IPC(c)
	}
	h := r.Host
	if h == nil || len(h.Samples) == 0 {
		return s
	}
	s.HasHost = true
	s.Samples = len(h.Samples)
	n := float64(len(h.Samples))
	var secs float64
	for _, x := range h.Samples {
		secs += float64(x.DurationNs) / 1e9
		s.CPUBusyMean += (1 - x.CPUIdle - x.CPUIOWait) / n
		s.CPUUserMean += x.CPUUser / n
		s.CPUSysMean += x.CPUSystem / n
		s.CPUStealMean += x.CPUSteal / n
		s.CPUIOWaitMean += x.CPUIOWait / n
		s.BusiestCoreMax = max(s.BusiestCoreMax, x.CPUMaxCore)
		s.MemUsedMaxBytes = max(s.MemUsedMaxBytes, x.MemUsedBytes)
		for _, d := range x.Disks {
			s.DiskReadBytesPerS += float64(d.ReadBytes)
			s.DiskWriteBytesPerS += float64(d.WriteBytes)
		}
		for _, t := range x.Nets {
			s.NetRxBytesPerS += float64(t.RxBytes)
			s.NetTxBytesPerS += float64(t.TxBytes)
		}
	}
	s.PageCacheEndBytes = h.Samples[len(h.Samples)-1].PageCacheBytes
	if secs > 0 {
		s.DiskReadBytesPerS /= secs
		s.DiskWriteBytesPerS /= secs
		s.NetRxBytesPerS /= secs
		s.NetTxBytesPerS /= secs
	}
	if u := h.Self; u != nil {
		if u.WallSeconds > 0 {
			s.SelfCoresMean = u.CPUSeconds / u.WallSeconds
		}
		s.ClientBound, s.Reason = u.ClientBound, u.Reason
	}
	if len(h.Server) > 0 {
		s.HasServer = true
		for _, p := range h.Server {
			s.ServerCoresMean += p.CPUCores / float64(len(h.Server))
			s.ServerRSSMax = max(s.ServerRSSMax, p.RSSBytes)
		}
	}
	return s
}
