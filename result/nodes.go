package result

import "time"

// NodeSeries is one server node's telemetry, scraped from its Prometheus
// node_exporter every telemetry interval during the run (package
// telemetry/nodes). Samples are in time order; a scrape that failed is a
// sample with Missing set, and the next good sample spans the gap (its
// counter deltas cover everything since the last good scrape), so no work
// of the node is lost from the run's totals.
type NodeSeries struct {
	// Node names the node: the exporter URL's host:port.
	Node string `json:"node"`
	// URL is the exporter's /metrics URL.
	URL        string       `json:"url"`
	StartedAt  time.Time    `json:"started_at"`
	IntervalNs int64        `json:"interval_ns"`
	Samples    []NodeSample `json:"samples"`
}

// NodeSample is one node's figures over one sample, from the deltas of the
// exporter's counters between two good scrapes: [StartedAt + OffsetNs,
// +DurationNs). CPU fractions are of all the node's CPUs (0..1), as in
// HostSample; counts and bytes are totals over the sample.
//
// A missing sample (Missing true) marks a scrape that failed at OffsetNs
// (DurationNs is 0): Error says why (connection refused, timeout, a body
// that is not an exposition) and every figure is zero.
type NodeSample struct {
	OffsetNs   int64  `json:"offset_ns"`
	DurationNs int64  `json:"duration_ns"`
	Missing    bool   `json:"missing,omitempty"`
	Error      string `json:"error,omitempty"`

	CPUs       int     `json:"cpus,omitempty"` // logical CPUs the exporter reported
	CPUUser    float64 `json:"cpu_user"`       // includes nice
	CPUSystem  float64 `json:"cpu_system"`
	CPUIOWait  float64 `json:"cpu_iowait"`
	CPUIRQ     float64 `json:"cpu_irq"`
	CPUSoftIRQ float64 `json:"cpu_softirq"`
	CPUSteal   float64 `json:"cpu_steal"`
	CPUIdle    float64 `json:"cpu_idle"`
	// CPUMaxCore is the busiest core's busy fraction (idle and iowait are
	// not busy); CPUMaxCoreID is that core (-1 when unknown).
	CPUMaxCore   float64 `json:"cpu_max_core"`
	CPUMaxCoreID int     `json:"cpu_max_core_id"`
	// CPUMaxCoreIRQ is the highest irq+softirq share of any one core.
	CPUMaxCoreIRQ float64 `json:"cpu_max_core_irq"`

	MemTotalBytes     int64 `json:"mem_total_bytes,omitempty"`
	MemUsedBytes      int64 `json:"mem_used_bytes"` // total - free - buffers - page cache - reclaimable slab, as free(1)
	MemAvailableBytes int64 `json:"mem_available_bytes"`
	PageCacheBytes    int64 `json:"page_cache_bytes"`
	DirtyBytes        int64 `json:"dirty_bytes"`
	// Paging is the node's swapping, major faults and direct reclaim
	// (node_vmstat_*, node_memory_Swap*).
	Paging

	// Disks are the devices node_exporter reports (whole disks by its
	// default filter), keyed by device name.
	Disks map[string]DiskIO `json:"disks,omitempty"`
	// Nets are the interfaces that ever carried a packet, keyed by name.
	Nets map[string]NodeNetIO `json:"nets,omitempty"`
	// TCP segments sent and retransmitted in the sample
	// (node_netstat_Tcp_OutSegs and _RetransSegs, the netstat collector):
	// retransmits are the network's errors.
	TCPOutSegs     uint64 `json:"tcp_out_segs,omitempty"`
	TCPRetransSegs uint64 `json:"tcp_retrans_segs,omitempty"`
}

// NodeNetIO is one interface's traffic on a node in one sample.
type NodeNetIO struct {
	RxBytes   uint64 `json:"rx_bytes"`
	TxBytes   uint64 `json:"tx_bytes"`
	RxPackets uint64 `json:"rx_packets"`
	TxPackets uint64 `json:"tx_packets"`
	RxDrops   uint64 `json:"rx_drops"`
	TxDrops   uint64 `json:"tx_drops"`
	// SpeedBytesPerS is the link speed when the exporter reports it
	// (node_network_speed_bytes, the netclass collector); 0 when unknown.
	SpeedBytesPerS float64 `json:"speed_bytes_per_s,omitempty"`
	// QdiscRead says the interface's queueing disciplines were read
	// (node_exporter's qdisc collector, node_qdisc_*): packets they dropped
	// and held back over a shaper's limit in the sample, and bytes queued at
	// its end, summed over the interface's qdiscs. Without it all three are
	// unknown, not zero.
	QdiscRead       bool   `json:"qdisc_read,omitempty"`
	QdiscDrops      uint64 `json:"qdisc_drops,omitempty"`
	QdiscOverlimits uint64 `json:"qdisc_overlimits,omitempty"`
	QdiscBacklog    uint64 `json:"qdisc_backlog_bytes,omitempty"`
}

// Queued says the interface's qdiscs dropped, held back or queued packets
// in the sample: its link was full (the USE method's saturation).
func (n NodeNetIO) Queued() bool {
	return n.QdiscRead && (n.QdiscDrops > 0 || n.QdiscOverlimits > 0 || n.QdiscBacklog > 0)
}
