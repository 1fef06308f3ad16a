// Package host samples the machine every interval (1 s by default) from
// /proc and /sys, via github.com/prometheus/procfs: CPU split into user,
// system, iowait, irq, softirq, steal and idle, the busiest core, load,
// memory / page cache / dirty, paging (major faults, swap in and out,
// direct reclaim: /proc/vmstat) and swap in use, per-device disk I/O with mean latency,
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
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/machine"
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

// WithSample calls f with every sample as it is taken (the run's journal
// writes it), before the series thins it.
func WithSample(f func(result.TelemetrySample)) Option { return func(s *Sampler) { s.onSample = f } }

// WithLinkLimits records the link limits the user stated, in bits/s, by
// interface ("" for every interface but lo): HostSeries.Links.
func WithLinkLimits(l map[string]int64) Option { return func(s *Sampler) { s.linkLimits = l } }

// Sampler is a running host sampler.
type Sampler struct {
	interval time.Duration
	server   *proc.Tracker
	self     *proc.Tracker
	tick     func(int, time.Time)
	onSample func(result.TelemetrySample)

	proc *procFiles
	net  netSampler // qdiscs, TCP retransmits (netsat.go)

	linkLimits map[string]int64

	cancel context.CancelFunc
	done   chan struct{}

	mu       sync.Mutex
	series   result.HostSeries
	latest   result.HostSample
	haveLast bool
	// The series kept bounded past the first hour (result.Thin), at
	// most 16 samples when the samples go to the journal (Thin.Wide); the
	// latest process samples are kept apart for live displays.
	thinHost             *result.Thin[result.HostSample]
	thinSelf, thinServer *result.Thin[result.ProcSample]
	lastSelf, lastServer *result.ProcSample
	err                  error

	// the previous raw reading
	prevAt    time.Time
	prevStat  procStat
	prev      *machine.Frame
	spare     *machine.Frame // the frame the next reading is read into
	havePrev  bool
	wholeDisk map[string]bool
	ticks     int // samples taken
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
	s.proc = newProcFiles("/proc")
	s.net.qdisc = newQdiscReader()
	s.series.Links = links("/sys/class/net", s.linkLimits)
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
	s.proc.close()
	s.net.close()
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
	if s.lastSelf != nil {
		v := *s.lastSelf
		self = &v
	}
	if s.lastServer != nil {
		v := *s.lastServer
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
	cur := s.spare
	if cur == nil {
		cur = machine.NewFrame()
	}
	s.spare = nil
	cur.Reset()
	stat, errStat := s.proc.stat(cur)
	errDisk := s.proc.diskstats(cur, s.wholeDisk)
	errNet := s.proc.netdev(cur)
	errMem := s.proc.meminfo(cur)
	errVM := s.proc.vmstat(cur)
	if errors.Is(errVM, fs.ErrNotExist) {
		errVM = nil // a kernel (or sandbox) without /proc/vmstat: no paging figures, not a fault
	}
	load, errLoad := s.proc.load1()
	netRead := s.net.read(s.proc)
	dropPartial(cur, errStat, errDisk, errNet, errMem)
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
	for _, err := range []error{errStat, errDisk, errNet, errMem, errLoad, errVM, netRead.errTCP} {
		s.setErr(err)
	}

	if s.havePrev {
		dt := now.Sub(s.prevAt)
		hs := result.HostSample{
			OffsetNs:   s.prevAt.Sub(s.series.StartedAt).Nanoseconds(),
			DurationNs: dt.Nanoseconds(),
		}
		if errStat == nil {
			cpuSplit(&hs, &s.prev.Reading, &cur.Reading)
			hs.CtxSwitches = sub(stat.ctxt, s.prevStat.ctxt)
			hs.Interrupts = sub(stat.intr, s.prevStat.intr)
		}
		if errLoad == nil {
			hs.Load1 = load
		}
		if errMem == nil {
			m := machine.MemFigures(cur.Mem)
			hs.MemUsedBytes, hs.MemAvailableBytes, hs.PageCacheBytes, hs.DirtyBytes = m.UsedBytes, m.AvailableBytes, m.PageCacheBytes, m.DirtyBytes
		}
		hs.Paging = machine.PagingDeltas(&s.prev.Reading, &cur.Reading) // none unless both read /proc/vmstat
		if errDisk == nil {
			hs.Disks = machine.DiskDeltas(s.prev.Disks, cur.Disks, dt)
		}
		if errNet == nil {
			hs.Nets = hostNets(machine.NetDeltas(s.prev.Nets, cur.Nets))
		}
		s.net.fill(&hs, netRead)
		s.keep(hs, selfS, selfOK, srvS, srvOK)
		if s.tick != nil {
			s.tick(s.ticks, now)
		}
		s.ticks++
	}
	s.net.keep(netRead)
	s.spare = s.prev
	s.prevAt, s.prevStat, s.prev, s.havePrev = now, stat, cur, true
}

// dropPartial empties what cur read from a file that failed part-way: a
// file read in part gives no figures, and the next sample does not compare
// with a part.
func dropPartial(cur *machine.Frame, errStat, errDisk, errNet, errMem error) {
	if errStat != nil {
		clear(cur.CPU)
		cur.Total = nil
	}
	if errDisk != nil {
		clear(cur.Disks)
	}
	if errNet != nil {
		clear(cur.Nets)
	}
	if errMem != nil {
		clear(cur.Mem)
	}
}

// keep adds one sample of the host (and of platbench and the server) to the
// series, which stay bounded past the first hour (result.Thin). Called with
// mu held.
func (s *Sampler) keep(hs result.HostSample, selfS result.ProcSample, selfOK bool, srvS result.ProcSample, srvOK bool) {
	if s.thinHost == nil {
		s.thinHost, s.thinSelf, s.thinServer = result.HostThin(), result.ProcThin(), result.ProcThin()
		// Samples that go to the journal are read back from it at the end.
		wide := s.onSample != nil
		s.thinHost.Wide, s.thinSelf.Wide, s.thinServer.Wide = wide, wide, wide
	}
	if s.onSample != nil {
		ts := result.TelemetrySample{StartedAt: s.series.StartedAt, Host: &hs}
		if selfOK {
			ts.Self = &selfS
		}
		if srvOK {
			ts.Server = &srvS
		}
		selfS.OffsetNs, srvS.OffsetNs = hs.OffsetNs, hs.OffsetNs
		s.onSample(ts)
	}
	s.thinHost.Add(hs)
	s.series.Samples = s.thinHost.Samples()
	s.latest, s.haveLast = hs, true
	if selfOK {
		selfS.OffsetNs = hs.OffsetNs
		s.thinSelf.Add(selfS)
		s.series.SelfSamples = s.thinSelf.Samples()
		s.lastSelf = &selfS
	}
	if srvOK {
		srvS.OffsetNs = hs.OffsetNs
		s.thinServer.Add(srvS)
		s.series.Server = s.thinServer.Samples()
		s.lastServer = &srvS
	}
}

// cpuSplit fills the CPU figures from two readings of /proc/stat
// (package telemetry/machine: the same arithmetic as the server nodes').
func cpuSplit(hs *result.HostSample, prev, cur *machine.Reading) {
	c := machine.CPUDeltas(prev, cur)
	hs.CPUUser, hs.CPUSystem, hs.CPUIOWait, hs.CPUIRQ, hs.CPUSoftIRQ, hs.CPUSteal, hs.CPUIdle = c.User, c.System, c.IOWait, c.IRQ, c.SoftIRQ, c.Steal, c.Idle
	hs.CPUMaxCore, hs.CPUMaxCoreID, hs.CPUMaxCoreIRQ = c.MaxCore, c.MaxCoreID, c.MaxCoreIRQ
}

// hostNets keeps the loader host's figures of each interface (its samples
// carry no drops or speed).
func hostNets(n map[string]result.NodeNetIO) map[string]result.NetIO {
	out := make(map[string]result.NetIO, len(n))
	for name, v := range n {
		out[name] = result.NetIO{RxBytes: v.RxBytes, TxBytes: v.TxBytes, RxPackets: v.RxPackets, TxPackets: v.TxPackets}
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
