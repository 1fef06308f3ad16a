package report

import (
	"testing"

	"github.com/platbench/platbench/result"
)

// A step's misses and a sweep's judgement are stored as numbers (since
// issue 44) and worded here, in the sentences the sweep once stored; a
// file written before carries its own sentence, shown as it is.
func TestSweepWording(t *testing.T) {
	st := result.SweepStep{Misses: []result.SweepMiss{
		{Kind: result.MissAchieved, Value: 900, Limit: 0.95},
		{Kind: result.MissDelayed, Value: 0.2, Limit: 0.05},
		{Kind: result.MissClientBound, Value: 0.03, Limit: 0.05},
		{Kind: result.MissErrors, Value: 0.03, Limit: 0.001},
		{Kind: result.MissAttributable, Value: 12e6, Limit: 10e6},
		{Kind: result.MissObjective, Value: 12e6, Limit: 10e6},
		{Kind: result.MissInterrupted},
	}}
	want := "sustained 900 op/s is below 95.0% of the rate; 20.0% of ops queued behind the target, every worker or slot busy (more concurrency helps if the target is not saturated); " +
		"the loader started 3.00% of ops late with a worker free (client-bound: give it cores of its own); 3.00% errors; " +
		"server-attributable p99 12.0 ms is over the 10ms objective; p99 12.0 ms is over the 10ms objective; interrupted"
	if got := SweepStepReason(&st); got != want {
		t.Errorf("reason\n got %q\nwant %q", got, want)
	}
	old := result.SweepStep{Reason: "an older file's own sentence", Misses: st.Misses}
	if got := SweepStepReason(&old); got != old.Reason {
		t.Errorf("an older file's reason: %q", got)
	}
	if got := SweepStepReason(&result.SweepStep{MeetsObjective: true}); got != "" {
		t.Errorf("a step that met it all: %q", got)
	}

	best := result.SweepStep{Phase: "rate-2000", SustainedOpsPerS: 1999, P99Ns: 4e6, AttributableP99Ns: 2e6, MeetsObjective: true}
	for _, c := range []struct {
		sw   result.Sweep
		want string
	}{
		{result.Sweep{Mode: "rates", Best: -1}, "no step ran"},
		{result.Sweep{Mode: "rates", Best: -1, ObjectiveP99Ns: 10e6, Judge: "attributable", Steps: []result.SweepStep{st}, LowestRateOpsPerS: 1000},
			"no step met server-attributable p99 <= 10ms; the lowest rate tried was 1,000 op/s (fix: lower rates, e.g. rates from 250; or check the reasons: delayed starts need more concurrency or a less busy client machine)"},
		{result.Sweep{Mode: "find-max", Best: -1, Steps: []result.SweepStep{st}, LowestRateOpsPerS: 1000, Interrupted: true},
			"no step kept up with its rate; the lowest rate tried was 1,000 op/s (fix: lower rates, e.g. a start at 250; or check the reasons: delayed starts need more concurrency or a less busy client machine) (interrupted: not every step ran)"},
		{result.Sweep{Mode: "rates", Best: 0, ObjectiveP99Ns: 10e6, Judge: "latency", Steps: []result.SweepStep{best}},
			"highest rate that met p99 <= 10ms: 1,999 op/s sustained (step rate-2000, p99 4.00 ms)"},
		{result.Sweep{Mode: "find-max", Best: 0, ObjectiveP99Ns: 10e6, Judge: "attributable", Steps: []result.SweepStep{best}, AllMet: true, MaxRateOpsPerS: 2000},
			"highest rate that met server-attributable p99 <= 10ms: 1,999 op/s sustained (step rate-2000, p99 4.00 ms, server-attributable p99 2.00 ms); every step up to the maximum rate 2k met it: the limit is higher"},
		{result.Sweep{Verdict: "an older file's own sentence", Best: -1}, "an older file's own sentence"},
	} {
		if got := SweepVerdict(&c.sw); got != c.want {
			t.Errorf("verdict\n got %q\nwant %q", got, c.want)
		}
	}
}
