package result

// Counter names, as perf stat prints them: the keys of Counters.Values
// (package telemetry/perf counts them).
const (
	PerfTaskClock       = "task-clock" // ns (cpu-clock in system scope)
	PerfContextSwitches = "context-switches"
	PerfCPUMigrations   = "cpu-migrations"
	PerfPageFaults      = "page-faults"
	PerfCycles          = "cycles"
	PerfStalledFront    = "stalled-cycles-frontend"
	PerfStalledBack     = "stalled-cycles-backend"
	PerfInstructions    = "instructions"
	PerfBranches        = "branches"
	PerfBranchMisses    = "branch-misses"
	PerfCacheRefs       = "cache-references"
	PerfCacheMisses     = "cache-misses"
)

// perfOrder is the print order: perf stat's default set, then the cache counters.
var perfOrder = []string{
	PerfTaskClock, PerfContextSwitches, PerfCPUMigrations, PerfPageFaults,
	PerfCycles, PerfStalledFront, PerfStalledBack, PerfInstructions, PerfBranches, PerfBranchMisses,
	PerfCacheRefs, PerfCacheMisses,
}

// PerfOrder is the print order of the counter names.
func PerfOrder() []string { return append([]string(nil), perfOrder...) }
