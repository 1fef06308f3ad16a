package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteHostText writes the host section of the terminal report: CPU split,
// memory and page cache, disks and network interfaces that moved data,
// platbench's own use with the client-bound verdict, the server process and
// a one-line summary of the perf counters (figures from analysis.Host). It
// writes nothing when the result has no host series.
func WriteHostText(w io.Writer, r *result.Result) {
	fitted(w, func(w io.Writer) { writeHostText(w, r) })
}

func writeHostText(w io.Writer, r *result.Result) {
	f, ok := analysis.Host(r)
	if !ok {
		return
	}
	pct := units.Percent
	fmt.Fprintf(w, "host (%d samples of %s)\n", f.Samples, units.Latency(float64(f.IntervalNs)))
	fmt.Fprintf(w, "  cpu        user %s  system %s  iowait %s  irq %s  softirq %s  steal %s  idle %s\n",
		pct(f.CPUUser), pct(f.CPUSystem), pct(f.CPUIOWait), pct(f.CPUIRQ), pct(f.CPUSoftIRQ), pct(f.CPUSteal), pct(f.CPUIdle))
	fmt.Fprintf(w, "             busiest core %s mean, %s max; interrupts on one core %s max; load1 %.2f max\n",
		pct(f.BusiestCoreMean), pct(f.BusiestCoreMax), pct(f.IRQCoreMax), f.Load1Max)
	ram := ""
	if f.RAM > 0 {
		ram = " of " + units.Bytes(f.RAM) + " RAM"
	}
	fmt.Fprintf(w, "  memory     used %s max, page cache %s end (%s max), dirty %s max%s\n",
		units.Bytes(f.MemUsedMax), units.Bytes(f.PageCacheEnd), units.Bytes(f.PageCacheMax), units.Bytes(f.DirtyMax), ram)
	if f.Memory.Known {
		fmt.Fprintf(w, "  paging     %s\n", pagingLine(f.Memory))
	}
	for _, d := range f.Disks {
		fmt.Fprintf(w, "  disk %-6s %s\n", d.Name, diskLine(d))
	}
	if len(f.Disks) == 0 {
		fmt.Fprintf(w, "  disk       no I/O\n")
	}
	for _, n := range f.Nets {
		fmt.Fprintf(w, "  net %-7s %s%s\n", n.Name, netLine(n.RxBytesPerS, n.RxPacketsPerS, n.TxBytesPerS, n.TxPacketsPerS), hostNetSat(n.Sat))
	}
	fmt.Fprintf(w, "  kernel     %s context switches/s, %s interrupts/s\n", units.Short(f.CtxSwitchesPerS), units.Short(f.InterruptsPerS))
	writeHostProcs(w, f)
	if c := f.Counters; c != nil {
		var parts []string
		if c.HasIPC {
			parts = append(parts, fmt.Sprintf("IPC %.2f", c.IPC))
		}
		if c.HasCPUsUtilized {
			parts = append(parts, fmt.Sprintf("%.2f CPUs utilized", c.CPUsUtilized))
		}
		if c.HasContextSwitches {
			parts = append(parts, units.Short(c.ContextSwitches)+" context switches")
		}
		if c.Unavailable > 0 {
			parts = append(parts, fmt.Sprintf("%d counters not available", c.Unavailable))
		}
		fmt.Fprintf(w, "  counters   %s scope: %s\n", c.Scope, strings.Join(parts, ", "))
	}
}

// diskLine is one device's figures, for the loader host and a server node
// alike: "read 1 MB/s 250 IOPS 1.2 ms, write ..., busy 3% mean 9% max".
func diskLine(d analysis.HostDisk) string {
	rl, wl := "-", "-"
	if d.HasReads {
		rl = units.Latency(d.ReadLatencyNs)
	}
	if d.HasWrites {
		wl = units.Latency(d.WriteLatencyNs)
	}
	return fmt.Sprintf("read %s/s %s IOPS %s, write %s/s %s IOPS %s, busy %s mean %s max",
		units.Bytes(d.ReadBytesPerS), units.Short(d.ReadIOPS), rl,
		units.Bytes(d.WriteBytesPerS), units.Short(d.WriteIOPS), wl, units.Percent(d.BusyMean), units.Percent(d.BusyMax))
}

// netLine is one interface's traffic, for the loader host and a server
// node alike: "rx 1 MB/s 900 pkt/s, tx 2 MB/s 1.1k pkt/s".
func netLine(rx, rxPkts, tx, txPkts float64) string {
	return fmt.Sprintf("rx %s/s %s pkt/s, tx %s/s %s pkt/s", units.Bytes(rx), units.Short(rxPkts), units.Bytes(tx), units.Short(txPkts))
}

// writeHostProcs writes platbench's own line and the server process's.
func writeHostProcs(w io.Writer, f analysis.HostFigures) {
	if u := f.Self; u != nil {
		verdict := "not client-bound"
		if u.ClientBound {
			verdict = "CLIENT-BOUND"
		}
		fmt.Fprintf(w, "  platbench  %.2f cores mean (GOMAXPROCS %d), busiest thread %s max; GC %d cycles, %s paused (max %s); alloc %s/s: %s\n",
			f.SelfCores, u.GOMAXPROCS, units.Percent(u.MaxCoreBusy), u.NumGC, units.Latency(float64(u.GCPauseTotalNs)),
			units.Latency(float64(u.GCPauseMaxNs)), units.Bytes(u.AllocBytesPerS), verdict)
		if u.Reason != "" {
			fmt.Fprintf(w, "             %s\n", u.Reason)
		}
	}
	switch s := f.Server; {
	case s != nil:
		restarts := ""
		if s.PIDs > 1 {
			restarts = fmt.Sprintf(" (%d different pids: restarted)", s.PIDs)
		}
		fmt.Fprintf(w, "  server     %s [%s]%s: %.2f cores mean, %.2f max; RSS %s max; read %s/s, write %s/s\n",
			s.Name, f.ServerMatch, restarts, s.CoresMean, s.CoresMax, units.Bytes(float64(s.RSSMax)),
			units.Bytes(s.ReadBytesPerS), units.Bytes(s.WriteBytesPerS))
	case f.ServerMatch != "":
		fmt.Fprintf(w, "  server     %s: no samples (the process was not running)\n", f.ServerMatch)
	}
}

// WritePerfStat writes the run's counters the way `perf stat` does: one
// line per counter with its derived ratio (CPUs utilized, GHz, insns per
// cycle, stalled cycles per insn, % of branches...), "<not supported>" for
// counters that did not open, and a closing line saying why.
func WritePerfStat(w io.Writer, c *result.Counters) {
	if c == nil {
		return
	}
	secs := float64(c.DurationNs) / 1e9
	v := func(name string) (float64, bool) {
		x, ok := c.Values[name]
		return float64(x), ok
	}
	scope := c.Scope
	if scope == "" {
		scope = "process"
	}
	who := map[string]string{"process": "platbench", "server": "the server process", "system": "all CPUs"}[scope]
	if who == "" {
		who = scope
	}
	fmt.Fprintf(w, "\n Performance counter stats for %s (%s scope):\n\n", who, scope)
	line := func(value, name, comment string) {
		if comment != "" {
			comment = "#  " + comment
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%19s      %-25s %s", value, name, comment), " "))
	}
	unav := map[string]bool{}
	for _, n := range c.Unavailable {
		unav[strings.TrimSuffix(n, " (not counted)")] = true
	}
	for _, name := range result.PerfOrder() {
		x, ok := v(name)
		switch {
		case !ok && unav[name]:
			line("<not supported>", name, "")
		case !ok:
			line("<not counted>", name, "")
		case name == result.PerfTaskClock:
			comment := ""
			if secs > 0 {
				comment = fmt.Sprintf("%8.3f CPUs utilized", x/1e9/secs)
			}
			fmt.Fprintf(w, "%19s msec %-25s %s\n", units.Fixed(x/1e6, 2), name, "#  "+comment)
		default:
			line(units.Fixed(x, 0), name, perfComment(name, x, v))
			if name == result.PerfInstructions && x > 0 {
				f, okF := v(result.PerfStalledFront)
				b, okB := v(result.PerfStalledBack)
				if okF || okB {
					line("", "", fmt.Sprintf("%8.2f stalled cycles per insn", max(f, b)/x))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n%19.9f seconds time elapsed\n", secs)
	if len(c.Scaled) > 0 {
		fmt.Fprintf(w, "\n Scaled for multiplexing (the kernel time-shared the PMU): %s\n", strings.Join(c.Scaled, ", "))
	}
	if c.UnavailableReason != "" {
		fmt.Fprintf(w, "\n Not available: %s.\n", c.UnavailableReason)
	}
	fmt.Fprintln(w)
}

// perfComment is the ratio perf stat prints beside a counter.
func perfComment(name string, x float64, v func(string) (float64, bool)) string {
	pctOf := func(of, what string) string {
		b, ok := v(of)
		if !ok || b == 0 {
			return ""
		}
		return fmt.Sprintf("%6.2f%% %s", 100*x/b, what)
	}
	taskNs, haveTask := v(result.PerfTaskClock)
	switch name {
	case result.PerfContextSwitches, result.PerfCPUMigrations, result.PerfPageFaults, result.PerfBranches, result.PerfCacheRefs:
		if !haveTask || taskNs == 0 {
			return ""
		}
		r := x / (taskNs / 1e9)
		switch {
		case r >= 1e6:
			return fmt.Sprintf("%8.3f M/sec", r/1e6)
		case r >= 1e3:
			return fmt.Sprintf("%8.3f K/sec", r/1e3)
		}
		return fmt.Sprintf("%8.3f /sec", r)
	case result.PerfCycles:
		if haveTask && taskNs > 0 {
			return fmt.Sprintf("%8.3f GHz", x/taskNs)
		}
	case result.PerfStalledFront:
		return pctOf(result.PerfCycles, "frontend cycles idle")
	case result.PerfStalledBack:
		return pctOf(result.PerfCycles, "backend cycles idle")
	case result.PerfInstructions:
		if c, ok := v(result.PerfCycles); ok && c > 0 {
			return fmt.Sprintf("%8.2f insns per cycle", x/c)
		}
	case result.PerfBranchMisses:
		return pctOf(result.PerfBranches, "of all branches")
	case result.PerfCacheMisses:
		return pctOf(result.PerfCacheRefs, "of all cache refs")
	}
	return ""
}

// pagingLine is a machine's paging over the run (issue 45): swap in and
// out, major faults and direct reclaims a second, swap in use.
func pagingLine(m analysis.MemoryFigures) string {
	line := fmt.Sprintf("swap in %s pages/s, out %s pages/s; %s major faults/s; %s direct reclaims/s",
		perS(m.SwapInPerS), perS(m.SwapOutPerS), perS(m.MajorFaultsPerS), perS(m.AllocStallsPerS))
	if m.SwapTotal > 0 {
		line += fmt.Sprintf("; swap %s used max of %s", units.Bytes(m.SwapUsedMax), units.Bytes(m.SwapTotal))
	}
	return line
}
