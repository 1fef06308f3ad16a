package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/sweep"
)

func runSweep(ctx context.Context, env *Env, args []string) error {
	b, sc, rates := newSweepFlags(env)
	if err := b.parseArgs(args); err != nil {
		return err
	}
	cfg, err := sweepConfig(b, sc, *rates)
	if err != nil {
		return err
	}
	bench.Version = ToolVersion()
	o, err := b.output("platbench-sweep", cfg, false)
	if err != nil {
		return err
	}
	if !b.quiet {
		showSweepProgress(env, sc, cfg)
	}
	clear := func() {
		if !b.quiet && env.IsTTY {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
	}
	o.Thresholds = b.ths
	var shown error
	o.Done = func(r *result.Result, f bench.Files) error {
		clear()
		b.last = r
		shown = showSweep(env, b, r, o.Path)
		return shown
	}
	// The steps stream as a run does (its journal, kept as the result's
	// seconds file).
	r, err := sweep.Benchmark(ctx, *sc, o)
	if r == nil {
		clear()
		return err
	}
	if shown != nil {
		return shown
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: the result of the steps that ran was written")
	}
	return b.stored(ctx, b.verdict(r))
}

// showSweep prints the sweep's report; with --out - the result's JSON is
// stdout and the report goes to stderr, as run does (it once wrote a file
// named "-").
func showSweep(env *Env, b *benchFlags, r *result.Result, out string) error {
	rep := env.Stdout
	if out == "-" {
		if err := result.Encode(env.Stdout, r); err != nil {
			return err
		}
		rep = env.Stderr
		if b.quiet {
			rep = io.Discard
		}
	}
	if err := writeSweepReport(rep, r); err != nil {
		return err
	}
	if out != "-" {
		fmt.Fprintf(env.Stdout, "\nresult   : %s\n", out)
		fmt.Fprintf(env.Stdout, "seconds  : %s (every second with its histograms; keep it beside the result)\n", result.SecondsPath(out))
	}
	return nil
}

// showSweepProgress shows the progress line and each step as it ends.
func showSweepProgress(env *Env, sc *sweep.Config, cfg bench.Config) {
	sc.Bench.Runner.Progress = newProgress(env, cfg, nil)
	sc.OnStep = func(st result.SweepStep) {
		if env.IsTTY {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		report.WriteSweepStep(env.Stderr, st)
	}
}

// writeSweepReport is the sweep's terminal report and its thresholds.
func writeSweepReport(w io.Writer, r *result.Result) error {
	if err := report.WriteSweepTerm(w, r); err != nil {
		return err
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintln(w)
		return report.WriteThresholdsText(w, r)
	}
	return nil
}

// newSweepFlags is the run flags plus the sweep's, bound to a sweep.Config
// whose defaults are sweep's; rates is --rates as typed.
func newSweepFlags(env *Env) (*benchFlags, *sweep.Config, *string) {
	b := newBenchFlags(env, "sweep", "Run fixed-rate steps against one target (loaded once), each measured over its own steady state: the throughput-latency curve and the highest rate that meets a p99 objective.\n  platbench sweep --rates 10k,20k,40k --step 30s [run flags]\n  platbench sweep --find-max --p99 10ms [--start 1k] [--max 10M] [--step 30s] [run flags]")
	b.fixedRate = true
	b.fs.BoolVar(&b.noLoad, "no-load", false, "skip the load phase (the dataset is already there)")
	b.analysis = &analysis.Options{}
	b.fs.StringVar(&b.analysis.Warmup, "warmup", sweep.DefaultWarmup, "warm-up trimmed from each step: auto (MSER), a duration like 5s, or 0")
	sc := &sweep.Config{Start: sweep.DefaultStart, Max: sweep.DefaultMax, Step: sweep.DefaultStep, Bisect: sweep.DefaultBisect}
	rates := new(string)
	b.fs.StringVar(rates, "rates", "", "comma-separated rates in ops/s, run in order (e.g. 10k,20k,40k)")
	b.fs.BoolVar(&sc.FindMax, "find-max", false, "search for the highest rate meeting --p99: double from --start, then bisect")
	b.fs.Var((*units.Duration)(&sc.ObjectiveP99), "p99", "latency objective, a `duration`: a step meets it when its p99 is at most this (e.g. 10ms); required with --find-max")
	b.fs.StringVar(&sc.Judge, "judge", analysis.JudgeAttributable, "the latency --p99 judges: attributable (server-attributable: latency less the loader's own lateness, which fails a step in the client-bound check instead) or latency (from the intended start, steady window)")
	b.fs.Var((*units.Rate)(&sc.Start), "start", "first `rate` of --find-max (ops/s)")
	b.fs.Var((*units.Rate)(&sc.Max), "max", "highest `rate` --find-max tries (ops/s)")
	b.fs.Var((*units.Duration)(&sc.Step), "step", "length of each step, a `duration`")
	b.fs.IntVar(&sc.Bisect, "bisect", sweep.DefaultBisect, "bisection steps of --find-max after the doubling")
	return b, sc, rates
}

// sweepConfig checks the parsed flags and completes sc (Bench, Rates,
// Warmup); it returns the bench config the sweep runs with.
func sweepConfig(b *benchFlags, sc *sweep.Config, rates string) (bench.Config, error) {
	for _, f := range []string{"rate", "duration", "ops", "start-at", "event", "shard"} {
		if flagSet(b.fs, f) {
			return bench.Config{}, usagef("--%s does not apply to a sweep (fix: %s)", f, map[string]string{
				"rate": "--rates or --find-max", "duration": "--step", "ops": "--step",
				"start-at": "start the sweep when you want", "event": "'platbench run --rate R --event ...'",
				"shard": "one loader per sweep"}[f])
		}
	}
	if sc.Bisect < 0 {
		return bench.Config{}, usagef("--bisect %d is negative (fix: 0 for none, or a few steps such as 3)", sc.Bisect)
	}
	if flagSet(b.fs, "bisect") && sc.Bisect == 0 {
		sc.Bisect = -1 // none, rather than the default
	}
	// A 0 the sweep would read as "not given" is an error, not the default.
	for _, z := range []struct {
		flag string
		zero bool
		fix  string
	}{
		{"p99", sc.ObjectiveP99 == 0, "a latency objective such as 10ms, or leave it out to judge on keeping up only"},
		{"step", sc.Step == 0, "a step length such as 30s"},
		{"start", sc.Start == 0, "a first rate such as 1k"},
		{"max", sc.Max == 0, "a highest rate such as 1M"},
	} {
		if z.zero && flagSet(b.fs, z.flag) {
			return bench.Config{}, usagef("--%s is 0 (fix: %s)", z.flag, z.fix)
		}
	}
	if rates != "" {
		for _, s := range strings.Split(rates, ",") {
			r, err := units.ParseRate(s)
			if err != nil || r == 0 {
				return bench.Config{}, usagef("bad --rates %q: %q is not a positive rate (e.g. 10k,20k,40k)", rates, s)
			}
			sc.Rates = append(sc.Rates, r)
		}
	}
	cfg, err := b.config(false)
	if err != nil {
		return bench.Config{}, err
	}
	sc.Bench, sc.Warmup = cfg, b.analysis.Warmup
	sc.EnsureDefaults()
	return cfg, usage(sc.Validate())
}
