package dbmetrics

import (
	"io"
	"math"
	"reflect"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// parseJMX reads one body with a new parser, as a node's first scrape does.
func parseJMX(body io.Reader) (*reading, error) { return newJMXParser().parse(body) }

// The reference the parser is held to: a JMX exporter body read by
// github.com/prometheus/common/expfmt (the parser platbench used before
// package promtext), its families turned into a reading the same way.
// TestJMXParserIsExpfmt and FuzzParseJMX compare the two.
func parseJMXExpfmt(body io.Reader) (*reading, error) {
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
			v, ok := expfmtValue(m)
			if !ok {
				continue
			}
			l := func(k string) string {
				for _, p := range m.Label {
					if p.GetName() == k {
						return p.GetValue()
					}
				}
				return ""
			}
			switch name {
			case "platbench_db_server":
				r.server = l("server")
			case "platbench_db_counter":
				r.counters[snake(l("name"))] += v
			case "platbench_db_gauge":
				r.gauges[snake(l("name"))] += v
			case "platbench_db_command_count":
				r.calls[l("command")] += v
			case "platbench_db_command_mean_ms":
				means[l("command")] = v
			case "platbench_db_command_time_us":
				r.timeNs[l("command")] += v * 1e3
				hasTime[l("command")] = true
			case "platbench_db_command_quantile_ms":
				q, ok := quantileNames[l("quantile")]
				if !ok || math.IsInf(v*1e6, 0) {
					continue
				}
				if r.pct[l("command")] == nil {
					r.pct[l("command")] = map[string]float64{}
				}
				r.pct[l("command")][q] = v * 1e6
			default:
				continue
			}
			found = true
		}
	}
	if !found {
		return nil, errNoPlatbenchRules
	}
	for cmd, mean := range means {
		if !hasTime[cmd] {
			r.timeNs[cmd] = mean * 1e6 * r.calls[cmd]
		}
	}
	return r, nil
}

func expfmtValue(m *dto.Metric) (float64, bool) {
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

// checkJMXAsExpfmt: when expfmt reads body, p (a node's parser that may
// have read other bodies) gives the same reading, or the same error when
// expfmt's reading has none of the rules' names.
func checkJMXAsExpfmt(t *testing.T, p *jmxParser, body string) {
	want, werr := parseJMXExpfmt(strings.NewReader(body))
	if werr != nil && werr != errNoPlatbenchRules {
		return
	}
	got, err := p.parse(strings.NewReader(body))
	if err != werr || !reflect.DeepEqual(got, want) {
		t.Fatalf("%.200q:\nparser %+v, %v\nexpfmt %+v, %v", body, got, err, want, werr)
	}
}
