package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// SweepStepReason words the conditions a sweep step missed (its Misses,
// from analysis.SweepStep), "; "-separated: "sustained 900 op/s is below
// 95% of the rate; 3% errors". "" when it missed none. A file written
// before the misses were stored carries its own sentence (Reason).
func SweepStepReason(st *result.SweepStep) string {
	if st.Reason != "" {
		return st.Reason
	}
	why := make([]string, len(st.Misses))
	for i, m := range st.Misses {
		switch m.Kind {
		case result.MissAchieved:
			why[i] = fmt.Sprintf("sustained %s is below %s of the rate", units.OpsPerSec(m.Value), units.Percent(m.Limit))
		case result.MissDelayed:
			why[i] = fmt.Sprintf("%s of ops queued behind the target, every worker or slot busy (more concurrency helps if the target is not saturated)", units.Percent(m.Value))
		case result.MissErrors:
			why[i] = fmt.Sprintf("%s errors", units.Percent(m.Value))
		case result.MissObjective:
			why[i] = fmt.Sprintf("p99 %s is over the %s objective", units.Latency(m.Value), time.Duration(m.Limit))
		case result.MissAttributable:
			why[i] = fmt.Sprintf("server-attributable p99 %s is over the %s objective", units.Latency(m.Value), time.Duration(m.Limit))
		case result.MissClientBound:
			why[i] = fmt.Sprintf("the loader started %s of ops late with a worker free (client-bound: give it cores of its own)", units.Percent(m.Value))
		case result.MissInterrupted:
			why[i] = "interrupted"
		default:
			why[i] = m.Kind // a kind of a newer version
		}
	}
	return strings.Join(why, "; ")
}

// SweepVerdict words what a sweep found, from the judgement stored in it
// (analysis.JudgeSweep: the best step, whether every step met the
// objective, the lowest rate tried) and its settings (the p99 objective, 0:
// keeping up only; the latency judged; find-max and its highest rate). A
// file written before the judgement was stored carries its own sentence
// (Verdict).
func SweepVerdict(sw *result.Sweep) string {
	if sw.Verdict != "" {
		return sw.Verdict
	}
	obj := "kept up with its rate"
	if sw.ObjectiveP99Ns > 0 {
		p99 := time.Duration(sw.ObjectiveP99Ns).String()
		obj = "met p99 <= " + p99
		if sw.Judge != analysis.JudgeLatency {
			obj = "met server-attributable p99 <= " + p99
		}
	}
	findMax := sw.Mode == "find-max"
	var v string
	switch {
	case len(sw.Steps) == 0:
		v = "no step ran"
	case sw.Best < 0 || sw.Best >= len(sw.Steps):
		fix := "rates from " + units.Compact(sw.LowestRateOpsPerS/4)
		if findMax {
			fix = "a start at " + units.Compact(sw.LowestRateOpsPerS/4)
		}
		v = fmt.Sprintf("no step %s; the lowest rate tried was %s (fix: lower rates, e.g. %s; or check the reasons: delayed starts need more concurrency or a less busy client machine)", obj, units.OpsPerSec(sw.LowestRateOpsPerS), fix)
	default:
		b := sw.Steps[sw.Best]
		v = fmt.Sprintf("highest rate that %s: %s sustained (step %s, p99 %s", obj, units.OpsPerSec(b.SustainedOpsPerS), b.Phase, units.Latency(float64(b.P99Ns)))
		if judged, attr := analysis.JudgedP99(&b, sw.Judge); attr {
			v += ", server-attributable p99 " + units.Latency(float64(judged))
		}
		v += ")"
		if findMax && sw.AllMet {
			v += fmt.Sprintf("; every step up to the maximum rate %s met it: the limit is higher", units.Compact(sw.MaxRateOpsPerS))
		}
	}
	if sw.Interrupted {
		v += " (interrupted: not every step ran)"
	}
	return v
}
