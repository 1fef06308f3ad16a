package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/merge"
	"github.com/platbench/platbench/result"
)

func runMerge(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "merge", "RESULT... --out MERGED.json", "Combine the results of the loaders of one distributed run (each ran --shard i/N) into one result: histograms merged, series aligned by wall clock, totals summed, each loader kept.")
	out := fs.String("out", "merged.json", "merged result file")
	quiet := fs.Bool("quiet", false, "do not print the report")
	opts := addAnalysisFlags(fs)
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) < 1 {
		return usagef("give the result files to merge")
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
	merged := writeMergedSeconds(env, sw, m)
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
