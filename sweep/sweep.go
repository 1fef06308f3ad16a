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
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Defaults.
const (
	DefaultStep        = 30 * time.Second
	DefaultStart       = 1000.0
	DefaultMax         = 10_000_000.0
	DefaultBisect      = 3
	DefaultMinAchieved = 0.95  // a step must sustain 95% of its rate
	DefaultMaxDelayed  = 0.05  // at most 5% of ops may start late for want of a worker
	DefaultMaxErrors   = 0.001 // at most 0.1% of ops may fail
)

// Config is one sweep.
type Config struct {
	// Bench is the target, workload, load phase and runner settings
	// (concurrency, seed...). Its Runner.Rate, Duration, Ops and Events are
	// replaced by each step's.
	Bench bench.Config
	// Rates are the steps of a "rates" sweep, in ops/s, run in order.
	Rates []float64
	// FindMax selects the doubling-then-bisection search.
	FindMax bool
	// ObjectiveP99 is the latency objective (p99 over a step's steady window).
	// Required with FindMax; optional with Rates (0: judge on keeping up only).
	ObjectiveP99 time.Duration
	// Start and Max bound FindMax. Defaults 1000 and 10M ops/s.
	Start, Max float64
	// Bisect is the number of bisection steps after the doubling. Default
	// (0) 3; negative for none.
	Bisect int
	// Step is each step's length. Default 30 s.
	Step time.Duration
	// Warmup is each step's steady-state rule: "auto" (MSER), a duration, or
	// "0". Default "auto".
	Warmup string
	// MinAchieved, MaxDelayed and MaxErrors are the other conditions a step
	// must meet (fractions). Defaults 0.95, 0.05, 0.001.
	MinAchieved, MaxDelayed, MaxErrors float64
	// OnStep, if set, is called after each step (progress output).
	OnStep func(result.SweepStep)
}

func (c *Config) ensureDefaults() {
	if c.Step == 0 {
		c.Step = DefaultStep
	}
	if c.Start == 0 {
		c.Start = DefaultStart
	}
	if c.Max == 0 {
		c.Max = DefaultMax
	}
	if c.Bisect == 0 {
		c.Bisect = DefaultBisect
	}
	if c.Warmup == "" {
		c.Warmup = "auto"
	}
	if c.MinAchieved == 0 {
		c.MinAchieved = DefaultMinAchieved
	}
	if c.MaxDelayed == 0 {
		c.MaxDelayed = DefaultMaxDelayed
	}
	if c.MaxErrors == 0 {
		c.MaxErrors = DefaultMaxErrors
	}
}

// Validate reports every problem of c at once (after defaults).
func (c *Config) Validate() error {
	c.ensureDefaults()
	var probs []string
	switch {
	case c.FindMax && len(c.Rates) > 0:
		probs = append(probs, "--rates and --find-max exclude each other (fix: one of them)")
	case !c.FindMax && len(c.Rates) == 0:
		probs = append(probs, "no steps (fix: --rates 10k,20k,40k or --find-max --p99 10ms)")
	}
	for _, r := range c.Rates {
		if !(r > 0) || math.IsInf(r, 0) {
			probs = append(probs, fmt.Sprintf("rate %v is not a positive rate (fix: ops/s such as 10k)", r))
		}
	}
	if c.FindMax && c.ObjectiveP99 <= 0 {
		probs = append(probs, "--find-max needs a latency objective (fix: --p99 10ms)")
	}
	if c.ObjectiveP99 < 0 {
		probs = append(probs, "--p99 is negative (fix: a duration such as 10ms)")
	}
	if c.FindMax && (!(c.Start > 0) || !(c.Max >= c.Start) || math.IsInf(c.Max, 0)) {
		probs = append(probs, fmt.Sprintf("--start %v and --max %v must be rates with 0 < start <= max (fix: e.g. --start 1k --max 1M)", c.Start, c.Max))
	}
	if c.Bisect > 20 {
		probs = append(probs, fmt.Sprintf("--bisect %d is out of range (fix: 0 to 20)", c.Bisect))
	}
	if c.Step < 2*time.Second {
		probs = append(probs, fmt.Sprintf("--step %s is too short to measure a steady state (fix: at least 2s; 30s or more for MSER to find a warm-up)", c.Step))
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"min achieved", c.MinAchieved}, {"max delayed", c.MaxDelayed}, {"max errors", c.MaxErrors}} {
		if f.v < 0 || f.v > 1 || math.IsNaN(f.v) {
			probs = append(probs, fmt.Sprintf("%s ratio %v is not within 0..1", f.name, f.v))
		}
	}
	if len(c.Bench.Runner.Events) > 0 {
		probs = append(probs, "fault events are not run in sweeps (fix: use 'platbench run --rate R --event ...' for one rate)")
	}
	if c.Bench.Shards > 1 {
		probs = append(probs, "sweeps do not split over loaders yet (fix: run the sweep from one loader, or run one 'platbench run --shard' per rate and merge)")
	}
	if len(probs) > 0 {
		return usererr.New("%s", strings.Join(probs, "; "))
	}
	return nil
}

// PhaseName is a step's phase name: "rate-<ops/s>".
func PhaseName(rate float64) string {
	return "rate-" + strconv.FormatFloat(math.Round(rate), 'f', 0, 64)
}

// Run opens the target, loads it once (when Bench.Load), runs the steps and
// returns the result: a load phase, one phase per step and the Sweep. On
// Ctrl-C it returns what ran, the interrupted step marked as such.
func Run(ctx context.Context, cfg Config) (*result.Result, error) {
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
		Mode: "rates", StepNs: int64(cfg.Step), ObjectiveP99Ns: int64(cfg.ObjectiveP99),
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
	cfg.ensureDefaults()
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
		h, err := analysis.MergeIntervals(p, first, len(p.Intervals))
		if err != nil {
			return st, err
		}
		st.P50Ns, st.P99Ns, st.P999Ns, st.MaxNs = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.Max()
	} else {
		// No interval series (an op-bounded phase): the totals.
		st.SteadyMethod = "none"
		h := result.NewHist()
		for _, o := range p.Ops {
			st.Ops += o.Count
			for _, n := range o.Errors {
				st.Errors += n
			}
			oh, err := result.DecodeHist(o.Hist)
			if err != nil {
				return st, err
			}
			h.Merge(oh)
		}
		if p.DurationNs > 0 {
			st.SustainedOpsPerS = float64(st.Ops) / (float64(p.DurationNs) / 1e9)
		}
		st.P50Ns, st.P99Ns, st.P999Ns, st.MaxNs = h.ValueAtQuantile(50), h.ValueAtQuantile(99), h.ValueAtQuantile(99.9), h.Max()
	}
	svc := result.NewHist()
	var all uint64
	for _, o := range p.Ops {
		all += o.Count
		for _, n := range o.Errors {
			all += n
		}
		oh, err := result.DecodeHist(o.ServiceHist)
		if err != nil {
			return st, err
		}
		svc.Merge(oh)
	}
	st.ServiceP99Ns = svc.ValueAtQuantile(99)

	var why []string
	if st.SustainedOpsPerS < cfg.MinAchieved*rate {
		why = append(why, fmt.Sprintf("sustained %.0f op/s is below %.0f%% of the rate", st.SustainedOpsPerS, cfg.MinAchieved*100))
	}
	if all > 0 && float64(p.Delayed) > cfg.MaxDelayed*float64(all) {
		why = append(why, fmt.Sprintf("%.1f%% of ops started late for want of a free worker (raise --concurrency if the target is not saturated)", 100*float64(p.Delayed)/float64(all)))
	}
	if tot := st.Ops + st.Errors; tot > 0 && float64(st.Errors) > cfg.MaxErrors*float64(tot) {
		why = append(why, fmt.Sprintf("%.2f%% errors", 100*float64(st.Errors)/float64(tot)))
	}
	if cfg.ObjectiveP99 > 0 && st.P99Ns > int64(cfg.ObjectiveP99) {
		why = append(why, fmt.Sprintf("p99 %s is over the %s objective", time.Duration(st.P99Ns).Round(time.Microsecond), cfg.ObjectiveP99))
	}
	if p.Interrupted {
		why = append(why, "interrupted")
	}
	st.MeetsObjective = len(why) == 0
	st.Reason = strings.Join(why, "; ")
	return st, nil
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
	}
	switch {
	case len(sw.Steps) == 0:
		sw.Verdict = "no step ran"
	case sw.Best < 0:
		fix := "--rates " + shortRate(lowest(sw)/4) + ",..."
		if cfg.FindMax {
			fix = "--start " + shortRate(lowest(sw)/4)
		}
		sw.Verdict = fmt.Sprintf("no step %s; the lowest rate tried was %.0f op/s (fix: lower rates, e.g. %s; or check the reasons: delayed starts need more --concurrency or a less busy client machine)", obj, lowest(sw), fix)
	default:
		b := sw.Steps[sw.Best]
		sw.Verdict = fmt.Sprintf("highest rate that %s: %.0f op/s sustained (step %s, p99 %s)", obj, b.SustainedOpsPerS, b.Phase, time.Duration(b.P99Ns).Round(time.Microsecond))
		if cfg.FindMax && allMet(sw) {
			sw.Verdict += fmt.Sprintf("; every step up to --max %s met it: the limit is higher", shortRate(cfg.Max))
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

func shortRate(r float64) string {
	switch {
	case r >= 1e6 && math.Mod(r, 1e5) == 0:
		return strconv.FormatFloat(r/1e6, 'f', -1, 64) + "M"
	case r >= 1e3 && math.Mod(r, 100) == 0:
		return strconv.FormatFloat(r/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(math.Max(1, math.Round(r)), 'f', 0, 64)
}

func describe(cfg *Config) string {
	if cfg.FindMax {
		return fmt.Sprintf("find-max p99<=%s start %s max %s bisect %d step %s", cfg.ObjectiveP99, shortRate(cfg.Start), shortRate(cfg.Max), cfg.Bisect, cfg.Step)
	}
	parts := make([]string, len(cfg.Rates))
	for i, r := range cfg.Rates {
		parts[i] = shortRate(r)
	}
	s := "rates " + strings.Join(parts, ",") + " step " + cfg.Step.String()
	if cfg.ObjectiveP99 > 0 {
		s += " p99<=" + cfg.ObjectiveP99.String()
	}
	return s
}
