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
