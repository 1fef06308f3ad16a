package result

import "time"

// DBMetrics are the data system's own figures during the run (issue 18,
// part 2): what the servers say about themselves (Redis and Valkey from
// INFO; Kafka and Cassandra from the Prometheus JMX exporter), one series
// per server node on the telemetry clock.
type DBMetrics struct {
	// Source says where the figures come from: "redis INFO" or "jmx_exporter".
	Source string `json:"source"`
	// Server names the system: "redis", "valkey", "kafka", "cassandra".
	Server string `json:"server,omitempty"`
	// Reset is true when the servers' statistics were reset (Redis CONFIG
	// RESETSTAT) when recording started, so cumulative figures
	// (latencystats percentiles) cover the run, the load phase included.
	Reset bool `json:"reset,omitempty"`
	// Unavailable names the figures the servers did not expose (an older
	// server, latency tracking off, a rule not matching): absent, not zero.
	Unavailable []string          `json:"unavailable,omitempty"`
	Nodes       []DBMetricsSeries `json:"nodes"`
}

// DBMetricsSeries is one server node's samples.
type DBMetricsSeries struct {
	Node       string    `json:"node"` // host:port
	StartedAt  time.Time `json:"started_at"`
	IntervalNs int64     `json:"interval_ns"`
	// Version is the server's version as it reported it.
	Version string            `json:"version,omitempty"`
	Samples []DBMetricsSample `json:"samples"`
}

// DBMetricsSample is one node's figures over [StartedAt + OffsetNs,
// +DurationNs), from two readings of the server's cumulative counters.
// Values hold rates (per second over the sample) and gauges (at the end of
// the sample) under the names docs/telemetry.md lists, e.g. ops_per_s,
// used_memory_bytes, connected_clients, keyspace_hits_per_s; a name the
// server does not expose is absent. Commands are per command (Redis) or
// request type (Kafka).
//
// A missing sample (Missing true) marks a reading that failed at OffsetNs;
// Error says why, and the next good sample spans the gap.
type DBMetricsSample struct {
	OffsetNs   int64                      `json:"offset_ns"`
	DurationNs int64                      `json:"duration_ns"`
	Missing    bool                       `json:"missing,omitempty"`
	Error      string                     `json:"error,omitempty"`
	Values     map[string]float64         `json:"values,omitempty"`
	Commands   map[string]DBCommandSample `json:"commands,omitempty"`
}

// DBCommandSample is one command's server-side figures over a sample.
type DBCommandSample struct {
	// Calls completed in the sample.
	Calls uint64 `json:"calls"`
	// TimeNs is the server-side time those calls took in all (Redis
	// commandstats usec; Kafka's request time), so TimeNs/Calls is the
	// mean; 0 with Calls > 0 when the server does not report it.
	TimeNs float64 `json:"time_ns,omitempty"`
	// Percentiles are server-side latency percentiles in ns, keyed "p50",
	// "p99", "p99.9". Redis latencystats are cumulative since the server's
	// statistics were last reset (see DBMetrics.Reset), not per sample.
	Percentiles map[string]float64 `json:"percentiles_ns,omitempty"`
}
