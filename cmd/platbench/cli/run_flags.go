package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
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
	repeat      int  // run only: how many runs of the one benchmark
	hlog        bool // run only: --hlog, the .hlog streamed beside the result
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
	targetOptFlag(fs, env.Stderr, b.targetOpts, "target option key=value (repeatable; see the target's docs)")
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
