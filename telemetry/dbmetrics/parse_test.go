package dbmetrics

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

func readInfo(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A real Redis 7.0.15 INFO everything, as the wire carries it (CRLF).
func TestParseRedisInfo(t *testing.T) {
	text := strings.ReplaceAll(readInfo(t, "redis-7.0.15.txt"), "\n", "\r\n")
	r, err := parseInfo(text)
	if err != nil {
		t.Fatal(err)
	}
	if r.server != "redis" || r.version != "7.0.15" {
		t.Errorf("server %q %q", r.server, r.version)
	}
	want := map[string]float64{"ops": 90007, "keyspace_hits": 29830, "keyspace_misses": 0}
	for k, v := range want {
		if r.counters[k] != v {
			t.Errorf("counter %s = %v, want %v", k, r.counters[k], v)
		}
	}
	if r.gauges["used_memory_bytes"] != 7304824 || r.gauges["connected_clients"] != 1 || r.gauges["keys"] != 10000 {
		t.Errorf("gauges %v", r.gauges)
	}
	if r.calls["get"] != 29830 || r.timeNs["get"] != 131487e3 {
		t.Errorf("get: %v calls, %v ns", r.calls["get"], r.timeNs["get"])
	}
	p := r.pct["get"]
	if math.Abs(p["p50"]-3007) > 1e-6 || math.Abs(p["p99"]-35071) > 1e-6 || math.Abs(p["p99.9"]-83455) > 1e-6 {
		t.Errorf("get percentiles %v", p)
	}
	if u := unavailable(r); len(u) != 0 {
		t.Errorf("unavailable %v", u)
	}
}

func TestParseValkeyInfo(t *testing.T) {
	r, err := parseInfo(readInfo(t, "valkey-8.1.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if r.server != "valkey" || r.version != "8.1.8" {
		t.Errorf("server %q %q", r.server, r.version)
	}
	if _, ok := r.counters["ops"]; !ok || len(r.pct) == 0 {
		t.Errorf("counters %v, percentiles %v", r.counters, r.pct)
	}
}

// A server without INFO latencystats (Redis 6, or latency-tracking no)
// names the percentiles not available rather than giving zeros.
func TestNoLatencyStats(t *testing.T) {
	var lines []string
	for _, l := range strings.Split(readInfo(t, "redis-7.0.15.txt"), "\n") {
		if !strings.HasPrefix(l, "latency_percentiles_usec_") && !strings.HasPrefix(l, "instantaneous_ops_per_sec") {
			lines = append(lines, l)
		}
	}
	r, err := parseInfo(strings.Join(lines, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	u := unavailable(r)
	if strings.Join(u, "|") != "instantaneous_ops_per_s|"+RedisLatencyStats {
		t.Errorf("unavailable %q", u)
	}
	s := sample(r, r, 1)
	if _, ok := s.Values["instantaneous_ops_per_s"]; ok {
		t.Error("a figure the server lacks was stored")
	}
}

// Two readings one and a half seconds apart: rates, gauges and per-command
// differences by hand.
func TestSample(t *testing.T) {
	a, b := newReading(), newReading()
	a.counters["ops"], b.counters["ops"] = 1000, 4000
	a.counters["keyspace_hits"], b.counters["keyspace_hits"] = 500, 200 // went down: a reset
	b.gauges["used_memory_bytes"] = 1 << 20
	a.calls["get"], b.calls["get"] = 100, 1600
	a.timeNs["get"], b.timeNs["get"] = 1e6, 4e6
	b.calls["set"], b.timeNs["set"] = 10, 50e3 // first seen now
	b.pct["get"] = map[string]float64{"p50": 2000}
	s := sample(a, b, 1.5)
	if s.Values["ops_per_s"] != 2000 {
		t.Errorf("ops_per_s %v", s.Values["ops_per_s"])
	}
	if _, ok := s.Values["keyspace_hits_per_s"]; ok {
		t.Error("a counter that went down gave a figure")
	}
	if s.Values["used_memory_bytes"] != 1<<20 {
		t.Errorf("gauge %v", s.Values)
	}
	g := s.Commands["get"]
	if g.Calls != 1500 || g.TimeNs != 3e6 || g.Percentiles["p50"] != 2000 {
		t.Errorf("get %+v", g)
	}
	if st := s.Commands["set"]; st.Calls != 10 || st.TimeNs != 50e3 {
		t.Errorf("set %+v", st)
	}
}

func TestParseNotInfo(t *testing.T) {
	for _, s := range []string{"", "OK", "# Server\r\n"} {
		if _, err := parseInfo(s); err == nil {
			t.Errorf("%q parsed", s)
		}
	}
}

// FuzzParseInfo: any text parses or fails without a panic, and a sample of
// two readings is encodable (no NaN or Inf reaches the result).
func FuzzParseInfo(f *testing.F) {
	for _, n := range []string{"redis-7.0.15.txt", "valkey-8.1.txt"} {
		b, err := os.ReadFile("testdata/" + n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add("cmdstat_get:calls=NaN,usec=Inf\nlatency_percentiles_usec_x:p50=1e400\ndb0:keys=-1\nused_memory:1e309")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := parseInfo(text)
		if err != nil {
			return
		}
		s := sample(newReading(), r, 1)
		neg := newReading()
		for k, v := range r.counters {
			neg.counters[k] = -v
		}
		for k, v := range r.timeNs {
			neg.timeNs[k] = -v
		}
		if _, err := json.Marshal(sample(neg, r, 1e-300)); err != nil {
			t.Fatalf("sample not encodable: %v", err)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("sample not encodable: %v", err)
		}
		_ = unavailable(r)
	})
}

// The cost of one reading of a node: parsing a real INFO everything body
// (about 200 lines) and differencing it against the previous one.
func BenchmarkReadInfo(b *testing.B) {
	text, err := os.ReadFile("testdata/redis-7.0.15.txt")
	if err != nil {
		b.Fatal(err)
	}
	prev, _ := parseInfo(string(text))
	b.ReportAllocs()
	for b.Loop() {
		r, err := parseInfo(string(text))
		if err != nil {
			b.Fatal(err)
		}
		_ = sample(prev, r, 1)
	}
}

// The same for a JMX exporter body with the project's Kafka rules, read
// by one node's parser as every scrape of a run reads it.
func BenchmarkReadJMX(b *testing.B) {
	body, err := os.ReadFile("testdata/kafka-4.3.1-jmx-1.0.1.txt")
	if err != nil {
		b.Fatal(err)
	}
	p := newJMXParser()
	prev, _ := p.parse(bytes.NewReader(body))
	br := bytes.NewReader(body)
	b.ReportAllocs()
	for b.Loop() {
		br.Reset(body)
		r, err := p.parse(br)
		if err != nil {
			b.Fatal(err)
		}
		_ = sample(prev, r, 1)
	}
}
