// Package sweep runs a rate sweep: one target, loaded once, driven at a
// series of fixed rates (open loop), each step measured over its own steady
// state. It produces the throughput–latency curve and the highest rate that
// meets a latency objective, the question "what does this platform sustain
// within 10 ms p99?".
//
// Two modes: Rates runs the rates given, in order; FindMax doubles the rate
// from Start until a step fails (objective missed, rate not kept up, delayed
// operations piling up, errors) or Max is reached, then bisects between the
// last good and the first bad rate.
//
// The package writes no file and prints nothing: Run returns the result with
// its Sweep field filled (the CLI writes and prints it). Types that matter:
// Config, Run, Measure.
package sweep

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Defaults of a sweep's settings (see Config).
const (
	DefaultStep        = 30 * time.Second
	DefaultStart       = 1000.0
	DefaultMax         = 10_000_000.0
	DefaultBisect      = 3
	DefaultWarmup      = "auto"
	DefaultMinAchieved = 0.95  // a step must sustain 95% of its rate
	DefaultMaxDelayed  = 0.05  // at most 5% of ops may start late for want of a worker
	DefaultMaxErrors   = 0.001 // at most 0.1% of ops may fail
)

// Config is one sweep. A zero field takes the default its doc names (see
// EnsureDefaults).
type Config struct {
	// Bench is the target, workload, load phase and runner settings
	// (concurrency, seed...), with bench's defaults. Its Runner.Rate,
	// Duration, Ops and Events are replaced by each step's.
	Bench bench.Config
	// Rates are the steps of a "rates" sweep, in ops/s, run in order.
	// Default none: then FindMax must be set.
	Rates []float64
	// FindMax selects the doubling-then-bisection search. Default false.
	FindMax bool
	// ObjectiveP99 is the latency objective (p99 over a step's steady window).
	// Required with FindMax; optional with Rates (0: judge on keeping up only).
	ObjectiveP99 time.Duration
	// Judge is the latency the objective judges: JudgeAttributable (the
	// default: the server-attributable latency, so the loader's own
	// lateness does not fail a step the server kept within the objective;
	// that lateness fails it in the client-bound check instead) or
	// JudgeLatency (latency from the intended start, steady window).
	Judge string
	// Start and Max bound FindMax, in ops/s. Defaults DefaultStart (1000) and
	// DefaultMax (10M).
	Start, Max float64
	// Bisect is the number of bisection steps after the doubling. Default
	// (0) DefaultBisect (3); negative for none.
	Bisect int
	// Step is each step's length. Default DefaultStep (30 s).
	Step time.Duration
	// Warmup is each step's steady-state rule: "auto" (MSER), a duration, or
	// "0". Default DefaultWarmup ("auto").
	Warmup string
	// MinAchieved, MaxDelayed and MaxErrors are the other conditions a step
	// must meet, as fractions: the share of its rate it sustains, of its ops
	// that start late, of its ops that fail. Defaults 0.95, 0.05, 0.001.
	MinAchieved, MaxDelayed, MaxErrors float64
	// OnStep, if set, is called after each step (progress output).
	OnStep func(result.SweepStep)
}

// EnsureDefaults fills every zero field that has a default.
func (c *Config) EnsureDefaults() {
	c.Bench.EnsureDefaults()
	c.Step = cmp.Or(c.Step, DefaultStep)
	c.Start = cmp.Or(c.Start, DefaultStart)
	c.Max = cmp.Or(c.Max, DefaultMax)
	c.Bisect = cmp.Or(c.Bisect, DefaultBisect)
	c.Warmup = cmp.Or(c.Warmup, DefaultWarmup)
	c.MinAchieved = cmp.Or(c.MinAchieved, DefaultMinAchieved)
	c.MaxDelayed = cmp.Or(c.MaxDelayed, DefaultMaxDelayed)
	c.MaxErrors = cmp.Or(c.MaxErrors, DefaultMaxErrors)
}

// Validate reports every problem of c at once (call EnsureDefaults first):
// one usererr.Error per problem, naming its field ("rates", "step",
// "objective_p99"...). The Bench config is validated when the sweep opens it.
func (c *Config) Validate() error {
	var l usererr.List
	switch {
	case c.FindMax && len(c.Rates) > 0:
		l.Add("rates", "and a find-max search exclude each other (fix: one of them)")
	case !c.FindMax && len(c.Rates) == 0:
		l.Add("rates", "are missing: a sweep needs steps (fix: rates such as 10k,20k,40k, or a find-max search with a p99 objective)")
	}
	for _, r := range c.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			l.Add("rates", "%v is not a positive rate (fix: ops/s such as 10k)", r)
		}
	}
	if c.FindMax && c.ObjectiveP99 <= 0 {
		l.Add("objective_p99", "is needed by a find-max search (fix: a latency objective such as 10ms)")
	}
	switch c.Judge {
	case "", JudgeAttributable, JudgeLatency:
	default:
		l.Add("judge", "%q is not %s or %s (fix: one of them)", c.Judge, JudgeAttributable, JudgeLatency)
	}
	if c.ObjectiveP99 < 0 {
		l.Add("objective_p99", "%s is negative (fix: a duration such as 10ms)", c.ObjectiveP99)
	}
	if c.FindMax && (!(c.Start > 0) || !(c.Max >= c.Start) || math.IsInf(c.Max, 0)) {
		l.Add("start", "%s and max %s must be rates with 0 < start <= max (fix: e.g. start 1k, max 1M)", units.Compact(c.Start), units.Compact(c.Max))
	}
	if (&analysis.Options{Warmup: c.Warmup}).Validate() != nil {
		l.Add("warmup", "%q is not auto, 0 or a duration (fix: auto, a duration such as 5s, or 0)", c.Warmup)
	}
	if c.Bisect > 20 {
		l.Add("bisect", "%d is out of range (fix: 0 to 20)", c.Bisect)
	}
	if c.Step < 2*time.Second {
		l.Add("step", "%s is too short to measure a steady state (fix: at least 2s; 30s or more for MSER to find a warm-up)", c.Step)
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"min_achieved", c.MinAchieved}, {"max_delayed", c.MaxDelayed}, {"max_errors", c.MaxErrors}} {
		if f.v < 0 || f.v > 1 || math.IsNaN(f.v) {
			l.Add(f.name, "ratio %v is not within 0..1", f.v)
		}
	}
	if len(c.Bench.Runner.Events) > 0 {
		l.Add("events", "cannot be run in a sweep (fix: run one fixed rate with the events instead)")
	}
	if c.Bench.Shards > 1 {
		l.Add("shard", "cannot split a sweep over loaders yet (fix: run the sweep from one loader, or one fixed-rate run per loader and merge them)")
	}
	return l.Err()
}

// PhaseName is a step's phase name: "rate-<ops/s>", the rate rounded to a
// whole number.
func PhaseName(rate float64) string {
	return "rate-" + strconv.FormatFloat(math.Round(rate), 'f', 0, 64)
}

// Run opens the target, loads it once (when Bench.Load), runs the steps and
// returns the result: a load phase, one phase per step and the Sweep. On
// Ctrl-C it returns what ran, the interrupted step marked as such.
func Run(ctx context.Context, cfg Config) (*result.Result, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	bc := cfg.Bench
	bc.Run = true
	bc.Runner.Duration, bc.Runner.Ops, bc.Runner.Events = cfg.Step, 0, nil
	bc.Runner.Rate = cfg.Start
	if len(cfg.Rates) > 0 {
		bc.Runner.Rate = cfg.Rates[0]
	}
	s, err := bench.Open(ctx, bc)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if bc.Load {
		if err := s.Load(ctx); err != nil {
			return nil, err
		}
	}
	sw := &result.Sweep{
		Mode: "rates", StepNs: int64(cfg.Step), ObjectiveP99Ns: int64(cfg.ObjectiveP99), Judge: cmp.Or(cfg.Judge, JudgeAttributable),
		MinAchievedRatio: cfg.MinAchieved, MaxDelayedRatio: cfg.MaxDelayed, MaxErrorRatio: cfg.MaxErrors,
		Best: -1,
	}
	tried := map[string]bool{}
	step := func(rate float64) (bool, error) {
		name := PhaseName(rate)
		if tried[name] {
			return false, errRepeat
		}
		tried[name] = true
		rc := bc.Runner
		rc.Rate = rate
		p, err := s.RunPhase(ctx, name, rc)
		if err != nil {
			return false, err
		}
		st, err := Measure(p, rate, &cfg)
		if err != nil {
			return false, err
		}
		sw.Steps = append(sw.Steps, st)
		if cfg.OnStep != nil {
			cfg.OnStep(st)
		}
		return st.MeetsObjective, nil
	}
	var runErr error
	if cfg.FindMax {
		sw.Mode = "find-max"
		runErr = findMax(ctx, &cfg, step)
	} else {
		for _, rate := range cfg.Rates {
			if ctx.Err() != nil {
				break
			}
			if _, err := step(rate); err != nil && !errors.Is(err, errRepeat) {
				runErr = err
				break
			}
		}
	}
	if runErr != nil && len(sw.Steps) == 0 {
		return nil, runErr
	}
	r, err := s.Finish(ctx)
	if err != nil {
		return nil, err
	}
	judge(sw, &cfg, ctx.Err() != nil)
	r.Sweep = sw
	r.Config.DurationNs, r.Config.RateOpsPerS = 0, 0
	if r.Config.Extra == nil {
		r.Config.Extra = map[string]string{}
	}
	r.Config.Extra["sweep"] = describe(&cfg)
	if runErr != nil {
		r.Notes = append(r.Notes, "the sweep stopped early: "+runErr.Error())
	}
	return r, nil
}

var errRepeat = errors.New("rate already measured")

// findMax doubles from Start until a step fails or Max is passed, then
// bisects between the last good and the first bad rate.
func findMax(ctx context.Context, cfg *Config, step func(float64) (bool, error)) error {
	good, bad := 0.0, 0.0
	for rate := cfg.Start; ctx.Err() == nil; {
		ok, err := step(rate)
		if err != nil {
			return err
		}
		if !ok {
			bad = rate
			break
		}
		good = rate
		if rate >= cfg.Max {
			return nil // every rate up to Max met the objective
		}
		rate = math.Min(rate*2, cfg.Max)
	}
	if good == 0 || bad == 0 {
		return nil // the start rate failed, or interrupted
	}
	for i := 0; i < cfg.Bisect && ctx.Err() == nil; i++ {
		mid := roundRate((good + bad) / 2)
		if mid <= good || mid >= bad || (bad-good)/good < 0.02 {
			break // finer than run-to-run noise
		}
		ok, err := step(mid)
		if errors.Is(err, errRepeat) {
			break
		}
		if err != nil {
			return err
		}
		if ok {
			good = mid
		} else {
			bad = mid
		}
	}
	return nil
}

// roundRate keeps 3 significant digits: step names stay readable.
func roundRate(r float64) float64 {
	if r <= 0 {
		return r
	}
	m := math.Pow(10, math.Floor(math.Log10(r))-2)
	return math.Round(r/m) * m
}

// Measure computes one step's figures over its steady window and judges it.
func Measure(p *result.Phase, rate float64, cfg *Config) (result.SweepStep, error) {
	cfg.EnsureDefaults()
	st := result.SweepStep{Phase: p.Name, TargetOpsPerS: rate, Delayed: p.Delayed}
	first := 0
	if len(p.Intervals) > 0 {
		ss, err := analysis.SteadyStateOf(p, cfg.Warmup)
		if err != nil {
			// A forced warm-up longer than a step: measure the whole step, say so.
			st.SteadyMethod = "none"
		} else {
			st.SteadyMethod = ss.Method
			first = min(ss.First, len(p.Intervals)-1)
		}
		st.SteadyFromNs = p.Intervals[first].StartNs
		var ns int64
		for j := first; j < len(p.Intervals); j++ {
			iv := &p.Intervals[j]
			d := iv.DurationNs
			if d <= 0 {
				d = int64(time.Second)
			}
			ns += d
			for _, o := range iv.Ops {
				st.Ops += o.Count
				for _, n := range o.Errors {
					st.Errors += n
				}
			}
		}
		if ns > 0 {
			st.SustainedOpsPerS = float64(st.Ops) / (float64(ns) / 1e9)
		}
	} else {
		// No interval series (an op-bounded phase): the totals.
		st.SteadyMethod = "none"
		for _, o := range p.Ops {
			st.Ops += o.Count
			for _, n := range o.Errors {
				st.Errors += n
			}
		}
		if p.DurationNs > 0 {
			st.SustainedOpsPerS = float64(st.Ops) / (float64(p.DurationNs) / 1e9)
		}
	}
	lat, err := analysis.SteadyLatency(p, first)
	if err != nil {
		return st, err
	}
	st.P50Ns, st.P99Ns, st.P999Ns, st.MaxNs = lat.P50Ns, lat.P99Ns, lat.P999Ns, lat.MaxNs
	svc, err := analysis.WindowLatency(p, 0, len(p.Intervals), result.HistService)
	if err != nil {
		return st, err
	}
	st.ServiceP99Ns = svc.P99Ns
	lag, err := analysis.WindowLatency(p, 0, len(p.Intervals), result.HistLag)
	if err != nil {
		return st, err
	}
	st.LagP99Ns, st.LateClient = lag.P99Ns, p.LateClient
	attr, err := analysis.WindowLatency(p, 0, len(p.Intervals), result.HistAttributable)
	if err != nil {
		return st, err
	}
	st.AttributableP99Ns = attr.P99Ns
	var all uint64
	for _, o := range p.Ops {
		all += o.Count
		for _, n := range o.Errors {
			all += n
		}
	}

	var why []string
	if st.SustainedOpsPerS < cfg.MinAchieved*rate {
		why = append(why, fmt.Sprintf("sustained %s is below %s of the rate", units.OpsPerSec(st.SustainedOpsPerS), units.Percent(cfg.MinAchieved)))
	}
	if all > 0 && float64(p.Delayed) > cfg.MaxDelayed*float64(all) {
		why = append(why, fmt.Sprintf("%s of ops started late for want of a free worker (more concurrency helps if the target is not saturated)", units.Percent(float64(p.Delayed)/float64(all))))
	}
	// Ops the loader itself started late (LateClient): judged on latency,
	// their lateness is in the figure the objective judges and does not fail
	// a step on its own (the self-check calls the run client-bound); judged
	// on the server-attributable latency, which leaves it out, a step whose
	// loader was late beyond the delayed limit measures the loader and fails.
	if judgeAttr := cfg.Judge != JudgeLatency && st.AttributableP99Ns > 0; judgeAttr && all > 0 && float64(p.LateClient) > cfg.MaxDelayed*float64(all) {
		why = append(why, fmt.Sprintf("the loader started %s of ops late with a worker free (client-bound: give it cores of its own)", units.Percent(float64(p.LateClient)/float64(all))))
	}
	if tot := st.Ops + st.Errors; tot > 0 && float64(st.Errors) > cfg.MaxErrors*float64(tot) {
		why = append(why, fmt.Sprintf("%s errors", units.Percent(float64(st.Errors)/float64(tot))))
	}
	if judged, name := judgedP99(&st, cfg.Judge); cfg.ObjectiveP99 > 0 && judged > int64(cfg.ObjectiveP99) {
		why = append(why, fmt.Sprintf("%s %s is over the %s objective", name, units.Latency(float64(judged)), cfg.ObjectiveP99))
	}
	if p.Interrupted {
		why = append(why, "interrupted")
	}
	st.MeetsObjective = len(why) == 0
	st.Reason = strings.Join(why, "; ")
	return st, nil
}

// The latencies a sweep's objective may judge (Config.Judge).
const (
	JudgeAttributable = "attributable"
	JudgeLatency      = "latency"
)

// judgedP99 is the p99 the objective judges in st, and its name: the
// server-attributable latency unless judge is JudgeLatency or the step has
// none (a file from before it was kept).
func judgedP99(st *result.SweepStep, judge string) (int64, string) {
	if judge != JudgeLatency && st.AttributableP99Ns > 0 {
		return st.AttributableP99Ns, "server-attributable p99"
	}
	return st.P99Ns, "p99"
}

// judge picks the best step and writes the verdict.
func judge(sw *result.Sweep, cfg *Config, interrupted bool) {
	for i, st := range sw.Steps {
		if st.MeetsObjective && (sw.Best < 0 || st.SustainedOpsPerS > sw.MaxOpsPerS) {
			sw.Best, sw.MaxOpsPerS = i, st.SustainedOpsPerS
		}
	}
	obj := "kept up with its rate"
	if cfg.ObjectiveP99 > 0 {
		obj = "met p99 <= " + cfg.ObjectiveP99.String()
		if cfg.Judge != JudgeLatency {
			obj = "met server-attributable p99 <= " + cfg.ObjectiveP99.String()
		}
	}
	switch {
	case len(sw.Steps) == 0:
		sw.Verdict = "no step ran"
	case sw.Best < 0:
		fix := "rates from " + units.Compact(lowest(sw)/4)
		if cfg.FindMax {
			fix = "a start at " + units.Compact(lowest(sw)/4)
		}
		sw.Verdict = fmt.Sprintf("no step %s; the lowest rate tried was %s (fix: lower rates, e.g. %s; or check the reasons: delayed starts need more concurrency or a less busy client machine)", obj, units.OpsPerSec(lowest(sw)), fix)
	default:
		b := sw.Steps[sw.Best]
		judged, name := judgedP99(&b, cfg.Judge)
		sw.Verdict = fmt.Sprintf("highest rate that %s: %s sustained (step %s, %s %s, latency p99 %s)", obj, units.OpsPerSec(b.SustainedOpsPerS), b.Phase, name, units.Latency(float64(judged)), units.Latency(float64(b.P99Ns)))
		if cfg.FindMax && allMet(sw) {
			sw.Verdict += fmt.Sprintf("; every step up to the maximum rate %s met it: the limit is higher", units.Compact(cfg.Max))
		}
	}
	if interrupted {
		sw.Verdict += " (interrupted: not every step ran)"
	}
}

func allMet(sw *result.Sweep) bool {
	for _, st := range sw.Steps {
		if !st.MeetsObjective {
			return false
		}
	}
	return true
}

func lowest(sw *result.Sweep) float64 {
	l := math.Inf(1)
	for _, st := range sw.Steps {
		l = math.Min(l, st.TargetOpsPerS)
	}
	return l
}

func describe(cfg *Config) string {
	if cfg.FindMax {
		return fmt.Sprintf("find-max p99<=%s start %s max %s bisect %d step %s", cfg.ObjectiveP99, units.Compact(cfg.Start), units.Compact(cfg.Max), cfg.Bisect, cfg.Step)
	}
	parts := make([]string, len(cfg.Rates))
	for i, r := range cfg.Rates {
		parts[i] = units.Compact(r)
	}
	s := "rates " + strings.Join(parts, ",") + " step " + cfg.Step.String()
	if cfg.ObjectiveP99 > 0 {
		s += " p99<=" + cfg.ObjectiveP99.String()
	}
	return s
}
