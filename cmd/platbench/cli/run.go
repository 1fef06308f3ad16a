package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter/registry"
	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/suite"
	"github.com/platbench/platbench/workload"
)

// benchFlags are the flags `run`, `load` and `sweep` share. Numbers, sizes,
// rates and durations are units values: the grammar of workload and suite
// files too.
type benchFlags struct {
	fs          *flag.FlagSet
	stderr      io.Writer // the workload file's warnings
	target      string
	targetOpts  kvFlag
	creds       credFlags // the target's user and password off the command line
	workload    string
	duration    units.Duration
	ops         units.Count
	records     units.Count
	valueSize   units.Size
	fieldCount  units.Count
	fieldLength units.Size
	mix         string
	commands    commandFlags // --command templates (redis)
	dist        string
	concurrency units.Count
	rate        runner.Streams
	poisson     bool
	paceTick    units.Duration
	seed        int64
	out         string
	force       bool // --force: replace the result files at --out (never a journal)
	noLoad      bool
	keepDataset bool // run only: --keep-dataset (bench.Config.KeepDataset)
	label       string
	commit      string
	repeat      int // run only: how many runs of the one benchmark
	shard       string
	startAt     string
	rdv         rendezvousFlags // run only
	fixedRate   bool            // sweep: every step runs at a fixed rate, --rate or not
	quiet       bool
	events      listFlag
	thresholds  listFlag
	ths         []analysis.Threshold // thresholds, parsed
	allowErrors bool
	maxErrors   float64 // --max-errors, a share
	datasetSize units.Size
	abortOnFail bool // run only
	validate    bool // --validate: checked values (workload.Spec.CheckValues)
	tel         telemetryFlags
	like        *likeFlag // run only: --like RESULT.json
	analysis    *analysis.Options
	// --store (run and sweep): the result judged last and its file, whose
	// rows b.stored appends (cmd/platbench/cli/history.go).
	store    string
	last     *result.Result
	lastPath string
	// --verify, --verify-sample (run only): read back the acknowledged writes.
	verify       bool
	verifySample bench.Sample
}

func newBenchFlags(env *Env, name, summary string) *benchFlags {
	b := &benchFlags{stderr: env.Stderr, targetOpts: kvFlag{}, concurrency: bench.DefaultConcurrency}
	fs := newFlags(env, name, "[flags]", summary)
	b.fs = fs
	fs.StringVar(&b.target, "target", bench.DefaultTarget, "target URL or name (see 'platbench targets')")
	fs.Var(b.targetOpts, "target-opt", "target option key=value (repeatable; see the target's docs)")
	b.creds.register(fs)
	fs.StringVar(&b.workload, "workload", bench.DefaultWorkload, "workload preset name, YAML file or YCSB property file (see 'platbench workloads')")
	fs.Var(&b.duration, "duration", fmt.Sprintf("run phase length, a `duration` such as 30s or 10m (default %s unless --ops is given)", units.Duration(bench.DefaultDuration)))
	fs.Var(&b.ops, "ops", "run phase length in operations, a `count` such as 1M, instead of a duration")
	fs.Var(&b.records, "records", fmt.Sprintf("records in the dataset, a `count` such as 1M (default from the workload: %d); a cassandra-stress profile's partitions", workload.DefaultRecords))
	fs.Var(&b.datasetSize, "dataset-size", "bound the dataset the load phase writes to a `size` such as 10GiB: the records are lowered to what fits (a profile's record is a partition, its rows and bytes from the profile's distributions)")
	fs.Var(&b.valueSize, "value-size", "bytes per record, a `size` such as 1KiB, split over the fields (default 10 fields x 100 B)")
	fs.Var(&b.fieldCount, "field-count", "fields per record, a `count` (YCSB fieldcount)")
	fs.Var(&b.fieldLength, "field-length", "bytes per field, a `size` (YCSB fieldlength)")
	fs.StringVar(&b.mix, "mix", "", "op mix, e.g. read=3,write=1 (overrides the workload's)")
	b.commands.register(fs)
	fs.StringVar(&b.dist, "distribution", "", "key distribution: uniform, zipfian, latest, hotspot, sequential, gaussian")
	fs.Var(&b.concurrency, "concurrency", "workers, a `count` (concurrent requests in flight)")
	fs.Var(&b.rate, "rate", "fixed total `rate` in ops/s (open loop, e.g. 20k), or a profile: ramp(1k, 50k, 60s), stages(30s:10k, 1m:10k, 30s:0), sine(10k, 5k, 1m), bursts(50k, 10s, 5k, 50s); OP=RATE or OP=PROFILE paces one operation type on its own schedule (repeatable: --rate read=20k --rate update=5k); 0 = as fast as possible")
	fs.Func("arrival", "how open-loop arrivals are spaced: uniform (evenly, the default) or poisson (exponential gaps, as independent users arrive)", func(v string) error {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "uniform", "even":
			b.poisson = false
		case "poisson":
			b.poisson = true
		default:
			return fmt.Errorf("%q is not uniform or poisson", v)
		}
		return nil
	})
	fs.Var(&b.paceTick, "pace-tick", fmt.Sprintf("open loop: the shortest time between two timed wakeups, a `duration` (default %s); operations due within it of each other start together, each charged from its own intended start, so a longer tick costs less client CPU at low rates and adds up to a tick of schedule lag (tokio, under latte, keeps time in 1ms)", units.Duration(runner.DefaultPaceTick)))
	fs.Int64Var(&b.seed, "seed", bench.DefaultSeed, "random seed: the same seed gives the same operation sequence")
	fs.StringVar(&b.out, "out", "", "result file (default platbench-<target>-<workload>-<time>.json in the current directory; - writes the result's JSON to stdout and the report to stderr)")
	fs.BoolVar(&b.force, "force", false, forceFlagDoc)
	fs.StringVar(&b.label, "label", "", "name of this run in comparisons (default: the platform)")
	fs.StringVar(&b.commit, "commit", "", "the version of what is measured (a commit hash, a build): 'platbench history' takes the runs of one commit as one group")
	fs.StringVar(&b.shard, "shard", "", "i/N: run shard i (0-based) of N loaders: its slice of the keys and of the rate")
	fs.StringVar(&b.startAt, "start-at", "", "RFC 3339 wall-clock time at which the run phase starts (loaders agree on it)")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress output, and a brief report: the headline, what limited the run and the result's path (platbench report FILE has the rest)")
	fs.Var(&b.thresholds, "threshold", "pass/fail rule [op.]FIGURE OP VALUE over the steady window, e.g. p99<10ms, read.p99.9<50ms, errors<0.1%, sustained>40k, stalls==0, lag.p99<1ms (repeatable; exit status 3 when one fails)")
	fs.BoolVar(&b.validate, "validate", false, validateFlagDoc)
	fs.BoolVar(&b.allowErrors, "allow-errors", false, "without --threshold, a run in which no operation completed or more than --max-errors failed still exits 0")
	b.maxErrors = analysis.DefaultMaxErrors
	fs.Func("max-errors", fmt.Sprintf("without --threshold, the `percent` of operations that may fail before the run fails with exit status 1, e.g. 5%%, or 0 for none (default %s); also how many of the load phase's inserts may fail before the run phase is not run", units.Percent(analysis.DefaultMaxErrors)), func(v string) error {
		f, err := units.ParsePercent(v)
		if err != nil || f > 1 {
			return fmt.Errorf("%q is not a percentage from 0%% to 100%% (fix: e.g. --max-errors 5%%)", v)
		}
		b.maxErrors = f
		return nil
	})
	b.tel.register(fs)
	fs.Var(&b.events, "event", "fault event OFFSET:KIND:ARG during the run phase: exec:\"CMD\", kill:PID, stop:PID, cont:PID (repeatable)")
	if name != "load" {
		fs.StringVar(&b.store, "store", "", storeFlagDoc)
	}
	return b
}

// zeroes reports the flags given as 0 whose 0 the library would read as "not
// given" and replace with a default (--records 0 once loaded 100,000
// records): on the command line that is an error.
func (b *benchFlags) zeroes() usererr.List {
	var l usererr.List
	for _, z := range []struct {
		flag, field string
		zero        bool
		fix         string
	}{
		{"records", "records", b.records == 0, "the dataset size, e.g. 100k"},
		{"ops", "ops", b.ops == 0, "a number of operations such as 1M, or a duration instead"},
		{"duration", "duration", b.duration == 0, "a positive duration such as 30s"},
		{"value-size", "value_size", b.valueSize == 0, "bytes per record such as 1KiB"},
		{"field-count", "field_count", b.fieldCount == 0, "1 or more fields"},
		{"field-length", "field_length", b.fieldLength == 0, "1 or more bytes per field"},
		{"concurrency", "concurrency", b.concurrency == 0, "1 or more workers"},
		{"pace-tick", "pace_tick", b.paceTick == 0, "a tick such as 50us or 1ms"},
		{"telemetry-interval", "telemetry_interval", b.tel.Interval == 0, "a sampling period such as 1s"},
	} {
		if z.zero && flagSet(b.fs, z.flag) {
			l.Add(z.field, "is 0 (fix: %s, or leave it out for the default)", z.fix)
		}
	}
	return l
}

// spec is the workload with the flags' overrides. Flags override the file.
// A YCSB property file's operationcount, maxexecutiontime, threadcount,
// target and insertstart/insertcount come back in the Loaded for config,
// which applies them unless flags say otherwise; its warnings are printed
// here.
func (b *benchFlags) spec() (workload.Loaded, error) {
	l, err := b.like.loadWorkload(b)
	if err != nil {
		return l, err
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(b.stderr, "platbench: warning: %s\n", w)
	}
	spec := &l.Spec
	if flagSet(b.fs, "records") {
		spec.Records = uint64(b.records)
	}
	if flagSet(b.fs, "field-count") {
		spec.FieldCount = int(min(b.fieldCount, math.MaxInt32))
	}
	if flagSet(b.fs, "field-length") {
		spec.FieldLength = int(min(b.fieldLength, math.MaxInt32))
	}
	if v := int64(b.valueSize); v > 0 {
		if spec.FieldCount <= 0 || v < int64(spec.FieldCount) || v%int64(spec.FieldCount) != 0 {
			spec.FieldCount = 1
		}
		spec.FieldLength = int(min(v/int64(spec.FieldCount), math.MaxInt32))
	}
	b.commands.apply(spec)
	if b.mix != "" {
		m, err := spec.ParseMix(b.mix)
		if err != nil {
			return l, usagef("bad --mix: %v", err)
		}
		spec.Mix = m
	}
	if b.dist != "" {
		spec.Distribution = workload.Dist(b.dist)
	}
	spec.CheckValues = spec.CheckValues || b.validate || b.verify // only checked values can be verified
	return l, nil
}

// config turns the flags into a bench.Config with its defaults applied and
// validated; loadOnly is `platbench load`.
func (b *benchFlags) config(loadOnly bool) (bench.Config, error) {
	if err := b.zeroes().Err(); err != nil {
		return bench.Config{}, usage(err)
	}
	l, err := b.spec()
	if err != nil {
		return bench.Config{}, err
	}
	target, err := b.creds.apply(b.target)
	if err != nil {
		return bench.Config{}, err
	}
	cfg := bench.Config{
		Target:     target,
		TargetOpts: map[string]string(b.targetOpts),
		Open:       registry.Open,
		Workload:   l.Spec,
		Label:      b.label,
		Commit:     b.commit,
		Run:        !loadOnly,
		Load:       loadOnly || !b.noLoad,
		Runner: runner.Config{Duration: time.Duration(b.duration), Ops: uint64(b.ops),
			Seed: b.seed, Concurrency: int(min(b.concurrency, math.MaxInt32)), Poisson: b.poisson,
			PaceTick: time.Duration(b.paceTick)},
		Telemetry:     b.tel.Config,
		MaxLoadErrors: b.loadAllowance(),
		DatasetBytes:  int64(b.datasetSize),
	}
	cfg.KeepDataset = b.keepDataset // run only (load always keeps)
	b.like.record(&cfg)
	b.applyLoaded(&cfg, l)
	if l.RateOpsPerS > 0 && !flagSet(b.fs, "rate") {
		cfg.Runner.Rate = l.RateOpsPerS // YCSB's target
	} else if r, ok := b.rate.Rate(); ok {
		cfg.Runner.Rate = r
	} else {
		if err := b.rate.Resolve(&l.Spec); err != nil {
			return bench.Config{}, usage(err)
		}
		cfg.Runner.Streams = b.rate
	}
	open := cfg.Runner.Open() || b.fixedRate
	if b.poisson && !open {
		return bench.Config{}, usagef("--arrival poisson spaces a fixed rate's arrivals: give --rate too")
	}
	if flagSet(b.fs, "pace-tick") && !open {
		return bench.Config{}, usagef("--pace-tick paces a fixed rate: give --rate too (a closed loop has no schedule)")
	}
	if b.analysis != nil {
		cfg.Warmup = b.analysis.Warmup
	}
	for _, e := range b.events {
		ev, err := runner.ParseEvent(e)
		if err != nil {
			return bench.Config{}, usagef("%v", err)
		}
		cfg.Runner.Events = append(cfg.Runner.Events, ev)
	}
	if err := b.distribution(&cfg); err != nil {
		return bench.Config{}, err
	}
	cfg.Verify, cfg.VerifySample = b.verify, b.verifySample
	cfg.EnsureDefaults()
	if err := cfg.Validate(); err != nil {
		return cfg, usage(err)
	}
	if b.ths, err = analysis.ParseThresholds(b.thresholds); err != nil {
		return cfg, usage(err)
	}
	if err := checkStore(b.store); err != nil {
		return cfg, err
	}
	return cfg, usage(analysis.CheckThresholdOps(b.ths, mixOps(l.Spec)))
}

// distribution reads --shard and --start-at into cfg.
func (b *benchFlags) distribution(cfg *bench.Config) error {
	if b.shard != "" {
		var err error
		if cfg.Shard, cfg.Shards, err = parseShard(b.shard); err != nil {
			return usage(err)
		}
	}
	if b.startAt != "" {
		t, err := time.Parse(time.RFC3339, b.startAt)
		if err != nil {
			return usagef("bad --start-at %q: use RFC 3339, e.g. 2026-11-22T10:00:00Z", b.startAt)
		}
		cfg.StartAt = t
	}
	return nil
}

// loadAllowance is the share of the load's inserts that may fail
// (--max-errors; any with --allow-errors): --max-errors 0 allows none
// (bench.NoLoadErrors), as it does in the run phase; without the flag the
// default (1%).
func (b *benchFlags) loadAllowance() float64 {
	if b.allowErrors {
		return 1
	}
	if b.maxErrors == 0 {
		return bench.NoLoadErrors
	}
	return b.maxErrors
}

// applyLoaded applies what a YCSB property file says beyond the workload,
// unless flags say otherwise: threadcount, operationcount and
// maxexecutiontime (whichever ends first), insertstart/insertcount (the
// shard). Its target (a rate) is applied with the rate flags.
func (b *benchFlags) applyLoaded(cfg *bench.Config, l workload.Loaded) {
	if l.Threads > 0 && !flagSet(b.fs, "concurrency") {
		cfg.Runner.Concurrency = int(l.Threads)
	}
	if !flagSet(b.fs, "ops") && !flagSet(b.fs, "duration") {
		cfg.Runner.Ops, cfg.Runner.Duration = l.Ops, l.MaxExecution
		if l.Ops == 0 && l.MaxExecution == 0 {
			cfg.Runner.Duration = time.Duration(b.duration)
		}
	}
	cfg.Shard, cfg.Shards = l.Shard, l.Shards
}

// mixOps names the op types of spec's mix.
func mixOps(spec workload.Spec) []string {
	out := make([]string, len(spec.Mix))
	for i, m := range spec.Mix {
		out[i] = spec.OpName(m.Op)
	}
	return out
}

// judge evaluates b's thresholds on r (stored in r.Thresholds: call it
// before writing the result).
func (b *benchFlags) judge(r *result.Result) error {
	var err error
	r.Thresholds, err = analysis.Thresholds(r, b.ths)
	b.last = r
	return err
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

// parseShard reads --shard i/N.
func parseShard(s string) (int, int, error) {
	a, c, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usererr.Field("shard", "%q is not i/N with 0 <= i < N (fix: e.g. 0/3)", s)
	}
	return i, n, nil
}

// loadWorkload resolves a preset name, a YAML file or a YCSB property file:
// a name with a path separator or a YAML extension is a file; another name
// is a preset, or else a file of that name if there is one.
func loadWorkload(name string) (workload.Loaded, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, os.PathSeparator) {
		return workload.Open(name)
	}
	spec, err := workload.Preset(name)
	if err != nil {
		if _, serr := os.Stat(name); serr == nil {
			return workload.Open(name)
		}
	}
	return workload.Loaded{Spec: spec}, err
}

func runRun(ctx context.Context, env *Env, args []string) error {
	const summary = "Load a dataset into a target and run a workload against it; print the report and write the result file (JSON, plus an HdrHistogram .hlog)."
	b := newBenchFlags(env, "run", summary)
	b.fs.BoolVar(&b.noLoad, "no-load", false, "skip the load phase (the dataset is already there)")
	b.fs.BoolVar(&b.keepDataset, "keep-dataset", false, "keep what this run's own load made (by default the run removes it at its end, by its manifest; 'platbench clean' removes a kept one; docs/datasets.md)")
	b.rdv.register(b.fs)
	b.fs.BoolVar(&b.abortOnFail, "abort-on-fail", false, "check the --threshold rules every second once the warm-up is over (--warmup, else a fifth of the run and at least 5s) and stop the run at the first that fails (exit status 3)")
	b.fs.BoolVar(&b.verify, "verify", false, verifyFlagDoc)
	b.fs.Var(&b.verifySample, "verify-sample", verifySampleFlagDoc)
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
		base = fmt.Sprintf("platbench-%s-%s-%s.json", sanitize(targetName(cfg.Target)), sanitize(cfg.Workload.Name), time.Now().Format("20060102-150405"))
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	// Every run's files are checked before the first runs: a refusal costs
	// nothing, not the rounds before it.
	var outs []result.Output
	for i := range b.repeat {
		outs = append(outs, b.outputs(suite.RepeatName(stem, i, b.repeat)+".json", cfg, true)...)
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

// parse parses args (flags only) into a validated bench.Config.
func (b *benchFlags) parse(args []string, loadOnly bool) (bench.Config, error) {
	if err := b.parseArgs(args); err != nil {
		return bench.Config{}, err
	}
	return b.config(loadOnly)
}

// parseArgs parses args, which are flags only.
func (b *benchFlags) parseArgs(args []string) error {
	if err := parseFlags(b.fs, args); err != nil {
		return err
	}
	if b.fs.NArg() > 0 {
		return usagef("unexpected argument %q", b.fs.Arg(0))
	}
	return b.like.apply(b)
}

// forceFlagDoc is the doc of --force of every command that writes a
// result (docs/result-schema.md, "Files are never replaced silently").
const forceFlagDoc = "replace the files at --out (the result, its .hlog and seconds file) when they exist; without it an existing file is refused before anything runs. A journal (OUT.partial) of a run that did not finish is never replaced"

// resultPath is --out, or a file name made of the command, the target, the
// workload and the time; it fails before the benchmark, not after, when the
// result cannot be written there, or when a file it would write exists
// (outputs: result.CheckOutputs; --force replaces all but a journal's).
func (b *benchFlags) resultPath(prefix string, cfg bench.Config, hlog bool) (string, error) {
	out := b.out
	if out == "-" { // the result's JSON on stdout, the report on stderr
		return out, nil
	}
	if out == "" {
		out = fmt.Sprintf("%s-%s-%s-%s.json", prefix, sanitize(targetName(cfg.Target)), sanitize(cfg.Workload.Name), time.Now().Format("20060102-150405"))
	}
	b.lastPath = out
	if err := result.CheckOutputs(b.outputs(out, cfg, hlog), b.force, outFlags); err != nil {
		return out, err
	}
	return out, checkWritable(out)
}

// outputs are the files a run whose result is at out writes: the result's
// (result.RunOutputs) and, on loader 0 of a distributed run, the other
// loaders' seconds files it receives.
func (b *benchFlags) outputs(out string, cfg bench.Config, hlog bool) []result.Output {
	outs := result.RunOutputs(out, hlog)
	if b.rdv.addr != "" && cfg.Shards > 1 && cfg.Shard == 0 {
		stem := strings.TrimSuffix(out, filepath.Ext(out))
		for i := range cfg.Shards {
			outs = append(outs, result.Output{Path: fmt.Sprintf("%s.loader-%d.seconds.jsonl", stem, i), What: "loader's seconds file"})
		}
	}
	return outs
}

// execute runs the benchmark, writes the result files and prints the report.
func execute(ctx context.Context, env *Env, b *benchFlags, cfg bench.Config) error {
	bench.Version = ToolVersion()
	out, err := b.resultPath("platbench", cfg, true)
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
	written, ran := false, true
	closeJournal, hs, err := startJournal(env, out, &cfg, dist.keepAs(out))
	if err != nil {
		return err
	}
	defer func() { closeJournal(written, ran) }()
	dist.useJournal(cfg.Journal, out)
	r, err := bench.Run(ctx, cfg)
	if r == nil {
		ran = false // nothing ran: no journal to keep
	}
	if !b.quiet && env.IsTTY {
		fmt.Fprint(env.Stderr, "\r\033[K")
	}
	// A distributed run hands its outcome over: loader 0's r becomes the
	// merged result. With a result in hand (a loader missing from the merge,
	// a result that could not be sent) it is still written, then err returned.
	r, err = dist.finish(ctx, r, err)
	if r == nil {
		return err
	}
	after := err
	if b.analysis != nil {
		a, err := analysis.Analyze(r, *b.analysis)
		if err != nil {
			return err
		}
		r.Analysis = a
	}
	if err := b.judge(r); err != nil {
		return err
	}
	if out == "-" {
		// --out -: the result is stdout (e.g. a pod's log); the report, if
		// any, goes to stderr.
		if err := result.Encode(env.Stdout, r); err != nil {
			return err
		}
		if !b.quiet {
			if err := printTerm(env.Stderr, r); err != nil {
				return err
			}
		}
	} else {
		if err := writeResult(env, out, r, hs, b.force, b.quiet || b.repeat > 1); err != nil {
			return err
		}
		written = true
		if ctx.Err() != nil {
			return errors.New("interrupted: the result of what ran was written")
		}
	}
	if after != nil {
		return after
	}
	return b.verdict(r)
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

// writeResult writes the result file and its .hlog, then prints the report
// (brief: its headline and limit, report.WriteBrief, for --quiet and the
// rounds of --repeat).
// The .hlog of a run phase was written as it ran (hs, beside the journal),
// and is renamed into place once the result is written; any other (a load
// only, a merged result) is written now, from the seconds. With force, the
// files of an earlier result at out go first (replaceOld): a kill at any
// moment leaves none of them beside the new ones.
func writeResult(env *Env, out string, r *result.Result, hs *result.HlogStream, force, brief bool) error {
	if force {
		if err := replaceOld(out); err != nil {
			return err
		}
	}
	merged := len(r.Loaders) > 0 && writeMergedSeconds(env, result.NewMergedSeconds(result.SecondsPath(out)), r)
	if err := result.Write(out, r); err != nil {
		return err
	}
	hlog := hlogPath(out)
	streamed := hs.Wrote() && r.MainPhase().Name == "run" && len(r.Loaders) == 0
	if err := hs.Close(); err != nil {
		streamed = false
	}
	if streamed {
		if err := result.RenameSynced(result.PartialHlogPath(out), hlog); err != nil {
			fmt.Fprintf(env.Stderr, "platbench: the HdrHistogram log stays at %s: %v\n", result.PartialHlogPath(out), err)
		}
	} else {
		if hs != nil {
			os.Remove(result.PartialHlogPath(out))
		}
		// The result is written: a log that cannot be is said, not fatal
		// (a merged phase of streamed loaders has no one seconds file).
		if err := result.WriteAtomic(hlog, func(w io.Writer) error { return result.WriteHlog(w, r) }); err != nil {
			fmt.Fprintf(env.Stderr, "platbench: no HdrHistogram log: %v\n", err)
		}
	}
	print := printTerm
	if brief {
		print = report.WriteBrief
	}
	if err := print(env.Stdout, r); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nresult   : %s (HdrHistogram log: %s)\n", out, hlog)
	if _, err := os.Stat(out + result.JournalSuffix); (err == nil && len(r.Loaders) == 0) || merged {
		// The journal becomes the seconds file once this returns.
		fmt.Fprintf(env.Stdout, "seconds  : %s (every second with its histograms; keep it beside the result)\n", result.SecondsPath(out))
	}
	return nil
}

// replaceOld removes the result at out and its companions (its .hlog and
// seconds file), which --force replaces, before the new ones are written.
func replaceOld(out string) error {
	return result.RemoveOld(out, hlogPath(out), result.SecondsPath(out))
}

// writeMergedSeconds writes the seconds file of a merged result whose
// loaders' seconds are at hand (sw.Finish) and says whether it did; one
// that cannot be written is said, not fatal (the result is whole without
// it: a window's latency is then the whole phase's).
func writeMergedSeconds(env *Env, sw *result.MergedSeconds, r *result.Result) bool {
	if !slices.ContainsFunc(r.Phases, func(p result.Phase) bool { return p.HasSeconds() }) {
		sw.Close()
		return false
	}
	if err := sw.Finish(r); err != nil {
		fmt.Fprintf(env.Stderr, "platbench: no seconds file for the merged result: %v\n", err)
		return false
	}
	return true
}

// startJournal opens the run's journal (RESULT.partial), which keeps the
// run as it goes: a loader killed before it writes its result leaves it,
// and report and compare read it. Once the result file is written (written
// true) close moves it beside the result as its seconds file (every second
// with its histograms: result.SecondsPath); when nothing ran (ran false) it
// removes it. With --out - the journal is a temporary file (openJournal).
//
// The run phase's .hlog is written as it goes too (hs; nil with --out -),
// beside the journal (result.PartialHlogPath) until writeResult renames it
// into place.
func startJournal(env *Env, out string, cfg *bench.Config, keepAs func() string) (close func(written, ran bool), hs *result.HlogStream, err error) {
	j, done, err := openJournal(out, cfg, keepAs)
	if err != nil {
		return nil, nil, err
	}
	if out == "-" {
		return func(written, ran bool) {
			if err := done(written, ran); err != nil {
				fmt.Fprintf(env.Stderr, "platbench: %v\n", err)
			}
		}, nil, nil
	}
	partialHlog := result.PartialHlogPath(out)
	if hs, err = result.CreateHlogStream(partialHlog, "run"); err != nil {
		j.Close(true)
		return nil, nil, err
	}
	j.TeeHlog(hs)
	return func(written, ran bool) {
		err := done(written, ran)
		if err != nil {
			fmt.Fprintf(env.Stderr, "platbench: %v\n", err)
		}
		herr := hs.Close()
		// No result, and a journal or log that could not be written whole
		// (a full disk): nothing half-written stays behind.
		if !ran || (!written && (err != nil || herr != nil)) {
			os.Remove(partialHlog)
		}
	}, hs, nil
}

// openJournal opens the journal of the result at out (out.partial) and sets
// cfg.Journal: the run streams, keeping no second in memory. done(written,
// ran) moves it beside the written result as its seconds file, removes it
// when nothing ran, and otherwise leaves it (a result that could not be
// written: what ran stays readable). With --out - (the result on stdout)
// there is no file to keep it beside: the journal is a temporary file,
// removed by done, which the run's analysis reads before the result is
// printed; the printed result has the stored series (docs/result-schema.md,
// "Long runs") and no seconds file.
//
// keepAs, if set, names the seconds file instead of result.SecondsPath(out).
func openJournal(out string, cfg *bench.Config, keepAs func() string) (j *result.Journal, done func(written, ran bool) error, err error) {
	path, cleanup := out+result.JournalSuffix, func() {}
	if out == "-" {
		dir, err := os.MkdirTemp("", "platbench-stdout-")
		if err != nil {
			return nil, nil, fmt.Errorf("cannot make a temporary directory for the run's seconds (--out -): %w (fix: set TMPDIR to a writable directory)", err)
		}
		path, cleanup = filepath.Join(dir, "result.json"+result.JournalSuffix), func() { os.RemoveAll(dir) }
	}
	if j, err = result.CreateJournal(path); err != nil {
		cleanup()
		return nil, nil, err
	}
	cfg.Journal = j
	return j, func(written, ran bool) error {
		switch {
		case out == "-":
			defer cleanup()
			return j.Close(true)
		case written && keepAs != nil:
			return j.Keep(keepAs())
		case written:
			return j.Keep(result.SecondsPath(out))
		}
		return j.Close(!ran)
	}, nil
}

// hlogPath names the .hlog of the result at out.
func hlogPath(out string) string { return result.HlogPath(out) }

// printTerm is the terminal report: the seed-shaped summary, then the analysis.
func printTerm(w io.Writer, r *result.Result) error {
	if err := report.WriteTerm(w, r); err != nil {
		return err
	}
	if r.Sweep != nil {
		fmt.Fprintln(w)
		if err := report.WriteSweepText(w, r); err != nil {
			return err
		}
	}
	if len(r.Events) > 0 {
		fmt.Fprintln(w)
		if err := report.WriteEventsText(w, r, analysis.EventImpacts(r)); err != nil {
			return err
		}
	}
	if r.Verification != nil {
		fmt.Fprintln(w)
		if err := report.WriteVerificationText(w, r); err != nil {
			return err
		}
	}
	if r.Host != nil {
		fmt.Fprintln(w)
		report.WriteHostText(w, r)
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintln(w)
		report.WriteNodesText(w, r)
	}
	if r.DBMetrics != nil {
		fmt.Fprintln(w)
		report.WriteDBMetricsText(w, r)
	}
	// Counters of the server or of the whole machine were asked for by name
	// (as seed 000 ran perf stat on Cassandra): show them in full.
	if c := r.Counters; c != nil && (c.Scope == "server" || c.Scope == "system") {
		report.WritePerfStat(w, c)
	}
	if r.Analysis != nil {
		fmt.Fprintln(w)
		if err := report.WriteAnalysisText(w, r, r.Analysis); err != nil {
			return err
		}
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintln(w)
		return report.WriteThresholdsText(w, r)
	}
	return nil
}

// checkWritable refuses, as bad input (exit status 2), an --out whose
// directory cannot take a file: missing, not a directory, not writable.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".platbench-check-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // not the probe's own name
		}
		return usererr.New("cannot write the result to %s: its directory %s: %v (fix: another --out)", path, dir, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

func targetName(t string) string {
	if i := strings.Index(t, "://"); i >= 0 {
		return t[:i]
	}
	return t
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

// showProgress prints the load's plan before it starts and a progress line
// while each phase runs.
func showProgress(env *Env, cfg *bench.Config) {
	var loadTotal atomic.Uint64
	cfg.OnLoadPlan = func(p analysis.LoadPlan) {
		loadTotal.Store(p.Records)
		fmt.Fprintln(env.Stderr, report.LoadPlanText(p))
	}
	cfg.Runner.Progress = newProgress(env, *cfg, &loadTotal)
}

// newProgress returns the runner's progress callback: a live line on a
// terminal, a plain line every 10 s when stderr is piped.
func newProgress(env *Env, cfg bench.Config, loadTotal *atomic.Uint64) func(string, recorder.Live, time.Duration) {
	var total time.Duration
	if cfg.Runner.Duration > 0 {
		total = cfg.Runner.Duration
	}
	return func(phase string, l recorder.Live, elapsed time.Duration) {
		secs := elapsed.Round(time.Second)
		pos := secs.String()
		if phase == "run" && total > 0 {
			pos += "/" + total.String()
		}
		line := fmt.Sprintf("%-4s %-9s %s  p99 %s  ops %s  errors %s", phase, pos, units.OpsPerSec(l.OpsPerSec()), units.Latency(float64(l.P99Ns)), units.Int(float64(l.TotalCount)), units.Int(float64(l.TotalErrors)))
		if phase == "load" && loadTotal != nil {
			line += report.LoadProgressText(l.TotalCount+l.TotalErrors, loadTotal.Load(), elapsed)
		}
		if env.IsTTY {
			fmt.Fprintf(env.Stderr, "\r\033[K%s", line)
		} else if int(secs.Seconds())%10 == 0 {
			fmt.Fprintln(env.Stderr, line)
		}
	}
}
