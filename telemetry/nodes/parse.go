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
	"github.com/platbench/platbench/telemetry/machine"
)

// reading is one scrape's raw figures: node_exporter's counters (seconds,
// bytes, operations since boot) and memory gauges, by label.
type reading = machine.Reading

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
	r := &reading{CPU: map[string]*machine.CPUTimes{}, Mem: map[string]float64{},
		Disks: map[string]*machine.DiskCounters{}, Nets: map[string]*machine.NetCounters{}}
	for name, f := range fams {
		switch {
		case name == "node_cpu_seconds_total":
			addCPU(r, f)
		case strings.HasPrefix(name, "node_memory_") && strings.HasSuffix(name, "_bytes"):
			for _, m := range f.Metric {
				if v, ok := value(m); ok {
					r.Mem[strings.TrimSuffix(strings.TrimPrefix(name, "node_memory_"), "_bytes")] = v
				}
			}
		case strings.HasPrefix(name, "node_disk_"):
			addDisk(r, name, f)
		case strings.HasPrefix(name, "node_network_"):
			addNet(r, name, f)
		}
	}
	if len(r.CPU)+len(r.Mem)+len(r.Disks)+len(r.Nets) == 0 {
		return nil, errNotNodeExporter
	}
	return r, nil
}

func addCPU(r *reading, f *dto.MetricFamily) {
	for _, m := range f.Metric {
		v, ok := value(m)
		if !ok {
			continue
		}
		id := label(m, "cpu")
		c := r.CPU[id]
		if c == nil {
			c = &machine.CPUTimes{}
			r.CPU[id] = c
		}
		switch label(m, "mode") {
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
}

func addDisk(r *reading, name string, f *dto.MetricFamily) {
	var field func(*machine.DiskCounters) *float64
	switch name {
	case "node_disk_reads_completed_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.Reads }
	case "node_disk_writes_completed_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.Writes }
	case "node_disk_read_bytes_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.ReadBytes }
	case "node_disk_written_bytes_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.WrittenBytes }
	case "node_disk_read_time_seconds_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.ReadSecs }
	case "node_disk_write_time_seconds_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.WriteSecs }
	case "node_disk_io_time_seconds_total":
		field = func(d *machine.DiskCounters) *float64 { return &d.IOSecs }
	default:
		return
	}
	for _, m := range f.Metric {
		if v, ok := value(m); ok {
			dev := label(m, "device")
			d := r.Disks[dev]
			if d == nil {
				d = &machine.DiskCounters{}
				r.Disks[dev] = d
			}
			*field(d) = v
		}
	}
}

func addNet(r *reading, name string, f *dto.MetricFamily) {
	var field func(*machine.NetCounters) *float64
	switch name {
	case "node_network_receive_bytes_total":
		field = func(n *machine.NetCounters) *float64 { return &n.RxBytes }
	case "node_network_transmit_bytes_total":
		field = func(n *machine.NetCounters) *float64 { return &n.TxBytes }
	case "node_network_receive_packets_total":
		field = func(n *machine.NetCounters) *float64 { return &n.RxPackets }
	case "node_network_transmit_packets_total":
		field = func(n *machine.NetCounters) *float64 { return &n.TxPackets }
	case "node_network_receive_drop_total":
		field = func(n *machine.NetCounters) *float64 { return &n.RxDrops }
	case "node_network_transmit_drop_total":
		field = func(n *machine.NetCounters) *float64 { return &n.TxDrops }
	case "node_network_speed_bytes":
		field = func(n *machine.NetCounters) *float64 { return &n.Speed }
	default:
		return
	}
	for _, m := range f.Metric {
		if v, ok := value(m); ok {
			dev := label(m, "device")
			n := r.Nets[dev]
			if n == nil {
				n = &machine.NetCounters{}
				r.Nets[dev] = n
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
// the caller's), by the one arithmetic the loader host uses too (package
// telemetry/machine).
func sample(prev, cur *reading, dt time.Duration) result.NodeSample {
	c := machine.CPUDeltas(prev, cur)
	m := machine.MemFigures(cur.Mem)
	return result.NodeSample{DurationNs: dt.Nanoseconds(),
		CPUs: c.CPUs, CPUUser: c.User, CPUSystem: c.System, CPUIOWait: c.IOWait, CPUIRQ: c.IRQ, CPUSoftIRQ: c.SoftIRQ,
		CPUSteal: c.Steal, CPUIdle: c.Idle, CPUMaxCore: c.MaxCore, CPUMaxCoreID: c.MaxCoreID, CPUMaxCoreIRQ: c.MaxCoreIRQ,
		MemTotalBytes: m.TotalBytes, MemUsedBytes: m.UsedBytes, MemAvailableBytes: m.AvailableBytes,
		PageCacheBytes: m.PageCacheBytes, DirtyBytes: m.DirtyBytes,
		Disks: machine.DiskDeltas(prev.Disks, cur.Disks, dt), Nets: machine.NetDeltas(prev.Nets, cur.Nets)}
}
