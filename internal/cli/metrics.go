package cli

import (
	"context"
	"net"
	"sync/atomic"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/metrics"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/telemetry"
)

// serveMetrics starts the Prometheus endpoint for a run: it hooks into cfg
// to learn each phase's recorder and the telemetry session, and serves their
// latest figures until ctx ends.
func serveMetrics(ctx context.Context, addr string, cfg *bench.Config) (net.Addr, error) {
	var rec atomic.Pointer[recorder.Recorder]
	var tel atomic.Pointer[telemetry.Session]
	prevRec := cfg.Runner.OnRecorder
	cfg.Runner.OnRecorder = func(r *recorder.Recorder) {
		rec.Store(r)
		if prevRec != nil {
			prevRec(r)
		}
	}
	cfg.OnTelemetry = func(s *telemetry.Session) { tel.Store(s) }
	src := metrics.SourceFunc(func() metrics.Snapshot {
		var s metrics.Snapshot
		if r := rec.Load(); r != nil {
			l := r.Live()
			s.Phase = l.Phase
			iv := l.IntervalNs
			if iv <= 0 {
				iv = 1
			}
			for _, o := range l.Ops {
				s.Ops = append(s.Ops, metrics.Op{
					Op: o.Op.String(), Count: o.TotalCount, Errors: o.TotalErrors,
					RatePerS: float64(o.Count) * 1e9 / float64(iv),
					Latency:  []metrics.Quantile{{Q: 0.5, Ns: o.P50Ns}, {Q: 0.99, Ns: o.P99Ns}, {Q: 0.999, Ns: o.P999Ns}, {Q: 1, Ns: o.MaxNs}},
				})
			}
		}
		if t := tel.Load(); t != nil {
			if h, ok, self, srv := t.Latest(); ok {
				s.Host, s.Self, s.Server = &h, self, srv
			}
		}
		return s
	})
	return metrics.Start(ctx, addr, src)
}
