package dbmetrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// reading is one node's cumulative figures at one moment, whatever the
// source: counters turn into rates over a sample, gauges are kept as read.
type reading struct {
	server, version string
	counters        map[string]float64 // result name without "_per_s" → cumulative count
	gauges          map[string]float64
	calls, timeNs   map[string]float64            // per command, cumulative
	pct             map[string]map[string]float64 // per command: "p50" → ns (cumulative since a reset)
}

func newReading() *reading {
	return &reading{counters: map[string]float64{}, gauges: map[string]float64{},
		calls: map[string]float64{}, timeNs: map[string]float64{}, pct: map[string]map[string]float64{}}
}

// The Redis INFO fields recorded, by the name they get in the result.
var (
	redisCounters = map[string]string{
		"total_commands_processed": "ops",
		"keyspace_hits":            "keyspace_hits",
		"keyspace_misses":          "keyspace_misses",
		"total_net_input_bytes":    "net_input_bytes",
		"total_net_output_bytes":   "net_output_bytes",
		"expired_keys":             "expired_keys",
		"evicted_keys":             "evicted_keys",
	}
	redisGauges = map[string]string{
		"instantaneous_ops_per_sec": "instantaneous_ops_per_s",
		"used_memory":               "used_memory_bytes",
		"used_memory_rss":           "used_memory_rss_bytes",
		"connected_clients":         "connected_clients",
		"blocked_clients":           "blocked_clients",
	}
)

// RedisLatencyStats is the name of the server-side percentiles in
// DBMetrics.Unavailable when a server has no INFO latencystats (Redis
// before 7.0, or latency-tracking off).
const RedisLatencyStats = "latency percentiles (INFO latencystats)"

// parseInfo reads Redis or Valkey INFO text ("# Section" headers, then
// field:value lines). Lines it does not know are skipped; a text with no
// field at all is an error (not INFO).
func parseInfo(text string) (*reading, error) {
	r := newReading()
	r.server = "redis"
	fields := 0
	keys := 0.0
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		name, val, ok := strings.Cut(line, ":")
		if !ok || line[0] == '#' {
			continue
		}
		fields++
		switch {
		case name == "redis_version":
			r.version = val
		case name == "valkey_version":
			r.server, r.version = "valkey", val
		case redisCounters[name] != "":
			if v, ok := num(val); ok {
				r.counters[redisCounters[name]] = v
			}
		case redisGauges[name] != "":
			if v, ok := num(val); ok {
				r.gauges[redisGauges[name]] = v
			}
		case strings.HasPrefix(name, "cmdstat_"):
			kv := attrs(val)
			cmd := strings.TrimPrefix(name, "cmdstat_")
			if c, ok := kv["calls"]; ok {
				r.calls[cmd] = c
				if ns := kv["usec"] * 1e3; !math.IsInf(ns, 0) {
					r.timeNs[cmd] = ns
				}
			}
		case strings.HasPrefix(name, "latency_percentiles_usec_"):
			kv := attrs(val)
			p := map[string]float64{}
			for k, v := range kv {
				if ns := v * 1e3; !math.IsInf(ns, 0) {
					p[k] = ns
				}
			}
			if len(p) > 0 {
				r.pct[strings.TrimPrefix(name, "latency_percentiles_usec_")] = p
			}
		case len(name) > 2 && name[:2] == "db" && isDigits(name[2:]):
			keys += attrs(val)["keys"]
		}
	}
	if fields == 0 {
		return nil, fmt.Errorf("not INFO output (no field:value line)")
	}
	r.gauges["keys"] = keys
	return r, nil
}

// attrs parses "calls=3,usec=12,usec_per_call=4.00" (and latencystats'
// "p50=1.003,p99=2.007,p99.9=5.023"); values that are not numbers are
// skipped.
func attrs(s string) map[string]float64 {
	out := map[string]float64{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if f, ok := num(v); ok {
			out[k] = f
		}
	}
	return out
}

// num parses a finite number (INFO has no NaN or infinity; a body that
// does is not trusted with one).
func num(s string) (float64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func isDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
