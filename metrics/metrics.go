// Package metrics exposes a running benchmark to Prometheus (and so to
// Grafana): throughput, latency quantiles and errors by op and class from the
// live recorder, and the host and process figures from package telemetry.
//
// It is a prometheus/client_golang Collector: every scrape reads the latest
// closed interval of the running phase's recorder (recorder.Live, a copy made
// under the recorder's lock once per interval) and the telemetry session's
// latest sample, and turns them into constant metrics. A scrape costs the load
// path nothing.
//
// Usage (`--metrics-addr :9100`, wired in cmd/platbench/cli):
//
//	live := &metrics.Live{}
//	cfg.Runner.OnRecorder = live.SetRecorder // each phase's recorder as it starts
//	cfg.OnTelemetry = func(s *telemetry.Session) { live.SetHost(s) }
//	addr, err := metrics.Start(ctx, ":9100", live)
//
// What it does not do: keep history (Prometheus does), or compute anything
// the recorder and the host sampler did not already compute.
package metrics

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Source gives the live figures; Snapshot is called once per scrape, from
// the HTTP server's goroutine, and must be safe to call concurrently with the run.
type Source interface {
	Snapshot() Snapshot
}

// Snapshot is what one scrape shows.
type Snapshot struct {
	// Phase names the running phase ("load", "run"); counters restart with each phase.
	Phase string
	Ops   []Op
	// Host is the latest host sample (nil: none yet).
	Host *result.HostSample
	// Self and Server are the latest samples of platbench and of the target
	// server process (nil when absent).
	Self, Server *result.ProcSample
	// DB are the server nodes' latest samples of their own figures (Redis
	// INFO, the JMX exporter): one sample each.
	DB []result.DBMetricsSeries
}

// Op is one op type's live figures.
type Op struct {
	Op string
	// Count is the operations completed without error since the phase began.
	Count uint64
	// Errors are the failed operations since the phase began, by class.
	Errors map[string]uint64
	// RatePerS is the throughput of the last closed interval (completions/s).
	RatePerS float64
	// Latency holds quantiles of the last closed interval, e.g. {0.5, ...}, {0.99, ...}.
	Latency []Quantile
}

// Quantile is one latency quantile in nanoseconds.
type Quantile struct {
	Q  float64
	Ns int64
}

// HostSource is what telemetry.Session offers for live host figures.
type HostSource interface {
	Latest() (h result.HostSample, ok bool, self, server *result.ProcSample)
}

// DBSource is what telemetry.Session offers for the servers' own figures.
type DBSource interface {
	LatestDB() []result.DBMetricsSeries
}

// Live is the Source of a run: the running phase's recorder and the
// telemetry session, either of which may be absent (before the run starts,
// or with telemetry off). Its setters may be called while it is scraped.
type Live struct {
	rec   atomic.Pointer[recorder.Recorder]
	host  atomic.Pointer[HostSource]
	names atomic.Pointer[workload.Spec]
}

// SetOpNames makes the workload spec name the ops (Spec.OpName: a profile's
// named ops by their own names).
func (l *Live) SetOpNames(spec *workload.Spec) { l.names.Store(spec) }

// SetRecorder makes r the recorder scrapes read (each phase has its own).
func (l *Live) SetRecorder(r *recorder.Recorder) { l.rec.Store(r) }

func (l *Live) opName(op vocab.Op) string {
	if s := l.names.Load(); s != nil {
		return s.OpName(op)
	}
	return op.String()
}

// SetHost makes h the source of host and process figures.
func (l *Live) SetHost(h HostSource) { l.host.Store(&h) }

// Snapshot reads the recorder's last closed interval and the latest host sample.
func (l *Live) Snapshot() Snapshot {
	var s Snapshot
	if r := l.rec.Load(); r != nil {
		lv := r.Live()
		s.Phase = lv.Phase
		iv := max(lv.IntervalNs, 1)
		for _, o := range lv.Ops {
			s.Ops = append(s.Ops, Op{
				Op: l.opName(o.Op), Count: o.TotalCount, Errors: o.TotalErrors,
				RatePerS: float64(o.Count) * 1e9 / float64(iv),
				Latency:  []Quantile{{Q: 0.5, Ns: o.P50Ns}, {Q: 0.99, Ns: o.P99Ns}, {Q: 0.999, Ns: o.P999Ns}, {Q: 1, Ns: o.MaxNs}},
			})
		}
	}
	if h := l.host.Load(); h != nil && *h != nil {
		if hs, ok, self, srv := (*h).Latest(); ok {
			s.Host, s.Self, s.Server = &hs, self, srv
		} else {
			s.Self, s.Server = self, srv
		}
		if db, ok := (*h).(DBSource); ok {
			s.DB = db.LatestDB()
		}
	}
	return s
}

// Handler serves the exposition of src at any path (Prometheus scrapes
// /metrics), in whichever format the scraper asks for.
func Handler(src Source) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{src: src})
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Start listens on addr (":9100", "127.0.0.1:0") and serves until ctx is
// done. It returns the bound address, or an error naming the problem when
// the address cannot be used.
func Start(ctx context.Context, addr string, src Source) (net.Addr, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, usererr.Field("metrics_addr", "%q: cannot listen: %v (fix: a free host:port, e.g. :9100)", addr, err)
	}
	srv := &http.Server{Handler: Handler(src), ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	go srv.Serve(ln)
	return ln.Addr(), nil
}
