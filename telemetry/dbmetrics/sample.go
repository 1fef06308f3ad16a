package dbmetrics

import (
	"math"
	"sort"

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
		s.Values[k] = v
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
