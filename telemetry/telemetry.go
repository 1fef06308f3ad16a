// Package telemetry records what the machine did during a run, so a result
// explains itself: host figures every second (telemetry/host), perf_event
// counters (telemetry/perf), platbench's own use and the client-bound
// verdict (telemetry/self), and a server process on the same host
// (telemetry/proc), and the server nodes through their node_exporters
// (telemetry/nodes). A Session runs them together on one 1 s clock; the
// platform fingerprint is telemetry/platform's.
//
// Usage (package bench, for every run):
//
//	tel, err := telemetry.Start(ctx, cfg) // a bad server pid or perf scope is a usererr.Error
//	... load and run phases; r.Phases filled ...
//	tel.Stop(r) // fills r.Host, r.Counters, r.Nodes, r.Notes, r.Dataset.PageCacheBytes
//
// Config is a plain struct: cmd/platbench/cli binds the flags that fill it. The
// package does not decide anything about the target's figures: package
// analysis reads the series.
package telemetry

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/dbmetrics"
	"github.com/platbench/platbench/telemetry/host"
	"github.com/platbench/platbench/telemetry/nodes"
	"github.com/platbench/platbench/telemetry/perf"
	"github.com/platbench/platbench/telemetry/proc"
	"github.com/platbench/platbench/telemetry/self"
)

// Config selects what a Session records. The zero value samples the host
// every second and counts perf events for platbench's own process.
type Config struct {
	// Interval is the sampling period. Default (0) 1 s.
	Interval time.Duration
	// ServerPID samples this local process as the target server. Default 0:
	// none.
	ServerPID int
	// ServerProcess samples the local process with this name, matched like
	// pgrep on /proc/*/cmdline; ignored when ServerPID is set. Default none.
	ServerProcess string
	// PerfScope is "process" (the default, also for "": platbench), "server" (the server
	// process given by ServerPID or ServerProcess, as the seed reports ran
	// perf stat on Cassandra; needs root or CAP_PERFMON), "system" (every
	// CPU; needs privilege) or "off".
	PerfScope string
	// InProcess is true when the target runs inside platbench (the embedded
	// store), so platbench's CPU use is not held against the client.
	InProcess bool
	// ServerMetrics are the server nodes' node_exporter URLs
	// ("http://10.0.0.5:9100/metrics"; "10.0.0.5:9100" reads as that),
	// scraped every Interval into the result's Nodes. Default none.
	ServerMetrics []string
	// ServerMetricsPort, when ServerMetrics is empty, scrapes
	// http://HOST:PORT/metrics on each host of TargetNodes. Default 0: off.
	ServerMetricsPort int
	// TargetNodes are the target's nodes as it described itself
	// (vocab.Info.Nodes); package bench fills it.
	TargetNodes []string
	// DBMetrics selects reading the servers' own figures (Redis and Valkey
	// INFO) every Interval into the result's DBMetrics, when the target can
	// tell (Status is set): "auto" (the default, also ""), "reset" (as auto,
	// after resetting the servers' statistics with CONFIG RESETSTAT so the
	// cumulative latency percentiles cover the run) or "off".
	DBMetrics string
	// DBMetricsURLs are Prometheus JMX exporter agents on the servers
	// (Kafka, Cassandra), running with the project's rule files
	// (scripts/servers/jmx): scraped every Interval into DBMetrics instead
	// of the target's own status. Default none.
	DBMetricsURLs []string
	// Status is the target's status reader (adapter.StatusReader); package
	// bench fills it when the target implements it.
	Status adapter.StatusReader
	// OnSample, if set, is called with every sample of every series as it
	// is taken (host, server nodes, db metrics: the run's journal writes
	// them), before the series are thinned (result.Thin: at most 16
	// samples a series in memory, Thin.Wide). Package bench sets it.
	OnSample func(result.TelemetrySample)
	// LinkLimits are the loader host's link limits the user stated, in
	// bits/s, by interface ("" for every interface but lo): a cap the host
	// cannot read (a cloud's per-instance bandwidth). Recorded in
	// HostSeries.Links; package analysis takes the least of an
	// interface's speed, its shaper's rate and this as its capacity.
	// host.ParseLinkLimits reads the flag's syntax. Default none.
	LinkLimits map[string]int64
	// Samples, set with OnSample, reads every sample back when the
	// telemetry stops (result.Journal.Telemetry): the collectors keep at most
	// 16 samples a series in memory (result.Thin.Wide), and the result's series are
	// made from this. Package bench sets it.
	Samples func() (*result.Result, error)
}

// Validate reports every problem of the configuration at once.
func (c *Config) Validate() error { return c.Problems().Err() }

// Problems lists what Validate reports, each a usererr.Error naming its
// field: telemetry_interval, server_pid, server_process, perf_scope,
// server_metrics, server_metrics_port, db_metrics, db_metrics_url or
// link_limit.
func (c *Config) Problems() usererr.List {
	var l usererr.List
	if c.Interval < 0 {
		l.Add("telemetry_interval", "%v is negative (fix: a positive duration such as 1s)", c.Interval)
	}
	if c.ServerPID < 0 {
		l.Add("server_pid", "%d is not a process id (fix: give the pid of the server process)", c.ServerPID)
	}
	switch c.PerfScope {
	case "", "process", "system", "off":
	case "server":
		if c.ServerPID == 0 && c.ServerProcess == "" {
			l.Add("perf_scope", "server needs the server process (fix: give its pid or its process name as well)")
		}
	default:
		l.Add("perf_scope", "%q is not process, server, system or off (fix: use one of those)", c.PerfScope)
	}
	switch c.DBMetrics {
	case "", "auto", "reset", "off":
	default:
		l.Add("db_metrics", "%q is not auto, reset or off (fix: use one of those)", c.DBMetrics)
	}
	l = append(l, dbmetrics.URLProblems(c.DBMetricsURLs)...)
	l = append(l, linkProblems(c.LinkLimits, "/sys/class/net")...)
	return append(l, nodes.Problems(c.ServerMetrics, c.ServerMetricsPort)...)
}

// Session is running telemetry.
type Session struct {
	cfg     Config
	sampler *host.Sampler
	perf    *perf.Session
	base    *self.Baseline
	server  *proc.Tracker
	nodes   *nodes.Collector
	db      *dbmetrics.Collector

	stopOnce sync.Once
	series   *result.HostSeries
	counters *result.Counters
	nodeData []result.NodeSeries
	dbData   *result.DBMetrics
	// readBackErr says why the series could not be read back (readBack).
	readBackErr string
}

// Start begins recording. It fails only on a bad configuration (a server
// pid or name that matches no process, an unknown perf scope); anything the
// machine cannot tell is simply left out of the result.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Session{cfg: cfg}
	var err error
	switch {
	case cfg.ServerPID > 0:
		s.server, err = proc.ByPID(cfg.ServerPID)
	case cfg.ServerProcess != "":
		s.server, err = proc.ByName(cfg.ServerProcess)
	}
	if err != nil {
		return nil, err
	}
	urls, err := nodes.URLs(cfg.ServerMetrics, cfg.ServerMetricsPort, cfg.TargetNodes)
	if err != nil {
		return nil, err
	}
	switch cfg.PerfScope {
	case "off":
	case "server":
		// A server restarted during the run is not followed: its new
		// threads are not children of the counted ones.
		s.perf, err = perf.OpenPID(s.server.PID())
	default:
		s.perf, err = perf.Open(cfg.PerfScope)
	}
	if err != nil {
		return nil, usererr.New("%v", err)
	}
	s.base = self.Begin()
	opts := []host.Option{}
	if s.server != nil {
		opts = append(opts, host.WithServer(s.server))
	}
	if s.perf != nil {
		p := s.perf
		opts = append(opts, host.WithTick(func(_ int, at time.Time) { p.Cut(at) }))
	}
	var sink []func(result.TelemetrySample)
	if cfg.OnSample != nil {
		opts = append(opts, host.WithSample(cfg.OnSample))
		sink = append(sink, cfg.OnSample)
	}
	if len(cfg.LinkLimits) > 0 {
		opts = append(opts, host.WithLinkLimits(cfg.LinkLimits))
	}
	s.sampler = host.Start(ctx, cfg.Interval, opts...)
	if len(urls) > 0 {
		s.nodes = nodes.Start(ctx, urls, cfg.Interval, sink...)
	}
	switch {
	case cfg.DBMetrics == "off":
	case len(cfg.DBMetricsURLs) > 0:
		s.db = dbmetrics.StartJMX(ctx, append([]string(nil), cfg.DBMetricsURLs...), cfg.Interval, sink...)
	case cfg.Status != nil:
		s.db = dbmetrics.Start(ctx, cfg.Status, cfg.Interval, cfg.DBMetrics == "reset", sink...)
	}
	return s, nil
}

// Latest returns the most recent host sample and the latest samples of
// platbench and of the server process (nil when absent), for live displays
// and the Prometheus endpoint.
func (s *Session) Latest() (h result.HostSample, ok bool, selfSample, server *result.ProcSample) {
	if s == nil {
		return h, false, nil, nil // a nil session (telemetry off) has nothing to show
	}
	h, ok = s.sampler.Latest()
	selfSample, server = s.sampler.LatestProcs()
	return h, ok, selfSample, server
}

// LatestDB returns each server node's most recent sample of the data
// system's own figures (nil when they are not recorded), for the live
// Prometheus endpoint.
func (s *Session) LatestDB() []result.DBMetricsSeries {
	if s == nil || s.db == nil {
		return nil
	}
	return s.db.Latest()
}

// Stop ends recording and fills r: Host (series, self use and verdict,
// server), Counters, Nodes, Notes (client-bound and host remarks) and
// Dataset.PageCacheBytes when unset. Call it after r.Phases is filled: the
// verdict reads the phases' delayed counts. Stop is idempotent; later calls
// fill r again from the same figures.
func (s *Session) Stop(r *result.Result) {
	s.stopOnce.Do(func() {
		s.series = s.sampler.Stop()
		if s.perf != nil {
			s.counters = s.perf.Stop()
		}
		if s.nodes != nil {
			s.nodeData = s.nodes.Stop()
		}
		if s.db != nil {
			s.dbData = s.db.Stop()
		}
		s.readBack()
		s.series.Self = s.base.End(s.series.SelfSamples)
	})
	if r == nil {
		return
	}
	series := *s.series
	selfUse := *s.series.Self
	series.Self = &selfUse
	r.Host = &series
	r.Counters = s.counters
	r.Nodes = s.nodeData
	r.DBMetrics = s.dbData
	_, _, notes := self.Judge(self.Input{
		Self: &selfUse, SelfSamples: series.SelfSamples, Host: series.Samples,
		Phases: r.Phases, InProcess: s.cfg.InProcess,
	})
	if s.readBackErr != "" {
		notes = append(notes, s.readBackErr)
	}
	for _, n := range notes {
		if !contains(r.Notes, n) {
			r.Notes = append(r.Notes, n)
		}
	}
	if r.Counters != nil && len(r.Counters.Unavailable) > 0 {
		n := "perf counters not available: " + r.Counters.UnavailableReason
		if r.Counters.UnavailableReason != "" && !contains(r.Notes, n) {
			r.Notes = append(r.Notes, n)
		}
	}
	if k := len(series.Samples); k > 0 && r.Dataset.PageCacheBytes == 0 {
		r.Dataset.PageCacheBytes = series.Samples[k-1].PageCacheBytes
	}
}

// readBack replaces the series the collectors kept (at most 16 samples a
// series when they stream: Config.Samples) with every sample read back, thinned as a
// result keeps them. A journal that cannot be read leaves the minute
// series, and says so in a note.
func (s *Session) readBack() {
	if s.cfg.OnSample == nil || s.cfg.Samples == nil {
		return
	}
	back, err := s.cfg.Samples()
	if err != nil {
		s.readBackErr = fmt.Sprintf("telemetry series kept coarse (at most 16 samples a series): %v", err)
		return
	}
	if h := back.Host; h != nil {
		s.series.Samples, s.series.SelfSamples, s.series.Server = h.Samples, h.SelfSamples, h.Server
	}
	byNode := map[string][]result.NodeSample{}
	for _, n := range back.Nodes {
		byNode[n.Node] = n.Samples
	}
	for i := range s.nodeData {
		if smp, ok := byNode[s.nodeData[i].Node]; ok {
			s.nodeData[i].Samples = smp
		}
	}
	if s.dbData != nil && back.DBMetrics != nil {
		byDB := map[string][]result.DBMetricsSample{}
		for _, n := range back.DBMetrics.Nodes {
			byDB[n.Node] = n.Samples
		}
		for i := range s.dbData.Nodes {
			if smp, ok := byDB[s.dbData.Nodes[i].Node]; ok {
				s.dbData.Nodes[i].Samples = smp
			}
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}
