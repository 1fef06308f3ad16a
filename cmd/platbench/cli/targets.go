package cli

import (
	"context"

	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
)

func runTargets(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "targets", "[NAME]", "List the targets platbench can drive, one line each, with an example URL.\n"+
		"With NAME, print that target's options (URL query or --target-opt key=value): name, type, default, unit, other accepted names, and what each does.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		report.WriteTargets(env.Stdout, registry.Entries)
		return nil
	case 1:
		e, err := registry.Lookup(fs.Arg(0))
		if err != nil {
			return err
		}
		report.WriteTargetOptions(env.Stdout, e)
		return nil
	}
	return usagef("unexpected argument %q (one target name at most)", fs.Arg(1))
}
