package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/platbench/platbench/result"
)

// The metric families; names and help are the endpoint's contract
// (docs/telemetry.md), kept from the hand-written exposition this replaced.
var (
	descUp         = desc("platbench_up", "1 while platbench runs; phase names the running phase.", "phase")
	descOps        = desc("platbench_ops_total", "Operations completed without error since the phase began.", "phase", "op")
	descErrors     = desc("platbench_errors_total", "Failed operations since the phase began, by error class.", "phase", "op", "class")
	descThroughput = desc("platbench_throughput_ops_per_second", "Completions per second over the last closed interval.", "phase", "op")
	descLatency    = desc("platbench_interval_latency_seconds", "Latency quantiles of the last closed interval (from the intended start in open-loop runs).", "phase", "op", "quantile")

	descDBValue     = desc("platbench_db_value", "The server's own figure over its last sample (Redis INFO, the JMX exporter): rates per second (names ending _per_s) and levels, by the result's names.", "node", "name")
	descDBCalls     = desc("platbench_db_command_calls_per_second", "Calls of a command (request type) per second on the server over its last sample.", "node", "command")
	descDBMean      = desc("platbench_db_command_mean_seconds", "Mean server-side time of a command over the server's last sample.", "node", "command")
	descDBQuantiles = desc("platbench_db_command_latency_seconds", "The server's own latency quantiles of a command (Redis latencystats: cumulative since its statistics were reset; JMX: its recent window).", "node", "command", "quantile")

	descHostCPU = desc("platbench_host_cpu_ratio", "Share of all CPUs' time over the last sample, by mode.", "mode")
	descDisk    = []diskDesc{
		{desc("platbench_host_disk_reads_per_second", "Read I/Os completed per second.", "device"), func(d result.DiskIO, r rateFn) float64 { return r(d.Reads) }},
		{desc("platbench_host_disk_writes_per_second", "Write I/Os completed per second.", "device"), func(d result.DiskIO, r rateFn) float64 { return r(d.Writes) }},
		{desc("platbench_host_disk_read_bytes_per_second", "Bytes read per second.", "device"), func(d result.DiskIO, r rateFn) float64 { return r(d.ReadBytes) }},
		{desc("platbench_host_disk_written_bytes_per_second", "Bytes written per second.", "device"), func(d result.DiskIO, r rateFn) float64 { return r(d.WriteBytes) }},
		{desc("platbench_host_disk_read_latency_seconds", "Mean read latency over the last sample.", "device"), func(d result.DiskIO, _ rateFn) float64 { return float64(d.ReadLatencyNs) / 1e9 }},
		{desc("platbench_host_disk_write_latency_seconds", "Mean write latency over the last sample.", "device"), func(d result.DiskIO, _ rateFn) float64 { return float64(d.WriteLatencyNs) / 1e9 }},
		{desc("platbench_host_disk_busy_ratio", "Share of time the device had I/O in flight.", "device"), func(d result.DiskIO, _ rateFn) float64 { return d.BusyFraction }},
	}
	descNet = []netDesc{
		{desc("platbench_host_network_receive_bytes_per_second", "Bytes received per second.", "interface"), func(n result.NetIO, r rateFn) float64 { return r(n.RxBytes) }},
		{desc("platbench_host_network_transmit_bytes_per_second", "Bytes sent per second.", "interface"), func(n result.NetIO, r rateFn) float64 { return r(n.TxBytes) }},
		{desc("platbench_host_network_receive_packets_per_second", "Packets received per second.", "interface"), func(n result.NetIO, r rateFn) float64 { return r(n.RxPackets) }},
		{desc("platbench_host_network_transmit_packets_per_second", "Packets sent per second.", "interface"), func(n result.NetIO, r rateFn) float64 { return r(n.TxPackets) }},
	}
	descHost = []hostDesc{
		{desc("platbench_host_busiest_core_ratio", "Busy share of the busiest core over the last sample."), func(h *result.HostSample, _ rateFn) float64 { return h.CPUMaxCore }},
		{desc("platbench_host_busiest_core_irq_ratio", "Highest irq+softirq share of any one core over the last sample."), func(h *result.HostSample, _ rateFn) float64 { return h.CPUMaxCoreIRQ }},
		{desc("platbench_host_load1", "One-minute load average."), func(h *result.HostSample, _ rateFn) float64 { return h.Load1 }},
		{desc("platbench_host_memory_used_bytes", "Memory used by processes and the kernel, without page cache and buffers."), func(h *result.HostSample, _ rateFn) float64 { return float64(h.MemUsedBytes) }},
		{desc("platbench_host_memory_available_bytes", "MemAvailable from /proc/meminfo."), func(h *result.HostSample, _ rateFn) float64 { return float64(h.MemAvailableBytes) }},
		{desc("platbench_host_page_cache_bytes", "Page cache (Cached in /proc/meminfo)."), func(h *result.HostSample, _ rateFn) float64 { return float64(h.PageCacheBytes) }},
		{desc("platbench_host_dirty_bytes", "Dirty page cache waiting for writeback."), func(h *result.HostSample, _ rateFn) float64 { return float64(h.DirtyBytes) }},
		{desc("platbench_host_context_switches_per_second", "Context switches per second over the last sample."), func(h *result.HostSample, r rateFn) float64 { return r(h.CtxSwitches) }},
		{desc("platbench_host_interrupts_per_second", "Interrupts per second over the last sample."), func(h *result.HostSample, r rateFn) float64 { return r(h.Interrupts) }},
		{desc("platbench_host_major_faults_per_second", "Major page faults (pages read from disk on a fault) per second over the last sample (/proc/vmstat pgmajfault)."), func(h *result.HostSample, r rateFn) float64 { return r(h.MajorFaults) }},
		{desc("platbench_host_swap_in_pages_per_second", "Pages swapped in per second over the last sample (/proc/vmstat pswpin)."), func(h *result.HostSample, r rateFn) float64 { return r(h.SwapInPages) }},
		{desc("platbench_host_swap_out_pages_per_second", "Pages swapped out per second over the last sample (/proc/vmstat pswpout)."), func(h *result.HostSample, r rateFn) float64 { return r(h.SwapOutPages) }},
	}
	descProc = []procDesc{
		{desc("platbench_process_cpu_cores", "CPU cores used over the last sample, by role (platbench or server).", "role", "pid"), func(p *result.ProcSample) float64 { return p.CPUCores }},
		{desc("platbench_process_busiest_thread_ratio", "Busiest thread's share of a core over the last sample.", "role", "pid"), func(p *result.ProcSample) float64 { return p.MaxThreadCores }},
		{desc("platbench_process_resident_memory_bytes", "Resident set size.", "role", "pid"), func(p *result.ProcSample) float64 { return float64(p.RSSBytes) }},
		{desc("platbench_process_storage_read_bytes", "Bytes read from storage over the last sample.", "role", "pid"), func(p *result.ProcSample) float64 { return float64(p.ReadBytes) }},
		{desc("platbench_process_storage_written_bytes", "Bytes written to storage over the last sample.", "role", "pid"), func(p *result.ProcSample) float64 { return float64(p.WriteBytes) }},
	}
)

type rateFn func(uint64) float64

type (
	diskDesc struct {
		d *prometheus.Desc
		f func(result.DiskIO, rateFn) float64
	}
	netDesc struct {
		d *prometheus.Desc
		f func(result.NetIO, rateFn) float64
	}
	hostDesc struct {
		d *prometheus.Desc
		f func(*result.HostSample, rateFn) float64
	}
	procDesc struct {
		d *prometheus.Desc
		f func(*result.ProcSample) float64
	}
)

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

// collector turns one Snapshot per scrape into constant metrics.
type collector struct{ src Source }

var _ prometheus.Collector = (*collector)(nil)

// Describe sends every family the collector can emit.
func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descUp, descOps, descErrors, descThroughput, descLatency, descHostCPU,
		descDBValue, descDBCalls, descDBMean, descDBQuantiles} {
		ch <- d
	}
	for _, d := range descDisk {
		ch <- d.d
	}
	for _, d := range descNet {
		ch <- d.d
	}
	for _, d := range descHost {
		ch <- d.d
	}
	for _, d := range descProc {
		ch <- d.d
	}
}

// Collect reads one snapshot and emits it.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	var s Snapshot
	if c.src != nil {
		s = c.src.Snapshot()
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descUp, 1, s.Phase)
	for _, o := range s.Ops {
		ch <- prometheus.MustNewConstMetric(descOps, prometheus.CounterValue, float64(o.Count), s.Phase, o.Op)
		for class, n := range o.Errors {
			ch <- prometheus.MustNewConstMetric(descErrors, prometheus.CounterValue, float64(n), s.Phase, o.Op, class)
		}
		gauge(descThroughput, o.RatePerS, s.Phase, o.Op)
		for _, q := range o.Latency {
			gauge(descLatency, float64(q.Ns)/1e9, s.Phase, o.Op, strconv.FormatFloat(q.Q, 'g', -1, 64))
		}
	}
	if h := s.Host; h != nil {
		collectHost(h, gauge)
	}
	collectDB(s.DB, gauge)
	for _, p := range []struct {
		role string
		s    *result.ProcSample
	}{{"platbench", s.Self}, {"server", s.Server}} {
		if p.s == nil {
			continue
		}
		for _, d := range descProc {
			gauge(d.d, d.f(p.s), p.role, strconv.Itoa(p.s.PID))
		}
	}
}

func collectHost(h *result.HostSample, gauge func(*prometheus.Desc, float64, ...string)) {
	secs := float64(h.DurationNs) / 1e9
	rate := func(v uint64) float64 {
		if secs <= 0 {
			return 0
		}
		return float64(v) / secs
	}
	for _, m := range []struct {
		mode string
		v    float64
	}{{"user", h.CPUUser}, {"system", h.CPUSystem}, {"iowait", h.CPUIOWait}, {"irq", h.CPUIRQ},
		{"softirq", h.CPUSoftIRQ}, {"steal", h.CPUSteal}, {"idle", h.CPUIdle}} {
		gauge(descHostCPU, m.v, m.mode)
	}
	for _, d := range descHost {
		gauge(d.d, d.f(h, rate))
	}
	for dev, io := range h.Disks {
		for _, d := range descDisk {
			gauge(d.d, d.f(io, rate), dev)
		}
	}
	for ifc, io := range h.Nets {
		for _, d := range descNet {
			gauge(d.d, d.f(io, rate), ifc)
		}
	}
}

// dbQuantiles maps the result's percentile keys to the label values.
var dbQuantiles = map[string]string{"p50": "0.5", "p75": "0.75", "p95": "0.95", "p98": "0.98", "p99": "0.99", "p99.9": "0.999"}

func collectDB(nodes []result.DBMetricsSeries, gauge func(*prometheus.Desc, float64, ...string)) {
	for _, n := range nodes {
		if len(n.Samples) == 0 {
			continue
		}
		x := n.Samples[len(n.Samples)-1]
		secs := float64(x.DurationNs) / 1e9
		for name, v := range x.Values {
			gauge(descDBValue, v, n.Node, name)
		}
		for cmd, c := range x.Commands {
			if secs > 0 {
				gauge(descDBCalls, float64(c.Calls)/secs, n.Node, cmd)
			}
			if c.Calls > 0 && c.TimeNs > 0 {
				gauge(descDBMean, c.TimeNs/float64(c.Calls)/1e9, n.Node, cmd)
			}
			for k, v := range c.Percentiles {
				if q, ok := dbQuantiles[k]; ok {
					gauge(descDBQuantiles, v/1e9, n.Node, cmd, q)
				}
			}
		}
	}
}
