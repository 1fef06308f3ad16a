package dbmetrics

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"unicode"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/platbench/platbench/internal/usererr"
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

// parseJMX reads a JMX exporter body in the Prometheus text format (via
// expfmt). The rule files export everything as gauges under five names
// (see scripts/servers/jmx/kafka.yaml); series of one name that differ in
// other labels (one per garbage collector) are summed. Values that are
// NaN or infinite are left out.
func parseJMX(body io.Reader) (*reading, error) {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(body)
	if err != nil {
		return nil, err
	}
	r := newReading()
	means := map[string]float64{}
	hasTime := map[string]bool{}
	found := false
	for name, f := range fams {
		for _, m := range f.Metric {
			v, ok := gaugeValue(m)
			if !ok {
				continue
			}
			l := labels(m)
			switch name {
			case "platbench_db_server":
				r.server = l["server"]
			case "platbench_db_counter":
				r.counters[snake(l["name"])] += v
			case "platbench_db_gauge":
				r.gauges[snake(l["name"])] += v
			case "platbench_db_command_count":
				// Series of one command that differ in other labels (one
				// per Hazelcast map) add up.
				r.calls[l["command"]] += v
			case "platbench_db_command_mean_ms":
				means[l["command"]] = v
			case "platbench_db_command_time_us":
				r.timeNs[l["command"]] += v * 1e3
				hasTime[l["command"]] = true
			case "platbench_db_command_quantile_ms":
				q, ok := quantileNames[l["quantile"]]
				if !ok || math.IsInf(v*1e6, 0) {
					continue
				}
				if r.pct[l["command"]] == nil {
					r.pct[l["command"]] = map[string]float64{}
				}
				r.pct[l["command"]][q] = v * 1e6
			default:
				continue
			}
			found = true
		}
	}
	if !found {
		return nil, errNoPlatbenchRules
	}
	// A histogram that keeps its mean over every value since the start
	// (Kafka's): count x mean is the total, exact by difference.
	for cmd, mean := range means {
		if !hasTime[cmd] {
			r.timeNs[cmd] = mean * 1e6 * r.calls[cmd]
		}
	}
	return r, nil
}

func gaugeValue(m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	case m.Counter != nil:
		v = m.Counter.GetValue()
	default:
		return 0, false
	}
	return v, !math.IsNaN(v) && !math.IsInf(v, 0)
}

func labels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, l := range m.Label {
		out[l.GetName()] = l.GetValue()
	}
	return out
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

// getJMX scrapes one exporter.
func getJMX(ctx context.Context, client *http.Client, u string) (*reading, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
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
	return parseJMX(io.LimitReader(resp.Body, 16<<20))
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
