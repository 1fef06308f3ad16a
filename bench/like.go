package bench

import (
	"maps"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// Like is the benchmark a result records, to run it again on another
// platform with no setup drift ('platbench run --like RESULT.json'): its
// workload (records, record shape, mix, distribution, options), its length
// (duration or ops), concurrency, fixed rate, seed, warm-up rule, whether
// it loaded, and its target options. Not the target: the caller gives the
// one the run goes to (Target is left empty). A result of a distributed
// run's shard, or of a probe, is refused: it records a part of a benchmark,
// or no benchmark of a target.
func Like(r *result.Result) (Config, error) {
	c := r.Config
	if c.Shard != "" {
		return Config{}, usererr.New("the result is shard %s of a distributed run: its config is a part of the benchmark (fix: repeat the merged result of its loaders)", c.Shard)
	}
	if r.Target.Kind == "disk" {
		return Config{}, usererr.New("the result is a disk probe (%s), not a benchmark of a target (fix: 'platbench probe disk' with the same flags)", c.Workload.Name)
	}
	if c.DurationNs < 0 || (c.DurationNs == 0 && c.Ops == 0) || c.Concurrency < 1 || c.RateOpsPerS < 0 {
		return Config{}, usererr.New("the result records no benchmark to repeat (duration %v, ops %d, %d workers) (fix: a result file of 'platbench run')", time.Duration(c.DurationNs), c.Ops, c.Concurrency)
	}
	spec, err := workload.FromRecord(c.Workload)
	if err != nil {
		return Config{}, usererr.New("%s (fix: a result file of 'platbench run')", oneLine(err.Error()))
	}
	cfg := Config{
		TargetOpts: maps.Clone(c.TargetOpts),
		Workload:   spec,
		Load:       c.Load,
		Run:        true,
		Warmup:     c.Warmup,
	}
	cfg.Runner.Duration = time.Duration(c.DurationNs)
	cfg.Runner.Ops = c.Ops
	cfg.Runner.Concurrency = c.Concurrency
	cfg.Runner.Rate = c.RateOpsPerS
	cfg.Runner.Seed = c.Seed
	if p := r.MainPhase(); p != nil && len(p.Streams) > 0 {
		// The open loop as typed: a profile or per-op streams (the config
		// keeps only their mean rate).
		st, err := LikeStreams(p.Streams)
		if err != nil {
			return Config{}, err
		}
		if rate, ok := st.Rate(); ok {
			cfg.Runner.Rate = rate
		} else {
			cfg.Runner.Rate, cfg.Runner.Streams = 0, st
		}
		cfg.Runner.Poisson = p.Arrival == "poisson"
		cfg.Runner.PaceTick = time.Duration(p.PaceTickNs)
	}
	return cfg, nil
}

// LikeStreams parses the open loop's streams a result's phase records as
// typed (result.Phase.Streams).
func LikeStreams(typed []string) (runner.Streams, error) {
	var st runner.Streams
	for _, s := range typed {
		if err := st.Set(s); err != nil {
			return nil, usererr.New("the result's rate %q: %s (fix: a result file of 'platbench run')", s, oneLine(err.Error()))
		}
	}
	return st, nil
}

// LikeTarget says whether a result's target options apply to target: they
// are the options of one kind of target (its URL's scheme).
func LikeTarget(r *result.Result, target string) bool {
	return schemeOf(r.Config.Target) == schemeOf(target)
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
