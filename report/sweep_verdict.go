package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// SweepStepReason words the conditions a sweep step missed
// (analysis.SweepStep), "; "-separated: "sustained 900 op/s is below 95% of
// the rate; 3% errors". "" when it missed none.
func SweepStepReason(misses []analysis.StepMiss) string {
	why := make([]string, len(misses))
	for i, m := range misses {
		switch m.Kind {
		case analysis.MissAchieved:
			why[i] = fmt.Sprintf("sustained %s is below %s of the rate", units.OpsPerSec(m.Value), units.Percent(m.Limit))
		case analysis.MissDelayed:
			why[i] = fmt.Sprintf("%s of ops queued behind the target, every worker or slot busy (more concurrency helps if the target is not saturated)", units.Percent(m.Value))
		case analysis.MissErrors:
			why[i] = fmt.Sprintf("%s errors", units.Percent(m.Value))
		case analysis.MissObjective:
			why[i] = fmt.Sprintf("p99 %s is over the %s objective", units.Latency(m.Value), time.Duration(m.Limit))
		case analysis.MissAttributable:
			why[i] = fmt.Sprintf("server-attributable p99 %s is over the %s objective", units.Latency(m.Value), time.Duration(m.Limit))
		case analysis.MissClientBound:
			why[i] = fmt.Sprintf("the loader started %s of ops late with a worker free (client-bound: give it cores of its own)", units.Percent(m.Value))
		case analysis.MissInterrupted:
			why[i] = "interrupted"
		}
	}
	return strings.Join(why, "; ")
}

// SweepSettings are what a sweep's verdict names: its p99 objective (0:
// keeping up only), whether it searched for the maximum and the highest
// rate it would try.
type SweepSettings struct {
	ObjectiveP99 time.Duration
	Judge        string // analysis.JudgeAttributable (default) or JudgeLatency
	FindMax      bool
	MaxRate      float64
}

// SweepVerdict words what a sweep found (analysis.JudgeSweep) over steps.
func SweepVerdict(j analysis.SweepJudgement, steps []result.SweepStep, s SweepSettings, interrupted bool) string {
	obj := "kept up with its rate"
	if s.ObjectiveP99 > 0 {
		obj = "met p99 <= " + s.ObjectiveP99.String()
		if s.Judge != analysis.JudgeLatency {
			obj = "met server-attributable p99 <= " + s.ObjectiveP99.String()
		}
	}
	var v string
	switch {
	case len(steps) == 0:
		v = "no step ran"
	case j.Best < 0:
		fix := "rates from " + units.Compact(j.LowestRate/4)
		if s.FindMax {
			fix = "a start at " + units.Compact(j.LowestRate/4)
		}
		v = fmt.Sprintf("no step %s; the lowest rate tried was %s (fix: lower rates, e.g. %s; or check the reasons: delayed starts need more concurrency or a less busy client machine)", obj, units.OpsPerSec(j.LowestRate), fix)
	default:
		b := steps[j.Best]
		v = fmt.Sprintf("highest rate that %s: %s sustained (step %s, p99 %s", obj, units.OpsPerSec(b.SustainedOpsPerS), b.Phase, units.Latency(float64(b.P99Ns)))
		if judged, attr := analysis.JudgedP99(&b, s.Judge); attr {
			v += ", server-attributable p99 " + units.Latency(float64(judged))
		}
		v += ")"
		if s.FindMax && j.AllMet {
			v += fmt.Sprintf("; every step up to the maximum rate %s met it: the limit is higher", units.Compact(s.MaxRate))
		}
	}
	if interrupted {
		v += " (interrupted: not every step ran)"
	}
	return v
}
