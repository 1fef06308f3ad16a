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
	// Judge is the latency the objective judges: analysis.JudgeAttributable
	// (the default: the server-attributable latency; the loader's own
	// lateness then fails a step as client-bound) or analysis.JudgeLatency
	// (latency from the intended start, steady window).
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
	case "", analysis.JudgeAttributable, analysis.JudgeLatency:
	default:
		l.Add("judge", "%q is not %s or %s (fix: one of them)", c.Judge, analysis.JudgeAttributable, analysis.JudgeLatency)
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
		Mode: "rates", StepNs: int64(cfg.Step), ObjectiveP99Ns: int64(cfg.ObjectiveP99), Judge: cmp.Or(cfg.Judge, analysis.JudgeAttributable),
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

// Measure computes one step's figures over its steady window and judges it
// (analysis.SweepStep): the conditions it missed are in its Misses, which
// report words (report.SweepStepReason).
func Measure(p *result.Phase, rate float64, cfg *Config) (result.SweepStep, error) {
	cfg.EnsureDefaults()
	st, _, err := analysis.SweepStep(p, rate, analysis.SweepObjective{
		MinAchieved: cfg.MinAchieved, MaxDelayed: cfg.MaxDelayed, MaxErrors: cfg.MaxErrors, P99: cfg.ObjectiveP99, Warmup: cfg.Warmup, Judge: cfg.Judge})
	return st, err
}

// judge picks the best step (analysis.JudgeSweep) and stores what the
// report's verdict is worded from (report.SweepVerdict).
func judge(sw *result.Sweep, cfg *Config, interrupted bool) {
	j := analysis.JudgeSweep(sw.Steps)
	if j.Best >= 0 {
		sw.Best, sw.MaxOpsPerS = j.Best, j.MaxOpsPerS
	}
	sw.AllMet, sw.Interrupted = j.AllMet && len(sw.Steps) > 0, interrupted
	if len(sw.Steps) > 0 {
		sw.LowestRateOpsPerS = j.LowestRate
	}
	if cfg.FindMax {
		sw.MaxRateOpsPerS = cfg.Max
	}
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

// Benchmark runs the sweep as bench.Benchmark runs a benchmark, owning its
// files: the steps stream to a journal beside o.Path, kept as the result's
// seconds file; the result's thresholds (o.Thresholds) are judged on its
// best step and it is written (with o.Force, in place of an earlier one).
// A sweep writes no .hlog and its steps are measured by Run, so o.Hlog,
// o.Analysis and o.Run do not apply.
func Benchmark(ctx context.Context, cfg Config, o bench.Output) (*result.Result, error) {
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o.Hlog, o.Analysis = false, nil
	o.Run = func(ctx context.Context, bc bench.Config) (*result.Result, error) {
		c := cfg
		c.Bench.Journal = bc.Journal
		return Run(ctx, c)
	}
	return bench.Benchmark(ctx, cfg.Bench, o)
}
