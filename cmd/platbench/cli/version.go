package cli

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X .../cmd/platbench/cli.Version=...";
// otherwise it comes from the module's build info.
var Version = ""

// ToolVersion returns the version written into every result.
func ToolVersion() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				return "dev-" + s.Value[:12]
			}
		}
		if bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			return bi.Main.Version
		}
	}
	return "dev"
}

func runVersion(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "version", "", "Print platbench's version and the Go version it was built with.")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "platbench %s (%s, %s/%s)\n", ToolVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
