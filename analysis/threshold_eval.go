package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/platbench/platbench/result"
)

// Reasons of a threshold that failed without a value.
const (
	notMeasured = "not measured: "
)

// Thresholds evaluates ths on r: over the steady window of the main phase,
// or of a sweep's best step (the highest rate that met the objective; every
// rule fails as not measured when no step did).
func Thresholds(r *result.Result, ths []Threshold) ([]result.ThresholdOutcome, error) {
	if len(ths) == 0 {
		return nil, nil
	}
	if sw := r.Sweep; sw != nil {
		if sw.Best < 0 || sw.Best >= len(sw.Steps) {
			return unmeasured(ths, "", "no step of the sweep met its objective"), nil
		}
		st := sw.Steps[sw.Best]
		p := r.Phase(st.Phase)
		if p == nil {
			return unmeasured(ths, st.Phase, "the sweep's best step has no phase in the file"), nil
		}
		return EvaluateThresholds(p, firstAt(p, st.SteadyFromNs), ths)
	}
	p := r.MainPhase()
	if p == nil {
		return nil, fmt.Errorf("%w: no phase to evaluate thresholds on", result.ErrMalformed)
	}
	a := r.Analysis
	if a == nil || a.Phase != p.Name {
		var err error
		if a, err = Analyze(r, Options{Warmup: r.Config.Warmup}); err != nil {
			return nil, err
		}
	}
	return EvaluateThresholds(p, a.SteadyState.WarmupIntervals, ths)
}

// firstAt is the index of the first interval starting at or after ns.
func firstAt(p *result.Phase, ns int64) int {
	for i, iv := range p.Intervals {
		if iv.StartNs >= ns {
			return i
		}
	}
	return len(p.Intervals)
}

func unmeasured(ths []Threshold, phase, why string) []result.ThresholdOutcome {
	out := make([]result.ThresholdOutcome, len(ths))
	for i := range ths {
		out[i] = outcomeOf(&ths[i], phase)
		out[i].Reason = notMeasured + why
	}
	return out
}

func outcomeOf(t *Threshold, phase string) result.ThresholdOutcome {
	return result.ThresholdOutcome{Expr: t.Expr, Op: t.Op, Figure: t.Figure, Comparison: t.Cmp,
		Unit: t.Unit, Limit: t.Limit, Phase: phase}
}

// EvaluateThresholds evaluates ths over the steady window of p: the
// intervals from first on. Stalls and delayed operations are counted over
// the whole phase, as the report counts them. A figure the phase lacks (an
// op type it did not run, lag in a closed loop, no completed operation)
// fails with a reason saying it was not measured.
func EvaluateThresholds(p *result.Phase, first int, ths []Threshold) ([]result.ThresholdOutcome, error) {
	ev := &thresholdEval{p: p, first: first, steady: window(p, first, len(p.Intervals))}
	out := make([]result.ThresholdOutcome, len(ths))
	for i := range ths {
		t := &ths[i]
		o := outcomeOf(t, p.Name)
		v, why, err := ev.value(t)
		if err != nil {
			return nil, err
		}
		if why != "" {
			o.Reason = notMeasured + why
		} else {
			o.Value, o.Measured, o.Pass = v, true, t.Holds(v)
		}
		out[i] = o
	}
	return out, nil
}

// thresholdEval computes the figures of one phase's steady window.
type thresholdEval struct {
	p      *result.Phase
	first  int
	steady result.Window
}

// value is t's figure in t's unit, or why it was not measured.
func (e *thresholdEval) value(t *Threshold) (float64, string, error) {
	p := e.p
	var ops []string
	ow := result.OpWindow{Ops: e.steady.Ops, Errors: e.steady.Errors,
		PeakOpsPerS: e.steady.PeakOpsPerS, SustainedOpsPerS: e.steady.SustainedOpsPerS}
	if t.Op != "" {
		i := slices.IndexFunc(p.Ops, func(o result.OpTotal) bool { return strings.EqualFold(o.Op, t.Op) })
		if i < 0 {
			return 0, fmt.Sprintf("the run has no %s operations (it ran %s)", t.Op, strings.Join(opNames(p), ", ")), nil
		}
		ops = []string{p.Ops[i].Op}
		if j := slices.IndexFunc(e.steady.PerOp, func(w result.OpWindow) bool { return w.Op == ops[0] }); j >= 0 {
			ow = e.steady.PerOp[j]
		}
	}
	switch t.Figure {
	case "sustained":
		return ow.SustainedOpsPerS, "", nil
	case "peak":
		if e.steady.Stability.Intervals == 0 {
			return 0, "the steady window has no full 1 s interval", nil
		}
		return ow.PeakOpsPerS, "", nil
	case "errors":
		return share(t, ow.Errors, ow.Ops+ow.Errors, "no operation in the steady window")
	case "stalls":
		return float64(Stalls(p).Count), "", nil
	case "stalled":
		return float64(Stalls(p).TotalNs), "", nil
	case "delayed":
		if p.Mode != "open" {
			return 0, "delayed operations are counted in fixed-rate (open-loop) runs only", nil
		}
		var all uint64
		for _, o := range p.Ops {
			all += o.Count + sum(o.Errors)
		}
		return share(t, p.Delayed, all, "no operation in the phase")
	case "cv":
		if e.steady.Stability.Intervals < 2 {
			return 0, "the steady window has fewer than two full 1 s intervals", nil
		}
		return e.steady.Stability.CVPercent / 100, "", nil
	}
	return e.latency(t, ops)
}

// latency is a latency, service-time or lag statistic over the steady window.
func (e *thresholdEval) latency(t *Threshold, ops []string) (float64, string, error) {
	kind, stat := "", t.Figure
	if k, s, ok := strings.Cut(t.Figure, "."); ok && (k == "service" || k == "lag" || k == "attributable") {
		kind, stat = k, s
	}
	if (kind == "lag" || kind == "attributable") && e.p.Mode != "open" {
		return 0, kind + " is measured in fixed-rate (open-loop) runs only", nil
	}
	if kind == "attributable" {
		// Whole phase, as lag: intervals keep no histogram of it.
		a, err := WindowLatency(e.p, e.first, len(e.p.Intervals), result.HistAttributable, ops...)
		if err != nil {
			return 0, "", err
		}
		if a.Count == 0 {
			return 0, "the result keeps no server-attributable latency (written before platbench measured it)", nil
		}
		return summaryStat(a, stat), "", nil
	}
	n := len(e.p.Intervals)
	lat, err := SteadyLatency(e.p, e.first, ops...)
	if err != nil {
		return 0, "", err
	}
	svc, err := WindowLatency(e.p, e.first, n, result.HistService, ops...)
	if err != nil {
		return 0, "", err
	}
	s := lat
	if kind == "service" {
		s = svc
	}
	if kind == "lag" {
		// The schedule lag as measured (intended start to send), whole phase:
		// intervals keep no lag histogram. Files from before it was kept
		// fall back to latency minus service time below.
		lag, err := WindowLatency(e.p, e.first, n, result.HistLag, ops...)
		if err != nil {
			return 0, "", err
		}
		if lag.Count > 0 {
			return summaryStat(lag, stat), "", nil
		}
	}
	if s.Count == 0 || kind == "lag" && svc.Count == 0 {
		return 0, "no operation completed in the steady window", nil
	}
	v := summaryStat(s, stat)
	if kind == "lag" {
		v = max(0, v-summaryStat(svc, stat))
	}
	return v, "", nil
}

// summaryStat reads a statistic of latencyStatNames from a summary.
func summaryStat(s result.Summary, stat string) float64 {
	switch stat {
	case "min":
		return float64(s.MinNs)
	case "mean":
		return s.MeanNs
	case "p50":
		return float64(s.P50Ns)
	case "p90":
		return float64(s.P90Ns)
	case "p95":
		return float64(s.P95Ns)
	case "p99":
		return float64(s.P99Ns)
	case "p99.9":
		return float64(s.P999Ns)
	}
	return float64(s.MaxNs)
}

// share is n as a count, or as a fraction of all when t's limit is a percentage.
func share(t *Threshold, n, all uint64, none string) (float64, string, error) {
	if t.Unit != result.UnitFraction {
		return float64(n), "", nil
	}
	if all == 0 {
		return 0, none, nil
	}
	return float64(n) / float64(all), "", nil
}

func sum(m map[string]uint64) uint64 {
	var n uint64
	for _, v := range m {
		n += v
	}
	return n
}

func opNames(p *result.Phase) []string {
	out := make([]string, len(p.Ops))
	for i, o := range p.Ops {
		out[i] = o.Op
	}
	return out
}

// RunHealth counts the operations of r's measured phases (the run phase;
// a sweep's steps; a load-only run's load) to tell a failed run.
type RunHealth struct {
	Completed     uint64            // without error
	Failed        uint64            // every class
	ErrorsByClass map[string]uint64 // Failed by class
	// Outage is set when the target stopped serving in the main phase
	// (OutageOf).
	Outage *Outage
	// LostWrites counts acknowledged writes the verification after the run
	// found missing or wrong (VerificationOf); any fails the run.
	LostWrites uint64
	// FirstError is the first error message the counted phases kept
	// (result.Phase.ErrorMessages): what the target said, for the one-line
	// failure. Empty when none was kept.
	FirstError result.ErrorMessage
}

// DefaultMaxErrors is the share of a run's operations that may fail before
// the run is failed (exit status 1) when the user set neither thresholds
// nor an allowance: 1%. A run in which more failed measured the failures
// more than the system (with half of them failing, the latency and the
// throughput are those of two different workloads mixed).
const DefaultMaxErrors = 0.01

// HealthOf counts r's operations (see RunHealth).
func HealthOf(r *result.Result) RunHealth {
	h := RunHealth{ErrorsByClass: map[string]uint64{}}
	if p := r.MainPhase(); p != nil && p.Name != "load" {
		h.Outage = OutageOf(p)
	}
	if v := VerificationOf(r); v != nil {
		h.LostWrites = v.Lost
	}
	for i := range r.Phases {
		p := &r.Phases[i]
		if p.Name == "load" && len(r.Phases) > 1 {
			continue
		}
		for _, o := range p.Ops {
			h.Completed += o.Count
			for c, n := range o.Errors {
				h.ErrorsByClass[c] += n
				h.Failed += n
			}
		}
		if h.FirstError.Message == "" && len(p.ErrorMessages) > 0 {
			h.FirstError = p.ErrorMessages[0]
		}
	}
	return h
}

// RunFailed is true when no operation completed, more than maxErrors (a
// fraction: DefaultMaxErrors unless the user allowed more) of the
// operations failed, the target stopped serving, or the verification found
// lost writes: a run that measured the failure, not the system.
func (h RunHealth) RunFailed(maxErrors float64) bool {
	return h.Completed == 0 || h.ErrorShare() > maxErrors || h.Outage != nil || h.LostWrites > 0
}

// ErrorShare is the share of the operations that failed (0 without any).
func (h RunHealth) ErrorShare() float64 {
	if all := h.Completed + h.Failed; all > 0 {
		return float64(h.Failed) / float64(all)
	}
	return 0
}

// LiveWarmup is when live threshold checks (--abort-on-fail) start in a run
// phase of the given planned length: after a forced warm-up (warmup a
// duration), else after a fifth of the phase and at least MinLiveWarmup (a
// phase bounded by an operation count, length 0: MinLiveWarmup). The
// steady-state detection (MSER-5) needs the whole phase, so it cannot say
// while the run goes on; a fifth is what it trims from most runs.
func LiveWarmup(warmup string, phase time.Duration) (time.Duration, error) {
	auto, forced, uerr := parseWarmup(warmup)
	if uerr != nil {
		return 0, uerr
	}
	if !auto {
		return forced, nil
	}
	return max(MinLiveWarmup, phase/5), nil
}

// MinLiveWarmup is the shortest warm-up live threshold checks wait out.
const MinLiveWarmup = 5 * time.Second

// liveMinIntervals is how many full 1 s intervals a live check needs after
// the warm-up before it may fail a run.
const liveMinIntervals = 3

// LiveWindowThresholds is LiveThresholds for a recorder that streams
// (recorder.Window): ivs are the intervals past the warm-up and ops the
// totals over them, with their latency histograms (a streamed interval
// carries none).
func LiveWindowThresholds(name, mode string, ivs []result.Interval, ops []result.OpTotal, ths []Threshold) (*result.ThresholdOutcome, error) {
	if len(ivs) < liveMinIntervals {
		return nil, nil
	}
	p := &result.Phase{Name: name, Mode: mode, Intervals: ivs, Ops: ops}
	out, err := EvaluateThresholds(p, 0, ths)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Measured && !out[i].Pass {
			return &out[i], nil
		}
	}
	return nil, nil
}

// LiveThresholds evaluates ths on the intervals of a run phase so far, from
// the warm-up on: the figures the intervals hold (latency, throughput,
// errors); the others (service time, lag, stalls, delayed: kept for the
// whole phase) are not measured until the end. It returns the first
// threshold that was measured and failed, or nil. Nothing fails before
// liveMinIntervals intervals past the warm-up.
func LiveThresholds(name, mode string, ivs []result.Interval, warmup time.Duration, ths []Threshold) (*result.ThresholdOutcome, error) {
	p := &result.Phase{Name: name, Mode: mode, Intervals: ivs}
	counts := map[string]int{}
	for _, iv := range ivs {
		for _, o := range iv.Ops {
			if _, ok := counts[o.Op]; !ok {
				counts[o.Op] = len(p.Ops)
				p.Ops = append(p.Ops, result.OpTotal{Op: o.Op})
			}
			t := &p.Ops[counts[o.Op]]
			t.Count += o.Count
		}
	}
	first := firstAt(p, int64(warmup))
	if len(ivs)-first < liveMinIntervals {
		return nil, nil
	}
	out, err := EvaluateThresholds(p, first, ths)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if out[i].Measured && !out[i].Pass {
			return &out[i], nil
		}
	}
	return nil, nil
}
