package machine

// A Frame is a Reading refilled in place each read: the entries of its
// maps come from pools kept across reads, so a core, device or interface
// seen before costs no allocation. A collector keeps two (the previous
// reading and the one being read) and swaps them: a sampler that reads
// every second for a week must not make a new reading each time.
type Frame struct {
	Reading
	total CPUTimes
	cpus  map[string]*CPUTimes
	disks map[string]*DiskCounters
	nets  map[string]*NetCounters
}

// MaxEntries bounds a frame's pools: a source whose device names change
// every read must not grow a week-long run's memory.
const MaxEntries = 4096

// NewFrame makes an empty frame.
func NewFrame() *Frame {
	return &Frame{Reading: Reading{CPU: map[string]*CPUTimes{}, Mem: map[string]float64{},
		Disks: map[string]*DiskCounters{}, Nets: map[string]*NetCounters{}},
		cpus: map[string]*CPUTimes{}, disks: map[string]*DiskCounters{}, nets: map[string]*NetCounters{}}
}

// Reset empties the reading (only what this read fills will be in it) and
// bounds the pools.
func (f *Frame) Reset() {
	clear(f.CPU)
	clear(f.Mem)
	clear(f.Disks)
	clear(f.Nets)
	f.Total = nil
	f.VM = VMCounters{}
	f.TCP = TCPCounters{}
	if len(f.cpus)+len(f.disks)+len(f.nets) > MaxEntries {
		clear(f.cpus)
		clear(f.disks)
		clear(f.nets)
	}
}

// CPUSlot is core id's entry, zeroed the first time this read names it.
func (f *Frame) CPUSlot(id string) *CPUTimes { return slot(f.CPU, f.cpus, id) }

// DiskSlot is device's entry, zeroed the first time this read names it.
func (f *Frame) DiskSlot(device string) *DiskCounters { return slot(f.Disks, f.disks, device) }

// NetSlot is interface's entry, zeroed the first time this read names it.
func (f *Frame) NetSlot(iface string) *NetCounters { return slot(f.Nets, f.nets, iface) }

// TotalSlot is the all-CPU entry (Reading.Total), zeroed.
func (f *Frame) TotalSlot() *CPUTimes {
	f.total = CPUTimes{}
	f.Total = &f.total
	return f.Total
}

// slot is the entry of key in live, zeroed, taken from pool (or made and
// pooled) the first time this read names it.
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
