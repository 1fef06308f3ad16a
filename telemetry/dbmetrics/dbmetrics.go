// Package dbmetrics records the data system's own figures during a run
// (issue 18, part 2): every telemetry interval it reads each server node's
// status — Redis and Valkey INFO through the target's own connection
// (adapter.StatusReader) — and turns two readings into one
// result.DBMetricsSample per node: rates of the cumulative counters
// (commands, keyspace hits and misses, network bytes), gauges (memory,
// clients, keys) and, per command, the calls and server-side time between
// the readings (so time/calls is the mean server-side latency of the
// interval, exact by difference) and the server's latency percentiles
// (INFO latencystats, cumulative since its statistics were last reset).
//
// Usage (package telemetry, when the target can tell):
//
//	c := dbmetrics.Start(ctx, reader, time.Second, reset)
//	... run ...
//	m := c.Stop() // *result.DBMetrics
//
// Each node is read on its own goroutine with a timeout of half the
// interval (INFO; a whole interval for a JMX exporter): a node that is slow or down never holds up the run or another
// node; its sample is stored missing with the error, and the next good
// reading spans the gap. Figures the server does not expose are listed in
// DBMetrics.Unavailable, never stored as zero.
package dbmetrics

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/scrape"
)

// DefaultInterval is the reading period when Start is given 0.
const DefaultInterval = time.Second

// Collector is a running set of node readers.
type Collector struct {
	source  string
	missing func(*reading) []string
	reset   bool
	resetE  string
	nodes   []*node
	group   *scrape.Group[*reading]
	once    sync.Once
	out     *result.DBMetrics
	sinks   []func(result.TelemetrySample)
}

// getter reads one node by its key (a node name for INFO, a URL for the
// JMX exporter).
type getter func(ctx context.Context, key string) (*reading, error)

type node struct {
	key     string
	get     getter
	missing func(*reading) []string

	mu       sync.Mutex
	series   result.DBMetricsSeries
	kept     scrape.Kept[result.DBMetricsSample] // series.Samples, bounded past the first hour
	lastGood *result.DBMetricsSample             // for live displays
	server   string
	prev     *reading
	prevAt   time.Time
	unavail  map[string]int // figure → readings that lacked it
	readings int
}

// Start reads every node src lists now and then every interval
// (DefaultInterval when 0) until Stop. With reset, each node's statistics
// are reset first (CONFIG RESETSTAT), so the cumulative percentiles cover
// the recording; a node that refuses keeps its statistics, and the result
// says so.
//
// sink, if given, is called with every sample as it is taken (the run's
// journal writes it), before the series thins it; StartJMX takes it too.
func Start(ctx context.Context, src adapter.StatusReader, interval time.Duration, reset bool, sink ...func(result.TelemetrySample)) *Collector {
	if interval <= 0 {
		interval = DefaultInterval
	}
	c := &Collector{source: "redis INFO", reset: reset, missing: unavailable, sinks: sink}
	lctx, lcancel := context.WithTimeout(ctx, interval)
	names := src.StatusNodes(lctx)
	if reset {
		for _, n := range names {
			if err := src.ResetStatus(lctx, n); err != nil {
				c.reset, c.resetE = false, n+": "+err.Error()
			}
		}
	}
	lcancel()
	get := func(ctx context.Context, node string) (*reading, error) {
		text, err := src.ReadStatus(ctx, node)
		if err != nil {
			return nil, err
		}
		return parseInfo(text)
	}
	c.start(ctx, names, names, get, interval, interval/2)
	return c
}

// StartJMX scrapes every JMX exporter URL (host:port reads as
// http://host:port/metrics) as Start reads INFO: the agent must run with
// the project's rule files (scripts/servers/jmx), whose names a
// jmxParser reads.
func StartJMX(ctx context.Context, urls []string, interval time.Duration, sink ...func(result.TelemetrySample)) *Collector {
	if interval <= 0 {
		interval = DefaultInterval
	}
	c := &Collector{source: JMXSource, missing: unavailableJMX, sinks: sink}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 4 * interval}}
	names := make([]string, len(urls))
	for i, u := range urls {
		if nu, err := NormalizeURL(u); err == nil {
			urls[i] = nu
		}
		names[i] = u
		if p, err := url.Parse(urls[i]); err == nil && p.Host != "" {
			names[i] = p.Host
		}
	}
	parsers := map[string]*jmxParser{}
	endpoints := map[string]*scrape.Endpoint{}
	for _, u := range urls {
		parsers[u], endpoints[u] = newJMXParser(), scrape.NewEndpoint(u)
	}
	get := func(ctx context.Context, u string) (*reading, error) {
		return getJMX(ctx, client, parsers[u], endpoints[u])
	}
	// A JMX exporter walks the server's MBeans on each scrape: half a
	// second and more on a busy broker. It gets the whole interval.
	c.start(ctx, names, urls, get, interval, interval)
	return c
}

// start takes every node's first reading (before it returns, so the
// counters' base precedes the first operation of the run), then reads each
// every interval on its own goroutine.
func (c *Collector) start(ctx context.Context, names, keys []string, get getter, interval, timeout time.Duration) {
	now := time.Now()
	var sources []*scrape.Source[*reading]
	for i, name := range names {
		n := &node{key: keys[i], get: get, unavail: map[string]int{}, missing: c.missing,
			series: result.DBMetricsSeries{Node: name, StartedAt: now, IntervalNs: int64(interval)}}
		n.kept = scrape.Kept[result.DBMetricsSample]{Thin: result.DBMetricsThin, Sinks: c.sinks, Wrap: func(s *result.DBMetricsSample) result.TelemetrySample {
			return result.TelemetrySample{Node: n.series.Node, StartedAt: n.series.StartedAt, DB: s}
		}}
		c.nodes = append(c.nodes, n)
		sources = append(sources, &scrape.Source[*reading]{Timeout: timeout, Get: n.fetch, Keep: n.keep})
	}
	c.group = scrape.Start(ctx, scrape.Schedule{Interval: interval, Wait: true}, sources, now)
}

// Stop ends the reading and returns the figures. Every node is read once
// more, however recent its last reading, so the counters' differences
// cover every command up to Stop; a node that does not answer holds Stop
// for at most its timeout (half an interval for INFO, one for a JMX
// exporter). Stop is idempotent.
func (c *Collector) Stop() *result.DBMetrics {
	c.once.Do(func() {
		c.group.Stop()
		m := &result.DBMetrics{Source: c.source, Reset: c.reset}
		if c.resetE != "" {
			m.Unavailable = append(m.Unavailable, "reset at the start (CONFIG RESETSTAT failed on "+c.resetE+")")
		}
		lacking := map[string]bool{}
		for _, n := range c.nodes {
			n.mu.Lock()
			m.Nodes = append(m.Nodes, n.series)
			if n.server != "" {
				m.Server = n.server
			}
			// A figure no reading of a node had is not exposed; one that
			// only some readings lacked (no command yet) is.
			for f, k := range n.unavail {
				if k == n.readings {
					lacking[f] = true
				}
			}
			n.mu.Unlock()
		}
		for f := range lacking {
			m.Unavailable = append(m.Unavailable, f)
		}
		sort.Strings(m.Unavailable)
		c.out = m
	})
	return c.out
}

// Latest returns each node's most recent good sample (nodes without one
// are left out), for the live Prometheus endpoint.
func (c *Collector) Latest() []result.DBMetricsSeries {
	var out []result.DBMetricsSeries
	for _, n := range c.nodes {
		n.mu.Lock()
		if x := n.lastGood; x != nil {
			out = append(out, result.DBMetricsSeries{Node: n.series.Node, StartedAt: n.series.StartedAt,
				IntervalNs: n.series.IntervalNs, Version: n.series.Version, Samples: []result.DBMetricsSample{*x}})
		}
		n.mu.Unlock()
	}
	return out
}

// keep appends one reading's sample (or a missing one).
func (n *node) keep(at, now time.Time, r *reading, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.add(result.DBMetricsSample{
			OffsetNs: at.Sub(n.series.StartedAt).Nanoseconds(), Missing: true, Error: err.Error()})
		return
	}
	n.readings++
	for _, f := range n.missing(r) {
		n.unavail[f]++
	}
	n.server, n.series.Version = r.server, r.version
	if n.prev != nil {
		s := sample(n.prev, r, now.Sub(n.prevAt).Seconds())
		s.OffsetNs = n.prevAt.Sub(n.series.StartedAt).Nanoseconds()
		s.DurationNs = now.Sub(n.prevAt).Nanoseconds()
		n.add(s)
		n.lastGood = &s
	}
	n.prev, n.prevAt = r, now
}

// add keeps a sample (scrape.Kept). Called with mu held.
func (n *node) add(s result.DBMetricsSample) { n.series.Samples = n.kept.Add(s) }

// fetch reads the node once (ctx carries its timeout).
func (n *node) fetch(ctx context.Context) (*reading, error) {
	return n.get(ctx, n.key)
}
