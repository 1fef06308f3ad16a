package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/merge"
	"github.com/platbench/platbench/result"
)

func runMerge(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "merge", "RESULT... --out MERGED.json", "Combine the results of the loaders of one distributed run (each ran --shard i/N) into one result: histograms merged, series aligned by wall clock, totals summed, each loader kept.")
	out := fs.String("out", "merged.json", "merged result file (and its seconds file beside it); an existing one is refused unless --force")
	force := fs.Bool("force", false, "replace the --out result and its seconds file when they exist")
	quiet := fs.Bool("quiet", false, "do not print the report")
	opts := addAnalysisFlags(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) < 1 {
		return usagef("give the result files to merge")
	}
	for _, f := range files {
		if sameFile(*out, f) || sameFile(result.SecondsPath(*out), f) {
			return usagef("--out %s is one of the results merged; write the merged result to another path", *out)
		}
	}
	// Checked before the loaders' results are read (a day's take seconds).
	outs := []result.Output{{Path: *out, What: "result"}, {Path: result.SecondsPath(*out), What: "seconds file"}}
	if err := result.CheckOutputs(outs, *force, outFlags); err != nil {
		return err
	}
	parts := make([]*result.Result, 0, len(files))
	for _, f := range files {
		r, err := result.Read(f)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	// The merged seconds are written in the same pass that merges the
	// series (a day of two loaders' seconds is read once, not twice).
	sw := result.NewMergedSeconds(result.SecondsPath(*out))
	defer sw.Close()
	m, err := merge.MergeTo(parts, files, sw)
	if err != nil {
		return err
	}
	if m.Config.Warmup != "" && !flagSet(fs, "warmup") {
		opts.Warmup = m.Config.Warmup
	}
	a, err := analysis.Analyze(m, *opts)
	if err != nil {
		return err
	}
	m.Analysis = a
	if *force {
		// The old result and its seconds go first: no moment leaves the old
		// result beside the new seconds.
		if err := result.RemoveOld(*out, result.SecondsPath(*out)); err != nil {
			return err
		}
	}
	merged := bench.WriteMergedSeconds(sw, m, func(err error) { fmt.Fprintf(env.Stderr, "platbench: %v\n", err) })
	if err := result.Write(*out, m); err != nil {
		return err
	}
	if !*quiet {
		if err := printTerm(env.Stdout, m); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "\nmerged %d results into %s\n", len(parts), *out)
	if merged {
		fmt.Fprintf(env.Stdout, "seconds  : %s (every loader's seconds, merged; keep it beside the result)\n", result.SecondsPath(*out))
	}
	return nil
}
