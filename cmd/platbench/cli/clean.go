package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/registry"
)

// runClean removes a dataset of platbench's from a target by its manifest
// (bench.Clean), or lists what it would remove (--dry-run).
func runClean(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "clean", "--target URL [--workload W] [--target-opt k=v ...] [--dry-run]",
		"Remove a dataset of platbench's, and only it, from a target: what the dataset's manifest, which 'platbench load' (or a run told --keep-dataset) wrote on the target, names: the table, topic or map its load created (and the keyspace, when nothing else is in it), else the keys it wrote, by their exact names; then the manifest. Without a manifest nothing is removed: clean names what it found there and exits 1 (docs/datasets.md).")
	tgt := fs.String("target", "", "target URL (required)")
	opts := kvFlag{}
	targetOptFlag(fs, env.Stderr, opts, "target option key=value (repeatable; the same as the load's, e.g. keyspace, table, topic or map)")
	var creds credFlags
	creds.register(fs)
	wl := fs.String("workload", bench.DefaultWorkload, "the workload the dataset was loaded with (its key prefix, or a profile's table)")
	dry := fs.Bool("dry-run", false, "list what would be removed, and remove nothing")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if *tgt == "" {
		return usagef("give the target to clean: --target URL (e.g. cql://127.0.0.1)")
	}
	target, err := creds.apply(*tgt)
	if err != nil {
		return err
	}
	l, err := loadWorkload(*wl)
	if err != nil {
		return err
	}
	do, verb := bench.Clean, "removed"
	if *dry {
		do, verb = bench.CleanDryRun, "would remove"
	}
	removed, err := do(ctx, registry.Open, target, opts, l.Spec)
	if err != nil {
		return err
	}
	if len(removed) == 0 {
		fmt.Fprintln(env.Stdout, "nothing of platbench's to remove: no dataset manifest and nothing where its dataset would be")
		return nil
	}
	for _, r := range removed {
		fmt.Fprintf(env.Stdout, "%s %s\n", verb, r)
	}
	if *dry {
		fmt.Fprintln(env.Stdout, "nothing removed (--dry-run)")
	}
	return nil
}
