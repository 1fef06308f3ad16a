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

// AddCounts adds o's traffic and drops to n (not the link speed, a gauge).
func (n *NodeNetIO) AddCounts(o NodeNetIO) {
	n.RxBytes, n.TxBytes, n.RxPackets, n.TxPackets = n.RxBytes+o.RxBytes, n.TxBytes+o.TxBytes, n.RxPackets+o.RxPackets, n.TxPackets+o.TxPackets
	n.RxDrops, n.TxDrops = n.RxDrops+o.RxDrops, n.TxDrops+o.TxDrops
}
