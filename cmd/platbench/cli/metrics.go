package cli

import (
	"context"
	"net"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/metrics"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/telemetry"
)

// serveMetrics starts the Prometheus endpoint for a run: it hooks into cfg
// to learn each phase's recorder and the telemetry session, and serves their
// latest figures until ctx ends.
func serveMetrics(ctx context.Context, addr string, cfg *bench.Config) (net.Addr, error) {
	live := &metrics.Live{}
	spec := cfg.Workload
	live.SetOpNames(&spec)
	prevRec := cfg.Runner.OnRecorder
	cfg.Runner.OnRecorder = func(r *recorder.Recorder) {
		live.SetRecorder(r)
		if prevRec != nil {
			prevRec(r)
		}
	}
	cfg.OnTelemetry = func(s *telemetry.Session) { live.SetHost(s) }
	return metrics.Start(ctx, addr, live)
}
