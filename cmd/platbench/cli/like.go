package cli

import (
	"flag"
	"maps"
	"strconv"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/workload"
)

// likeFlag is run's --like RESULT.json: the benchmark that result records
// (bench.Like), run again on the target given, each flag given overriding
// what the result says.
type likeFlag struct {
	path string
	r    *result.Result
	cfg  bench.Config
}

const likeFlagDoc = "repeat the benchmark a result `file` records (workload, dataset, duration or ops, concurrency, fixed rate, seed, warm-up, load, and its target options when --target is the same kind): the same benchmark on this platform; flags given override the result, the target is --target's; the new result names the file"

func addLikeFlag(fs *flag.FlagSet) *likeFlag {
	l := &likeFlag{}
	fs.StringVar(&l.path, "like", "", likeFlagDoc)
	return l
}

// apply reads the result and sets every flag the user did not give to the
// result's value. It runs after the flags are parsed, before the config is
// made of them.
func (l *likeFlag) apply(b *benchFlags) error {
	if l == nil || l.path == "" {
		return nil
	}
	r, err := result.Read(l.path)
	if err != nil {
		return usagef("--like %s: %v", l.path, err)
	}
	cfg, err := bench.Like(r)
	if err != nil {
		return usagef("--like %s: %s", l.path, err.(*usererr.Error).Msg)
	}
	l.r, l.cfg = r, cfg
	set := func(name, v string) error {
		if flagSet(b.fs, name) {
			return nil
		}
		return b.fs.Set(name, v)
	}
	rc := cfg.Runner
	var errs []error
	if !flagSet(b.fs, "duration") && !flagSet(b.fs, "ops") {
		if rc.Ops > 0 {
			errs = append(errs, set("ops", strconv.FormatUint(rc.Ops, 10)))
		} else {
			errs = append(errs, set("duration", rc.Duration.String()))
		}
	}
	errs = append(errs, set("concurrency", strconv.Itoa(rc.Concurrency)), set("seed", strconv.FormatInt(rc.Seed, 10)))
	errs = append(errs, l.setRate(b)...)
	if !cfg.Load {
		errs = append(errs, set("no-load", "true"))
	}
	if cfg.Warmup != "" && b.fs.Lookup("warmup") != nil {
		errs = append(errs, set("warmup", cfg.Warmup))
	}
	if !flagSet(b.fs, "target-opt") && bench.LikeTarget(r, b.target) {
		maps.Copy(b.targetOpts, cfg.TargetOpts)
	}
	for _, e := range errs {
		if e != nil {
			return usagef("--like %s: the result's settings are not valid flags: %v (fix: a result file of 'platbench run')", l.path, e)
		}
	}
	return nil
}

// loadWorkload is the workload the run runs: --workload's, else, with
// --like, the result's (the flags of the record shape, mix and dataset
// still override it, in benchFlags.spec).
func (l *likeFlag) loadWorkload(b *benchFlags) (workload.Loaded, error) {
	if l != nil && l.r != nil && !flagSet(b.fs, "workload") {
		return workload.Loaded{Spec: l.cfg.Workload}, nil
	}
	return loadWorkload(b.workload)
}

// record names the result file in the config (bench.Config.Like).
func (l *likeFlag) record(cfg *bench.Config) {
	if l != nil && l.r != nil {
		cfg.Like = l.path
	}
}

// setRate sets --rate (and --arrival, --pace-tick) to the result's open
// loop unless --rate was given: its streams as typed, else its fixed rate.
func (l *likeFlag) setRate(b *benchFlags) []error {
	if flagSet(b.fs, "rate") {
		return nil
	}
	rc := l.cfg.Runner
	var errs []error
	if p := l.r.MainPhase(); p != nil && len(p.Streams) > 0 {
		for _, s := range p.Streams {
			errs = append(errs, b.fs.Set("rate", s))
		}
	} else if rc.Rate > 0 {
		errs = append(errs, b.fs.Set("rate", strconv.FormatFloat(rc.Rate, 'f', -1, 64)))
	}
	if rc.Poisson && !flagSet(b.fs, "arrival") {
		errs = append(errs, b.fs.Set("arrival", "poisson"))
	}
	if rc.PaceTick > 0 && !flagSet(b.fs, "pace-tick") {
		errs = append(errs, b.fs.Set("pace-tick", rc.PaceTick.String()))
	}
	return errs
}
