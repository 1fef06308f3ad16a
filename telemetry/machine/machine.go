// Package machine is the one model of a machine's counters that both the
// loader host (telemetry/host, from /proc and /sys) and the server nodes
// (telemetry/nodes, from node_exporter) read: CPU seconds by mode per core,
// memory gauges, disk and network counters since boot (Reading), and the
// one arithmetic that turns two readings into a sample's figures: the CPU
// split, the busiest core and its interrupt share, memory as free(1)
// counts it, per-device I/O with mean latency and busy time, per-interface
// traffic. A counter that went down (a reboot, a replaced exporter) counts
// as no change.
//
// It reads nothing itself: the collectors fill a Reading from their source
// and copy the figures into their result samples (result.HostSample,
// result.NodeSample), whose JSON is unchanged.
package machine

import (
	"math"
	"time"

	"github.com/platbench/platbench/result"
)

// CPUTimes are one CPU's seconds by mode since boot.
type CPUTimes struct{ User, Nice, System, IOWait, IRQ, SoftIRQ, Steal, Idle float64 }

// DiskCounters are one device's counters since boot: operations, bytes and
// seconds spent reading, writing and with I/O in flight.
type DiskCounters struct{ Reads, Writes, ReadBytes, WrittenBytes, ReadSecs, WriteSecs, IOSecs float64 }

// NetCounters are one interface's counters since boot, and its speed
// (bytes/s; 0 when unknown). Qdisc says its queueing disciplines were read
// (node_exporter's qdisc collector): their drops and overlimits since boot
// and their backlog now, summed over the interface's qdiscs.
type NetCounters struct {
	RxBytes, TxBytes, RxPackets, TxPackets, RxDrops, TxDrops, Speed float64
	Qdisc                                                           bool
	QdiscDrops, QdiscOverlimits, QdiscBacklog                       float64
}

// Reading is one read of a machine.
type Reading struct {
	// CPU are the per-core times by core id ("0", "1"...).
	CPU map[string]*CPUTimes
	// Total is the kernel's all-CPU line when the source has one
	// (/proc/stat); nil: the split is the sum of CPU.
	Total *CPUTimes
	// Mem are the memory gauges in bytes by /proc/meminfo name ("MemTotal",
	// "MemFree", "Buffers", "Cached", "SReclaimable", "MemAvailable", "Dirty").
	Mem   map[string]float64
	Disks map[string]*DiskCounters
	Nets  map[string]*NetCounters
	// VM are the paging counters (/proc/vmstat or node_vmstat_*).
	VM VMCounters
	// TCP are the segments sent and retransmitted since boot
	// (node_netstat_Tcp_OutSegs and _RetransSegs); Read says they were.
	TCP TCPCounters
}

// TCPCounters are TCP's segments sent and retransmitted since boot.
type TCPCounters struct {
	OutSegs, RetransSegs float64
	Read                 bool
}

// TCPDeltas is the segments sent and retransmitted between two readings;
// zeros unless both read them.
func TCPDeltas(prev, cur *Reading) (out, retrans uint64) {
	if !prev.TCP.Read || !cur.TCP.Read {
		return 0, 0
	}
	return toUint(sub(cur.TCP.OutSegs, prev.TCP.OutSegs)), toUint(sub(cur.TCP.RetransSegs, prev.TCP.RetransSegs))
}

// VMCounters are the kernel's paging counters since boot (/proc/vmstat):
// major faults (pgmajfault), pages swapped in and out (pswpin, pswpout),
// and direct reclaims (the allocstall_* zones summed). Read says the
// source had pgmajfault: without it the others are unknown too.
type VMCounters struct {
	MajorFaults, SwapIn, SwapOut, AllocStalls float64
	Read                                      bool
}

// CPU is a sample's CPU figures: the fraction of time in each mode (User
// includes nice), the busiest core's busy fraction (idle and iowait are not
// busy) and id (-1 when unknown), and the highest irq+softirq share of any
// one core. CPUs is the number of cores read.
type CPU struct {
	CPUs                                            int
	User, System, IOWait, IRQ, SoftIRQ, Steal, Idle float64
	MaxCore                                         float64
	MaxCoreID                                       int
	MaxCoreIRQ                                      float64
}

// CPUDeltas is the CPU figures between two readings.
func CPUDeltas(prev, cur *Reading) CPU {
	var all CPUTimes
	out := CPU{MaxCoreID: -1, CPUs: len(cur.CPU)}
	for id, y := range cur.CPU {
		x, ok := prev.CPU[id]
		if !ok {
			continue
		}
		d := delta(x, y)
		all.add(d)
		total := d.total()
		if !(total > 0) || math.IsInf(total, 0) {
			continue
		}
		if f := (d.IRQ + d.SoftIRQ) / total; f > out.MaxCoreIRQ {
			out.MaxCoreIRQ = f
		}
		// A core waiting on I/O is idle for this purpose: busy means running something.
		if busy := 1 - (d.Idle+d.IOWait)/total; busy > out.MaxCore || out.MaxCoreID < 0 {
			out.MaxCore, out.MaxCoreID = max(busy, 0), coreID(id)
		}
	}
	if prev.Total != nil && cur.Total != nil {
		all = delta(prev.Total, cur.Total)
	}
	if total := all.total(); total > 0 && !math.IsInf(total, 0) {
		out.User, out.System, out.IOWait = all.User/total, all.System/total, all.IOWait/total
		out.IRQ, out.SoftIRQ, out.Steal, out.Idle = all.IRQ/total, all.SoftIRQ/total, all.Steal/total, all.Idle/total
	}
	return out
}

// delta is the time spent in each mode between x and y; nice counts as user.
func delta(x, y *CPUTimes) CPUTimes {
	return CPUTimes{User: sub(y.User, x.User) + sub(y.Nice, x.Nice), System: sub(y.System, x.System),
		IOWait: sub(y.IOWait, x.IOWait), IRQ: sub(y.IRQ, x.IRQ), SoftIRQ: sub(y.SoftIRQ, x.SoftIRQ),
		Steal: sub(y.Steal, x.Steal), Idle: sub(y.Idle, x.Idle)}
}

// add sums d's time in each mode (nice is in user: see delta) into c: the
// all-core times of the cores' deltas.
func (c *CPUTimes) add(d CPUTimes) {
	c.User, c.System, c.IOWait, c.IRQ = c.User+d.User, c.System+d.System, c.IOWait+d.IOWait, c.IRQ+d.IRQ
	c.SoftIRQ, c.Steal, c.Idle = c.SoftIRQ+d.SoftIRQ, c.Steal+d.Steal, c.Idle+d.Idle
}

func (d CPUTimes) total() float64 {
	return d.User + d.System + d.IOWait + d.IRQ + d.SoftIRQ + d.Steal + d.Idle
}

// coreID is the number of a core id ("3"), -1 if it is not one.
func coreID(s string) int {
	n := 0
	if s == "" || len(s) > 6 {
		return -1
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// Mem is a sample's memory figures from the latest reading; used memory is
// free(1)'s: total - free - buffers - page cache - reclaimable slab.
type Mem struct{ TotalBytes, UsedBytes, AvailableBytes, PageCacheBytes, DirtyBytes int64 }

// MemFigures reads the memory gauges of a reading.
func MemFigures(m map[string]float64) Mem {
	total, free, buf, cached, srecl := m["MemTotal"], m["MemFree"], m["Buffers"], m["Cached"], m["SReclaimable"]
	return Mem{TotalBytes: toInt(total), UsedBytes: toInt(total - free - buf - cached - srecl),
		AvailableBytes: toInt(m["MemAvailable"]), PageCacheBytes: toInt(cached), DirtyBytes: toInt(m["Dirty"])}
}

// PagingDeltas is the memory pressure between two readings (the swap sizes
// from cur's Mem: SwapTotal, SwapFree); none when either did not read the
// paging counters.
func PagingDeltas(prev, cur *Reading) result.Paging {
	if !prev.VM.Read || !cur.VM.Read {
		return result.Paging{}
	}
	p, c := &prev.VM, &cur.VM
	total, free := cur.Mem["SwapTotal"], cur.Mem["SwapFree"]
	return result.Paging{VMStat: true, MajorFaults: toUint(sub(c.MajorFaults, p.MajorFaults)),
		SwapInPages: toUint(sub(c.SwapIn, p.SwapIn)), SwapOutPages: toUint(sub(c.SwapOut, p.SwapOut)),
		AllocStalls: toUint(sub(c.AllocStalls, p.AllocStalls)), SwapTotalBytes: toInt(total), SwapUsedBytes: toInt(total - free)}
}

// DiskDeltas is each device's I/O between two readings dt apart.
func DiskDeltas(prev, cur map[string]*DiskCounters, dt time.Duration) map[string]result.DiskIO {
	out := make(map[string]result.DiskIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			continue
		}
		io := result.DiskIO{
			Reads: toUint(sub(c.Reads, p.Reads)), Writes: toUint(sub(c.Writes, p.Writes)),
			ReadBytes: toUint(sub(c.ReadBytes, p.ReadBytes)), WriteBytes: toUint(sub(c.WrittenBytes, p.WrittenBytes)),
		}
		if io.Reads > 0 {
			io.ReadLatencyNs = toInt(sub(c.ReadSecs, p.ReadSecs) * 1e9 / float64(io.Reads))
		}
		if io.Writes > 0 {
			io.WriteLatencyNs = toInt(sub(c.WriteSecs, p.WriteSecs) * 1e9 / float64(io.Writes))
		}
		if dt > 0 {
			io.BusyFraction = min(sub(c.IOSecs, p.IOSecs)/dt.Seconds(), 1)
		}
		out[name] = io
	}
	return out
}

// NetDeltas is the traffic of each interface that ever carried a packet
// (loopback included: a local server's traffic is there).
func NetDeltas(prev, cur map[string]*NetCounters) map[string]result.NodeNetIO {
	out := make(map[string]result.NodeNetIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok || c.RxPackets+c.TxPackets == 0 {
			continue
		}
		out[name] = result.NodeNetIO{
			RxBytes: toUint(sub(c.RxBytes, p.RxBytes)), TxBytes: toUint(sub(c.TxBytes, p.TxBytes)),
			RxPackets: toUint(sub(c.RxPackets, p.RxPackets)), TxPackets: toUint(sub(c.TxPackets, p.TxPackets)),
			RxDrops: toUint(sub(c.RxDrops, p.RxDrops)), TxDrops: toUint(sub(c.TxDrops, p.TxDrops)),
			SpeedBytesPerS: c.Speed,
		}
		if c.Qdisc && p.Qdisc {
			n := out[name]
			n.QdiscRead = true
			n.QdiscDrops, n.QdiscOverlimits = toUint(sub(c.QdiscDrops, p.QdiscDrops)), toUint(sub(c.QdiscOverlimits, p.QdiscOverlimits))
			n.QdiscBacklog = toUint(c.QdiscBacklog)
			out[name] = n
		}
	}
	return out
}

// sub is a counter's increase; 0 when it went down (a reset) or is not a
// finite number.
func sub(a, b float64) float64 {
	d := a - b
	if !(d > 0) || math.IsInf(d, 0) {
		return 0
	}
	return d
}

// toUint rounds a non-negative delta to a count; huge values saturate.
func toUint(v float64) uint64 {
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxUint64:
		return math.MaxUint64
	}
	return uint64(math.Round(v))
}

// toInt rounds a byte figure; negatives (a gauge set inconsistent with
// another) are 0 and huge values saturate.
func toInt(v float64) int64 {
	switch {
	case !(v > 0):
		return 0
	case v >= math.MaxInt64:
		return math.MaxInt64
	}
	return int64(math.Round(v))
}
