package dbmetrics

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"
)

// A real body of the JMX exporter agent 1.0.1 on Kafka 4.3.1 with
// scripts/servers/jmx/kafka.yaml.
func TestParseKafkaJMX(t *testing.T) {
	f, err := os.Open("testdata/kafka-4.3.1-jmx-1.0.1.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parseJMX(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.server != "kafka" {
		t.Errorf("server %q", r.server)
	}
	// The two collectors' GC time is summed; names become snake case.
	if math.Abs(r.counters["gc_seconds"]-0.918) > 1e-9 || r.counters["gc_count"] != 49 {
		t.Errorf("gc %v %v", r.counters["gc_seconds"], r.counters["gc_count"])
	}
	for _, k := range []string{"bytes_in", "bytes_out", "messages_in", "total_produce_requests"} {
		if _, ok := r.counters[k]; !ok {
			t.Errorf("no counter %s in %v", k, r.counters)
		}
	}
	if _, ok := r.gauges["under_replicated_partitions"]; !ok {
		t.Errorf("gauges %v", r.gauges)
	}
	// Count x mean: 11386 Produce requests of 1.108554365009661 ms.
	if r.calls["Produce"] != 11386 || math.Abs(r.timeNs["Produce"]-11386*1.108554365009661e6) > 1 {
		t.Errorf("Produce: %v calls, %v ns", r.calls["Produce"], r.timeNs["Produce"])
	}
	if p := r.pct["Produce"]; len(p) != 3 || p["p99"] < p["p50"] {
		t.Errorf("Produce percentiles %v", p)
	}
	if u := unavailableJMX(r); len(u) != 0 {
		t.Errorf("unavailable %v", u)
	}
}

func TestParseJMXWithoutRules(t *testing.T) {
	_, err := parseJMX(strings.NewReader("# TYPE jvm_threads_current gauge\njvm_threads_current 42\n"))
	if err != errNoPlatbenchRules {
		t.Errorf("err %v", err)
	}
	// A server whose rules matched nothing of a figure: named, not zero.
	r, err := parseJMX(strings.NewReader("platbench_db_server{server=\"kafka\"} 1\nplatbench_db_counter{name=\"BytesIn\"} 5\n"))
	if err != nil {
		t.Fatal(err)
	}
	if u := strings.Join(unavailableJMX(r), ","); !strings.Contains(u, "messages_in_per_s") || !strings.Contains(u, "request Produce latency") || strings.Contains(u, "bytes_in") {
		t.Errorf("unavailable %s", u)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"BytesIn": "bytes_in", "GCSeconds": "gc_seconds", "UnderReplicatedPartitions": "under_replicated_partitions",
		"HeapUsedBytes": "heap_used_bytes", "PendingTasks": "pending_tasks", "x": "x",
		"Pending Native-Transport-Requests": "pending_native_transport_requests", "Pending MutationStage": "pending_mutation_stage", " a--b ": "a_b"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{"10.0.0.5:7070": "http://10.0.0.5:7070/metrics", "https://h:1/m": "https://h:1/m"} {
		if got, err := NormalizeURL(in); err != nil || got != want {
			t.Errorf("%q: %q %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "ftp://h:1", "http://:1", "h", "http://h"} {
		if _, err := NormalizeURL(bad); err == nil || err.Field != "db_metrics_url" {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func FuzzNormalizeURL(f *testing.F) {
	for _, s := range []string{"10.0.0.5:7070", "http://h:1/metrics", "", "h", "[::1]:7070", "http://%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := NormalizeURL(s)
		if err != nil {
			if err.Field != "db_metrics_url" || !strings.Contains(err.Error(), "fix:") {
				t.Fatalf("error %q for %q", err, s)
			}
			return
		}
		if again, err := NormalizeURL(u); err != nil || again != u {
			t.Fatalf("%q normalised to %q, which normalises to %q (%v)", s, u, again, err)
		}
	})
}

// jmxBodies are the agent's real bodies kept in testdata.
func jmxBodies(t testing.TB) []string {
	var out []string
	for _, n := range []string{"kafka-4.3.1-jmx-1.0.1.txt", "cassandra-5.0.9-jmx-1.0.1.txt", "hazelcast-5.4.0-jmx-1.0.1.txt"} {
		b, err := os.ReadFile("testdata/" + n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// jmxCorners are bodies that expfmt accepts, each with something the
// reading of the rules' families could get wrong.
func jmxCorners() []string {
	return []string{
		"platbench_db_server{server=\"kafka\"} 1\nplatbench_db_counter{name=\"GC Seconds\",gc=\"a\"} 1\nplatbench_db_counter{name=\"GC Seconds\",gc=\"b\"} 2\n",
		"platbench_db_command_count{command=\"get\"} 3\nplatbench_db_command_mean_ms{command=\"get\"} 2\nplatbench_db_command_time_us{command=\"set\"} 5\n",
		"platbench_db_command_quantile_ms{command=\"Read\",quantile=\"99\"} 1.5\nplatbench_db_command_quantile_ms{command=\"Read\",quantile=\"12\"} 1\n",
		"platbench_db_gauge{name=\"a\\\"b\"} NaN\nplatbench_db_gauge{name=\"c\"} -4\nplatbench_db_gauge{name=\"d\"} +Inf\n",
		"# TYPE platbench_db_gauge summary\nplatbench_db_gauge{quantile=\"0.5\"} 1\nplatbench_db_counter{name=\"x\"} 2\n",
		"jvm_threads_current 42\n# HELP platbench_db_server x\n# TYPE platbench_db_server untyped\nplatbench_db_server{server=\"cassandra\"} 1 1700000000000\n",
		"platbench_db_command_quantile_ms{command=\"x\",quantile=\"99\"} 1e305\nplatbench_db_command_count{command=\"x\"} 1e308\n",
		"jvm_threads_current 42\n",
	}
}

// The parser gives what expfmt gives, on the agent's real bodies and the
// corners, fresh and in a node's parser that read the others first.
func TestJMXParserIsExpfmt(t *testing.T) {
	used := newJMXParser()
	for _, body := range append(jmxCorners(), jmxBodies(t)...) {
		if _, err := parseJMXExpfmt(strings.NewReader(body)); err != nil && err != errNoPlatbenchRules {
			t.Fatalf("%.80q is no corner: expfmt rejects it: %v", body, err)
		}
		checkJMXAsExpfmt(t, newJMXParser(), body)
		checkJMXAsExpfmt(t, used, body)
	}
}

// A node's parser reads a body it has seen with no allocation but the
// reading's own (its maps): the same count when the body carries 5,000
// more lines of other families and its own samples twice, where expfmt's
// garbage grew with every line.
func TestJMXParserAllocs(t *testing.T) {
	body := jmxBodies(t)[1]
	var own strings.Builder
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "platbench_db_") {
			own.WriteString(l + "\n")
		}
	}
	long := body + strings.Repeat("jvm_memory_bytes_used{area=\"heap\"} 1.5e8\n", 5000) + own.String()
	p := newJMXParser()
	allocs := func(body string) float64 {
		br := strings.NewReader(body)
		read := func() {
			br.Reset(body)
			if _, err := p.parse(br); err != nil {
				t.Fatal(err)
			}
		}
		read()
		return testing.AllocsPerRun(20, read)
	}
	if a, b := allocs(body), allocs(long); a != b || a > 40 {
		t.Errorf("%v allocations per read of a Cassandra body, %v with 5,000 more lines: want equal, the reading's maps only", a, b)
	}
}

// FuzzParseJMX: the parser reads what expfmt reads, fresh and in a parser
// that read the real bodies; any body parses or fails without a panic, and
// a sample of it is encodable.
func FuzzParseJMX(f *testing.F) {
	for _, b := range append(jmxCorners(), jmxBodies(f)...) {
		f.Add(b)
	}
	used := newJMXParser()
	f.Fuzz(func(t *testing.T, body string) {
		checkJMXAsExpfmt(t, newJMXParser(), body)
		checkJMXAsExpfmt(t, used, body)
		r, err := parseJMX(strings.NewReader(body))
		if err != nil {
			return
		}
		if _, err := json.Marshal(sample(newReading(), r, 1)); err != nil {
			t.Fatalf("sample not encodable: %v", err)
		}
		_ = unavailableJMX(r)
	})
}

// A real body of the agent on Cassandra 5.0.9 with cassandra.yaml: the
// coordinator's total latency (µs) is the time, the quantiles are scaled to
// ms by the rule, the dropped messages of every verb are summed.
func TestParseCassandraJMX(t *testing.T) {
	r := readJMXFile(t, "cassandra-5.0.9-jmx-1.0.1.txt", "cassandra")
	if r.calls["Read"] != 3438 || r.timeNs["Read"] != 6036029e3 || r.calls["Write"] != 4333 || r.timeNs["Write"] != 7783975e3 {
		t.Errorf("Read %v calls %v ns, Write %v calls %v ns", r.calls["Read"], r.timeNs["Read"], r.calls["Write"], r.timeNs["Write"])
	}
	if p := r.pct["Read"]; math.Abs(p["p99"]-11.864e6) > 1 || math.Abs(p["p99.9"]-17.084e6) > 1 {
		t.Errorf("Read percentiles %v", p)
	}
	for _, g := range []string{"pending_compactions", "pending_native_transport_requests", "pending_mutation_stage", "load_bytes", "heap_used_bytes"} {
		if _, ok := r.gauges[g]; !ok {
			t.Errorf("no gauge %s in %v", g, r.gauges)
		}
	}
	if _, ok := r.counters["dropped_messages"]; !ok {
		t.Errorf("counters %v", r.counters)
	}
	if u := unavailableJMX(r); len(u) != 0 {
		t.Errorf("unavailable %v", u)
	}
}

// A real body of the agent on a Hazelcast 5.4.0 member with hazelcast.yaml:
// the maps' operation counts and total latency (ms in Hazelcast, µs by the
// rule), the entries the member owns, its queues and the JVM's GC.
func TestParseHazelcastJMX(t *testing.T) {
	r := readJMXFile(t, "hazelcast-5.4.0-jmx-1.0.1.txt", "hazelcast")
	if r.calls["get"] != 729 || r.timeNs["get"] != 90e6 || r.calls["set"] != 1729 || r.timeNs["set"] != 671e6 {
		t.Errorf("get %v calls %v ns, set %v calls %v ns", r.calls["get"], r.timeNs["get"], r.calls["set"], r.timeNs["set"])
	}
	if r.gauges["map_owned_entry_count"] != 1001 || r.gauges["operation_queue_size"] != 6 || r.counters["gc_seconds"] != 0.098 {
		t.Errorf("gauges %v counters %v", r.gauges, r.counters)
	}
	if u := unavailableJMX(r); len(u) != 0 {
		t.Errorf("unavailable %v", u)
	}
	// Two maps' series of one command add up.
	two := "platbench_db_server{server=\"hazelcast\"} 1\n" +
		"platbench_db_command_count{command=\"get\",map=\"a\"} 10\nplatbench_db_command_count{command=\"get\",map=\"b\"} 5\n" +
		"platbench_db_command_time_us{command=\"get\",map=\"a\"} 1000\nplatbench_db_command_time_us{command=\"get\",map=\"b\"} 500\n"
	if r, err := parseJMX(strings.NewReader(two)); err != nil || r.calls["get"] != 15 || r.timeNs["get"] != 1.5e6 {
		t.Errorf("two maps: %v calls, %v ns, %v", r.calls["get"], r.timeNs["get"], err)
	}
}

// readJMXFile parses testdata/name and checks the server it names.
func readJMXFile(t *testing.T, name, server string) *reading {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := parseJMX(f)
	if err != nil {
		t.Fatal(err)
	}
	if r.server != server {
		t.Errorf("%s: server %q, want %q", name, r.server, server)
	}
	return r
}
