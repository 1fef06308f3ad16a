package perf

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/platbench/platbench/result"
)

// WriteStat prints counters the way `perf stat` does: one line per counter
// with its derived ratio (CPUs utilized, GHz, insns per cycle, stalled
// cycles per insn, % of branches...), "<not supported>" for counters that
// did not open, and a closing line saying why.
func WriteStat(w io.Writer, c *result.Counters) {
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
	taskNs, haveTask := v(TaskClock)
	cycles, haveCycles := v(Cycles)
	ins, haveIns := v(Instructions)
	line := func(value, name, comment string) {
		if comment != "" {
			comment = "#  " + comment
		}
		fmt.Fprintln(w, strings.TrimRight(fmt.Sprintf("%19s      %-25s %s", value, name, comment), " "))
	}
	perSec := func(x float64) string {
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
	}
	pct := func(a float64, b float64, ok bool, what string) string {
		if !ok || b == 0 {
			return ""
		}
		return fmt.Sprintf("%6.2f%% %s", 100*a/b, what)
	}
	unav := map[string]bool{}
	for _, n := range c.Unavailable {
		unav[strings.TrimSuffix(n, " (not counted)")] = true
	}
	for _, name := range Order() {
		x, ok := v(name)
		if !ok {
			label := "<not supported>"
			if !unav[name] {
				label = "<not counted>"
			}
			line(label, name, "")
			continue
		}
		var comment string
		switch name {
		case TaskClock:
			if secs > 0 {
				comment = fmt.Sprintf("%8.3f CPUs utilized", x/1e9/secs)
			}
			fmt.Fprintf(w, "%19s msec %-25s %s\n", commaf2(x/1e6), name, "#  "+comment)
			continue
		case ContextSwitches, CPUMigrations, PageFaults, Branches, CacheRefs:
			comment = perSec(x)
		case Cycles:
			if haveTask && taskNs > 0 {
				comment = fmt.Sprintf("%8.3f GHz", x/taskNs)
			}
		case StalledFront:
			comment = pct(x, cycles, haveCycles, "frontend cycles idle")
		case StalledBack:
			comment = pct(x, cycles, haveCycles, "backend cycles idle")
		case Instructions:
			if haveCycles && cycles > 0 {
				comment = fmt.Sprintf("%8.2f insns per cycle", x/cycles)
			}
		case BranchMisses:
			b, ok := v(Branches)
			comment = pct(x, b, ok, "of all branches")
		case CacheMisses:
			r, ok := v(CacheRefs)
			comment = pct(x, r, ok, "of all cache refs")
		}
		line(commaf(x), name, comment)
		if name == Instructions && haveIns && ins > 0 {
			f, okF := v(StalledFront)
			b, okB := v(StalledBack)
			if okF || okB {
				if b > f {
					f = b
				}
				line("", "", fmt.Sprintf("%8.2f stalled cycles per insn", f/ins))
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

// IPC is instructions per cycle, or false when either counter is missing.
func IPC(c *result.Counters) (float64, bool) {
	if c == nil {
		return 0, false
	}
	ins, ok1 := c.Values[Instructions]
	cyc, ok2 := c.Values[Cycles]
	if !ok1 || !ok2 || cyc == 0 {
		return 0, false
	}
	return float64(ins) / float64(cyc), true
}

// commaf2 formats x with thousands separators and two decimals, as perf
// prints task-clock milliseconds.
func commaf2(x float64) string {
	cents := uint64(x*100 + 0.5)
	return commaf(float64(cents/100)) + fmt.Sprintf(".%02d", cents%100)
}

// commaf formats the whole part of x with thousands separators (counts).
func commaf(x float64) string {
	whole := uint64(x)
	s := strconv.FormatUint(whole, 10)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}
