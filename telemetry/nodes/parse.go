package nodes

import (
	"errors"
	"io"
	"math"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/platbench/platbench/result"
)

// reading is one scrape's raw figures: node_exporter's counters (seconds,
// bytes, operations since boot) and memory gauges, by label.
type reading struct {
	cpu   map[string]*cpuTimes
	mem   map[string]float64 // node_memory_<X>_bytes by X
	disks map[string]*diskCounters
	nets  map[string]*netCounters
}

// cpuTimes are one CPU's seconds by mode (node_cpu_seconds_total).
type cpuTimes struct{ user, nice, system, iowait, irq, softirq, steal, idle float64 }

// diskCounters are one device's node_disk_* counters.
type diskCounters struct {
	reads, writes, readBytes, writtenBytes float64
	readSecs, writeSecs, ioSecs            float64
}

// netCounters are one interface's node_network_* counters (and its speed gauge).
type netCounters struct {
	rxBytes, txBytes, rxPackets, txPackets, rxDrops, txDrops, speed float64
}

// errNotNodeExporter is a body that parsed but holds none of the figures.
var errNotNodeExporter = errors.New("the body has no node_cpu_seconds_total, node_memory_*, node_disk_* or node_network_* metrics: is this a node_exporter (with its cpu, meminfo, diskstats and netdev collectors on)?")

// parseExposition reads a node_exporter /metrics body in the Prometheus text
// format (via expfmt, not by hand). Values that are negative, NaN or
// infinite are left out: counters never are, and a figure computed from one
// would poison the result file.
func parseExposition(body io.Reader) (*reading, error) {
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(body)
	if err != nil {
		return nil, err
	}
	r := &reading{cpu: map[string]*cpuTimes{}, mem: map[string]float64{},
		disks: map[string]*diskCounters{}, nets: map[string]*netCounters{}}
	for name, f := range fams {
		switch {
		case name == "node_cpu_seconds_total":
			r.addCPU(f)
		case strings.HasPrefix(name, "node_memory_") && strings.HasSuffix(name, "_bytes"):
			for _, m := range f.Metric {
				if v, ok := value(m); ok {
					r.mem[strings.TrimSuffix(strings.TrimPrefix(name, "node_memory_"), "_bytes")] = v
				}
			}
		case strings.HasPrefix(name, "node_disk_"):
			r.addDisk(name, f)
		case strings.HasPrefix(name, "node_network_"):
			r.addNet(name, f)
		}
	}
	if len(r.cpu)+len(r.mem)+len(r.disks)+len(r.nets) == 0 {
		return nil, errNotNodeExporter
	}
	return r, nil
}

func (r *reading) addCPU(f *dto.MetricFamily) {
	for _, m := range f.Metric {
		v, ok := value(m)
		if !ok {
			continue
		}
		id := label(m, "cpu")
		c := r.cpu[id]
		if c == nil {
			c = &cpuTimes{}
			r.cpu[id] = c
		}
		switch label(m, "mode") {
		case "user":
			c.user = v
		case "nice":
			c.nice = v
		case "system":
			c.system = v
		case "iowait":
			c.iowait = v
		case "irq":
			c.irq = v
		case "softirq":
			c.softirq = v
		case "steal":
			c.steal = v
		case "idle":
			c.idle = v
		}
	}
}

func (r *reading) addDisk(name string, f *dto.MetricFamily) {
	var field func(*diskCounters) *float64
	switch name {
	case "node_disk_reads_completed_total":
		field = func(d *diskCounters) *float64 { return &d.reads }
	case "node_disk_writes_completed_total":
		field = func(d *diskCounters) *float64 { return &d.writes }
	case "node_disk_read_bytes_total":
		field = func(d *diskCounters) *float64 { return &d.readBytes }
	case "node_disk_written_bytes_total":
		field = func(d *diskCounters) *float64 { return &d.writtenBytes }
	case "node_disk_read_time_seconds_total":
		field = func(d *diskCounters) *float64 { return &d.readSecs }
	case "node_disk_write_time_seconds_total":
		field = func(d *diskCounters) *float64 { return &d.writeSecs }
	case "node_disk_io_time_seconds_total":
		field = func(d *diskCounters) *float64 { return &d.ioSecs }
	default:
		return
	}
	for _, m := range f.Metric {
		if v, ok := value(m); ok {
			dev := label(m, "device")
			d := r.disks[dev]
			if d == nil {
				d = &diskCounters{}
				r.disks[dev] = d
			}
			*field(d) = v
		}
	}
}

func (r *reading) addNet(name string, f *dto.MetricFamily) {
	var field func(*netCounters) *float64
	switch name {
	case "node_network_receive_bytes_total":
		field = func(n *netCounters) *float64 { return &n.rxBytes }
	case "node_network_transmit_bytes_total":
		field = func(n *netCounters) *float64 { return &n.txBytes }
	case "node_network_receive_packets_total":
		field = func(n *netCounters) *float64 { return &n.rxPackets }
	case "node_network_transmit_packets_total":
		field = func(n *netCounters) *float64 { return &n.txPackets }
	case "node_network_receive_drop_total":
		field = func(n *netCounters) *float64 { return &n.rxDrops }
	case "node_network_transmit_drop_total":
		field = func(n *netCounters) *float64 { return &n.txDrops }
	case "node_network_speed_bytes":
		field = func(n *netCounters) *float64 { return &n.speed }
	default:
		return
	}
	for _, m := range f.Metric {
		if v, ok := value(m); ok {
			dev := label(m, "device")
			n := r.nets[dev]
			if n == nil {
				n = &netCounters{}
				r.nets[dev] = n
			}
			*field(n) = v
		}
	}
}

// value is a sample's value whatever its declared type; false when it is
// not a finite, non-negative number.
func value(m *dto.Metric) (float64, bool) {
	var v float64
	switch {
	case m.Counter != nil:
		v = m.Counter.GetValue()
	case m.Gauge != nil:
		v = m.Gauge.GetValue()
	case m.Untyped != nil:
		v = m.Untyped.GetValue()
	default:
		return 0, false
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, false
	}
	return v, true
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// sample turns two readings dt apart into one sample's figures (OffsetNs is
// the caller's). A counter that went down (the node rebooted, the exporter
// was replaced) counts as no change.
func sample(prev, cur *reading, dt time.Duration) result.NodeSample {
	s := result.NodeSample{DurationNs: dt.Nanoseconds()}
	cpuFigures(&s, prev.cpu, cur.cpu)
	memFigures(&s, cur.mem)
	s.Disks = diskDeltas(prev.disks, cur.disks, dt)
	s.Nets = netDeltas(prev.nets, cur.nets)
	return s
}

// cpuFigures fills the CPU split, the busiest core and the highest
// interrupt share of a core, as telemetry/host does from /proc/stat (which
// is where node_exporter reads them).
func cpuFigures(s *result.NodeSample, prev, cur map[string]*cpuTimes) {
	var all cpuTimes
	s.CPUMaxCoreID = -1
	s.CPUs = len(cur)
	for id, y := range cur {
		x, ok := prev[id]
		if !ok {
			continue
		}
		d := cpuTimes{user: sub(y.user, x.user) + sub(y.nice, x.nice), system: sub(y.system, x.system),
			iowait: sub(y.iowait, x.iowait), irq: sub(y.irq, x.irq), softirq: sub(y.softirq, x.softirq),
			steal: sub(y.steal, x.steal), idle: sub(y.idle, x.idle)}
		all.user += d.user
		all.system += d.system
		all.iowait += d.iowait
		all.irq += d.irq
		all.softirq += d.softirq
		all.steal += d.steal
		all.idle += d.idle
		total := d.user + d.system + d.iowait + d.irq + d.softirq + d.steal + d.idle
		if !(total > 0) || math.IsInf(total, 0) {
			continue
		}
		if f := (d.irq + d.softirq) / total; f > s.CPUMaxCoreIRQ {
			s.CPUMaxCoreIRQ = f
		}
		// A core waiting on I/O is idle for this purpose: busy means running something.
		if busy := 1 - (d.idle+d.iowait)/total; busy > s.CPUMaxCore || s.CPUMaxCoreID < 0 {
			s.CPUMaxCore, s.CPUMaxCoreID = max(busy, 0), coreID(id)
		}
	}
	total := all.user + all.system + all.iowait + all.irq + all.softirq + all.steal + all.idle
	if total > 0 && !math.IsInf(total, 0) {
		s.CPUUser, s.CPUSystem, s.CPUIOWait = all.user/total, all.system/total, all.iowait/total
		s.CPUIRQ, s.CPUSoftIRQ, s.CPUSteal, s.CPUIdle = all.irq/total, all.softirq/total, all.steal/total, all.idle/total
	}
}

// coreID is the number in node_exporter's cpu label ("3"), -1 if it is not one.
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

// memFigures reads the memory gauges of the latest scrape; used memory is
// free(1)'s: total - free - buffers - page cache - reclaimable slab.
func memFigures(s *result.NodeSample, m map[string]float64) {
	total, free, buf, cached, srecl := m["MemTotal"], m["MemFree"], m["Buffers"], m["Cached"], m["SReclaimable"]
	s.MemTotalBytes = toInt(total)
	s.MemUsedBytes = toInt(total - free - buf - cached - srecl)
	s.MemAvailableBytes = toInt(m["MemAvailable"])
	s.PageCacheBytes = toInt(cached)
	s.DirtyBytes = toInt(m["Dirty"])
}

func diskDeltas(prev, cur map[string]*diskCounters, dt time.Duration) map[string]result.DiskIO {
	out := make(map[string]result.DiskIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			continue
		}
		io := result.DiskIO{
			Reads: toUint(sub(c.reads, p.reads)), Writes: toUint(sub(c.writes, p.writes)),
			ReadBytes: toUint(sub(c.readBytes, p.readBytes)), WriteBytes: toUint(sub(c.writtenBytes, p.writtenBytes)),
		}
		if io.Reads > 0 {
			io.ReadLatencyNs = toInt(sub(c.readSecs, p.readSecs) * 1e9 / float64(io.Reads))
		}
		if io.Writes > 0 {
			io.WriteLatencyNs = toInt(sub(c.writeSecs, p.writeSecs) * 1e9 / float64(io.Writes))
		}
		if dt > 0 {
			io.BusyFraction = min(sub(c.ioSecs, p.ioSecs)/dt.Seconds(), 1)
		}
		out[name] = io
	}
	return out
}

// netDeltas keeps interfaces that ever carried a packet.
func netDeltas(prev, cur map[string]*netCounters) map[string]result.NodeNetIO {
	out := make(map[string]result.NodeNetIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok || c.rxPackets+c.txPackets == 0 {
			continue
		}
		out[name] = result.NodeNetIO{
			RxBytes: toUint(sub(c.rxBytes, p.rxBytes)), TxBytes: toUint(sub(c.txBytes, p.txBytes)),
			RxPackets: toUint(sub(c.rxPackets, p.rxPackets)), TxPackets: toUint(sub(c.txPackets, p.txPackets)),
			RxDrops: toUint(sub(c.rxDrops, p.rxDrops)), TxDrops: toUint(sub(c.txDrops, p.txDrops)),
			SpeedBytesPerS: c.speed,
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
