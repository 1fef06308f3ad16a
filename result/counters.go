package result

// The one sum of a device's counters over samples: the thinning merges
// (MergeHostSample, MergeNodeSample) and analysis's per-device totals add
// with these; what is a mean or a gauge (latencies, busy fraction, link
// speed) is the caller's to weigh.

// AddCounts adds o's I/O counts (reads, writes and their bytes) to d.
func (d *DiskIO) AddCounts(o DiskIO) {
	d.Reads, d.Writes = d.Reads+o.Reads, d.Writes+o.Writes
	d.ReadBytes, d.WriteBytes = d.ReadBytes+o.ReadBytes, d.WriteBytes+o.WriteBytes
}

// Plus is n's and o's traffic summed (and their qdisc's drops,
// overlimits and requeues); the qdisc's kind, rate and backlog, gauges, are
// o's, the later sample's.
func (n NetIO) Plus(o NetIO) NetIO {
	return NetIO{RxBytes: n.RxBytes + o.RxBytes, TxBytes: n.TxBytes + o.TxBytes, RxPackets: n.RxPackets + o.RxPackets, TxPackets: n.TxPackets + o.TxPackets,
		Qdisc: o.Qdisc, QdiscRateBytesPS: o.QdiscRateBytesPS, QdiscBacklog: o.QdiscBacklog, QdiscQueued: o.QdiscQueued,
		QdiscDrops: n.QdiscDrops + o.QdiscDrops, QdiscOverlimits: n.QdiscOverlimits + o.QdiscOverlimits, QdiscRequeues: n.QdiscRequeues + o.QdiscRequeues}
}

// AddCounts adds o's traffic and drops to n (not the link speed, a gauge),
// and its qdiscs' drops and overlimits; the backlog, a gauge, is o's.
func (n *NodeNetIO) AddCounts(o NodeNetIO) {
	n.RxBytes, n.TxBytes, n.RxPackets, n.TxPackets = n.RxBytes+o.RxBytes, n.TxBytes+o.TxBytes, n.RxPackets+o.RxPackets, n.TxPackets+o.TxPackets
	n.RxDrops, n.TxDrops = n.RxDrops+o.RxDrops, n.TxDrops+o.TxDrops
	if o.QdiscRead {
		n.QdiscRead = true
		n.QdiscDrops, n.QdiscOverlimits, n.QdiscBacklog = n.QdiscDrops+o.QdiscDrops, n.QdiscOverlimits+o.QdiscOverlimits, o.QdiscBacklog
	}
}

// Paging is a machine's memory pressure over one sample, from the kernel's
// /proc/vmstat counters (the loader host's, or node_exporter's node_vmstat_*)
// and /proc/meminfo's swap: pages read back from swap and written to it,
// major page faults (a page read from disk on a fault: a swap-in, or a
// mapped file's page that was not in the page cache), and the times an
// allocation waited for the kernel to reclaim memory itself (direct
// reclaim). Counts are totals over the sample; swap sizes are as of its
// end. VMStat says the counters were read: a file written before them, or
// an exporter without its vmstat collector, leaves them all zero and
// unknown. Embedded in HostSample and NodeSample, its fields are theirs in
// JSON, all omitted when zero.
type Paging struct {
	VMStat         bool   `json:"vmstat,omitempty"`
	MajorFaults    uint64 `json:"major_faults,omitempty"`
	SwapInPages    uint64 `json:"swap_in_pages,omitempty"`
	SwapOutPages   uint64 `json:"swap_out_pages,omitempty"`
	AllocStalls    uint64 `json:"alloc_stalls,omitempty"`
	SwapTotalBytes int64  `json:"swap_total_bytes,omitempty"`
	SwapUsedBytes  int64  `json:"swap_used_bytes,omitempty"`
}

// Add folds o, the sample after p, into p: the counts summed, the swap
// sizes as of o; read when either was.
func (p *Paging) Add(o Paging) {
	p.VMStat = p.VMStat || o.VMStat
	p.MajorFaults, p.SwapInPages, p.SwapOutPages = p.MajorFaults+o.MajorFaults, p.SwapInPages+o.SwapInPages, p.SwapOutPages+o.SwapOutPages
	p.AllocStalls += o.AllocStalls
	p.SwapTotalBytes, p.SwapUsedBytes = o.SwapTotalBytes, o.SwapUsedBytes
}
