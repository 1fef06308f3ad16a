package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/adapter/registry"
	"github.com/platbench/platbench/bench"
)

// runClean removes platbench's datasets from a target (bench.Clean).
func runClean(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "clean", "--target URL [--workload W] [--target-opt k=v ...]",
		"Remove platbench's datasets, and only those, from a target: what 'platbench load' (or a run told to keep) left there: the table (and the keyspace platbench created), the topic and its consumer group, the keys of platbench's key format, the map.")
	tgt := fs.String("target", "", "target URL (required; the embedded store's data is its directory)")
	opts := kvFlag{}
	fs.Var(opts, "target-opt", "target option key=value (repeatable; the same as the load's, e.g. keyspace or topic)")
	wl := fs.String("workload", bench.DefaultWorkload, "the workload the dataset was loaded with (its key prefix, table or topic)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *tgt == "" {
		return usagef("give the target to clean: --target URL (e.g. cql://127.0.0.1)")
	}
	l, err := loadWorkload(*wl)
	if err != nil {
		return err
	}
	removed, err := bench.Clean(ctx, registry.Open, *tgt, opts, l.Spec)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintln(env.Stdout, "nothing of platbench's to remove")
		return nil
	}
	for _, r := range removed {
		fmt.Fprintf(env.Stdout, "removed %s\n", r)
	}
	return nil
}
