package dbmetrics

import (
	"math"
	"sort"
	"strings"

	"github.com/platbench/platbench/result"
)

// sample turns two readings secs apart into one sample: counters become
// rates ("NAME_per_s"), gauges are the later reading's, commands get the
// calls and server time between the readings and the later percentiles. A
// counter that went down (the server restarted, or its statistics were
// reset) gives no figure for this sample rather than a negative one.
func sample(prev, cur *reading, secs float64) result.DBMetricsSample {
	s := result.DBMetricsSample{Values: map[string]float64{}}
	if secs <= 0 {
		secs = math.SmallestNonzeroFloat64
	}
	for k, v := range cur.counters {
		if p, ok := prev.counters[k]; ok && v >= p {
			if rate := (v - p) / secs; !math.IsInf(rate, 0) {
				s.Values[k+"_per_s"] = rate
			}
		}
	}
	for k, v := range cur.gauges {
		if !math.IsInf(v, 0) && !math.IsNaN(v) {
			s.Values[k] = v
		}
	}
	for cmd, c := range cur.calls {
		p := prev.calls[cmd] // a command first seen now had 0 calls before
		if c < p {
			continue
		}
		cs := result.DBCommandSample{Calls: uint64(c - p)}
		if t := cur.timeNs[cmd] - prev.timeNs[cmd]; t > 0 && !math.IsInf(t, 0) {
			cs.TimeNs = t
		}
		if pc := cur.pct[cmd]; len(pc) > 0 {
			cs.Percentiles = pc
		}
		if cs.Calls == 0 && cs.Percentiles == nil {
			continue
		}
		if s.Commands == nil {
			s.Commands = map[string]result.DBCommandSample{}
		}
		s.Commands[cmd] = cs
	}
	return s
}

// unavailable names the figures a reading lacks of those its source
// promises.
func unavailable(r *reading) []string {
	var out []string
	for _, name := range redisCounters {
		if _, ok := r.counters[name]; !ok {
			out = append(out, name+"_per_s")
		}
	}
	for _, name := range redisGauges {
		if _, ok := r.gauges[name]; !ok {
			out = append(out, name)
		}
	}
	if len(r.pct) == 0 {
		out = append(out, RedisLatencyStats)
	}
	sort.Strings(out)
	return out
}

// jmxExpected are the figures the project's rule files give, per server:
// one a reading lacks is not exposed (an older server, a rule that no
// longer matches).
var jmxExpected = map[string][]string{
	"kafka": {"bytes_in_per_s", "bytes_out_per_s", "messages_in_per_s", "under_replicated_partitions", "gc_seconds_per_s",
		"request Produce", "request Fetch", "log flush"},
	"cassandra": {"pending_compactions", "dropped_messages_per_s", "hints_per_s", "gc_seconds_per_s",
		"request Read", "request Write"},
	"hazelcast": {"map_owned_entry_count", "pending_invocations", "operation_queue_size", "gc_seconds_per_s",
		"request get", "request set"},
}

// unavailableJMX names what a JMX exporter reading lacks of its server's
// figures.
func unavailableJMX(r *reading) []string {
	var out []string
	for _, f := range jmxExpected[r.server] {
		name, isCmd := strings.CutPrefix(f, "request ")
		if f == "log flush" {
			name, isCmd = f, true
		}
		switch {
		case isCmd:
			if _, ok := r.calls[name]; !ok {
				out = append(out, f+" latency")
			}
		case strings.HasSuffix(f, "_per_s"):
			if _, ok := r.counters[strings.TrimSuffix(f, "_per_s")]; !ok {
				out = append(out, f)
			}
		default:
			if _, ok := r.gauges[f]; !ok {
				out = append(out, f)
			}
		}
	}
	return out
}
