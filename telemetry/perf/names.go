// Package perf counts hardware and software events with perf_event_open,
// as `perf stat` does: cycles, instructions, stalled cycles (front and back
// end), branches and branch misses, cache references and misses, and the
// software counters task clock, context switches, CPU migrations and page
// faults. It counts for the whole run and per interval.
//
// Scope "process" counts platbench itself: every thread that exists when
// the counters open, and (inherit) every thread created after. Scope
// "server" does the same for a server process on this host (OpenPID), which
// is what the seed reports' `perf stat` measured. Scope "system" counts
// every CPU. "server" and "system" need root or CAP_PERFMON (or
// kernel.perf_event_paranoid <= 0 for system).
//
// Virtual machines often expose no hardware PMU; then the hardware counters
// do not open, Counters.Unavailable names them and UnavailableReason says
// why, and the software counters are still recorded. Nothing here fails a
// run: a session that could open nothing is still a valid, empty session.
package perf

import "github.com/platbench/platbench/result"

// Counter names, as perf stat prints them.
const (
	TaskClock       = "task-clock" // ns (cpu-clock in system scope)
	ContextSwitches = "context-switches"
	CPUMigrations   = "cpu-migrations"
	PageFaults      = "page-faults"
	Cycles          = "cycles"
	StalledFront    = "stalled-cycles-frontend"
	StalledBack     = "stalled-cycles-backend"
	Instructions    = "instructions"
	Branches        = "branches"
	BranchMisses    = "branch-misses"
	CacheRefs       = "cache-references"
	CacheMisses     = "cache-misses"
)

// order is the print order: perf stat's default set, then the cache counters.
var order = []string{
	TaskClock, ContextSwitches, CPUMigrations, PageFaults,
	Cycles, StalledFront, StalledBack, Instructions, Branches, BranchMisses,
	CacheRefs, CacheMisses,
}

// Order is the print order of the counter names.
func Order() []string { return append([]string(nil), order...) }

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
