// Package nodes records the server nodes during a run: it scrapes each
// node's Prometheus node_exporter (/metrics) every telemetry interval,
// parses the exposition's text format in place (see parser), and turns
// the deltas of its counters into one result.NodeSample per node per
// interval: CPU by mode with the busiest core and the highest interrupt
// share of a core, memory and page cache, disk bytes / IOPS / latency /
// busy per device, network bytes / packets / drops per interface.
//
// Usage (package telemetry, when server metrics are asked for):
//
//	urls, err := nodes.URLs(explicit, port, targetNodes)
//	c := nodes.Start(ctx, urls, time.Second)
//	... run ...
//	series := c.Stop() // []result.NodeSeries, one per URL
//
// Each node is scraped on its own goroutine with a timeout of half the
// interval: an exporter that is down, slow or answers garbage never holds
// up the run or another node. Its sample is marked missing with the time
// and the error, and the next good scrape spans the gap. The package
// computes per-sample figures only; package analysis reduces them.
package nodes

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
	"github.com/platbench/platbench/telemetry/promtext"
	"github.com/platbench/platbench/telemetry/scrape"
)

// DefaultInterval is the scrape period when Start is given 0.
const DefaultInterval = time.Second

// Collector is a running set of node scrapers.
type Collector struct {
	nodes []*node
	group *scrape.Group[*frame]
	once  sync.Once
	out   []result.NodeSeries
}

// node is one exporter's scraper and its series.
type node struct {
	url     string
	ep      *scrape.Endpoint // url as get requests it (a token in it goes as a header)
	timeout time.Duration
	client  *http.Client

	mu     sync.Mutex
	series result.NodeSeries
	kept   scrape.Kept[result.NodeSample] // series.Samples, bounded past the first hour
	prev   *frame
	prevAt time.Time

	// parser and spare are get's: the frame the next scrape is read into
	// (the one before prev). get and keep never overlap (package scrape).
	parser parser
	spare  *frame
}

// Start scrapes every URL (as URLs returns them; host:port reads as
// http://host:port/metrics) now and then every interval
// (DefaultInterval when 0), each on its own goroutine, until Stop.
//
// sink, if given, is called with every sample as it is taken (the run's
// journal writes it), before the series thins it.
func Start(ctx context.Context, urls []string, interval time.Duration, sink ...func(result.TelemetrySample)) *Collector {
	if interval <= 0 {
		interval = DefaultInterval
	}
	c := &Collector{}
	// One client for all nodes: keep-alive connections make a scrape one
	// request, not a TCP handshake each second.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 4 * interval}}
	now := time.Now()
	var sources []*scrape.Source[*frame]
	for _, u := range urls {
		if nu, err := normalize(u); err == nil {
			u = nu // host:port reads as its /metrics URL; a bad URL fails each scrape with its reason
		}
		n := &node{url: u, timeout: interval / 2, client: client,
			series: result.NodeSeries{Node: nodeName(u), URL: redact.URL(u), StartedAt: now, IntervalNs: int64(interval)}}
		n.kept = scrape.Kept[result.NodeSample]{Thin: result.NodeThin, Sinks: sink, Wrap: func(s *result.NodeSample) result.TelemetrySample {
			return result.TelemetrySample{Node: n.series.Node, StartedAt: n.series.StartedAt, NodeSample: s}
		}}
		c.nodes = append(c.nodes, n)
		sources = append(sources, &scrape.Source[*frame]{Timeout: n.timeout, Get: n.get, Keep: n.keep})
	}
	c.group = scrape.Start(ctx, scrape.Schedule{Interval: interval,
		// Stop's last scrape (see Stop).
		SkipFinal: func(lastDue time.Time, failed bool) bool {
			return failed || time.Since(lastDue) < interval/5
		}}, sources, now)
	return c
}

// Stop ends the scraping and returns one series per URL, in the order
// given. A node whose last scrape succeeded is scraped once more when at
// least a fifth of an interval has passed, so short runs get figures; one
// that was failing is not waited for. Stop is idempotent.
func (c *Collector) Stop() []result.NodeSeries {
	c.once.Do(func() {
		c.group.Stop()
		for _, n := range c.nodes {
			n.mu.Lock()
			c.out = append(c.out, n.series)
			n.mu.Unlock()
		}
	})
	return c.out
}

// keep appends one scrape's sample (or a missing one).
func (n *node) keep(at, now time.Time, r *frame, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err != nil {
		n.add(result.NodeSample{
			OffsetNs: at.Sub(n.series.StartedAt).Nanoseconds(), Missing: true, Error: err.Error(), CPUMaxCoreID: -1})
		return
	}
	// The reading is as of when the answer came: the body is the exporter's
	// view at the moment it served it, which is closer to now than to at.
	if n.prev != nil {
		s := sample(&n.prev.Reading, &r.Reading, now.Sub(n.prevAt))
		s.OffsetNs = n.prevAt.Sub(n.series.StartedAt).Nanoseconds()
		n.add(s)
	}
	n.spare, n.prev, n.prevAt = n.prev, r, now
}

// add keeps a sample (scrape.Kept). Called with mu held.
func (n *node) add(s result.NodeSample) { n.series.Samples = n.kept.Add(s) }

// get fetches and parses one exposition (ctx carries the node's timeout)
// into the node's spare frame.
func (n *node) get(ctx context.Context) (*frame, error) {
	if n.ep == nil {
		n.ep = scrape.NewEndpoint(n.url)
	}
	// The text format: parser reads it, and every exporter serves it.
	resp, err := n.ep.Get(ctx, n.client, "text/plain;version=0.0.4")
	if err != nil {
		return nil, n.explain(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	f := n.spare
	if f == nil {
		f = machine.NewFrame()
	}
	n.spare = nil
	err = n.parser.parse(resp.Body, f)
	if errors.Is(err, promtext.ErrBodyTooLong) {
		err = fmt.Errorf("%w: not a node_exporter's /metrics", err)
	}
	if err != nil {
		n.spare = f
		return nil, n.explain(err)
	}
	return f, nil
}

// explain shortens an error to what it means: the series already names the
// URL, and a timeout is the exporter not answering in time.
func (n *node) explain(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer within %v", n.timeout)
	}
	return err
}
