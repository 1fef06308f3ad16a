// Package nodes records the server nodes during a run: it scrapes each
// node's Prometheus node_exporter (/metrics) every telemetry interval,
// parses the exposition with github.com/prometheus/common/expfmt, and turns
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

	"github.com/platbench/platbench/result"
)

// DefaultInterval is the scrape period when Start is given 0.
const DefaultInterval = time.Second

// maxBody bounds what one scrape reads: node_exporter with every collector
// on serves a few hundred KiB.
const maxBody = 16 << 20

// Collector is a running set of node scrapers.
type Collector struct {
	nodes  []*node
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
	out    []result.NodeSeries
}

// node is one exporter's scraper and its series.
type node struct {
	url      string
	interval time.Duration
	timeout  time.Duration
	client   *http.Client

	mu         sync.Mutex
	series     result.NodeSeries
	prev       *reading
	prevAt     time.Time
	lastAt     time.Time // last attempt
	lastFailed bool
}

// Start scrapes every URL (as URLs returns them; host:port reads as
// http://host:port/metrics) now and then every interval
// (DefaultInterval when 0), each on its own goroutine, until Stop.
func Start(ctx context.Context, urls []string, interval time.Duration) *Collector {
	if interval <= 0 {
		interval = DefaultInterval
	}
	ctx, cancel := context.WithCancel(ctx)
	c := &Collector{cancel: cancel}
	// One client for all nodes: keep-alive connections make a scrape one
	// request, not a TCP handshake each second.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2, IdleConnTimeout: 4 * interval}}
	now := time.Now()
	for _, u := range urls {
		if nu, err := normalize(u); err == nil {
			u = nu // host:port reads as its /metrics URL; a bad URL fails each scrape with its reason
		}
		n := &node{url: u, interval: interval, timeout: interval / 2, client: client,
			series: result.NodeSeries{Node: nodeName(u), URL: u, StartedAt: now, IntervalNs: int64(interval)}}
		c.nodes = append(c.nodes, n)
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			n.loop(ctx, now)
		}()
	}
	return c
}

// Stop ends the scraping and returns one series per URL, in the order
// given. A node whose last scrape succeeded is scraped once more when at
// least a fifth of an interval has passed, so short runs get figures; one
// that was failing is not waited for. Stop is idempotent.
func (c *Collector) Stop() []result.NodeSeries {
	c.once.Do(func() {
		c.cancel()
		c.wg.Wait()
		var wg sync.WaitGroup
		for _, n := range c.nodes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.final()
			}()
		}
		wg.Wait()
		for _, n := range c.nodes {
			n.mu.Lock()
			c.out = append(c.out, n.series)
			n.mu.Unlock()
		}
	})
	return c.out
}

func (n *node) loop(ctx context.Context, start time.Time) {
	n.scrape(ctx, start)
	t := time.NewTicker(n.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			n.scrape(ctx, now)
		}
	}
}

// final is Stop's last scrape (see Stop).
func (n *node) final() {
	n.mu.Lock()
	skip := n.lastFailed || time.Since(n.lastAt) < n.interval/5
	n.mu.Unlock()
	if !skip {
		n.scrape(context.Background(), time.Now())
	}
}

// scrape reads the exporter once and appends a sample (or a missing one). A
// scrape cut short by Stop is not recorded: the node did nothing wrong.
func (n *node) scrape(ctx context.Context, at time.Time) {
	r, err := n.get(ctx)
	if ctx.Err() != nil {
		return
	}
	now := time.Now()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lastAt, n.lastFailed = at, err != nil
	if err != nil {
		n.series.Samples = append(n.series.Samples, result.NodeSample{
			OffsetNs: at.Sub(n.series.StartedAt).Nanoseconds(), Missing: true, Error: err.Error(), CPUMaxCoreID: -1})
		return
	}
	// The reading is as of when the answer came: the body is the exporter's
	// view at the moment it served it, which is closer to now than to at.
	if n.prev != nil {
		s := sample(n.prev, r, now.Sub(n.prevAt))
		s.OffsetNs = n.prevAt.Sub(n.series.StartedAt).Nanoseconds()
		n.series.Samples = append(n.series.Samples, s)
	}
	n.prev, n.prevAt = r, now
}

// get fetches and parses one exposition within the node's timeout.
func (n *node) get(ctx context.Context) (*reading, error) {
	ctx, cancel := context.WithTimeout(ctx, n.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, n.url, nil)
	if err != nil {
		return nil, err
	}
	// The text format: expfmt's text parser reads it, and every exporter serves it.
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := n.client.Do(req)
	if err != nil {
		return nil, n.explain(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	r, err := parseExposition(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, n.explain(err)
	}
	return r, nil
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
