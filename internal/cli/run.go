package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/workload"
)

// Defaults of `platbench run` with no arguments: short enough for a first
// try, long enough for a steady state to show.
const (
	defaultDuration = 30 * time.Second
	defaultWorkload = "ycsb-a"
)

// benchFlags are the flags `run` and `load` share.
type benchFlags struct {
	fs          *flag.FlagSet
	target      string
	targetOpts  kvFlag
	workload    string
	duration    string
	ops         countFlag
	records     countFlag
	valueSize   sizeFlag
	fieldCount  countFlag
	fieldLength sizeFlag
	mix         string
	dist        string
	concurrency countFlag
	rate        rateFlag
	seed        int64
	out         string
	noLoad      bool
	label       string
	shard       string
	startAt     string
	quiet       bool
	events      listFlag
	tel         telemetry.Flags
	analysis    *analysis.Options
}

func newBenchFlags(env *Env, name, summary string) *benchFlags {
	b := &benchFlags{targetOpts: kvFlag{}}
	fs := newFlags(env, name, "[flags]", summary)
	b.fs = fs
	fs.StringVar(&b.target, "target", "embedded", "target URL or name (see 'platbench targets')")
	fs.Var(b.targetOpts, "target-opt", "target option key=value (repeatable; see the target's docs)")
	fs.StringVar(&b.workload, "workload", defaultWorkload, "workload preset name or YAML file (see 'platbench workloads')")
	fs.StringVar(&b.duration, "duration", "", "run phase length, e.g. 30s, 10m (default 30s unless --ops is given)")
	fs.Var(&b.ops, "ops", "run phase length in operations (e.g. 1M) instead of a duration")
	fs.Var(&b.records, "records", "records in the dataset (default from the workload: 100000)")
	fs.Var(&b.valueSize, "value-size", "bytes per record, split over the fields (e.g. 1KB; default 10 fields x 100 B)")
	fs.Var(&b.fieldCount, "field-count", "fields per record (YCSB fieldcount)")
	fs.Var(&b.fieldLength, "field-length", "bytes per field (YCSB fieldlength)")
	fs.StringVar(&b.mix, "mix", "", "op mix, e.g. read=3,write=1 (overrides the workload's)")
	fs.StringVar(&b.dist, "distribution", "", "key distribution: uniform, zipfian, latest, hotspot, sequential, gaussian")
	fs.Var(&b.concurrency, "concurrency", "workers (concurrent requests in flight); default 16")
	fs.Var(&b.rate, "rate", "fixed total rate in ops/s (open loop, e.g. 20k); 0 = as fast as possible")
	fs.Int64Var(&b.seed, "seed", 1, "random seed: the same seed gives the same operation sequence")
	fs.StringVar(&b.out, "out", "", "result file (default platbench-<target>-<workload>-<time>.json in the current directory)")
	fs.StringVar(&b.label, "label", "", "name of this run in comparisons (default: the platform)")
	fs.StringVar(&b.shard, "shard", "", "i/N: run shard i (0-based) of N loaders: its slice of the keys and of the rate")
	fs.StringVar(&b.startAt, "start-at", "", "RFC 3339 wall-clock time at which the run phase starts (loaders agree on it)")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress output")
	b.tel.Register(fs)
	fs.Var(&b.events, "event", "fault event OFFSET:KIND:ARG during the run phase: exec:\"CMD\", kill:PID, stop:PID, cont:PID (repeatable)")
	return b
}

// config turns the flags into a bench.Config. Flags override the workload file.
func (b *benchFlags) config() (bench.Config, error) {
	set := map[string]bool{}
	b.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	spec, err := loadWorkload(b.workload)
	if err != nil {
		return bench.Config{}, err
	}
	if b.records.set {
		spec.Records = b.records.v
	}
	if b.fieldCount.set {
		spec.FieldCount = int(b.fieldCount.v)
	}
	if b.fieldLength.set {
		spec.FieldLength = int(b.fieldLength.v)
	}
	if b.valueSize.set {
		if b.valueSize.v <= 0 {
			return bench.Config{}, usagef("--value-size must be positive")
		}
		if spec.FieldCount <= 0 || b.valueSize.v < int64(spec.FieldCount) || b.valueSize.v%int64(spec.FieldCount) != 0 {
			spec.FieldCount = 1
		}
		spec.FieldLength = int(b.valueSize.v) / spec.FieldCount
	}
	if b.mix != "" {
		m, err := workload.ParseMix(b.mix)
		if err != nil {
			return bench.Config{}, usagef("bad --mix: %v", err)
		}
		spec.Mix = m
	}
	if b.dist != "" {
		spec.Distribution = workload.Dist(b.dist)
	}
	spec.EnsureDefaults()
	if err := spec.Validate(); err != nil {
		return bench.Config{}, usagef("%v", err)
	}
	cfg := bench.Config{
		Target:     b.target,
		TargetOpts: map[string]string(b.targetOpts),
		Workload:   spec,
		Label:      b.label,
		Run:        true,
		Load:       !b.noLoad,
		Shards:     1,
		Warmup:     "auto",
	}
	if b.analysis != nil {
		cfg.Warmup = b.analysis.Warmup
	}
	rc := runner.Config{Ops: b.ops.v, Rate: b.rate.v, Seed: b.seed, Concurrency: int(b.concurrency.v)}
	if set["concurrency"] && b.concurrency.v == 0 {
		return bench.Config{}, usagef("--concurrency must be at least 1")
	}
	switch {
	case b.duration != "":
		d, err := time.ParseDuration(b.duration)
		if err != nil || d <= 0 {
			return bench.Config{}, usagef("bad --duration %q: use a positive duration such as 30s, 10m or 1h", b.duration)
		}
		rc.Duration = d
	case !b.ops.set:
		rc.Duration = defaultDuration
	}
	if b.ops.set && b.ops.v == 0 {
		return bench.Config{}, usagef("--ops must be at least 1")
	}
	for _, e := range b.events {
		ev, err := runner.ParseEvent(e)
		if err != nil {
			return bench.Config{}, usagef("%v", err)
		}
		rc.Events = append(rc.Events, ev)
	}
	cfg.Runner = rc
	cfg.Telemetry = b.tel.Config
	if b.shard != "" {
		i, n, err := parseShard(b.shard)
		if err != nil {
			return bench.Config{}, err
		}
		cfg.Shard, cfg.Shards = i, n
	}
	if b.startAt != "" {
		t, err := time.Parse(time.RFC3339, b.startAt)
		if err != nil {
			return bench.Config{}, usagef("bad --start-at %q: use RFC 3339, e.g. 2026-11-22T10:00:00Z", b.startAt)
		}
		cfg.StartAt = t
	}
	return cfg, nil
}

func parseShard(s string) (int, int, error) {
	a, c, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(c)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("bad --shard %q: use i/N with 0 <= i < N, e.g. 0/3", s)
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
	if err := parseFlags(b.fs, args); err != nil {
		return err
	}
	if b.fs.NArg() > 0 {
		return usagef("unexpected argument %q", b.fs.Arg(0))
	}
	cfg, err := b.config()
	if err != nil {
		return err
	}
	return execute(ctx, env, b, cfg)
}

func runLoad(ctx context.Context, env *Env, args []string) error {
	b := newBenchFlags(env, "load", "Run only the load phase: insert the workload's records into the target (then use 'run --no-load').")
	if err := parseFlags(b.fs, args); err != nil {
		return err
	}
	if b.fs.NArg() > 0 {
		return usagef("unexpected argument %q", b.fs.Arg(0))
	}
	cfg, err := b.config()
	if err != nil {
		return err
	}
	cfg.Run, cfg.Load = false, true
	return execute(ctx, env, b, cfg)
}

// execute runs the benchmark, writes the result files and prints the report.
func execute(ctx context.Context, env *Env, b *benchFlags, cfg bench.Config) error {
	bench.Version = ToolVersion()
	out := b.out
	if out == "" {
		out = fmt.Sprintf("platbench-%s-%s-%s.json", sanitize(targetName(cfg.Target)), sanitize(cfg.Workload.Name), time.Now().Format("20060102-150405"))
	}
	// Fail before the benchmark, not after, when the result cannot be written.
	if err := checkWritable(out); err != nil {
		return err
	}
	if !b.quiet {
		cfg.Runner.Progress = newProgress(env, cfg)
	}
	if b.tel.MetricsAddr != "" {
		addr, err := serveMetrics(ctx, b.tel.MetricsAddr, &cfg)
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
