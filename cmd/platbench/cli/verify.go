package cli

import (
	"context"
	"fmt"
	"math"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

func runVerify(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "verify", "RESULT [--sample N] [--target URL] [--target-opt k=v] [--out PATH]",
		"Read back, on the target, every key whose write a run made with --verify saw acknowledged (the\n"+
			"record is in its result), at the run's consistency, and report those missing or wrong. The\n"+
			"result's verification is replaced by this one (in RESULT, or in --out). Exit status 1 when an\n"+
			"acknowledged write is missing or wrong. The dataset is used as it is: nothing is created or removed.")
	sample := bench.Sample{}
	fs.Var(&sample, "sample", "read back only a `sample` of the acknowledged keys: a count (10k) or a fraction (10% or 0.1) (default all)")
	tgt := fs.String("target", "", "target URL (default the result's)")
	opts := kvFlag{}
	targetOptFlag(fs, env.Stderr, opts, "target option key=value, over the result's (repeatable; e.g. a password the result does not keep: --target-password-file keeps it off the command line)")
	conc := units.Count(bench.DefaultConcurrency)
	fs.Var(&conc, "concurrency", "reads in flight, a `count`")
	out := fs.String("out", "", "write the result with this verification here (default: RESULT itself, atomically); another existing file is refused unless --force")
	force := fs.Bool("force", false, "replace the --out file when it exists")
	var creds credFlags
	creds.register(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usagef("verify takes exactly one result file, got %d", len(files))
	}
	if conc == 0 {
		return usagef("--concurrency 0 reads nothing: give 1 or more")
	}
	if !sameFile(*out, files[0]) {
		if err := checkOut(*out, "result", *force); err != nil {
			return err
		}
	}
	r, err := result.Read(files[0])
	if err != nil {
		return err
	}
	if *tgt, err = creds.verifyTarget(*tgt, r.Target.URL); err != nil {
		return err
	}
	v, err := bench.VerifyResult(ctx, r, bench.VerifyConfig{Target: *tgt, TargetOpts: opts, Open: registry.Open, Sample: sample,
		Concurrency: int(min(conc, math.MaxInt32))})
	if err != nil {
		return fmt.Errorf("%s: %w", files[0], err)
	}
	r.Verification = v
	path := *out
	if path == "" {
		path = files[0]
	}
	if err := result.Write(path, r); err != nil {
		return err
	}
	if err := report.WriteVerificationText(env.Stdout, r); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nresult   : %s\n", path)
	if h := analysis.HealthOf(r); h.LostWrites > 0 {
		return &exitError{exitFailed, report.RunFailureText(h, analysis.DefaultMaxErrors)}
	}
	return nil
}
