package telemetry

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/perf"
)

// WritePerfStat prints the run's counters as `perf stat` does.
func WritePerfStat(w io.Writer, c *result.Counters) { perf.WriteStat(w, c) }

// WriteHostText writes the host section of the terminal report: CPU split,
// memory and page cache, disks and network interfaces that moved data,
// platbench's own use with the client-bound verdict, the server process and
// a one-line summary of the perf counters. It writes nothing when the
// result has no host series. Figures are means over the samples unless
// marked max or end.
func WriteHostText(w io.Writer, r *result.Result) {
	if r == nil || r.Host == nil || len(r.Host.Samples) == 0 {
		return
	}
	h := r.Host
	ss := h.Samples
	n := float64(len(ss))
	var secs float64
	for _, s := range ss {
		secs += float64(s.DurationNs) / 1e9
	}
	if secs <= 0 {
		secs = n
	}
	mean := func(f func(result.HostSample) float64) float64 {
		var t float64
		for _, s := range ss {
			t += f(s)
		}
		return t / n
	}
	maxf := func(f func(result.HostSample) float64) float64 {
		m := math.Inf(-1)
		for _, s := range ss {
			m = math.Max(m, f(s))
		}
		return m
	}
	fmt.Fprintf(w, "host (%d samples of %s)\n", len(ss), durStr(h.IntervalNs))
	fmt.Fprintf(w, "  cpu        user %s  system %s  iowait %s  irq %s  softirq %s  steal %s  idle %s\n",
		pct(mean(func(s result.HostSample) float64 { return s.CPUUser })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUSystem })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUIOWait })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUIRQ })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUSoftIRQ })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUSteal })),
		pct(mean(func(s result.HostSample) float64 { return s.CPUIdle })))
	fmt.Fprintf(w, "             busiest core %s mean, %s max; interrupts on one core %s max; load1 %.2f max\n",
		pct(mean(func(s result.HostSample) float64 { return s.CPUMaxCore })),
		pct(maxf(func(s result.HostSample) float64 { return s.CPUMaxCore })),
		pct(maxf(func(s result.HostSample) float64 { return s.CPUMaxCoreIRQ })),
		maxf(func(s result.HostSample) float64 { return s.Load1 }))
	last := ss[len(ss)-1]
	ram := r.Platform.RAMBytes
	ramStr := ""
	if ram > 0 {
		ramStr = " of " + bytesStr(float64(ram)) + " RAM"
	}
	fmt.Fprintf(w, "  memory     used %s max, page cache %s end (%s max), dirty %s max%s\n",
		bytesStr(maxf(func(s result.HostSample) float64 { return float64(s.MemUsedBytes) })),
		bytesStr(float64(last.PageCacheBytes)),
		bytesStr(maxf(func(s result.HostSample) float64 { return float64(s.PageCacheBytes) })),
		bytesStr(maxf(func(s result.HostSample) float64 { return float64(s.DirtyBytes) })), ramStr)

	// Disks and interfaces that moved anything, busiest first.
	type dtot struct {
		name          string
		r, wr, rb, wb uint64
		rlat, wlat    float64 // ns weighted by ops
		busy, busyMax float64
	}
	disks := map[string]*dtot{}
	for _, s := range ss {
		for name, d := range s.Disks {
			t := disks[name]
			if t == nil {
				t = &dtot{name: name}
				disks[name] = t
			}
			t.r += d.Reads
			t.wr += d.Writes
			t.rb += d.ReadBytes
			t.wb += d.WriteBytes
			t.rlat += float64(d.ReadLatencyNs) * float64(d.Reads)
			t.wlat += float64(d.WriteLatencyNs) * float64(d.Writes)
			t.busy += d.BusyFraction
			t.busyMax = math.Max(t.busyMax, d.BusyFraction)
		}
	}
	var dl []*dtot
	for _, t := range disks {
		if t.r+t.wr > 0 {
			dl = append(dl, t)
		}
	}
	sort.Slice(dl, func(i, j int) bool { return dl[i].rb+dl[i].wb > dl[j].rb+dl[j].wb })
	for _, t := range dl {
		rl, wl := "-", "-"
		if t.r > 0 {
			rl = durStr(int64(t.rlat / float64(t.r)))
		}
		if t.wr > 0 {
			wl = durStr(int64(t.wlat / float64(t.wr)))
		}
		fmt.Fprintf(w, "  disk %-6s read %s/s %s IOPS %s, write %s/s %s IOPS %s, busy %s mean %s max\n", t.name,
			bytesStr(float64(t.rb)/secs), countStr(float64(t.r)/secs), rl,
			bytesStr(float64(t.wb)/secs), countStr(float64(t.wr)/secs), wl,
			pct(t.busy/n), pct(t.busyMax))
	}
	if len(dl) == 0 {
		fmt.Fprintf(w, "  disk       no I/O\n")
	}
	nets := map[string]*result.NetIO{}
	for _, s := range ss {
		for name, x := range s.Nets {
			t := nets[name]
			if t == nil {
				t = &result.NetIO{}
				nets[name] = t
			}
			t.RxBytes += x.RxBytes
			t.TxBytes += x.TxBytes
			t.RxPackets += x.RxPackets
			t.TxPackets += x.TxPackets
		}
	}
	var nl []string
	for name, t := range nets {
		if t.RxPackets+t.TxPackets > 0 {
			nl = append(nl, name)
		}
	}
	sort.Slice(nl, func(i, j int) bool {
		a, b := nets[nl[i]], nets[nl[j]]
		return a.RxBytes+a.TxBytes > b.RxBytes+b.TxBytes
	})
	for _, name := range nl {
		t := nets[name]
		fmt.Fprintf(w, "  net %-7s rx %s/s %s pkt/s, tx %s/s %s pkt/s\n", name,
			bytesStr(float64(t.RxBytes)/secs), countStr(float64(t.RxPackets)/secs),
			bytesStr(float64(t.TxBytes)/secs), countStr(float64(t.TxPackets)/secs))
	}
	fmt.Fprintf(w, "  kernel     %s context switches/s, %s interrupts/s\n",
		countStr(mean(func(s result.HostSample) float64 { return float64(s.CtxSwitches) / (float64(s.DurationNs) / 1e9) })),
		countStr(mean(func(s result.HostSample) float64 { return float64(s.Interrupts) / (float64(s.DurationNs) / 1e9) })))

	if u := h.Self; u != nil {
		cores := 0.0
		if u.WallSeconds > 0 {
			cores = u.CPUSeconds / u.WallSeconds
		}
		verdict := "not client-bound"
		if u.ClientBound {
			verdict = "CLIENT-BOUND"
		}
		fmt.Fprintf(w, "  platbench  %.2f cores mean (GOMAXPROCS %d), busiest thread %s max; GC %d cycles, %s paused (max %s); alloc %s/s: %s\n",
			cores, u.GOMAXPROCS, pct(u.MaxCoreBusy), u.NumGC, durStr(u.GCPauseTotalNs), durStr(u.GCPauseMaxNs),
			bytesStr(u.AllocBytesPerS), verdict)
		if u.Reason != "" {
			fmt.Fprintf(w, "             %s\n", u.Reason)
		}
	}
	if len(h.Server) > 0 {
		var cores, coresMax float64
		var rss int64
		var rb, wb uint64
		pids := map[int]bool{}
		name := ""
		for _, p := range h.Server {
			cores += p.CPUCores
			coresMax = math.Max(coresMax, p.CPUCores)
			rss = max(rss, p.RSSBytes)
			rb += p.ReadBytes
			wb += p.WriteBytes
			pids[p.PID] = true
			name = p.Name
		}
		k := float64(len(h.Server))
		restarts := ""
		if len(pids) > 1 {
			restarts = fmt.Sprintf(" (%d different pids: restarted)", len(pids))
		}
		fmt.Fprintf(w, "  server     %s [%s]%s: %.2f cores mean, %.2f max; RSS %s max; read %s/s, write %s/s\n",
			name, h.ServerMatch, restarts, cores/k, coresMax, bytesStr(float64(rss)), bytesStr(float64(rb)/secs), bytesStr(float64(wb)/secs))
	} else if h.ServerMatch != "" {
		fmt.Fprintf(w, "  server     %s: no samples (the process was not running)\n", h.ServerMatch)
	}
	if c := r.Counters; c != nil {
		var parts []string
		if ipc, ok := perf.IPC(c); ok {
			parts = append(parts, fmt.Sprintf("IPC %.2f", ipc))
		}
		if v, ok := c.Values[perf.TaskClock]; ok && c.DurationNs > 0 {
			parts = append(parts, fmt.Sprintf("%.2f CPUs utilized", float64(v)/float64(c.DurationNs)))
		}
		if v, ok := c.Values[perf.ContextSwitches]; ok {
			parts = append(parts, countStr(float64(v))+" context switches")
		}
		if len(c.Unavailable) > 0 {
			parts = append(parts, fmt.Sprintf("%d counters not available", len(c.Unavailable)))
		}
		fmt.Fprintf(w, "  counters   %s scope: %s\n", c.Scope, strings.Join(parts, ", "))
	}
}

func pct(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*f)
}

// bytesStr prints a byte count in binary units.
func bytesStr(b float64) string {
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return "-"
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for math.Abs(b) >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

func countStr(v float64) string {
	switch {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "-"
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e4:
		return fmt.Sprintf("%.1fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func durStr(ns int64) string {
	switch {
	case ns <= 0:
		return "0"
	case ns < 1e3:
		return fmt.Sprintf("%d ns", ns)
	case ns < 1e6:
		return fmt.Sprintf("%.1f µs", float64(ns)/1e3)
	case ns < 1e9:
		return fmt.Sprintf("%.2f ms", float64(ns)/1e6)
	}
	return fmt.Sprintf("%.2f s", float64(ns)/1e9)
}
