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
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// benchFlags are the flags `run`, `load` and `sweep` share. Numbers, sizes,
// rates and durations are units values: the grammar of workload and suite
// files too.
type benchFlags struct {
	fs          *flag.FlagSet
	target      string
	targetOpts  kvFlag
	workload    string
	duration    units.Duration
	ops         units.Count
	records     units.Count
	valueSize   units.Size
	fieldCount  units.Count
	fieldLength units.Size
	mix         string
	dist        string
	concurrency units.Count
	rate        units.Rate
	seed        int64
	out         string
	noLoad      bool
	label       string
	shard       string
	startAt     string
	quiet       bool
	events      listFlag
	tel         telemetryFlags
	analysis    *analysis.Options
}

func newBenchFlags(env *Env, name, summary string) *benchFlags {
	b := &benchFlags{targetOpts: kvFlag{}, concurrency: bench.DefaultConcurrency}
	fs := newFlags(env, name, "[flags]", summary)
	b.fs = fs
	fs.StringVar(&b.target, "target", bench.DefaultTarget, "target URL or name (see 'platbench targets')")
	fs.Var(b.targetOpts, "target-opt", "target option key=value (repeatable; see the target's docs)")
	fs.StringVar(&b.workload, "workload", bench.DefaultWorkload, "workload preset name or YAML file (see 'platbench workloads')")
	fs.Var(&b.duration, "duration", fmt.Sprintf("run phase length, a `duration` such as 30s or 10m (default %s unless --ops is given)", units.Duration(bench.DefaultDuration)))
	fs.Var(&b.ops, "ops", "run phase length in operations, a `count` such as 1M, instead of a duration")
	fs.Var(&b.records, "records", fmt.Sprintf("records in the dataset, a `count` such as 1M (default from the workload: %d)", workload.DefaultRecords))
	fs.Var(&b.valueSize, "value-size", "bytes per record, a `size` such as 1KiB, split over the fields (default 10 fields x 100 B)")
	fs.Var(&b.fieldCount, "field-count", "fields per record, a `count` (YCSB fieldcount)")
	fs.Var(&b.fieldLength, "field-length", "bytes per field, a `size` (YCSB fieldlength)")
	fs.StringVar(&b.mix, "mix", "", "op mix, e.g. read=3,write=1 (overrides the workload's)")
	fs.StringVar(&b.dist, "distribution", "", "key distribution: uniform, zipfian, latest, hotspot, sequential, gaussian")
	fs.Var(&b.concurrency, "concurrency", "workers, a `count` (concurrent requests in flight)")
	fs.Var(&b.rate, "rate", "fixed total `rate` in ops/s (open loop, e.g. 20k); 0 = as fast as possible")
	fs.Int64Var(&b.seed, "seed", bench.DefaultSeed, "random seed: the same seed gives the same operation sequence")
	fs.StringVar(&b.out, "out", "", "result file (default platbench-<target>-<workload>-<time>.json in the current directory)")
	fs.StringVar(&b.label, "label", "", "name of this run in comparisons (default: the platform)")
	fs.StringVar(&b.shard, "shard", "", "i/N: run shard i (0-based) of N loaders: its slice of the keys and of the rate")
	fs.StringVar(&b.startAt, "start-at", "", "RFC 3339 wall-clock time at which the run phase starts (loaders agree on it)")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress output")
	b.tel.register(fs)
	fs.Var(&b.events, "event", "fault event OFFSET:KIND:ARG during the run phase: exec:\"CMD\", kill:PID, stop:PID, cont:PID (repeatable)")
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
		{"telemetry-interval", "telemetry_interval", b.tel.Interval == 0, "a sampling period such as 1s"},
	} {
		if z.zero && flagSet(b.fs, z.flag) {
			l.Add(z.field, "is 0 (fix: %s, or leave it out for the default)", z.fix)
		}
	}
	return l
}

// spec is the workload with the flags' overrides. Flags override the file.
func (b *benchFlags) spec() (workload.Spec, error) {
	spec, err := loadWorkload(b.workload)
	if err != nil {
		return spec, err
	}
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
	if b.mix != "" {
		m, err := workload.ParseMix(b.mix)
		if err != nil {
			return spec, usagef("bad --mix: %v", err)
		}
		spec.Mix = m
	}
	if b.dist != "" {
		spec.Distribution = workload.Dist(b.dist)
	}
	return spec, nil
}

// config turns the flags into a bench.Config with its defaults applied and
// validated; loadOnly is `platbench load`.
func (b *benchFlags) config(loadOnly bool) (bench.Config, error) {
	if err := b.zeroes().Err(); err != nil {
		return bench.Config{}, usage(err)
	}
	spec, err := b.spec()
	if err != nil {
		return bench.Config{}, err
	}
	cfg := bench.Config{
		Target:     b.target,
		TargetOpts: map[string]string(b.targetOpts),
		Workload:   spec,
		Label:      b.label,
		Run:        !loadOnly,
		Load:       loadOnly || !b.noLoad,
		Runner: runner.Config{Duration: time.Duration(b.duration), Ops: uint64(b.ops), Rate: float64(b.rate),
			Seed: b.seed, Concurrency: int(min(b.concurrency, math.MaxInt32))},
		Telemetry: b.tel.Config,
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
	if b.shard != "" {
		if cfg.Shard, cfg.Shards, err = parseShard(b.shard); err != nil {
			return bench.Config{}, usage(err)
		}
	}
	if b.startAt != "" {
		t, err := time.Parse(time.RFC3339, b.startAt)
		if err != nil {
			return bench.Config{}, usagef("bad --start-at %q: use RFC 3339, e.g. 2026-11-22T10:00:00Z", b.startAt)
		}
		cfg.StartAt = t
	}
	cfg.EnsureDefaults()
	return cfg, usage(cfg.Validate())
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

// loadWorkload resolves a preset name or a YAML file.
func loadWorkload(name string) (workload.Spec, error) {
	if strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml") || strings.ContainsRune(name, os.PathSeparator) {
		return workload.LoadFile(name)
	}
	return workload.Preset(name)
}

func runRun(ctx context.Context, env *Env, args []string) error {
	b := newBenchFlags(env, "run", "Load a dataset into a target and run a workload against it; print the report and write the result file (JSON, plus an HdrHistogram .hlog).")
	b.fs.BoolVar(&b.noLoad, "no-load", false, "skip the load phase (the dataset is already there)")
	b.analysis = addAnalysisFlags(b.fs)
	cfg, err := b.parse(args, false)
	if err != nil {
		return err
	}
	return execute(ctx, env, b, cfg)
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
	return nil
}

// resultPath is --out, or a file name made of the command, the target, the
// workload and the time; it fails before the benchmark, not after, when the
// result cannot be written there.
func (b *benchFlags) resultPath(prefix string, cfg bench.Config) (string, error) {
	out := b.out
	if out == "" {
		out = fmt.Sprintf("%s-%s-%s-%s.json", prefix, sanitize(targetName(cfg.Target)), sanitize(cfg.Workload.Name), time.Now().Format("20060102-150405"))
	}
	return out, checkWritable(out)
}

// execute runs the benchmark, writes the result files and prints the report.
func execute(ctx context.Context, env *Env, b *benchFlags, cfg bench.Config) error {
	bench.Version = ToolVersion()
	out, err := b.resultPath("platbench", cfg)
	if err != nil {
		return err
	}
	if !b.quiet {
		cfg.Runner.Progress = newProgress(env, cfg)
	}
	if b.tel.metricsAddr != "" {
		addr, err := serveMetrics(ctx, b.tel.metricsAddr, &cfg)
		if err != nil {
			return err
		}
		if !b.quiet {
			fmt.Fprintf(env.Stderr, "Prometheus metrics on http://%s/metrics\n", addr)
		}
	}
	r, err := bench.Run(ctx, cfg)
	if !b.quiet && env.IsTTY {
		fmt.Fprint(env.Stderr, "\r\033[K")
	}
	if err != nil {
		return err
	}
	if b.analysis != nil {
		a, err := analysis.Analyze(r, *b.analysis)
		if err != nil {
			return err
		}
		r.Analysis = a
	}
	if err := result.Write(out, r); err != nil {
		return err
	}
	hlog := strings.TrimSuffix(out, filepath.Ext(out)) + ".hlog"
	if data, err := result.Hlog(r); err == nil {
		if err := result.WriteFileAtomic(hlog, data); err != nil {
			return err
		}
	}
	if err := printTerm(env.Stdout, r); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nresult   : %s (HdrHistogram log: %s)\n", out, hlog)
	if ctx.Err() != nil {
		return errors.New("interrupted: the result of what ran was written")
	}
	return nil
}

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
	if r.Host != nil {
		fmt.Fprintln(w)
		report.WriteHostText(w, r)
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintln(w)
		report.WriteNodesText(w, r)
	}
	// Counters of the server or of the whole machine were asked for by name
	// (as seed 000 ran perf stat on Cassandra): show them in full.
	if c := r.Counters; c != nil && (c.Scope == "server" || c.Scope == "system") {
		report.WritePerfStat(w, c)
	}
	if r.Analysis != nil {
		fmt.Fprintln(w)
		return report.WriteAnalysisText(w, r, r.Analysis)
	}
	return nil
}

func checkWritable(path string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".platbench-check-*")
	if err != nil {
		return fmt.Errorf("cannot write the result to %s: %v (choose another --out)", path, err)
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

// newProgress returns the runner's progress callback: a live line on a
// terminal, a plain line every 10 s when stderr is piped.
func newProgress(env *Env, cfg bench.Config) func(string, recorder.Live, time.Duration) {
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
		if env.IsTTY {
			fmt.Fprintf(env.Stderr, "\r\033[K%s", line)
		} else if int(secs.Seconds())%10 == 0 {
			fmt.Fprintln(env.Stderr, line)
		}
	}
}
