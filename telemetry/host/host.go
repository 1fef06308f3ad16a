// Package host samples the machine every interval (1 s by default) from
// /proc and /sys, via github.com/prometheus/procfs: CPU split into user,
// system, iowait, irq, softirq, steal and idle, the busiest core, load,
// memory / page cache / dirty, per-device disk I/O with mean latency,
// per-interface network traffic, context switches and interrupts. It also
// samples platbench's own process and, when given, a server process on the
// same host (package telemetry/proc).
//
// Usage:
//
//	s := host.Start(ctx, time.Second, host.WithServer(tr))
//	... run ...
//	series := s.Stop() // *result.HostSeries
//
// The sampler reads a dozen small files per tick on its own goroutine; it
// never touches the load path. A file it cannot read leaves its figures
// zero (the sampler keeps going); Err reports the first such problem.
package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/procfs"
	"github.com/prometheus/procfs/blockdevice"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/proc"
)

// DefaultInterval is the sampling period when Start is given 0.
const DefaultInterval = time.Second

// Option configures a Sampler.
type Option func(*Sampler)

// WithServer samples a server process too (HostSeries.Server).
func WithServer(t *proc.Tracker) Option { return func(s *Sampler) { s.server = t } }

// WithTick calls f after each sample with its index, on the sampler's
// goroutine; the perf counters use it to cut their intervals on the same clock.
func WithTick(f func(i int, at time.Time)) Option { return func(s *Sampler) { s.tick = f } }

// Sampler is a running host sampler.
type Sampler struct {
	interval time.Duration
	server   *proc.Tracker
	self     *proc.Tracker
	tick     func(int, time.Time)

	fs  procfs.FS
	bfs blockdevice.FS

	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	series   result.HostSeries
	latest   result.HostSample
	haveLast bool
	err      error

	// previous raw readings
	prevAt    time.Time
	prevStat  procfs.Stat
	prevDisks map[string]blockdevice.IOStats
	prevNets  map[string]procfs.NetDevLine
	havePrev  bool
	wholeDisk map[string]bool
}

// Start begins sampling now; the first sample covers [now, now+interval).
func Start(ctx context.Context, interval time.Duration, opts ...Option) *Sampler {
	if interval <= 0 {
		interval = DefaultInterval
	}
	s := &Sampler{interval: interval, done: make(chan struct{}), wholeDisk: wholeDisks()}
	for _, o := range opts {
		o(s)
	}
	var err error
	if s.fs, err = procfs.NewDefaultFS(); err != nil {
		s.err = err
	}
	if s.bfs, err = blockdevice.NewDefaultFS(); err != nil && s.err == nil {
		s.err = err
	}
	s.self, _ = proc.Self()
	ctx, s.cancel = context.WithCancel(ctx)
	now := time.Now()
	s.series.StartedAt = now
	s.series.IntervalNs = int64(interval)
	if s.server != nil {
		s.series.ServerMatch = s.server.Match()
	}
	s.read(now) // baseline
	go s.loop(ctx)
	return s
}

func (s *Sampler) loop(ctx context.Context) {
	defer close(s.done)
	t := time.NewTicker(s.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.read(now)
		}
	}
}

// Stop ends sampling and returns the series. The partial interval since the
// last tick is sampled too when it is at least a fifth of the interval, so
// short runs still get figures.
func (s *Sampler) Stop() *result.HostSeries {
	s.cancel()
	<-s.done
	s.mu.Lock()
	last := s.prevAt
	s.mu.Unlock()
	if now := time.Now(); now.Sub(last) >= s.interval/5 {
		s.read(now)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.series
	return &out
}

// Latest returns the most recent sample (false before the first one).
func (s *Sampler) Latest() (result.HostSample, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest, s.haveLast
}

// LatestProcs returns the latest samples of platbench itself and of the server.
func (s *Sampler) LatestProcs() (self, server *result.ProcSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.series.SelfSamples); n > 0 {
		v := s.series.SelfSamples[n-1]
		self = &v
	}
	if n := len(s.series.Server); n > 0 {
		v := s.series.Server[n-1]
		server = &v
	}
	return self, server
}

// Err is the first problem reading /proc or /sys, or nil.
func (s *Sampler) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

func (s *Sampler) setErr(err error) {
	if err != nil && s.err == nil {
		s.err = err
	}
}

// read takes one reading and, when there is a previous one, appends the sample.
func (s *Sampler) read(now time.Time) {
	stat, errStat := s.fs.Stat()
	disks, errDisk := s.bfs.ProcDiskstats()
	nets, errNet := s.fs.NetDev()
	mem, errMem := s.fs.Meminfo()
	load, errLoad := s.fs.LoadAvg()
	var selfS, srvS result.ProcSample
	var selfOK, srvOK bool
	if s.self != nil {
		selfS, selfOK, _ = s.self.Sample(now)
	}
	if s.server != nil {
		srvS, srvOK, _ = s.server.Sample(now)
	}

	s.mu.Lock()
	defer s.mu.Unlock()
	for _, err := range []error{errStat, errDisk, errNet, errMem, errLoad} {
		s.setErr(err)
	}
	curDisks := make(map[string]blockdevice.IOStats, len(disks))
	for _, d := range disks {
		if s.wholeDisk[d.DeviceName] {
			curDisks[d.DeviceName] = d.IOStats
		}
	}
	curNets := map[string]procfs.NetDevLine(nets)

	if s.havePrev {
		dt := now.Sub(s.prevAt)
		hs := result.HostSample{
			OffsetNs:   s.prevAt.Sub(s.series.StartedAt).Nanoseconds(),
			DurationNs: dt.Nanoseconds(),
		}
		if errStat == nil {
			cpuSplit(&hs, s.prevStat, stat)
			hs.CtxSwitches = sub(stat.ContextSwitches, s.prevStat.ContextSwitches)
			hs.Interrupts = sub(stat.IRQTotal, s.prevStat.IRQTotal)
		}
		if errLoad == nil {
			hs.Load1 = load.Load1
		}
		if errMem == nil {
			memFigures(&hs, mem)
		}
		if errDisk == nil {
			hs.Disks = diskDeltas(s.prevDisks, curDisks, dt)
		}
		if errNet == nil {
			hs.Nets = netDeltas(s.prevNets, curNets)
		}
		s.series.Samples = append(s.series.Samples, hs)
		s.latest, s.haveLast = hs, true
		if selfOK {
			selfS.OffsetNs = hs.OffsetNs
			s.series.SelfSamples = append(s.series.SelfSamples, selfS)
		}
		if srvOK {
			srvS.OffsetNs = hs.OffsetNs
			s.series.Server = append(s.series.Server, srvS)
		}
		if s.tick != nil {
			s.tick(len(s.series.Samples)-1, now)
		}
	}
	s.prevAt, s.prevStat, s.prevDisks, s.prevNets, s.havePrev = now, stat, curDisks, curNets, true
}

// cpuSplit fills the CPU fractions from two /proc/stat readings. User
// includes nice (and guest time, which the kernel already counts in user).
func cpuSplit(hs *result.HostSample, a, b procfs.Stat) {
	d := func(x, y procfs.CPUStat) (user, sys, iow, irq, soft, steal, idle, total float64) {
		user = (y.User - x.User) + (y.Nice - x.Nice)
		sys = y.System - x.System
		iow = y.Iowait - x.Iowait
		irq = y.IRQ - x.IRQ
		soft = y.SoftIRQ - x.SoftIRQ
		steal = y.Steal - x.Steal
		idle = y.Idle - x.Idle
		total = user + sys + iow + irq + soft + steal + idle
		return
	}
	user, sys, iow, irq, soft, steal, idle, total := d(a.CPUTotal, b.CPUTotal)
	if total > 0 {
		hs.CPUUser, hs.CPUSystem, hs.CPUIOWait = user/total, sys/total, iow/total
		hs.CPUIRQ, hs.CPUSoftIRQ, hs.CPUSteal, hs.CPUIdle = irq/total, soft/total, steal/total, idle/total
	}
	hs.CPUMaxCoreID = -1
	for id, y := range b.CPU {
		x, ok := a.CPU[id]
		if !ok {
			continue
		}
		_, _, iow, irq, soft, _, idle, total := d(x, y)
		if total <= 0 {
			continue
		}
		if f := (irq + soft) / total; f > hs.CPUMaxCoreIRQ {
			hs.CPUMaxCoreIRQ = f
		}
		// A core waiting on I/O is idle for this purpose: busy means running something.
		if busy := 1 - (idle+iow)/total; busy > hs.CPUMaxCore || hs.CPUMaxCoreID < 0 {
			hs.CPUMaxCore, hs.CPUMaxCoreID = busy, int(id)
		}
	}
}

func memFigures(hs *result.HostSample, m procfs.Meminfo) {
	v := func(p *uint64) int64 {
		if p == nil {
			return 0
		}
		return int64(*p)
	}
	total, free, buf, cached, srecl := v(m.MemTotalBytes), v(m.MemFreeBytes), v(m.BuffersBytes), v(m.CachedBytes), v(m.SReclaimableBytes)
	// As free(1): used = total - free - buffers - page cache - reclaimable slab.
	hs.MemUsedBytes = total - free - buf - cached - srecl
	hs.MemAvailableBytes = v(m.MemAvailableBytes)
	hs.PageCacheBytes = cached
	hs.DirtyBytes = v(m.DirtyBytes)
}

// diskDeltas turns two /proc/diskstats readings into per-device I/O. Sectors
// in diskstats are always 512 bytes, whatever the device's block size.
func diskDeltas(prev, cur map[string]blockdevice.IOStats, dt time.Duration) map[string]result.DiskIO {
	out := make(map[string]result.DiskIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok {
			continue
		}
		io := result.DiskIO{
			Reads:      sub(c.ReadIOs, p.ReadIOs),
			Writes:     sub(c.WriteIOs, p.WriteIOs),
			ReadBytes:  sub(c.ReadSectors, p.ReadSectors) * 512,
			WriteBytes: sub(c.WriteSectors, p.WriteSectors) * 512,
		}
		if io.Reads > 0 {
			io.ReadLatencyNs = int64(sub(c.ReadTicks, p.ReadTicks)) * 1e6 / int64(io.Reads)
		}
		if io.Writes > 0 {
			io.WriteLatencyNs = int64(sub(c.WriteTicks, p.WriteTicks)) * 1e6 / int64(io.Writes)
		}
		if dt > 0 {
			io.BusyFraction = float64(sub(c.IOsTotalTicks, p.IOsTotalTicks)) * 1e6 / float64(dt.Nanoseconds())
			if io.BusyFraction > 1 {
				io.BusyFraction = 1
			}
		}
		out[name] = io
	}
	return out
}

// netDeltas keeps interfaces that ever carried traffic (loopback included:
// a local server's traffic is there).
func netDeltas(prev, cur map[string]procfs.NetDevLine) map[string]result.NetIO {
	out := make(map[string]result.NetIO, len(cur))
	for name, c := range cur {
		p, ok := prev[name]
		if !ok || c.RxPackets+c.TxPackets == 0 {
			continue
		}
		out[name] = result.NetIO{
			RxBytes: sub(c.RxBytes, p.RxBytes), TxBytes: sub(c.TxBytes, p.TxBytes),
			RxPackets: sub(c.RxPackets, p.RxPackets), TxPackets: sub(c.TxPackets, p.TxPackets),
		}
	}
	return out
}

// wholeDisks lists /sys/block devices (whole disks, not partitions),
// without loop and ram devices.
func wholeDisks() map[string]bool {
	ents, _ := os.ReadDir("/sys/block")
	out := make(map[string]bool, len(ents))
	for _, e := range ents {
		n := e.Name()
		if strings.HasPrefix(n, "loop") || strings.HasPrefix(n, "ram") {
			continue
		}
		out[n] = true
	}
	return out
}

// DeviceOf returns the /sys/block name of the whole disk that holds path
// (e.g. "vda" for a file on /dev/vda1), by the file system's device number:
// /sys/dev/block/MAJ:MIN, then up to its parent when it is a partition.
func DeviceOf(path string) (string, error) {
	maj, min, err := devOf(path)
	if err != nil {
		return "", err
	}
	link := filepath.Join("/sys/dev/block", itoa(maj)+":"+itoa(min))
	real, err := filepath.EvalSymlinks(link)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(real, "partition")); err == nil {
		real = filepath.Dir(real)
	}
	return filepath.Base(real), nil
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
