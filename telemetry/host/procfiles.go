package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/platbench/platbench/telemetry/machine"
	"github.com/platbench/platbench/telemetry/proc"
)

// procFiles reads the loader host's counters from /proc each sample, in
// place: the files stay open and are read again from their start into one
// buffer, and the figures go into a machine.Frame whose entries are reused,
// so a sample of a host whose cores, disks and interfaces were seen
// allocates nothing here. The prometheus/procfs functions used before made
// about 60 KB of garbage a sample (its whole /proc/stat parse with the
// interrupt table, strings.Fields on every line), a sample a second for as
// long as the run lasts. Only the figures a sample uses are read.
type procFiles struct {
	root  string // "/proc"; a fixture directory in tests
	files map[string]*os.File
	buf   []byte
	names map[string]string // interned core ids and device names
}

func newProcFiles(root string) *procFiles {
	return &procFiles{root: root, files: map[string]*os.File{}, buf: make([]byte, 0, 16<<10), names: map[string]string{}}
}

// procStat is what a sample reads of /proc/stat beside the CPU times.
type procStat struct{ ctxt, intr uint64 }

// read returns the whole of the file at path under root (valid until the
// next read).
func (p *procFiles) read(path string) ([]byte, error) {
	f := p.files[path]
	if f == nil {
		var err error
		if f, err = os.Open(filepath.Join(p.root, path)); err != nil {
			return nil, err
		}
		p.files[path] = f
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	b, err := proc.ReadInto(f, p.buf)
	p.buf = b
	return b, err
}

// close closes the files kept open.
func (p *procFiles) close() {
	for k, f := range p.files {
		f.Close()
		delete(p.files, k)
	}
}

// intern returns b as a string, the same string each time.
func (p *procFiles) intern(b []byte) string {
	if s, ok := p.names[string(b)]; ok {
		return s
	}
	if len(p.names) > machine.MaxEntries {
		clear(p.names)
	}
	s := string(b)
	p.names[s] = s
	return s
}

// userHZ is the unit of /proc/stat's CPU times (USER_HZ, 100 on every
// Linux architecture's ABI).
const userHZ = 100

// stat reads /proc/stat's CPU lines into f (Total and each core) and
// returns the context switches and interrupts since boot. User includes
// guest time (the kernel already counts it there).
func (p *procFiles) stat(f *machine.Frame) (procStat, error) {
	b, err := p.read("stat")
	if err != nil {
		return procStat{}, err
	}
	return parseStat(b, f, p.intern)
}

func parseStat(b []byte, f *machine.Frame, intern func([]byte) string) (procStat, error) {
	var st procStat
	seen := false
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		key, rest := field(line)
		switch {
		case bytes.HasPrefix(key, []byte("cpu")):
			var c *machine.CPUTimes
			if len(key) == 3 {
				c = f.TotalSlot()
			} else {
				id := key[3:]
				if _, err := strconv.ParseUint(string(id), 10, 32); err != nil {
					return st, fmt.Errorf("/proc/stat: %q is not a CPU line", line)
				}
				c = f.CPUSlot(intern(id))
			}
			if err := cpuTimes(rest, c); err != nil {
				return st, fmt.Errorf("/proc/stat: %q: %w", line, err)
			}
			seen = true
		case string(key) == "ctxt":
			v, _ := field(rest)
			st.ctxt, _ = strconv.ParseUint(string(v), 10, 64)
		case string(key) == "intr":
			v, _ := field(rest)
			st.intr, _ = strconv.ParseUint(string(v), 10, 64)
		}
	}
	if !seen {
		return st, errors.New("/proc/stat has no cpu line")
	}
	return st, nil
}

// cpuTimes reads a cpu line's times (user nice system idle iowait irq
// softirq steal guest guest_nice, in USER_HZ; an older kernel gives fewer).
func cpuTimes(b []byte, c *machine.CPUTimes) error {
	dst := [...]*float64{&c.User, &c.Nice, &c.System, &c.Idle, &c.IOWait, &c.IRQ, &c.SoftIRQ, &c.Steal}
	for i := 0; ; i++ {
		var tok []byte
		tok, b = field(b)
		if len(tok) == 0 {
			if i < 4 {
				return errors.New("fewer than four times")
			}
			return nil
		}
		v, err := strconv.ParseUint(string(tok), 10, 64)
		if err != nil {
			return fmt.Errorf("time %q is not a count", tok)
		}
		if i < len(dst) {
			*dst[i] = float64(v) / userHZ
		}
	}
}

// meminfo reads /proc/meminfo's gauges that machine.MemFigures uses, in
// bytes, into f.Mem.
func (p *procFiles) meminfo(f *machine.Frame) error {
	b, err := p.read("meminfo")
	if err != nil {
		return err
	}
	return parseMeminfo(b, f.Mem)
}

// memNames are the /proc/meminfo fields a sample uses.
var memNames = []string{"MemTotal", "MemFree", "Buffers", "Cached", "SReclaimable", "MemAvailable", "Dirty", "SwapTotal", "SwapFree"}

func parseMeminfo(b []byte, mem map[string]float64) error {
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			continue
		}
		name := line[:i]
		k := -1
		for j, n := range memNames {
			if string(name) == n {
				k = j
				break
			}
		}
		if k < 0 {
			continue
		}
		tok, rest := field(line[i+1:])
		v, err := strconv.ParseUint(string(tok), 10, 64)
		if err != nil {
			return fmt.Errorf("/proc/meminfo: %q: the value is not a count", line)
		}
		unit, _ := field(rest)
		switch string(unit) {
		case "kB":
			v *= 1024
		case "":
		default:
			return fmt.Errorf("/proc/meminfo: %q: unit %q", line, unit)
		}
		mem[memNames[k]] = float64(v)
	}
	if len(mem) == 0 {
		return errors.New("/proc/meminfo has none of " + fmt.Sprint(memNames))
	}
	return nil
}

// vmstat reads /proc/vmstat's paging counters into f.VM.
func (p *procFiles) vmstat(f *machine.Frame) error {
	b, err := p.read("vmstat")
	if err != nil {
		return err
	}
	return parseVMStat(b, &f.VM)
}

// parseVMStat reads the counters of machine.VMCounters: pgmajfault,
// pswpin, pswpout, and allocstall (one line before Linux 4.8, one per zone
// since: allocstall_normal, allocstall_movable..., summed).
func parseVMStat(b []byte, vm *machine.VMCounters) error {
	*vm = machine.VMCounters{}
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		key, rest := field(line)
		var dst *float64
		switch {
		case string(key) == "pgmajfault":
			dst, vm.Read = &vm.MajorFaults, true
		case string(key) == "pswpin":
			dst = &vm.SwapIn
		case string(key) == "pswpout":
			dst = &vm.SwapOut
		case string(key) == "allocstall" || bytes.HasPrefix(key, []byte("allocstall_")):
			dst = &vm.AllocStalls
		default:
			continue
		}
		tok, _ := field(rest)
		v, err := strconv.ParseUint(string(tok), 10, 64)
		if err != nil {
			*vm = machine.VMCounters{}
			return fmt.Errorf("/proc/vmstat: %q: the value is not a count", line)
		}
		*dst += float64(v)
	}
	if !vm.Read {
		*vm = machine.VMCounters{}
		return errors.New("/proc/vmstat has no pgmajfault line")
	}
	return nil
}

// diskstats reads /proc/diskstats' counters of the devices whole says are
// whole disks into f.Disks. Sectors are always 512 bytes there, whatever
// the device's block size; times are in milliseconds.
func (p *procFiles) diskstats(f *machine.Frame, whole map[string]bool) error {
	b, err := p.read("diskstats")
	if err != nil {
		return err
	}
	return parseDiskstats(b, f, whole, p.intern)
}

func parseDiskstats(b []byte, f *machine.Frame, whole map[string]bool, intern func([]byte) string) error {
	var v [11]uint64 // reads merged sectors ms, writes merged sectors ms, in flight, io ms, weighted ms
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		_, rest := field(line) // major
		_, rest = field(rest)  // minor
		name, rest := field(rest)
		if len(name) == 0 {
			continue
		}
		if !whole[string(name)] {
			continue
		}
		for i := range v {
			var tok []byte
			tok, rest = field(rest)
			n, err := strconv.ParseUint(string(tok), 10, 64)
			if err != nil {
				return fmt.Errorf("/proc/diskstats: %q: field %d is not a count", line, i+4)
			}
			v[i] = n
		}
		d := f.DiskSlot(intern(name))
		*d = machine.DiskCounters{Reads: float64(v[0]), Writes: float64(v[4]), ReadBytes: float64(v[2]) * 512,
			WrittenBytes: float64(v[6]) * 512, ReadSecs: float64(v[3]) / 1e3, WriteSecs: float64(v[7]) / 1e3, IOSecs: float64(v[9]) / 1e3}
	}
	return nil
}

// netdev reads /proc/net/dev's traffic of every interface into f.Nets.
func (p *procFiles) netdev(f *machine.Frame) error {
	b, err := p.read("net/dev")
	if err != nil {
		return err
	}
	return parseNetDev(b, f, p.intern)
}

func parseNetDev(b []byte, f *machine.Frame, intern func([]byte) string) error {
	var v [10]uint64 // rx bytes packets errs drop fifo frame compressed multicast, tx bytes packets
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		i := bytes.IndexByte(line, ':')
		if i < 0 {
			continue // the two header lines
		}
		name := bytes.TrimSpace(line[:i])
		if bytes.IndexByte(name, '|') >= 0 || len(name) == 0 {
			continue
		}
		rest := line[i+1:]
		for k := range v {
			var tok []byte
			tok, rest = field(rest)
			n, err := strconv.ParseUint(string(tok), 10, 64)
			if err != nil {
				return fmt.Errorf("/proc/net/dev: %q: field %d is not a count", line, k+1)
			}
			v[k] = n
		}
		c := f.NetSlot(intern(name))
		*c = machine.NetCounters{RxBytes: float64(v[0]), RxPackets: float64(v[1]), TxBytes: float64(v[8]), TxPackets: float64(v[9])}
	}
	return nil
}

// load1 is /proc/loadavg's one-minute load average.
func (p *procFiles) load1() (float64, error) {
	b, err := p.read("loadavg")
	if err != nil {
		return 0, err
	}
	return parseLoad1(b)
}

func parseLoad1(b []byte) (float64, error) {
	tok, _ := field(b)
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("/proc/loadavg: %q is not a load average", tok)
	}
	return v, nil
}

// nextLine splits b at its first newline.
func nextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// field is b's first run of non-blank bytes and what follows it.
func field(b []byte) (tok, rest []byte) {
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && b[j] != ' ' && b[j] != '\t' {
		j++
	}
	return b[i:j], b[j:]
}
