package cli

import "context"

// Temporary until run.go, report.go and workloads.go land (same session).
func runRun(ctx context.Context, env *Env, args []string) error       { return usagef("not built yet") }
func runLoad(ctx context.Context, env *Env, args []string) error      { return usagef("not built yet") }
func runWorkloads(ctx context.Context, env *Env, args []string) error { return usagef("not built yet") }
