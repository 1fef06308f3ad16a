// Package self measures platbench's own use of the machine over a run (CPU
// time, GC pauses, allocation) and decides whether the load generator, not
// the target, limited the result ("client-bound"), saying in plain words
// what to change.
//
// It does not sample per second; package host does that (HostSeries.SelfSamples),
// and Judge reads those samples.
package self

import (
	"fmt"
	"math"
	"runtime"
	"runtime/metrics"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

const pauseMetric = "/sched/pauses/total/gc:seconds"

// Baseline is the process's state when measuring began.
type Baseline struct {
	at     time.Time
	cpuNs  int64
	ms     runtime.MemStats
	pauses *metrics.Float64Histogram
}

// Begin records the baseline. It calls runtime.ReadMemStats, which stops
// the world for microseconds: call it outside the measured window's hot path.
func Begin() *Baseline {
	b := &Baseline{at: time.Now(), cpuNs: cpuNs()}
	runtime.ReadMemStats(&b.ms)
	b.pauses = readPauses()
	return b
}

// End returns platbench's use since Begin. samples are its per-second
// process samples (HostSeries.SelfSamples), for the busiest thread.
func (b *Baseline) End(samples []result.ProcSample) *result.SelfUsage {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	wall := time.Since(b.at).Seconds()
	u := &result.SelfUsage{
		WallSeconds:    wall,
		CPUSeconds:     float64(cpuNs()-b.cpuNs) / 1e9,
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
		GCPauseTotalNs: int64(ms.PauseTotalNs - b.ms.PauseTotalNs),
		NumGC:          ms.NumGC - b.ms.NumGC,
		AllocBytes:     ms.TotalAlloc - b.ms.TotalAlloc,
		GCPauseMaxNs:   maxPauseNs(b.pauses, readPauses()),
	}
	if wall > 0 {
		u.AllocBytesPerS = float64(u.AllocBytes) / wall
	}
	for _, s := range samples {
		if s.MaxThreadCores > u.MaxCoreBusy {
			u.MaxCoreBusy = s.MaxThreadCores
		}
	}
	return u
}

func cpuNs() int64 {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func readPauses() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: pauseMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// maxPauseNs is the upper edge of the highest histogram bucket that gained
// pauses between a and b (the runtime keeps no exact maximum).
func maxPauseNs(a, b *metrics.Float64Histogram) int64 {
	if a == nil || b == nil || len(a.Counts) != len(b.Counts) {
		return 0
	}
	for i := len(b.Counts) - 1; i >= 0; i-- {
		if b.Counts[i] > a.Counts[i] {
			edge := b.Buckets[i+1]
			if math.IsInf(edge, 1) {
				edge = b.Buckets[i]
			}
			return int64(edge * 1e9)
		}
	}
	return 0
}

// Input is what Judge weighs.
type Input struct {
	Self *result.SelfUsage
	// SelfSamples and Host are the per-second series (may be empty).
	SelfSamples []result.ProcSample
	Host        []result.HostSample
	// Phases give the open-loop Delayed counts.
	Phases []result.Phase
	// InProcess is true when the target runs inside platbench (the embedded
	// store): then platbench's CPU is the target's and saturation is not
	// the client's fault.
	InProcess bool
}

// Thresholds of the verdict. A core is saturated at 95 % busy; a process
// uses "all its cores" at 85 % of GOMAXPROCS; open-loop late starts matter
// from analysis.LateFraction (0.1 %) of operations.
const (
	SaturatedCore    = 0.95
	SaturatedProcess = 0.85
)

const fix = "give the load generator more cores (a bigger machine, or pin the target elsewhere with taskset), " +
	"use fewer workers (--concurrency), or split the load over several machines with --shard i/N"

const fixDelayed = "the workers were all waiting on the target, not short of CPU: raise --concurrency so more requests can be in flight, " +
	"or lower --rate to what the target sustains; the latency figures already include the time requests waited"

const fixClientLate = "the load generator started operations late with CPU to spare, so its wakeups were late (a busy or virtualised machine): " +
	"give platbench cores of its own away from the target (taskset), or split the load over several machines with --shard i/N"

const fixHostBusy = "the machine's CPUs were saturated, so workers may have waited for a CPU rather than for the target: " +
	"give platbench cores of its own (taskset, or another machine)"

// lateStarts reads the open-loop phases' late starts (analysis.LateStartsOf).
// Operations that started late although a worker or slot was free
// (LateClient) mean the client was late: a reason for the client-bound
// verdict. Operations that waited because the target held every worker
// (Delayed) are the target's doing: a note, not a client-bound verdict
// (their waits are in the latency, from the intended start). One open-loop
// phase is told in full; several (a sweep's steps) in one sentence each,
// as the sweep's table of notes has every step's figures.
func lateStarts(phases []result.Phase) (why, notes []string) {
	var clientBy, heldBy []lateOf
	open := 0
	for i := range phases {
		p := &phases[i]
		l := analysis.LateStartsOf(p)
		if p.Mode != "open" || l.Ops == 0 {
			continue
		}
		open++
		if l.ClientBound {
			clientBy = append(clientBy, lateOf{p.Name, l, l.Client})
		}
		if l.TargetBound {
			heldBy = append(heldBy, lateOf{p.Name, l, l.Queued})
		}
	}
	if open > 1 {
		return lateSummary(clientBy, heldBy, open)
	}
	for _, c := range clientBy {
		moved := ""
		if c.l.HasShift {
			moved = fmt.Sprintf(", which added %.0f%% to a p99", 100*c.l.ClientP99Shift)
		}
		why = append(why, fmt.Sprintf("%d of %d operations (%.2f%%) of phase %s started%s late although a worker (or in-flight slot) was free: the load generator itself was late%s",
			c.l.Client, c.l.Ops, 100*c.l.ClientShare(), c.phase, lateBy(c.l), moved))
	}
	for _, h := range heldBy {
		notes = append(notes, fmt.Sprintf("target-bound: %d of %d operations (%.2f%%) of phase %s started%s late because the target held every worker (or in-flight slot); "+
			"the load generator kept its schedule, and the latency figures include the waits (%s)",
			h.l.Queued, h.l.Ops, 100*h.l.QueuedShare(), h.phase, lateBy(h.l), fixDelayed))
	}
	return why, notes
}

// lateOf is a phase with late starts of one cause (n of them).
type lateOf struct {
	phase string
	l     analysis.LateStarts
	n     uint64
}

func lateBy(l analysis.LateStarts) string {
	if l.ThresholdNs > 0 {
		return " more than " + time.Duration(l.ThresholdNs).String()
	}
	return ""
}

// lateSummary words the late starts of several open-loop phases, one
// sentence per cause naming the phase where the share was highest.
func lateSummary(clientBy, heldBy []lateOf, open int) (why, notes []string) {
	worst := func(ls []lateOf) lateOf {
		w := ls[0]
		for _, l := range ls[1:] {
			if share(l.n, l.l.Ops) > share(w.n, w.l.Ops) {
				w = l
			}
		}
		return w
	}
	if len(clientBy) > 0 {
		w := worst(clientBy)
		why = append(why, fmt.Sprintf("in %d of %d open-loop phases at least %.1f%% of operations started%s late although a worker (or in-flight slot) was free: the load generator itself was late (most: %.2f%% of phase %s; the sweep's table of notes has each step)",
			len(clientBy), open, 100*analysis.LateFraction, lateBy(w.l), 100*share(w.n, w.l.Ops), w.phase))
	}
	if len(heldBy) > 0 {
		w := worst(heldBy)
		notes = append(notes, fmt.Sprintf("target-bound: in %d of %d open-loop phases at least %.1f%% of operations started%s late because the target held every worker (or in-flight slot) (most: %.2f%% of phase %s; the sweep's table of notes has each step, with how long they queued); "+
			"the load generator kept its schedule, and the latency figures include the waits (%s)",
			len(heldBy), open, 100*analysis.LateFraction, lateBy(w.l), 100*share(w.n, w.l.Ops), w.phase, fixDelayed))
	}
	return why, notes
}

func share(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Judge decides whether the client limited the run. It sets in.Self's
// ClientBound and Reason (when in.Self is non-nil) and returns notes for
// Result.Notes: the verdict and any lesser remark (a saturated host).
func Judge(in Input) (bound bool, reason string, notes []string) {
	var why []string
	cpuBound := false // platbench's own CPU was the limit
	if u := in.Self; u != nil && u.WallSeconds > 0 && u.GOMAXPROCS > 0 {
		usable := float64(min(u.GOMAXPROCS, runtime.NumCPU()))
		cores := u.CPUSeconds / u.WallSeconds
		if cores >= SaturatedProcess*usable {
			if in.InProcess {
				notes = append(notes, fmt.Sprintf("platbench and its in-process target used %.1f of %.0f usable cores: the result is CPU-bound on this machine", cores, usable))
			} else {
				why = append(why, fmt.Sprintf("platbench used %.1f of its %.0f usable cores on average (GOMAXPROCS=%d)", cores, usable, u.GOMAXPROCS))
				cpuBound = true
			}
		}
	}
	if n, hot := countHot(in.SelfSamples); hot > 0 && hot >= max(3, n/5) && !in.InProcess {
		why = append(why, fmt.Sprintf("one platbench thread kept a core at >= %.0f%% busy in %d of %d seconds", 100*SaturatedCore, hot, n))
		cpuBound = true
	}
	lateWhy, heldNotes := lateStarts(in.Phases)
	why = append(why, lateWhy...)
	notes = append(notes, heldNotes...)
	hostBusy := false
	if idle, ok := medianIdle(in.Host); ok && idle < 1-SaturatedCore {
		hostBusy = true
		notes = append(notes, fmt.Sprintf("the host's CPUs were %.0f%% busy (median): platbench and everything else on this machine competed for CPU", 100*(1-idle)))
	}
	if len(why) > 0 {
		bound = true
		f := fix
		switch {
		case cpuBound:
		case hostBusy:
			// Late starts on a saturated machine: the workers may have
			// been waiting for a CPU rather than for the target.
			f = fixHostBusy
		default:
			// Late starts with CPU to spare: the pacer woke late.
			f = fixClientLate
		}
		reason = "client-bound: " + strings.Join(why, "; ") + " (fix: " + f + ")"
		notes = append([]string{reason}, notes...)
	}
	if in.Self != nil {
		in.Self.ClientBound, in.Self.Reason = bound, reason
	}
	return bound, reason, notes
}

func countHot(s []result.ProcSample) (n, hot int) {
	for _, p := range s {
		n++
		if p.MaxThreadCores >= SaturatedCore {
			hot++
		}
	}
	return n, hot
}

func medianIdle(h []result.HostSample) (float64, bool) {
	if len(h) == 0 {
		return 0, false
	}
	v := make([]float64, len(h))
	for i, s := range h {
		v[i] = s.CPUIdle + s.CPUIOWait
	}
	sort.Float64s(v)
	return v[len(v)/2], true
}
