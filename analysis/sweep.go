package analysis

import (
	"math"
	"time"

	"github.com/platbench/platbench/result"
)

// SweepObjective is what a step of a rate sweep must meet: a share of its
// rate sustained (MinAchieved), at most a share of its ops started late for
// want of a worker (MaxDelayed) or failed (MaxErrors), and, when P99 is
// set, a p99 over its steady window within it. Warmup is each step's
// steady-state rule, as Options.Warmup.
type SweepObjective struct {
	MinAchieved, MaxDelayed, MaxErrors float64
	P99                                time.Duration
	Warmup                             string
	// Judge is the latency P99 judges: JudgeAttributable (the default: the
	// server-attributable latency, so the loader's own lateness does not
	// fail a step the server kept within the objective; that lateness fails
	// it as MissClientBound instead) or JudgeLatency (from the intended
	// start, steady window).
	Judge string
}

// The latencies a sweep's objective may judge (SweepObjective.Judge).
const (
	JudgeAttributable = "attributable"
	JudgeLatency      = "latency"
)

// JudgedP99 is the p99 a sweep's objective judges in st, and whether it is
// the server-attributable one: it is unless judge is JudgeLatency or the
// step has none (a file from before it was kept).
func JudgedP99(st *result.SweepStep, judge string) (int64, bool) {
	if judge != JudgeLatency && st.AttributableP99Ns > 0 {
		return st.AttributableP99Ns, true
	}
	return st.P99Ns, false
}

// StepMiss is one condition a sweep step missed (package report words it):
// result.SweepMiss, stored in the step.
type StepMiss = result.SweepMiss

// The conditions a step can miss (result.SweepMiss.Kind).
const (
	MissAchieved     = result.MissAchieved     // sustained below MinAchieved of the rate
	MissDelayed      = result.MissDelayed      // more than MaxDelayed of its ops started late
	MissErrors       = result.MissErrors       // more than MaxErrors of its ops failed
	MissObjective    = result.MissObjective    // p99 over the objective
	MissInterrupted  = result.MissInterrupted  // Ctrl-C stopped the step
	MissClientBound  = result.MissClientBound  // judged on attributable latency: the loader started more than MaxDelayed late
	MissAttributable = result.MissAttributable // server-attributable p99 over the objective
)

// SweepStep measures one step of a sweep over its steady window (the whole
// step when the rule cannot find one, or without an interval series) and
// judges it against o: MeetsObjective is set, the misses say why not.
func SweepStep(p *result.Phase, rate float64, o SweepObjective) (result.SweepStep, []StepMiss, error) {
	st := result.SweepStep{Phase: p.Name, TargetOpsPerS: rate, Delayed: p.Delayed}
	first := 0
	var w result.Window
	if len(p.Intervals) > 0 {
		ss, err := SteadyStateOf(p, o.Warmup)
		if err != nil {
			// A forced warm-up longer than a step: measure the whole step, say so.
			st.SteadyMethod = "none"
		} else {
			st.SteadyMethod = ss.Method
			first = min(ss.First, len(p.Intervals)-1)
		}
		st.SteadyFromNs = p.Intervals[first].StartNs
		fillWindow(&w, p, rates(p, ""), first, len(p.Intervals))
	} else {
		// No interval series (an op-bounded phase): the totals.
		st.SteadyMethod = "none"
		w = totalsWindow(p)
	}
	st.Ops, st.Errors, st.SustainedOpsPerS = w.Ops, w.Errors, w.SustainedOpsPerS
	lat, err := SteadyLatency(p, first)
	if err != nil {
		return st, nil, err
	}
	st.P50Ns, st.P99Ns, st.P999Ns, st.MaxNs = lat.P50Ns, lat.P99Ns, lat.P999Ns, lat.MaxNs
	svc, err := WindowLatency(p, 0, len(p.Intervals), result.HistService)
	if err != nil {
		return st, nil, err
	}
	st.ServiceP99Ns = svc.P99Ns
	lag, err := WindowLatency(p, 0, len(p.Intervals), result.HistLag)
	if err != nil {
		return st, nil, err
	}
	st.LagP99Ns, st.LateClient = lag.P99Ns, p.LateClient
	attr, err := WindowLatency(p, 0, len(p.Intervals), result.HistAttributable)
	if err != nil {
		return st, nil, err
	}
	st.AttributableP99Ns = attr.P99Ns
	misses := stepMisses(p, &st, rate, o)
	st.MeetsObjective, st.Misses = len(misses) == 0, misses
	return st, misses, nil
}

func stepMisses(p *result.Phase, st *result.SweepStep, rate float64, o SweepObjective) []StepMiss {
	var all uint64
	for _, op := range p.Ops {
		all += op.Count
		for _, n := range op.Errors {
			all += n
		}
	}
	var out []StepMiss
	if st.SustainedOpsPerS < o.MinAchieved*rate {
		out = append(out, StepMiss{Kind: MissAchieved, Value: st.SustainedOpsPerS, Limit: o.MinAchieved})
	}
	if all > 0 && float64(p.Delayed) > o.MaxDelayed*float64(all) {
		out = append(out, StepMiss{Kind: MissDelayed, Value: float64(p.Delayed) / float64(all), Limit: o.MaxDelayed})
	}
	// Ops the loader itself started late (LateClient): judged on latency,
	// their lateness is in the figure the objective judges and does not fail
	// a step on its own (the self-check calls the run client-bound); judged
	// on the server-attributable latency, which leaves it out, a step whose
	// loader was late beyond the delayed limit measures the loader and fails.
	judged, attributable := JudgedP99(st, o.Judge)
	if o.P99 > 0 && attributable && all > 0 && float64(p.LateClient) > o.MaxDelayed*float64(all) {
		out = append(out, StepMiss{Kind: MissClientBound, Value: float64(p.LateClient) / float64(all), Limit: o.MaxDelayed})
	}
	if tot := st.Ops + st.Errors; tot > 0 && float64(st.Errors) > o.MaxErrors*float64(tot) {
		out = append(out, StepMiss{Kind: MissErrors, Value: float64(st.Errors) / float64(tot), Limit: o.MaxErrors})
	}
	if o.P99 > 0 && judged > int64(o.P99) {
		kind := MissObjective
		if attributable {
			kind = MissAttributable
		}
		out = append(out, StepMiss{Kind: kind, Value: float64(judged), Limit: float64(o.P99)})
	}
	if p.Interrupted {
		out = append(out, StepMiss{Kind: MissInterrupted})
	}
	return out
}

// SweepJudgement is what a sweep found: the best step (the highest
// sustained throughput of the steps that met the objective; -1 for none),
// whether every step met it, and the lowest rate tried.
type SweepJudgement struct {
	Best       int
	MaxOpsPerS float64
	AllMet     bool
	LowestRate float64
}

// JudgeSweep picks the best of the steps.
func JudgeSweep(steps []result.SweepStep) SweepJudgement {
	j := SweepJudgement{Best: -1, AllMet: true, LowestRate: math.Inf(1)}
	for i, st := range steps {
		if st.MeetsObjective && (j.Best < 0 || st.SustainedOpsPerS > j.MaxOpsPerS) {
			j.Best, j.MaxOpsPerS = i, st.SustainedOpsPerS
		}
		j.AllMet = j.AllMet && st.MeetsObjective
		j.LowestRate = math.Min(j.LowestRate, st.TargetOpsPerS)
	}
	return j
}
