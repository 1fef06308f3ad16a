package dbmetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"sync"
	"unicode"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/telemetry/promtext"
	"github.com/platbench/platbench/telemetry/scrape"
)

// JMXSource is DBMetrics.Source for figures scraped from the Prometheus
// JMX exporter agent with the project's rule files.
const JMXSource = "jmx_exporter"

// errNoPlatbenchRules is a body without the names the project's rule files
// give (scripts/servers/jmx/*.yaml).
var errNoPlatbenchRules = errors.New("the body has no platbench_db_* metrics: is the JMX exporter agent running with platbench's rules (scripts/servers/jmx/kafka.yaml, cassandra.yaml or hazelcast.yaml)?")

// quantileNames maps the rule files' quantile labels (from the JMX
// attributes 50thPercentile, 99thPercentile, 999thPercentile) to the
// result's keys.
var quantileNames = map[string]string{"50": "p50", "75": "p75", "95": "p95", "98": "p98", "99": "p99", "999": "p99.9"}

// A jmxParser reads one node's JMX exporter bodies in the Prometheus text
// format (package promtext: reading a body whose names were seen allocates
// nothing but the reading's maps; expfmt, which this replaces, made five
// to six bytes of garbage per byte of a 16-22 KB body every second). The
// rule files export everything as gauges under the names jmxFamily lists
// (see scripts/servers/jmx/kafka.yaml); series of one name that differ in
// other labels (one per garbage collector) are summed. Values that are
// NaN or infinite are left out.
type jmxParser struct {
	mu     sync.Mutex // a URL given twice shares its parser
	r      *promtext.Reader
	snakes map[string]string // the rules' names in snake case, bounded by promtext.MaxNames

	// The reading being read, and what it needs at the end.
	cur     *reading
	means   map[string]float64
	hasTime map[string]bool
	found   bool
}

// The labels a JMX reading keeps, in promtext.Reader.Label's order.
const (
	labelServer = iota
	labelName
	labelCommand
	labelQuantile
)

func newJMXParser() *jmxParser {
	return &jmxParser{r: promtext.NewReader("server", "name", "command", "quantile"), snakes: map[string]string{},
		means: map[string]float64{}, hasTime: map[string]bool{}}
}

// jmxFamily are the names the rule files export.
func jmxFamily(name []byte) bool {
	switch string(name) {
	case "platbench_db_server", "platbench_db_counter", "platbench_db_gauge", "platbench_db_command_count",
		"platbench_db_command_mean_ms", "platbench_db_command_time_us", "platbench_db_command_quantile_ms":
		return true
	}
	return false
}

func (p *jmxParser) parse(body io.Reader) (*reading, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cur, p.found = newReading(), false
	clear(p.means)
	clear(p.hasTime)
	if len(p.snakes) > promtext.MaxNames {
		clear(p.snakes)
	}
	err := p.r.Read(body, jmxFamily, p.sample)
	r := p.cur
	p.cur = nil
	if err != nil {
		return nil, err
	}
	if !p.found {
		return nil, errNoPlatbenchRules
	}
	// A histogram that keeps its mean over every value since the start
	// (Kafka's): count x mean is the total, exact by difference.
	for cmd, mean := range p.means {
		if !p.hasTime[cmd] {
			r.timeNs[cmd] = mean * 1e6 * r.calls[cmd]
		}
	}
	return r, nil
}

// sample adds one sample of the rules' families to the reading.
func (p *jmxParser) sample(name []byte, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	r, label := p.cur, p.r.Label
	cmd := func() string { return p.r.Intern(label(labelCommand)) }
	switch string(name) {
	case "platbench_db_server":
		r.server = p.r.Intern(label(labelServer))
	case "platbench_db_counter":
		r.counters[p.snake(label(labelName))] += v
	case "platbench_db_gauge":
		r.gauges[p.snake(label(labelName))] += v
	case "platbench_db_command_count":
		// Series of one command that differ in other labels (one per
		// Hazelcast map) add up.
		r.calls[cmd()] += v
	case "platbench_db_command_mean_ms":
		p.means[cmd()] = v
	case "platbench_db_command_time_us":
		c := cmd()
		r.timeNs[c] += v * 1e3
		p.hasTime[c] = true
	case "platbench_db_command_quantile_ms":
		q, ok := quantileNames[string(label(labelQuantile))]
		if !ok || math.IsInf(v*1e6, 0) {
			return nil
		}
		c := cmd()
		if r.pct[c] == nil {
			r.pct[c] = map[string]float64{}
		}
		r.pct[c][q] = v * 1e6
	}
	p.found = true
	return nil
}

// snake is snake(b), kept.
func (p *jmxParser) snake(b []byte) string {
	if s, ok := p.snakes[string(b)]; ok {
		return s
	}
	s := snake(string(b))
	p.snakes[string(b)] = s
	return s
}

// snake turns a JMX name into the result's: BytesIn → bytes_in,
// GCSeconds → gc_seconds, UnderReplicatedPartitions →
// under_replicated_partitions, "Pending Native-Transport-Requests" →
// pending_native_transport_requests.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	sep := func() {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "_") {
			b.WriteByte('_')
		}
	}
	for i, c := range rs {
		switch {
		case c == ' ' || c == '-' || c == '_' || c == '.':
			sep()
			continue
		case unicode.IsUpper(c) && i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1])):
			sep()
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return strings.TrimSuffix(b.String(), "_")
}

// getJMX scrapes one exporter (a token in its URL goes as a header: scrape.Endpoint).
func getJMX(ctx context.Context, client *http.Client, p *jmxParser, e *scrape.Endpoint) (*reading, error) {
	resp, err := e.Get(ctx, client, "text/plain;version=0.0.4")
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, errors.New("no answer in time")
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return nil, fmt.Errorf("HTTP %s", resp.Status)
	}
	r, err := p.parse(resp.Body)
	if errors.Is(err, promtext.ErrBodyTooLong) {
		err = fmt.Errorf("%w: not a JMX exporter's /metrics", err)
	}
	return r, err
}

// URLProblems checks the JMX exporters' URLs (config field db_metrics_url).
func URLProblems(urls []string) usererr.List {
	var l usererr.List
	for _, s := range urls {
		if _, err := NormalizeURL(s); err != nil {
			l = append(l, err)
		}
	}
	return l
}

// NormalizeURL reads a JMX exporter's address (see scrape.URL: host:port
// reads as http://host:port/metrics; the port is required); a bad one is a
// usererr naming db_metrics_url.
func NormalizeURL(s string) (string, *usererr.Error) {
	return scrape.URL(s, "db_metrics_url", "the JMX exporter's URL, such as http://10.0.0.5:7070/metrics", true)
}
