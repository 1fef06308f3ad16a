package nodes

import (
	"io"
	"math"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/platbench/platbench/telemetry/machine"
)

// The reference the parser is held to: node_exporter's exposition read by
// github.com/prometheus/common/expfmt (the parser platbench used before
// its own, issue 34), its families turned into a reading the same way.
// TestParserIsExpfmt and FuzzParseExposition compare the two.

// parseWithExpfmt reads a body with expfmt. Values that are negative, NaN
// or infinite are left out.
func parseWithExpfmt(body io.Reader) (*reading, error) {
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
			expfmtCPU(r, f)
		case strings.HasPrefix(name, "node_memory_") && strings.HasSuffix(name, "_bytes"):
			for _, m := range f.Metric {
				if v, ok := expfmtValue(m); ok {
					r.Mem[strings.TrimSuffix(strings.TrimPrefix(name, "node_memory_"), "_bytes")] = v
				}
			}
		case strings.HasPrefix(name, "node_disk_"):
			expfmtDisk(r, name, f)
		case strings.HasPrefix(name, "node_network_"):
			expfmtNet(r, name, f)
		}
	}
	if len(r.CPU)+len(r.Mem)+len(r.Disks)+len(r.Nets) == 0 {
		return nil, errNotNodeExporter
	}
	return r, nil
}

func expfmtCPU(r *reading, f *dto.MetricFamily) {
	for _, m := range f.Metric {
		v, ok := expfmtValue(m)
		if !ok {
			continue
		}
		id := expfmtLabel(m, "cpu")
		c := r.CPU[id]
		if c == nil {
			c = &machine.CPUTimes{}
			r.CPU[id] = c
		}
		switch expfmtLabel(m, "mode") {
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

func expfmtDisk(r *reading, name string, f *dto.MetricFamily) {
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
		if v, ok := expfmtValue(m); ok {
			dev := expfmtLabel(m, "device")
			d := r.Disks[dev]
			if d == nil {
				d = &machine.DiskCounters{}
				r.Disks[dev] = d
			}
			*field(d) = v
		}
	}
}

func expfmtNet(r *reading, name string, f *dto.MetricFamily) {
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
		if v, ok := expfmtValue(m); ok {
			dev := expfmtLabel(m, "device")
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
func expfmtValue(m *dto.Metric) (float64, bool) {
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

func expfmtLabel(m *dto.Metric, name string) string {
	for _, l := range m.Label {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
