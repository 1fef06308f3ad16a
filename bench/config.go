package bench

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/workload"
)

// The defaults of a benchmark: what `platbench run` and a suite cell use for
// a setting nobody gave. EnsureDefaults applies them; the CLI and package
// suite take theirs from here.
const (
	// DefaultTarget is the store built into platbench (pebble).
	DefaultTarget = "embedded"
	// DefaultWorkload is the preset run when none is named.
	DefaultWorkload = "ycsb-a"
	// DefaultDuration is the run phase's length when neither a duration nor
	// an op count bounds it: short enough for a first try, long enough for
	// a steady state to show.
	DefaultDuration = 30 * time.Second
	// DefaultConcurrency is the number of workers.
	DefaultConcurrency = runner.DefaultConcurrency
	// DefaultSeed is the random seed the CLI and suite give when none is
	// asked for (Seed 0 is a seed like any other, so it is not replaced).
	DefaultSeed = 1
	// DefaultWarmup is the steady-state rule: detect the warm-up (MSER-5).
	DefaultWarmup = "auto"
	// MaxPaceTick bounds the open loop's pace tick: a longer one would start
	// a second's operations in one burst.
	MaxPaceTick = time.Second
)

// Config is one benchmark. It is copied into the result file. A zero field
// takes the default its doc names (see EnsureDefaults).
type Config struct {
	// Target is the target URL or name (see 'platbench targets'). Default
	// DefaultTarget ("embedded").
	Target string
	// TargetOpts are the target's options, key=value. Default none.
	TargetOpts map[string]string
	// Open opens Target with TargetOpts. Required: the caller chooses which
	// adapters it links (the CLI gives registry.Open; a program driving a
	// Target of its own returns it). Package bench imports no adapter.
	Open OpenFunc `json:"-"`
	// Workload is what to run: records, record shape, op mix, key
	// distribution. Its zero fields take workload.Spec.EnsureDefaults'
	// values (100,000 records of 10 fields x 100 bytes, YCSB A).
	Workload workload.Spec
	// Runner is how long and how hard:
	//   - Duration: the run phase's length. Default DefaultDuration (30 s)
	//     when Ops is 0 too.
	//   - Ops: the run phase's length in operations instead. Default 0 (none).
	//   - Concurrency: workers. Default DefaultConcurrency (16).
	//   - Rate: the total fixed rate in ops/s over all loaders (open loop).
	//     Default 0: closed loop, as fast as the workers go.
	//   - Seed: the same seed gives the same op sequence. Not defaulted
	//     here: callers give DefaultSeed (1) when the user gives none.
	//   - Events: fault events at offsets into the run phase. Default none.
	Runner runner.Config
	// AbortOnFail are thresholds checked every second while the run phase
	// runs, once its warm-up is over (analysis.LiveWarmup): the first that is
	// measured and fails stops the phase, and Result.Aborted says why.
	// Default none.
	AbortOnFail []analysis.Threshold
	// Load and Run choose the phases: Load inserts the dataset, Run runs the
	// workload on it. Neither set (the zero value) means both; Load alone is
	// `platbench load`, Run alone `platbench run --no-load`.
	Load, Run bool
	// KeepDataset keeps what a run's own load made (Load and Run both set):
	// by default the run removes it at its end, by its manifest
	// (docs/datasets.md). A load alone always keeps it. Default false.
	KeepDataset bool
	// Shard and Shards split the key space and the rate between loaders
	// (shard Shard of Shards, 0-based). Default 0 of 1.
	Shard, Shards int
	// Label names the run in comparisons. Default none (reports use the
	// platform).
	Label string
	// Commit names the version of what is measured (a commit, a build);
	// history groups the runs of one commit. Default none.
	Commit string
	// StartAt, if set, is the wall-clock time the run phase starts (loaders
	// of a distributed run agree on it). Default: at once.
	StartAt time.Time
	// Gate, if set, is called between the load and the run phase and returns
	// the time the run phase starts (a distributed run's rendezvous: every
	// loader has loaded; package merge/rendezvous). It overrides StartAt.
	// Default none.
	Gate func(ctx context.Context) (time.Time, error) `json:"-"`
	// Like is the result file this benchmark repeats (run --like, Like),
	// recorded as the result's like. Default none.
	Like string
	// Extra is recorded in the result's config as is.
	Extra map[string]string
	// Warmup is the analysis' steady-state rule, recorded in the config:
	// "auto", a duration ("75s") or "0". Default DefaultWarmup ("auto").
	Warmup string
	// Telemetry selects what is recorded about the host, the server process
	// and platbench itself during the run (package telemetry). Its zero value
	// samples the host every second and counts platbench's perf events.
	Telemetry telemetry.Config
	// Verify, after the last phase, reads back every key whose write the
	// target acknowledged during this invocation (or VerifySample of them)
	// and stores what is missing or wrong in Result.Verification
	// (docs/workloads.md, "Acknowledged writes, read back"). It implies
	// Workload.CheckValues. Default off.
	Verify       bool
	VerifySample Sample
	// OnTelemetry, if set, is called with the running telemetry session
	// (the Prometheus endpoint reads its latest samples).
	OnTelemetry func(*telemetry.Session)
	// MaxLoadErrors is the share of the load phase's inserts that may fail:
	// above it (or when none completed) Run stops after the load and returns
	// its result with an error naming the first message the target gave,
	// instead of running on a dataset with holes. Default
	// analysis.DefaultMaxErrors (1%) when 0; NoLoadErrors (negative) allows
	// none; 1 stops only a load in which nothing completed.
	MaxLoadErrors float64
	// DatasetBytes bounds what a load phase writes, in bytes (a budget such
	// as 10 GiB): the records are lowered to what fits, a record being the
	// target's (a profile's mean partition) or the workload's record size
	// (analysis.PlanLoad). Default 0: the workload's records.
	DatasetBytes int64
	// OnLoadPlan, if set, is called with the load phase's plan (records,
	// rows, bytes, beside the host's RAM and the target's free disk) before
	// the load starts.
	OnLoadPlan func(analysis.LoadPlan) `json:"-"`
	// Journal, if set, receives the run as it goes (the header at the
	// start, every 1 s interval as it closes, every phase as it ends), so
	// a loader killed mid-run leaves a result (result.ReadJournal). The
	// caller creates it and removes it once the result file is written.
	Journal *result.Journal `json:"-"`
}

// EnsureDefaults fills every zero field that has a default (see each
// field's doc). Fields set, even to bad values, are left for Validate.
func (c *Config) EnsureDefaults() {
	c.Target = cmp.Or(c.Target, DefaultTarget)
	c.Workload.EnsureDefaults()
	if c.Runner.Duration == 0 && c.Runner.Ops == 0 {
		c.Runner.Duration = DefaultDuration
	}
	c.Runner.Concurrency = cmp.Or(c.Runner.Concurrency, DefaultConcurrency)
	if !c.Load && !c.Run {
		c.Load, c.Run = true, true
	}
	c.Shards = cmp.Or(c.Shards, 1)
	c.Warmup = cmp.Or(c.Warmup, DefaultWarmup)
	if c.Verify {
		c.Workload.CheckValues = true // only checked values can be verified
	}
}

// NoLoadErrors is Config.MaxLoadErrors for zero tolerance: a load phase in
// which any insert failed stops the run (0 would mean the default).
const NoLoadErrors = -1.0

// loadAllowance is MaxLoadErrors resolved: its default, or 0 for none.
func (c *Config) loadAllowance() float64 {
	switch {
	case c.MaxLoadErrors < 0:
		return 0
	case c.MaxLoadErrors == 0:
		return analysis.DefaultMaxErrors
	}
	return c.MaxLoadErrors
}

// Validate reports every problem of c at once (call EnsureDefaults first):
// one usererr.Error per problem, whose Field is the config field's name
// ("concurrency", "records", "server_pid"; the CLI names the flag).
func (c *Config) Validate() error {
	var l usererr.List
	if c.Shards < 1 || c.Shard < 0 || c.Shard >= c.Shards {
		l.Add("shard", "%d/%d is out of range (fix: shard i of N loaders with 0 <= i < N, e.g. 0/3)", c.Shard, c.Shards)
	}
	if c.MaxLoadErrors > 1 || math.IsNaN(c.MaxLoadErrors) {
		l.Add("max_load_errors", "%v is not a share of the inserts from 0 to 1 (fix: e.g. 0.05 for 5%%, or none allowed)", c.MaxLoadErrors)
	}
	l = append(l, c.Workload.Problems()...)
	if c.Workload.CQL != nil && !strings.HasPrefix(strings.ToLower(c.Target), "cql://") {
		l.Add("target", "is not a CQL cluster, and the workload is a cassandra-stress profile (fix: a cql://host:9042 target, or a platbench workload)")
	}
	if scheme, _, _ := strings.Cut(strings.ToLower(c.Target), "://"); len(c.Workload.Commands) > 0 && !slices.Contains([]string{"redis", "rediss", "valkey", "valkeys"}, scheme) {
		l.Add("commands", "are command templates of the redis target, and the target is %s (fix: a redis://host:6379 target, or drop the commands)", c.Target)
	}
	if (&analysis.Options{Warmup: c.Warmup}).Validate() != nil {
		// Checked here, not only by the analysis after the run: a typo must
		// not cost the whole benchmark.
		l.Add("warmup", "%q is not auto, 0 or a duration (fix: auto, a duration such as 75s, or 0)", c.Warmup)
	}
	if c.Run {
		rc := &c.Runner
		if rc.Duration < 0 {
			l.Add("duration", "%s is negative (fix: a positive duration such as 30s)", rc.Duration)
		}
		if rc.Duration == 0 && rc.Ops == 0 {
			l.Add("duration", "and ops are both 0: the run phase has no end (fix: a duration such as 30s, or an op count)")
		}
		if rc.Concurrency < 1 {
			l.Add("concurrency", "%d is not a number of workers (fix: 1 or more, default %d)", rc.Concurrency, DefaultConcurrency)
		}
		if msg, over := concurrencyProblem(rc.Concurrency); over {
			l.Add("concurrency", "%s", msg)
		}
		if rc.Rate < 0 || math.IsNaN(rc.Rate) || math.IsInf(rc.Rate, 0) {
			l.Add("rate", "%v is not a rate (fix: ops/s such as 20k, or 0 for as fast as possible)", rc.Rate)
		}
		if rc.PaceTick < 0 || rc.PaceTick > MaxPaceTick {
			l.Add("pace_tick", "%s is not a pace tick (fix: a duration up to %s, such as 50us or 1ms)", rc.PaceTick, MaxPaceTick)
		}
		for _, e := range rc.Events {
			if rc.Duration > 0 && e.At >= rc.Duration {
				l.Add("events", "%s:%s at %s is not within the %s run phase (fix: an earlier offset, or a longer duration)", e.Kind, e.Arg, e.At, rc.Duration)
			}
		}
	}
	l = append(l, c.Telemetry.Problems()...)
	return l.Err()
}

// OpenFunc opens a target from its URL (or name) and options, as
// registry.Open does.
type OpenFunc func(ctx context.Context, target string, opts map[string]string) (adapter.Target, error)

// errNoOpen is a caller's mistake, not a user's: a Config without Open.
var errNoOpen = errors.New("bench: Config.Open is nil (fix: give the function that opens targets, e.g. registry.Open)")

// openWith opens the target through fn.
func openWith(ctx context.Context, fn OpenFunc, target string, opts map[string]string) (adapter.Target, error) {
	if fn == nil {
		return nil, errNoOpen
	}
	return fn(ctx, target, opts)
}
