package nodes

import (
	"bytes"
	"errors"
	"io"
	"math"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
	"github.com/platbench/platbench/telemetry/promtext"
)

// reading is one scrape's raw figures: node_exporter's counters (seconds,
// bytes, operations since boot) and memory gauges, by label.
type reading = machine.Reading

// errNotNodeExporter is a body that parsed but holds none of the figures.
var errNotNodeExporter = errors.New("the body has no node_cpu_seconds_total, node_memory_*, node_disk_* or node_network_* metrics: is this a node_exporter (with its cpu, meminfo, diskstats and netdev collectors on)?")

// A parser reads node_exporter's text exposition into a frame, in place
// (package promtext): once a node's cores, devices and memory names have
// been seen, reading a body allocates nothing (the HTTP request and the
// sample's maps still do). Only the lines of the families a reading holds
// are parsed (node_cpu_seconds_total, node_memory_*_bytes, and the
// node_disk_* and node_network_* counters below). Values that are
// negative, NaN or infinite are left out: counters never are, and a figure
// computed from one would poison the result file.
type parser struct {
	r *promtext.Reader
	f *frame // the frame being read into
}

// The labels a reading keeps, in promtext.Reader.Label's order.
const (
	labelCPU = iota
	labelMode
	labelDevice
)

func (p *parser) parse(body io.Reader, f *frame) error {
	if p.r == nil {
		p.r = promtext.NewReader("cpu", "mode", "device")
	}
	f.Reset()
	p.f = f
	defer func() { p.f = nil }()
	if err := p.r.Read(body, wanted, p.sample); err != nil {
		return err
	}
	if len(f.CPU)+len(f.Mem)+len(f.Disks)+len(f.Nets) == 0 {
		return errNotNodeExporter
	}
	return nil
}

func wanted(name []byte) bool { return familyOf(name) != nil }

func (p *parser) sample(name []byte, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return nil
	}
	familyOf(name)(p, p.f, name, v)
	return nil
}

// intern is the reader's interned string of b.
func (p *parser) intern(b []byte) string { return p.r.Intern(b) }

// familyOf says where a family's samples go; nil for the families a
// reading does not hold.
func familyOf(name []byte) func(p *parser, f *frame, name []byte, v float64) {
	switch {
	case string(name) == "node_cpu_seconds_total":
		return addCPU
	case bytes.HasPrefix(name, []byte("node_memory_")) && bytes.HasSuffix(name, []byte("_bytes")):
		return addMem
	case bytes.HasPrefix(name, []byte("node_disk_")) && diskField(name) != nil:
		return addDisk
	case bytes.HasPrefix(name, []byte("node_network_")) && netField(name) != nil:
		return addNet
	case bytes.HasPrefix(name, []byte("node_vmstat_")) && vmField(name) != nil:
		return addVM
	case bytes.HasPrefix(name, []byte("node_qdisc_")) && qdiscField(name) != nil:
		return addQdisc
	case string(name) == "node_netstat_Tcp_OutSegs" || string(name) == "node_netstat_Tcp_RetransSegs":
		return addTCP
	}
	return nil
}

func addCPU(p *parser, f *frame, _ []byte, v float64) {
	c := f.CPUSlot(p.intern(p.r.Label(labelCPU)))
	switch string(p.r.Label(labelMode)) {
	case "user":
		c.User = v
	case "nice":
		c.Nice = v
	case "system":
		c.System = v
	case "iowait":
		c.IOWait = v
	case "irq":
		c.IRQ = v
	case "softirq":
		c.SoftIRQ = v
	case "steal":
		c.Steal = v
	case "idle":
		c.Idle = v
	}
}

func addMem(p *parser, f *frame, name []byte, v float64) {
	f.Mem[p.intern(bytes.TrimSuffix(bytes.TrimPrefix(name, []byte("node_memory_")), []byte("_bytes")))] = v
}

func addDisk(p *parser, f *frame, name []byte, v float64) {
	*diskField(name)(f.DiskSlot(p.intern(p.r.Label(labelDevice)))) = v
}

func addNet(p *parser, f *frame, name []byte, v float64) {
	*netField(name)(f.NetSlot(p.intern(p.r.Label(labelDevice)))) = v
}

// addTCP keeps TCP's segments sent or retransmitted (the netstat collector).
func addTCP(_ *parser, f *frame, name []byte, v float64) {
	if string(name) == "node_netstat_Tcp_OutSegs" {
		f.TCP.OutSegs = v
	} else {
		f.TCP.RetransSegs = v
	}
	f.TCP.Read = true
}

// addQdisc adds one qdisc's figure to its interface's (node_qdisc_*, one
// series per qdisc kind: an interface's root and its children are summed).
func addQdisc(p *parser, f *frame, name []byte, v float64) {
	n := f.NetSlot(p.intern(p.r.Label(labelDevice)))
	*qdiscField(name)(n) += v
	n.Qdisc = true
}

// qdiscField is where a node_qdisc_* figure goes; nil for the others.
func qdiscField(name []byte) func(*machine.NetCounters) *float64 {
	switch string(name) {
	case "node_qdisc_drops_total":
		return func(n *machine.NetCounters) *float64 { return &n.QdiscDrops }
	case "node_qdisc_overlimits_total":
		return func(n *machine.NetCounters) *float64 { return &n.QdiscOverlimits }
	case "node_qdisc_backlog":
		return func(n *machine.NetCounters) *float64 { return &n.QdiscBacklog }
	}
	return nil
}

// addVM adds a paging counter; the allocstall zones (node_vmstat_allocstall_*,
// when the exporter's --collector.vmstat.fields lets them through) are summed.
func addVM(_ *parser, f *frame, name []byte, v float64) {
	*vmField(name)(&f.VM) += v
	f.VM.Read = f.VM.Read || string(name) == "node_vmstat_pgmajfault"
}

// vmField is where a node_vmstat_* counter goes; nil for the others.
func vmField(name []byte) func(*machine.VMCounters) *float64 {
	switch n := name[len("node_vmstat_"):]; {
	case string(n) == "pgmajfault":
		return func(vm *machine.VMCounters) *float64 { return &vm.MajorFaults }
	case string(n) == "pswpin":
		return func(vm *machine.VMCounters) *float64 { return &vm.SwapIn }
	case string(n) == "pswpout":
		return func(vm *machine.VMCounters) *float64 { return &vm.SwapOut }
	case string(n) == "allocstall" || bytes.HasPrefix(n, []byte("allocstall_")):
		return func(vm *machine.VMCounters) *float64 { return &vm.AllocStalls }
	}
	return nil
}

func diskField(name []byte) func(*machine.DiskCounters) *float64 {
	switch string(name) {
	case "node_disk_reads_completed_total":
		return func(d *machine.DiskCounters) *float64 { return &d.Reads }
	case "node_disk_writes_completed_total":
		return func(d *machine.DiskCounters) *float64 { return &d.Writes }
	case "node_disk_read_bytes_total":
		return func(d *machine.DiskCounters) *float64 { return &d.ReadBytes }
	case "node_disk_written_bytes_total":
		return func(d *machine.DiskCounters) *float64 { return &d.WrittenBytes }
	case "node_disk_read_time_seconds_total":
		return func(d *machine.DiskCounters) *float64 { return &d.ReadSecs }
	case "node_disk_write_time_seconds_total":
		return func(d *machine.DiskCounters) *float64 { return &d.WriteSecs }
	case "node_disk_io_time_seconds_total":
		return func(d *machine.DiskCounters) *float64 { return &d.IOSecs }
	}
	return nil
}

func netField(name []byte) func(*machine.NetCounters) *float64 {
	switch string(name) {
	case "node_network_receive_bytes_total":
		return func(n *machine.NetCounters) *float64 { return &n.RxBytes }
	case "node_network_transmit_bytes_total":
		return func(n *machine.NetCounters) *float64 { return &n.TxBytes }
	case "node_network_receive_packets_total":
		return func(n *machine.NetCounters) *float64 { return &n.RxPackets }
	case "node_network_transmit_packets_total":
		return func(n *machine.NetCounters) *float64 { return &n.TxPackets }
	case "node_network_receive_drop_total":
		return func(n *machine.NetCounters) *float64 { return &n.RxDrops }
	case "node_network_transmit_drop_total":
		return func(n *machine.NetCounters) *float64 { return &n.TxDrops }
	case "node_network_speed_bytes":
		return func(n *machine.NetCounters) *float64 { return &n.Speed }
	}
	return nil
}

// A frame is a node's reading refilled in place (machine.Frame): a node
// keeps two, the previous reading and the one being read.
type frame = machine.Frame

// sample turns two readings dt apart into one sample's figures (OffsetNs is
// the caller's), by the one arithmetic the loader host uses too (package
// telemetry/machine).
func sample(prev, cur *reading, dt time.Duration) result.NodeSample {
	c := machine.CPUDeltas(prev, cur)
	m := machine.MemFigures(cur.Mem)
	out, retrans := machine.TCPDeltas(prev, cur)
	return result.NodeSample{DurationNs: dt.Nanoseconds(),
		CPUs: c.CPUs, CPUUser: c.User, CPUSystem: c.System, CPUIOWait: c.IOWait, CPUIRQ: c.IRQ, CPUSoftIRQ: c.SoftIRQ,
		CPUSteal: c.Steal, CPUIdle: c.Idle, CPUMaxCore: c.MaxCore, CPUMaxCoreID: c.MaxCoreID, CPUMaxCoreIRQ: c.MaxCoreIRQ,
		MemTotalBytes: m.TotalBytes, MemUsedBytes: m.UsedBytes, MemAvailableBytes: m.AvailableBytes,
		PageCacheBytes: m.PageCacheBytes, DirtyBytes: m.DirtyBytes, Paging: machine.PagingDeltas(prev, cur),
		Disks: machine.DiskDeltas(prev.Disks, cur.Disks, dt), Nets: machine.NetDeltas(prev.Nets, cur.Nets),
		TCPOutSegs: out, TCPRetransSegs: retrans}
}
