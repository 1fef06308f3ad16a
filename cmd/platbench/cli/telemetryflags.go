package cli

import (
	"flag"
	"maps"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/telemetry"
	"github.com/platbench/platbench/telemetry/host"
)

// telemetryFlags bind telemetry.Config (a plain struct in the library) and
// the Prometheus endpoint's address for `run` and `load`.
type telemetryFlags struct {
	telemetry.Config
	// metricsAddr is where to serve live Prometheus metrics; empty: none.
	metricsAddr string
}

// register adds --server-pid, --server-process, --perf-scope,
// --telemetry-interval, --server-metrics, --server-metrics-port,
// --link-limit and --metrics-addr to fs.
func (f *telemetryFlags) register(fs *flag.FlagSet) {
	f.Interval = time.Second
	fs.IntVar(&f.ServerPID, "server-pid", 0, "pid of the target server on this host: record its CPU, RSS and I/O next to platbench's")
	fs.StringVar(&f.ServerProcess, "server-process", "", "name of the target server process on this host (matched like pgrep), instead of --server-pid")
	fs.StringVar(&f.PerfScope, "perf-scope", "process", "perf counters: process (platbench), server (the --server-pid/--server-process process), system (every CPU) or off; server and system need root or CAP_PERFMON")
	fs.Var((*units.Duration)(&f.Interval), "telemetry-interval", "host sampling period, a `duration`")
	f.registerNodes(fs)
	fs.Func("link-limit", "the loader host's link capacity where the host cannot tell it (a cloud's bandwidth cap), in bits/s: `RATE` for every interface (1Gbit) or IF=RATE,... (eth0=1Gbit); the analysis names the network the limit against it", f.setLinkLimit)
	fs.StringVar(&f.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics on this address during the run, e.g. :9100")
}

// setLinkLimit adds one --link-limit's limits (the flag may be repeated).
func (f *telemetryFlags) setLinkLimit(s string) error {
	m, err := host.ParseLinkLimits(s)
	if err != nil {
		return err
	}
	if f.LinkLimits == nil {
		f.LinkLimits = map[string]int64{}
	}
	maps.Copy(f.LinkLimits, m)
	return nil
}
