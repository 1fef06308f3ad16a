package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
)

// The target stopped serving: a phase that served for 10 s and then
// completed nothing for 50 s with requests outstanding (seed 002) is an
// outage, and the steady-state rule does not take the outage as the steady
// state; one short stall is not an outage.
func TestOutage(t *testing.T) {
	mk := func(serving, stalled int) *result.Phase {
		p := &result.Phase{Name: "run", Mode: "closed", DurationNs: int64(serving+stalled) * 1e9,
			Buckets: result.Buckets{WidthNs: 1e8, Counts: map[string][]uint32{}}}
		var counts []uint32
		for i := 0; i < (serving+stalled)*10; i++ {
			c := uint32(0)
			if i < serving*10 {
				c = 50
			}
			counts = append(counts, c)
			p.Buckets.Outstanding = append(p.Buckets.Outstanding, true)
		}
		p.Buckets.Counts["READ"] = counts
		for s := 0; s < serving+stalled; s++ {
			n := uint64(0)
			if s < serving {
				n = 500
			}
			p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(s) * 1e9, DurationNs: 1e9, Ops: []result.IntervalOp{{Op: "READ", Count: n}}})
		}
		p.Ops = []result.OpTotal{{Op: "READ", Count: uint64(serving) * 500}}
		return p
	}
	o := OutageOf(mk(10, 50))
	if o == nil || o.StalledNs != 50e9 || o.EndStallFromNs != 10e9 || o.EndStallNs != 50e9 {
		t.Fatalf("outage %+v", o)
	}
	if o := OutageOf(mk(55, 5)); o != nil {
		t.Errorf("a 5 s stall at the end of 60 s is an outage: %+v", o)
	}
	// Half of a short phase stalled is a pause under OutageStalledMin; the
	// same share over 2 s or more is an outage.
	if o := OutageOf(mk(1, 1)); o != nil {
		t.Errorf("a 1 s stall in a 2 s phase is an outage: %+v", o)
	}
	if o := OutageOf(mk(2, 2)); o == nil || o.StalledNs != 2e9 {
		t.Errorf("a 2 s stall in a 4 s phase: %+v, want an outage", o)
	}
	r := &result.Result{Phases: []result.Phase{*mk(10, 50)}}
	a, err := Analyze(r, Options{Warmup: "auto"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Steady.SustainedOpsPerS == 0 {
		t.Errorf("the steady window served nothing (%s): an outage taken for a steady state", a.SteadyState.Reason)
	}
	if h := HealthOf(r); !h.RunFailed(1) || h.Outage == nil {
		t.Errorf("health %+v: an outage is a failed run", h)
	}
}
