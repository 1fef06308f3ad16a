package analysis

import (
	"slices"

	"github.com/platbench/platbench/result"
)

// LateFraction is the share of an open-loop phase's operations, started
// late for one cause, from which that cause is named: the loader
// (client-bound) or the target (target-bound). The self-check's notes and
// the sweep's table of notes both judge with it.
const LateFraction = 0.001

// ClientMovedP99 is how much the loader's own lateness must add to an
// operation type's p99 (its latency over its server-attributable latency,
// which leaves the client's lateness out) for the phase to count as
// client-bound: below it, late starts are there but move no figure a
// reader reads. With the loader on its own core, Redis at 20k/s had 0.1%
// of its starts late in every run, and every run was called client-bound
// (issue 45): the warning meant nothing.
const ClientMovedP99 = 0.05

// LateStarts are an open-loop phase's operations that started more than
// ThresholdNs after their intended start, by cause.
type LateStarts struct {
	Ops         uint64 // attempted: completed or failed
	ThresholdNs int64
	// Client started late with a worker or slot free: the loader was late.
	Client uint64
	// Queued waited for a worker or slot the target held: bursts queued
	// behind the target; QueuedWaitNs and QueuedWaitMaxNs are how long, in
	// total and at the longest (0 in files from before they were kept).
	Queued                        uint64
	QueuedWaitNs, QueuedWaitMaxNs int64
	// ClientBound and TargetBound: at least LateFraction of Ops started late
	// for that cause; for ClientBound, when the phase has server-attributable
	// latency, the client's lateness also added at least ClientMovedP99 to
	// an op type's p99 (ClientP99Shift).
	ClientBound, TargetBound bool
	// ClientP99Shift is the most the client's lateness added to an op
	// type's p99, as a share of it ((latency - attributable) / latency);
	// HasShift is false in closed loop and in files without attributable
	// latency.
	ClientP99Shift float64
	HasShift       bool
}

// QueuedWaitMeanNs is how long an op queued behind the target waited for a
// worker or slot, on average (0 with none, or in files from before waits were
// kept).
func (l LateStarts) QueuedWaitMeanNs() int64 {
	if l.Queued == 0 {
		return 0
	}
	return l.QueuedWaitNs / int64(l.Queued)
}

// ClientShare is the share of the ops the loader started late.
func (l LateStarts) ClientShare() float64 { return lateShare(l.Client, l.Ops) }

// QueuedShare is the share of the ops queued behind the target.
func (l LateStarts) QueuedShare() float64 { return lateShare(l.Queued, l.Ops) }

func lateShare(n, of uint64) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// LateStartsOf counts p's late starts (all zero in closed loop).
func LateStartsOf(p *result.Phase) LateStarts {
	l := LateStarts{ThresholdNs: p.DelayThresholdNs, Client: p.LateClient, Queued: p.Delayed,
		QueuedWaitNs: p.DelayedWaitNs, QueuedWaitMaxNs: p.DelayedWaitMaxNs}
	for _, o := range p.Ops {
		l.Ops += o.Count
		for _, n := range o.Errors {
			l.Ops += n
		}
	}
	for _, o := range p.Ops {
		if a := o.Attributable; a != nil && o.Latency.P99Ns > 0 {
			l.HasShift = true
			l.ClientP99Shift = max(l.ClientP99Shift, float64(o.Latency.P99Ns-a.P99Ns)/float64(o.Latency.P99Ns))
		}
	}
	if l.Ops > 0 {
		l.ClientBound = l.ClientShare() >= LateFraction && (!l.HasShift || l.ClientP99Shift >= ClientMovedP99)
		l.TargetBound = l.QueuedShare() >= LateFraction
	}
	return l
}

// StepNote is one row of a sweep's table of notes: what its step asked,
// what it sustained, whether the rate was met, who started its operations
// late and the verdict.
type StepNote struct {
	Phase            string
	RateOpsPerS      float64 // the rate asked
	SustainedOpsPerS float64 // the step's (result.SweepStep), steady window
	// Rate checks the steady window against the rate (RateCheckOf: met at
	// RateMetFraction, errors counted as completions); nil when the file
	// lacks the step's phase.
	Rate        *RateCheck
	Late        LateStarts
	Meets, Best bool
}

// SweepNotes are r's sweep steps as rows of notes (nil without a sweep).
func SweepNotes(r *result.Result) []StepNote {
	if r.Sweep == nil {
		return nil
	}
	out := make([]StepNote, 0, len(r.Sweep.Steps))
	for i, st := range r.Sweep.Steps {
		n := StepNote{Phase: st.Phase, RateOpsPerS: st.TargetOpsPerS, SustainedOpsPerS: st.SustainedOpsPerS,
			Meets: st.MeetsObjective, Best: i == r.Sweep.Best}
		if p := r.Phase(st.Phase); p != nil {
			n.Late = LateStartsOf(p)
			n.Rate = RateCheckOf(p, stepWindow(p, st.SteadyFromNs))
		} else {
			// Only the step's own counts: no share, no rate check.
			n.Late = LateStarts{Client: st.LateClient, Queued: st.Delayed}
		}
		out = append(out, n)
	}
	return out
}

// stepWindow is p's window from its interval starting at from on (its
// totals without intervals), as SweepStep measured it.
func stepWindow(p *result.Phase, from int64) result.Window {
	first := max(0, slices.IndexFunc(p.Intervals, func(iv result.Interval) bool { return iv.StartNs >= from }))
	return window(p, first, len(p.Intervals))
}
