package cli

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/workload"
)

func runWorkloads(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "workloads", "", "List the workload presets, one line each (use one with 'platbench run --workload NAME').")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	for _, s := range workload.Presets() {
		fmt.Fprintf(env.Stdout, "%-18s %-28s %s\n", s.Name, s.Mix.String(), s.Description)
	}
	return nil
}
