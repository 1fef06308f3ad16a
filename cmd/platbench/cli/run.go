package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/suite"
)

func runRun(ctx context.Context, env *Env, args []string) error {
	const summary = "Load a dataset into a target and run a workload against it; print the report and write the result file (JSON) and its seconds file (every second with its histograms; --hlog adds an HdrHistogram log)."
	b := newBenchFlags(env, "run", summary)
	b.fs.BoolVar(&b.noLoad, "no-load", false, "skip the load phase (the dataset is already there)")
	b.fs.BoolVar(&b.keepDataset, "keep-dataset", false, "keep what this run's own load made (by default the run removes it at its end, by its manifest; 'platbench clean' removes a kept one; docs/datasets.md)")
	b.rdv.register(b.fs)
	b.fs.BoolVar(&b.abortOnFail, "abort-on-fail", false, "check the --threshold rules every second once the warm-up is over (--warmup, else a fifth of the run and at least 5s) and stop the run at the first that fails (exit status 3)")
	b.fs.BoolVar(&b.verify, "verify", false, verifyFlagDoc)
	b.fs.Var(&b.verifySample, "verify-sample", verifySampleFlagDoc)
	b.fs.BoolVar(&b.hlog, "hlog", false, "also write the run phase's HdrHistogram interval log beside the result as the run goes (OUT.hlog: one line per op type and second, for HistogramLogProcessor); without it the histograms are kept once, in the seconds file, and 'platbench report OUT --format hlog' makes the log from it")
	b.fs.IntVar(&b.repeat, "repeat", 1, "run the benchmark `N` times, one result file each (OUT.r01.json, OUT.r02.json...), labelled alike, so 'platbench compare' takes them as one group; for several alternatives interleaved in random order, a suite's repeat:")
	b.analysis = addAnalysisFlags(b.fs)
	b.like = addLikeFlag(b.fs)
	usage := groupedUsage(b.fs, "run", "[flags]", summary, runGroups, runExamples)
	b.fs.Usage = func() { usage(env.Stdout) }
	cfg, err := b.parse(args, false)
	if err != nil {
		return err
	}
	if b.repeat < 1 {
		return usagef("--repeat %d: a number of runs, 1 or more (fix: e.g. --repeat 5)", b.repeat)
	}
	if b.repeat > 1 && (b.out == "-" || b.rdv.addr != "") {
		return usagef("--repeat writes one result file per run; it cannot with --out - or a distributed run (fix: leave one of them out)")
	}
	if flagSet(b.fs, "verify-sample") && !b.verify {
		return usagef("--verify-sample says how many keys --verify reads back: give --verify too")
	}
	if b.abortOnFail {
		if len(b.ths) == 0 {
			return usagef("--abort-on-fail checks the --threshold rules while the run goes on: give at least one (e.g. --threshold p99<10ms)")
		}
		cfg.AbortOnFail = b.ths
	}
	if b.repeat > 1 {
		return runRepeated(ctx, env, b, cfg)
	}
	return b.stored(ctx, execute(ctx, env, b, cfg))
}

// runRepeated runs the one benchmark b.repeat times, each to its own file
// (suite.RepeatName: OUT.r01.json ...), the same label on every run, and
// says how to compare them. A run that fails does not stop the others (a
// repeated experiment wants every round); the exit status is the first
// failure's.
func runRepeated(ctx context.Context, env *Env, b *benchFlags, cfg bench.Config) error {
	base := b.out
	if base == "" {
		base = bench.DefaultPath("platbench", cfg, time.Now())
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	// Every run's files are checked before the first runs: a refusal costs
	// nothing, not the rounds before it.
	var outs []result.Output
	for i := range b.repeat {
		outs = append(outs, bench.Output{Path: suite.RepeatName(stem, i, b.repeat) + ".json", Hlog: true}.Outputs()...)
	}
	if err := result.CheckOutputs(outs, b.force, outFlags); err != nil {
		return err
	}
	var files []string
	var worst error
	for i := range b.repeat {
		if ctx.Err() != nil {
			break
		}
		b.out = suite.RepeatName(stem, i, b.repeat) + ".json"
		fmt.Fprintf(env.Stderr, "run %d of %d: %s\n", i+1, b.repeat, b.out)
		err := b.stored(ctx, execute(ctx, env, b, cfg))
		if _, statErr := os.Stat(b.out); statErr == nil {
			files = append(files, b.out)
		}
		if err != nil && worst == nil {
			worst = err
		}
	}
	var rs []*result.Result
	for _, f := range files {
		if r, err := result.Read(f); err == nil {
			rs = append(rs, r)
		}
	}
	if err := report.WriteRepeatSummary(env.Stdout, rs, files); err != nil && worst == nil {
		worst = err
	}
	return worst
}

func runLoad(ctx context.Context, env *Env, args []string) error {
	b := newBenchFlags(env, "load", "Run only the load phase: insert the workload's records into the target (then use 'run --no-load').")
	cfg, err := b.parse(args, true)
	if err != nil {
		return err
	}
	return execute(ctx, env, b, cfg)
}

// output is where the result goes (bench.Output): --out, or a file name
// made of prefix (the command), the target, the workload and the time. It
// fails before the benchmark, not after, when the result cannot be written
// there, or when a file it would write exists (bench.Output.Check; --force
// replaces all but a journal's).
func (b *benchFlags) output(prefix string, cfg bench.Config, hlog bool) (bench.Output, error) {
	o := bench.Output{Path: b.out, Force: b.force, Hlog: hlog, Warn: b.warn}
	if o.Path == "-" { // the result's JSON on stdout, the report on stderr
		return o, nil
	}
	if o.Path == "" {
		o.Path = bench.DefaultPath(prefix, cfg, time.Now())
	}
	b.lastPath = o.Path
	return o, o.Check(outFlags, b.loaderSeconds(o.Path, cfg)...)
}

// loaderSeconds are, on loader 0 of a distributed run, the other loaders'
// seconds files it receives beside the result at out.
func (b *benchFlags) loaderSeconds(out string, cfg bench.Config) []result.Output {
	var outs []result.Output
	if b.rdv.addr != "" && cfg.Shards > 1 && cfg.Shard == 0 {
		stem := strings.TrimSuffix(out, filepath.Ext(out))
		for i := range cfg.Shards {
			outs = append(outs, result.Output{Path: fmt.Sprintf("%s.loader-%d.seconds.jsonl.zst", stem, i), What: "loader's seconds file"})
		}
	}
	return outs
}

// warn says what went wrong with a file without failing the run.
func (b *benchFlags) warn(err error) { fmt.Fprintf(b.stderr, "platbench: %v\n", err) }

// execute runs the benchmark (bench.Benchmark: it writes the result files)
// and prints the report.
func execute(ctx context.Context, env *Env, b *benchFlags, cfg bench.Config) error {
	bench.Version = ToolVersion()
	o, err := b.output("platbench", cfg, b.hlog)
	if err != nil {
		return err
	}
	beforeRun(env, b, &cfg)
	if b.tel.metricsAddr != "" {
		addr, err := serveMetrics(ctx, b.tel.metricsAddr, &cfg)
		if err != nil {
			return err
		}
		if !b.quiet {
			fmt.Fprintf(env.Stderr, "Prometheus metrics on http://%s/metrics\n", addr)
		}
	}
	dist, err := setupRendezvous(b.rdv, &cfg, env.Stderr)
	if err != nil {
		return err
	}
	o.Analysis, o.Thresholds, o.SecondsAs = b.analysis, b.ths, dist.keepAs(o.Path)
	o.Run = func(ctx context.Context, cfg bench.Config) (*result.Result, error) {
		dist.useJournal(cfg.Journal, o.Path)
		r, err := bench.Run(ctx, cfg)
		if !b.quiet && env.IsTTY {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		// A distributed run hands its outcome over: loader 0's r becomes
		// the merged result. With a result in hand (a loader missing from
		// the merge, a result that could not be sent) it is still written,
		// then err returned.
		return dist.finish(ctx, r, err)
	}
	var shown error
	o.Done = func(r *result.Result, f bench.Files) error {
		b.last = r
		shown = b.show(env, r, f)
		return shown
	}
	r, err := bench.Benchmark(ctx, cfg, o)
	if r == nil || shown != nil {
		return err
	}
	if o.Path != "-" && ctx.Err() != nil {
		return errors.New("interrupted: the result of what ran was written")
	}
	if err != nil {
		return err
	}
	return b.verdict(r)
}

// show prints the report of r, whose files are f: brief (its headline and
// limit, report.WriteBrief) for --quiet and the rounds of --repeat. With
// --out - (no file) the result's JSON is stdout (e.g. a pod's log) and the
// report, if any, goes to stderr.
func (b *benchFlags) show(env *Env, r *result.Result, f bench.Files) error {
	if f.Result == "" {
		if err := result.Encode(env.Stdout, r); err != nil {
			return err
		}
		if b.quiet {
			return nil
		}
		return printTerm(env.Stderr, r)
	}
	print := printTerm
	if b.quiet || b.repeat > 1 {
		print = report.WriteBrief
	}
	if err := print(env.Stdout, r); err != nil {
		return err
	}
	if f.Hlog != "" {
		fmt.Fprintf(env.Stdout, "\nresult   : %s (HdrHistogram log: %s)\n", f.Result, f.Hlog)
	} else {
		fmt.Fprintf(env.Stdout, "\nresult   : %s\n", f.Result)
	}
	if f.Seconds != "" {
		fmt.Fprintf(env.Stdout, "seconds  : %s (every second with its histograms; keep it beside the result)\n", f.Seconds)
	}
	return nil
}

// verdict is the outcome of a run that completed: thresholds failed (exit
// 3), or, without thresholds, a failed run (exit 1, unless --allow-errors).
func (b *benchFlags) verdict(r *result.Result) error {
	if h := analysis.HealthOf(r); h.LostWrites > 0 {
		// Whatever the thresholds say: the target did not keep what it
		// acknowledged.
		return &exitError{exitFailed, report.RunFailureText(h, b.maxErrors) + " (the result was written)"}
	}
	if len(b.ths) > 0 {
		var failed []string
		for _, t := range r.Thresholds {
			if !t.Pass {
				failed = append(failed, t.Expr)
			}
		}
		if len(failed) > 0 {
			return &exitError{exitThresholds, fmt.Sprintf("%d of %d thresholds failed: %s", len(failed), len(r.Thresholds), strings.Join(failed, ", "))}
		}
		return nil
	}
	if h := analysis.HealthOf(r); !b.allowErrors && h.RunFailed(b.maxErrors) {
		return &exitError{exitFailed, report.RunFailureText(h, b.maxErrors) + " (the result was written; --max-errors or --allow-errors accepts such a run)"}
	}
	return nil
}

// beforeRun warns of a concurrency the host cannot run (as the result's
// note says after it) and shows progress unless --quiet.
func beforeRun(env *Env, b *benchFlags, cfg *bench.Config) {
	if w := cfg.ConcurrencyWarning(); w != "" {
		fmt.Fprintf(env.Stderr, "platbench: warning: %s\n", w)
	}
	if !b.quiet {
		showProgress(env, cfg)
	}
}
