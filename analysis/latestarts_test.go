package analysis

import (
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// Late starts by cause, with the share from which a cause is named
// (LateFraction: 0.1%), counted over completed and failed ops.
func TestLateStartsOf(t *testing.T) {
	p := &result.Phase{Mode: "open", DelayThresholdNs: 1e6, Delayed: 10, LateClient: 1, DelayedWaitNs: 50e6, DelayedWaitMaxNs: 9e6,
		Ops: []result.OpTotal{{Op: "READ", Count: 9000}, {Op: "UPDATE", Count: 990, Errors: map[string]uint64{"timeout": 10}}}}
	l := LateStartsOf(p)
	want := LateStarts{Ops: 10000, ThresholdNs: 1e6, Client: 1, Queued: 10, QueuedWaitNs: 50e6, QueuedWaitMaxNs: 9e6, ClientBound: false, TargetBound: true}
	if l != want {
		t.Errorf("got %+v\nwant %+v", l, want)
	}
	if l.QueuedShare() != 0.001 || l.ClientShare() != 0.0001 {
		t.Errorf("shares %v %v", l.QueuedShare(), l.ClientShare())
	}
	if (LateStartsOf(&result.Phase{Mode: "closed"}) != LateStarts{}) {
		t.Error("a phase without ops has late starts")
	}
}

// A sweep's notes: one row per step, the rate checked over the step's own
// steady window (here its last two of three seconds: the first, a warm-up
// at half the rate, is left out), the late starts from its phase, the
// verdict from the step; a step whose phase the file lacks keeps its counts.
func TestSweepNotes(t *testing.T) {
	sec := int64(time.Second)
	iv := func(i int64, n uint64) result.Interval {
		return result.Interval{StartNs: i * sec, DurationNs: sec, IntendedOpsPerS: 1000, Ops: []result.IntervalOp{{Op: "READ", Count: n}}}
	}
	r := &result.Result{
		Phases: []result.Phase{{Name: "rate-1000", Mode: "open", RateOpsPerS: 1000, DurationNs: 3 * sec, Delayed: 30, LateClient: 5,
			DelayedWaitNs: 60e6, DelayedWaitMaxNs: 5e6, Intervals: []result.Interval{iv(0, 500), iv(1, 995), iv(2, 1000)},
			Ops: []result.OpTotal{{Op: "READ", Count: 2495}}}},
		Sweep: &result.Sweep{Best: 0, Steps: []result.SweepStep{
			{Phase: "rate-1000", TargetOpsPerS: 1000, SustainedOpsPerS: 997.5, SteadyFromNs: sec, MeetsObjective: true},
			{Phase: "rate-2000", TargetOpsPerS: 2000, SustainedOpsPerS: 1500, Delayed: 700, LateClient: 3, Reason: "sustained 1500 op/s is below 95% of the rate"},
		}},
	}
	ns := SweepNotes(r)
	if len(ns) != 2 {
		t.Fatalf("%d rows", len(ns))
	}
	a := ns[0]
	if a.Phase != "rate-1000" || !a.Best || !a.Meets || a.RateOpsPerS != 1000 || a.SustainedOpsPerS != 997.5 {
		t.Errorf("row 1: %+v", a)
	}
	if a.Rate == nil || !a.Rate.Met || a.Rate.SustainedOpsPerS != 997.5 || a.Rate.IntendedOpsPerS != 1000 {
		t.Errorf("row 1 rate check %+v: want 997.5 of 1000 op/s over the steady window, met", a.Rate)
	}
	if a.Late.Queued != 30 || a.Late.QueuedWaitNs != 60e6 || a.Late.QueuedWaitMaxNs != 5e6 || !a.Late.TargetBound || !a.Late.ClientBound || a.Late.Ops != 2495 {
		t.Errorf("row 1 late starts %+v", a.Late)
	}
	b := ns[1]
	if b.Best || b.Meets || b.Rate != nil || b.Late.Queued != 700 || b.Late.Client != 3 {
		t.Errorf("row 2 (no phase): %+v", b)
	}
	if SweepNotes(&result.Result{}) != nil {
		t.Error("notes without a sweep")
	}
}

// Late starts count as client-bound only where they moved a p99 a reader
// reads (ClientMovedP99): 1% of starts late that added 1% to p99 is not;
// one that added 20% is, and says by how much.
func TestClientBoundMovesAFigure(t *testing.T) {
	phase := func(latP99, attrP99 int64) *result.Phase {
		return &result.Phase{Mode: "open", DelayThresholdNs: 1e6, LateClient: 100, Ops: []result.OpTotal{
			{Op: "READ", Count: 10000, Latency: result.Summary{P99Ns: latP99}, Attributable: &result.Summary{P99Ns: attrP99}}}}
	}
	if l := LateStartsOf(phase(1010e3, 1000e3)); l.ClientBound || !l.HasShift || l.ClientP99Shift > 0.02 {
		t.Errorf("p99 moved 1%%: %+v, want not client-bound", l)
	}
	if l := LateStartsOf(phase(1250e3, 1000e3)); !l.ClientBound || l.ClientP99Shift < 0.19 {
		t.Errorf("p99 moved 20%%: %+v, want client-bound", l)
	}
	// Files without attributable latency keep the share rule.
	p := phase(1, 1)
	p.Ops[0].Attributable = nil
	if l := LateStartsOf(p); !l.ClientBound || l.HasShift {
		t.Errorf("no attributable latency: %+v, want the share rule (client-bound)", l)
	}
}
