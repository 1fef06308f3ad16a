package cli

import "flag"

// registerNodes adds --server-metrics (repeatable), --server-metrics-port, --db-metrics and --db-metrics-url,
// which fill telemetry.Config's ServerMetrics and ServerMetricsPort: the
// server nodes' node_exporters to scrape during the run.
func (f *telemetryFlags) registerNodes(fs *flag.FlagSet) {
	fs.Var((*listFlag)(&f.ServerMetrics), "server-metrics", "node_exporter `URL` of a server node, e.g. http://10.0.0.5:9100/metrics or 10.0.0.5:9100, scraped every telemetry interval (repeatable); auto: every node the target discovered, on --server-metrics-port or 9100")
	fs.StringVar(&f.DBMetrics, "db-metrics", "auto", "the servers' own figures (Redis/Valkey INFO) every telemetry interval: auto (when the target can tell), reset (also CONFIG RESETSTAT at the start, so latency percentiles cover the run) or off")
	fs.Var((*listFlag)(&f.DBMetricsURLs), "db-metrics-url", "Prometheus JMX exporter `URL` on a Kafka or Cassandra server running platbench's rules (scripts/servers/jmx), e.g. 10.0.0.5:7070, scraped every telemetry interval (repeatable)")
	fs.IntVar(&f.ServerMetricsPort, "server-metrics-port", 0, "scrape node_exporter on this `port` of each of the target's nodes (usually 9100), when no --server-metrics is given")
}
