package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/target/registry"
)

func runTargets(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "targets", "", "List the targets platbench can drive, one line each, with an example URL.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, e := range registry.Entries {
		fmt.Fprintf(env.Stdout, "%-10s %-58s e.g. %s\n", e.Name, e.Summary, e.Example)
	}
	return nil
}
