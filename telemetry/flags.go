package telemetry

import (
	"flag"
	"time"
)

// Flags are telemetry's command-line options for `platbench run` and `load`.
type Flags struct {
	Config
	// MetricsAddr is where to serve Prometheus metrics during the run
	// (--metrics-addr, e.g. ":9100"); empty: no endpoint.
	MetricsAddr string
}

// Register adds --server-pid, --server-process, --perf-scope,
// --telemetry-interval and --metrics-addr to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.IntVar(&f.ServerPID, "server-pid", 0, "pid of the target server on this host: record its CPU, RSS and I/O next to platbench's")
	fs.StringVar(&f.ServerProcess, "server-process", "", "name of the target server process on this host (matched like pgrep), instead of --server-pid")
	fs.StringVar(&f.PerfScope, "perf-scope", "process", "perf counters: process (platbench), server (the --server-pid/--server-process process), system (every CPU) or off; server and system need root or CAP_PERFMON")
	fs.DurationVar(&f.Interval, "telemetry-interval", time.Second, "host sampling period")
	fs.StringVar(&f.MetricsAddr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. :9100")
}
