package nodes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
)

// reading is one scrape's raw figures: node_exporter's counters (seconds,
// bytes, operations since boot) and memory gauges, by label.
type reading = machine.Reading

// errNotNodeExporter is a body that parsed but holds none of the figures.
var errNotNodeExporter = errors.New("the body has no node_cpu_seconds_total, node_memory_*, node_disk_* or node_network_* metrics: is this a node_exporter (with its cpu, meminfo, diskstats and netdev collectors on)?")

// A parser reads node_exporter's text exposition (the Prometheus text
// format, version 0.0.4) into a frame, in place: once a node's cores,
// devices and memory names have been seen, reading a body allocates
// nothing (the HTTP request and the sample's maps still do). A
// loader scrapes every node every second for as long as the run lasts;
// expfmt's parser, which this replaces, allocated five to six bytes per
// byte of the body (two thirds of what a soak with six nodes allocated,
// and the garbage that set the collector's goal). Only the lines of the
// families a reading holds are parsed (node_cpu_seconds_total,
// node_memory_*_bytes, and the node_disk_* and node_network_* counters
// below); other lines are skipped unread, so a body expfmt would reject for
// a line of another family still gives its figures. A malformed line of
// those families fails the scrape, naming the line. Values that are
// negative, NaN or infinite are left out: counters never are, and a figure
// computed from one would poison the result file.
type parser struct {
	br *bufio.Reader
	// long holds a line longer than br's buffer.
	long []byte
	// names interns the label values and memory names, so that a frame's
	// keys are not allocated each scrape; bounded by maxNames.
	names map[string]string
	// typed are the families of interest declared summary or histogram:
	// their samples are not plain values (expfmt files them apart).
	typed map[string]bool
	// cpu, mode and device are a line's label values, unescaped.
	cpu, mode, device []byte
}

// maxNames bounds a parser's interned names (and a frame's kept entries):
// an exporter whose device names change every scrape must not grow a
// week-long run's memory.
const maxNames = 4096

func (p *parser) parse(body io.Reader, f *frame) error {
	if p.br == nil {
		p.br = bufio.NewReaderSize(body, 32<<10)
		p.names = map[string]string{}
		p.typed = map[string]bool{}
	} else {
		p.br.Reset(body)
	}
	clear(p.typed)
	if len(p.names) > maxNames {
		clear(p.names)
	}
	f.reset()
	defer func() {
		if cap(p.long) > 64<<10 {
			p.long = nil // one long line does not stay for the run
		}
	}()
	for n := 1; ; n++ {
		line, err := p.readLine()
		if len(line) > 0 {
			if perr := p.line(line, f); perr != nil {
				return fmt.Errorf("text format parsing error in line %d: %w", n, perr)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	if len(f.CPU)+len(f.Mem)+len(f.Disks)+len(f.Nets) == 0 {
		return errNotNodeExporter
	}
	return nil
}

// readLine returns the next line without its newline; io.EOF with the last.
func (p *parser) readLine() ([]byte, error) {
	line, err := p.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		p.long = append(p.long[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = p.br.ReadSlice('\n')
			p.long = append(p.long, line...)
		}
		line = p.long
	}
	if err == nil {
		line = line[:len(line)-1]
	}
	return line, err
}

// line reads one line of the body into f. Comments are skipped but for
// TYPE lines that make a family of interest a summary or a histogram.
func (p *parser) line(b []byte, f *frame) error {
	b = skipBlanks(b)
	if len(b) == 0 {
		return nil
	}
	if b[0] == '#' {
		p.comment(b[1:])
		return nil
	}
	name, rest := metricName(b)
	into := familyOf(name)
	if into == nil || p.typed[string(name)] {
		return nil
	}
	rest = skipBlanks(rest)
	p.cpu, p.mode, p.device = p.cpu[:0], p.mode[:0], p.device[:0]
	if len(rest) > 0 && rest[0] == '{' {
		var err error
		if rest, err = p.labels(rest[1:]); err != nil {
			return err
		}
	}
	v, err := sampleValue(rest)
	if err != nil {
		return err
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return nil
	}
	into(p, f, name, v)
	return nil
}

// comment notes a TYPE line declaring a family of interest a summary or a
// histogram (b follows the '#').
func (p *parser) comment(b []byte) {
	b = skipBlanks(b)
	kw, rest := token(b)
	if string(kw) != "TYPE" {
		return
	}
	name, rest := metricName(skipBlanks(rest))
	if familyOf(name) == nil {
		return
	}
	typ, _ := token(skipBlanks(rest))
	if bytes.EqualFold(typ, []byte("summary")) || bytes.EqualFold(typ, []byte("histogram")) {
		p.typed[p.intern(name)] = true
	}
}

// labels reads a sample's labels after its '{', keeping the values of cpu,
// mode and device, and returns what follows the '}'.
func (p *parser) labels(b []byte) ([]byte, error) {
	for {
		b = skipBlanks(b)
		if len(b) == 0 {
			return nil, errors.New("unexpected end of labels")
		}
		if b[0] == '}' {
			return b[1:], nil
		}
		ln := labelName(b)
		if ln == 0 {
			return nil, fmt.Errorf("invalid label name at %q", clip(b))
		}
		name := b[:ln]
		b = skipBlanks(b[ln:])
		if len(b) == 0 || b[0] != '=' {
			return nil, fmt.Errorf("expected '=' after label name %q", name)
		}
		b = skipBlanks(b[1:])
		if len(b) == 0 || b[0] != '"' {
			return nil, fmt.Errorf("expected '\"' at start of the value of label %q", name)
		}
		var dst *[]byte
		switch string(name) {
		case "cpu":
			dst = &p.cpu
		case "mode":
			dst = &p.mode
		case "device":
			dst = &p.device
		}
		var err error
		if b, err = labelValue(b[1:], dst); err != nil {
			return nil, err
		}
		b = skipBlanks(b)
		if len(b) > 0 && b[0] == ',' {
			b = b[1:]
			continue
		}
		if len(b) == 0 || b[0] != '}' {
			return nil, fmt.Errorf("unexpected end of the value of label %q", name)
		}
	}
}

// labelValue reads a quoted value after its opening quote, unescaping \\,
// \" and \n into *dst when dst is not nil (a label not kept, or a repeated
// one: the first is kept, as expfmt's first match is), and returns what
// follows the closing quote.
func labelValue(b []byte, dst *[]byte) ([]byte, error) {
	keep := dst != nil && len(*dst) == 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch c {
		case '"':
			return b[i+1:], nil
		case '\\':
			i++
			if i == len(b) {
				return nil, errors.New("unexpected end of label value")
			}
			switch b[i] {
			case '"', '\\':
				c = b[i]
			case 'n':
				c = '\n'
			default:
				return nil, fmt.Errorf("invalid escape sequence '\\%c'", b[i])
			}
		}
		if keep {
			*dst = append(*dst, c)
		}
	}
	return nil, errors.New("label value without its closing quote")
}

// sampleValue parses the value after the labels (an optional integer
// timestamp may follow it).
func sampleValue(b []byte) (float64, error) {
	tok, _ := token(skipBlanks(b))
	if len(tok) == 0 {
		return 0, errors.New("no value")
	}
	if bytes.ContainsAny(tok, "pP_") { // hexadecimal floats and digit separators, as expfmt
		return 0, fmt.Errorf("expected float as value, got %q", tok)
	}
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil {
		return 0, fmt.Errorf("expected float as value, got %q", tok)
	}
	return v, nil
}

// intern returns b as a string, the same string each time.
func (p *parser) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	s := string(b)
	p.names[s] = s
	return s
}

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
	}
	return nil
}

func addCPU(p *parser, f *frame, _ []byte, v float64) {
	c := slot(f.CPU, f.cpus, p.intern(p.cpu))
	switch string(p.mode) {
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
	*diskField(name)(slot(f.Disks, f.disks, p.intern(p.device))) = v
}

func addNet(p *parser, f *frame, name []byte, v float64) {
	*netField(name)(slot(f.Nets, f.nets, p.intern(p.device))) = v
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

// A frame is a reading refilled in place each scrape: the entries of its
// maps come from pools kept across scrapes, so a core or device seen before
// costs no allocation. A node keeps two (the previous reading and the one
// being read).
type frame struct {
	reading
	cpus  map[string]*machine.CPUTimes
	disks map[string]*machine.DiskCounters
	nets  map[string]*machine.NetCounters
}

func newFrame() *frame {
	return &frame{reading: reading{CPU: map[string]*machine.CPUTimes{}, Mem: map[string]float64{},
		Disks: map[string]*machine.DiskCounters{}, Nets: map[string]*machine.NetCounters{}},
		cpus: map[string]*machine.CPUTimes{}, disks: map[string]*machine.DiskCounters{}, nets: map[string]*machine.NetCounters{}}
}

// reset empties the reading (only what this scrape reads will be in it)
// and bounds the pools.
func (f *frame) reset() {
	clear(f.CPU)
	clear(f.Mem)
	clear(f.Disks)
	clear(f.Nets)
	if len(f.cpus)+len(f.disks)+len(f.nets) > maxNames {
		clear(f.cpus)
		clear(f.disks)
		clear(f.nets)
	}
}

// slot is the entry of key in live, zeroed, taken from pool (or made and
// pooled) the first time this scrape names it.
func slot[T any](live, pool map[string]*T, key string) *T {
	if e := live[key]; e != nil {
		return e
	}
	e := pool[key]
	if e == nil {
		e = new(T)
		pool[key] = e
	} else {
		var zero T
		*e = zero
	}
	live[key] = e
	return e
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func skipBlanks(b []byte) []byte {
	for len(b) > 0 && isBlank(b[0]) {
		b = b[1:]
	}
	return b
}

// token is b up to its first blank, and the rest.
func token(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && !isBlank(b[i]) {
		i++
	}
	return b[:i], b[i:]
}

// metricName is the metric name b starts with ([a-zA-Z_:][a-zA-Z0-9_:]*;
// empty when b does not start with one), and the rest.
func metricName(b []byte) (name, rest []byte) {
	i := 0
	for i < len(b) {
		c := b[i]
		if c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return b[:i], b[i:]
}

// labelName is the length of the label name b starts with
// ([a-zA-Z_][a-zA-Z0-9_]*).
func labelName(b []byte) int {
	i := 0
	for i < len(b) {
		c := b[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			i++
			continue
		}
		break
	}
	return i
}

// clip shortens what an error quotes.
func clip(b []byte) []byte {
	if len(b) > 40 {
		return b[:40]
	}
	return b
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
