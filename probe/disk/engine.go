package disk

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

// sink is what the engines need from the recorder: a clock and a place to
// record each I/O. Shards are per submitter (per job for io_uring, per
// goroutine for sync): a shard is used by one goroutine only.
type sink interface {
	Now() int64
	Begin(shard, n int) // n more requests in flight
	Record(shard int, op vocab.Op, startNs, endNs int64, bytes uint64, class vocab.Class)
}

// job is one independent submitter's share of a test: fio's job.
type job struct {
	id       int
	fd       int
	bs       int64
	lo, hi   int64        // the job's byte range [lo, hi), bs-aligned
	rand     bool         // random offsets, else sequential from lo
	readPct  uint64       // percentage of reads (0: writes only, 100: reads only)
	scramble bool         // stamp each write's buffer before it is queued (Config.NoScramble; false for read-only jobs)
	seq      atomic.Int64 // next sequential offset, relative to lo
}

// newJobs splits [0, size) among n jobs: sequential tests give each job its
// own contiguous range (fio's offset_increment); random tests share the file.
// scramble stamps each write's buffer (Config.NoScramble).
func newJobs(fd int, t Test, size int64, n, readPct int, scramble bool) ([]*job, error) {
	bs := int64(t.BS)
	isRand := t.RW == RWRandRead || t.RW == RWRandWrite || t.RW == RWRandRW
	per := size / int64(n) / bs * bs
	if per < bs {
		return nil, usererr.Field("size", "of %d bytes cannot give %d jobs a %d-byte block each (fix: a bigger size or fewer jobs)", size, n, bs)
	}
	pct := uint64(readPct)
	switch t.RW {
	case RWRead, RWRandRead:
		pct = 100
	case RWWrite, RWRandWrite:
		pct = 0
	}
	jobs := make([]*job, n)
	for i := range jobs {
		j := &job{id: i, fd: fd, bs: bs, rand: isRand, readPct: pct, scramble: scramble && pct < 100}
		if isRand {
			j.lo, j.hi = 0, size/bs*bs
		} else {
			j.lo, j.hi = int64(i)*per, int64(i+1)*per
		}
		jobs[i] = j
	}
	return jobs, nil
}

// next returns the next I/O of the job. rng is the caller's own state.
func (j *job) next(rng *uint64) (write bool, off int64) {
	if j.rand {
		blocks := uint64((j.hi - j.lo) / j.bs)
		off = j.lo + int64(xorshift(rng)%blocks)*j.bs
	} else {
		span := j.hi - j.lo
		off = j.lo + (j.seq.Add(j.bs)-j.bs)%span
	}
	switch j.readPct {
	case 100:
		return false, off
	case 0:
		return true, off
	}
	return xorshift(rng)%100 >= j.readPct, off
}

// stamp writes, into each 512-byte sector of the n-byte buffer at buf, the
// sector's file offset and the request's start time (16 bytes at the
// sector's start): no two writes of the run carry the same sector, however
// often a buffer is reused (fio's scramble_buffers does the like). One cache
// line per sector: 8 for a 4 KiB write.
func stamp(buf unsafe.Pointer, n int, off, start int64) {
	for s := 0; s+16 <= n; s += 512 {
		w := (*[2]int64)(unsafe.Add(buf, s))
		w[0], w[1] = off+int64(s), start
	}
}

// xorshift is xorshift64*: fast, allocation-free and good enough to spread offsets.
func xorshift(s *uint64) uint64 {
	x := *s
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	*s = x
	return x * 2685821657736338717
}

// fillSeed advances once per filled set of buffers (newBuffers).
var fillSeed atomic.Uint64

// buffers is page-aligned memory outside the Go heap (O_DIRECT needs aligned
// buffers, and the kernel writes into them behind the garbage collector's back).
type buffers struct {
	mem []byte
	bs  int
}

// newBuffers maps n buffers of bs bytes, faulted in up front (MAP_POPULATE)
// so no I/O of the test takes the page faults. With fill they hold random
// bytes: incompressible content, so a compressing or deduplicating device is
// not flattered by what is written. Buffers only read into need no content
// (the reads overwrite it), and fio fills buffers only for jobs that write:
// filling 512 MiB (4 jobs x iodepth 128 x 1 MiB) costs about 0.2 s of CPU,
// which counted in the probe's CPU per I/O against fio's.
func newBuffers(n, bs int, fill bool) (*buffers, error) {
	mem, err := unix.Mmap(-1, 0, n*bs, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE|unix.MAP_POPULATE)
	if err != nil {
		return nil, fmt.Errorf("allocating %d I/O buffers of %d bytes: %w", n, bs, err)
	}
	if fill {
		// xorshift64*, 8 bytes a step: several times faster than a
		// cryptographic generator, and as incompressible to a device.
		// Each set of buffers gets its own stream (fillSeed), so what a test
		// writes is not what the layout wrote there, nor what the test before
		// it wrote.
		words := unsafe.Slice((*uint64)(unsafe.Pointer(&mem[0])), len(mem)/8)
		rng := fillSeed.Add(0x9E3779B97F4A7C15) | 1
		for i := range words {
			words[i] = xorshift(&rng)
		}
	}
	return &buffers{mem: mem, bs: bs}, nil
}

func (b *buffers) get(i int) []byte { return b.mem[i*b.bs : (i+1)*b.bs] }
func (b *buffers) free()            { unix.Munmap(b.mem) }

// run is what every engine shares: a deadline, a stop flag and the first error.
type run struct {
	deadline int64 // sink time at which submitting stops
	stop     atomic.Bool
	// limit, when > 0, stops submitting after that many I/Os (benchmarks).
	limit int64
	left  atomic.Int64
	mu    sync.Mutex
	err   error
}

func (r *run) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
	r.stop.Store(true)
}

func (r *run) stopping(now int64) bool {
	if r.limit > 0 && r.left.Add(-1) < 0 {
		return true
	}
	return now >= r.deadline || r.stop.Load()
}

// ioError turns a failed or short I/O into the error the probe returns.
// ENOSPC gets its own line: it is the one a user can fix.
func ioError(write bool, off int64, n int, res int, errno unix.Errno) error {
	what := "read"
	if write {
		what = "write"
	}
	if errno == unix.ENOSPC {
		return fmt.Errorf("%w: %s of %d bytes at offset %d", ErrNoSpace, what, n, off)
	}
	if errno != 0 {
		return fmt.Errorf("%s of %d bytes at offset %d: %w", what, n, off, errno)
	}
	return fmt.Errorf("short %s at offset %d: %d of %d bytes", what, off, res, n)
}

// ErrNoSpace is returned when the file system filled up during the probe.
var ErrNoSpace = errors.New("no space left on the device (fix: free space or a smaller size)")

func classOf(errno unix.Errno) vocab.Class {
	switch errno {
	case 0:
		return vocab.ClassNone
	case unix.EAGAIN, unix.EBUSY:
		return vocab.ClassOverloaded
	case unix.ENOSPC, unix.EROFS, unix.EPERM, unix.EACCES, unix.EINVAL:
		return vocab.ClassRejected
	}
	return vocab.ClassOther
}

func opOf(write bool) vocab.Op {
	if write {
		return vocab.OpWrite
	}
	return vocab.OpRead
}

// jobBuffers are the I/O buffers of a test: depth per job. Filling them with
// random bytes takes a while (512 MiB for 4 jobs x iodepth 128 x 1 MiB):
// make them before the test's clock starts. They are filled only when the
// test writes.
func jobBuffers(jobs []*job, depth int) (*buffers, error) {
	return newBuffers(len(jobs)*depth, int(jobs[0].bs), jobs[0].readPct < 100)
}

// runSync is the fallback engine: Jobs x IODepth goroutines, each with one
// request in flight through pread/pwrite. Shard of goroutine k of job j is
// j*depth+k. It is honest about its cost: one blocked thread per request.
func runSync(ctx context.Context, jobs []*job, depth int, bufs *buffers, s sink, r *run, g *gate) error {
	var wg sync.WaitGroup
	for _, j := range jobs {
		for k := 0; k < depth; k++ {
			shard := j.id*depth + k
			wg.Add(1)
			go func() {
				defer wg.Done()
				syncLoop(j, shard, bufs.get(shard), s, r, g)
			}()
		}
	}
	return r.wait(ctx, &wg)
}

// wait waits for the run's workers (wg), telling them to stop when ctx
// ends, and returns the run's first error.
func (r *run) wait(ctx context.Context, wg *sync.WaitGroup) error {
	done := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stop.Store(true)
		case <-done:
		}
	}()
	wg.Wait()
	close(done)
	return r.err
}

func syncLoop(j *job, shard int, buf []byte, s sink, r *run, g *gate) {
	rng := uint64(shard+1)*0x9E3779B97F4A7C15 | 1
	for {
		start := s.Now()
		if r.stopping(start) {
			return
		}
		write, off := j.next(&rng)
		s.Begin(shard, 1)
		if g != nil {
			g.wait(start, len(buf))
		}
		var n int
		var err error
		if write {
			if j.scramble {
				stamp(unsafe.Pointer(&buf[0]), len(buf), off, start)
			}
			n, err = unix.Pwrite(j.fd, buf, off)
		} else {
			n, err = unix.Pread(j.fd, buf, off)
		}
		end := s.Now()
		var errno unix.Errno
		if err != nil {
			errno, _ = err.(unix.Errno)
			if errno == 0 {
				errno = unix.EIO
			}
		}
		if err != nil || n != len(buf) {
			s.Record(shard, opOf(write), start, end, 0, classOrOther(errno))
			r.fail(ioError(write, off, len(buf), n, errno))
			return
		}
		s.Record(shard, opOf(write), start, end, uint64(n), vocab.ClassNone)
	}
}

func classOrOther(errno unix.Errno) vocab.Class {
	if c := classOf(errno); c != vocab.ClassNone {
		return c
	}
	return vocab.ClassOther
}

// uringOpts are the io_uring engine's modes, each one of fio's options of
// the same name; the defaults (Config.Defaults) are fio 3.33's.
type uringOpts struct {
	// batchSubmit is how many queued requests each io_uring_enter passes
	// (fio iodepth_batch_submit; default 1: each as soon as it is queued).
	batchSubmit int
	// completeMin is how many completions each wait asks for (fio
	// iodepth_batch_complete_min; default 1).
	completeMin int
	// registerFiles and fixedBufs register the file and the buffers with
	// each ring (fio registerfiles and fixedbufs; default off).
	registerFiles, fixedBufs bool
}

// runUring is the io_uring engine: one goroutine, one OS thread and one ring
// per job, with IODepth requests kept in flight. Shard = job id.
func runUring(ctx context.Context, jobs []*job, depth int, o uringOpts, bufs *buffers, s sink, r *run) error {
	// A scheduler P for each job's thread and one for the rest (the
	// recorder's collector, timers): the runtime's sysmon retakes the P of a
	// thread waiting in io_uring_enter only when no other P is idle, and each
	// retake costs a hand-off, a futex wake-up and a sysmon wake-up every
	// 20 µs. Pinned to one CPU (GOMAXPROCS 1 by default) that was a tenth of
	// the probe's futex calls and sysmon's naps per I/O, on the CPU under test.
	if n := len(jobs) + 1; runtime.GOMAXPROCS(0) < n {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(n))
	}
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One OS thread per ring, as fio has: the kernel keeps io_uring
			// state (task work, io-wq workers for requests it cannot issue
			// inline) per submitting thread, and a SINGLE_ISSUER ring belongs
			// to the thread that created it.
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			base := unsafe.Pointer(&bufs.mem[i*depth*int(j.bs)])
			rg, err := newJobRing(j, depth, base, o)
			if err != nil {
				r.fail(err)
				return
			}
			defer rg.close()
			uringLoop(j, rg, depth, o, base, s, r)
		}()
	}
	return r.wait(ctx, &wg)
}

// newJobRing sets up job j's ring with the registrations o asks for.
func newJobRing(j *job, depth int, base unsafe.Pointer, o uringOpts) (*ring, error) {
	rg, err := newRing(uint32(depth))
	if err != nil {
		return nil, err
	}
	if o.registerFiles {
		err = rg.registerFile(j.fd)
	}
	if err == nil && o.fixedBufs {
		err = rg.registerBuffers(base, depth, int(j.bs))
	}
	if err != nil {
		rg.close()
		return nil, err
	}
	return rg, nil
}

// submitter is what uringLoop drives: a real ring, or a fake in tests.
type submitter interface {
	// queue puts one request in the submission queue; false when it is full.
	queue(write bool, fd int, buf unsafe.Pointer, n uint32, off int64, userData uint64) bool
	// submit passes every queued request to the kernel without waiting.
	submit() error
	// enter passes every queued request to the kernel and waits until at
	// least minComplete completions are ready.
	enter(minComplete uint32) error
	// reap moves the ready completions (at most len(dst)) into dst.
	reap(dst []cqe) int
}

// slot is one request in flight.
type slot struct {
	start int64
	off   int64
	write bool
}

// uringLoop keeps depth requests of job j in flight through rg, as fio's
// io_uring engine does with the same options. Each turn queues a request in
// every free slot, passing them to the kernel o.batchSubmit at a time, then
// (one io_uring_enter) passes the rest and waits for at least o.completeMin
// completions, and takes every completion ready. Clock readings: one before
// each submission batch is queued (the start of each request in it: none is
// submitted before it) and one when the waiting io_uring_enter returns (the
// end of each request reaped after it: with DEFER_TASKRUN a device's
// completion is posted only inside that call; without it one posted while
// the last batch was being recorded is timed up to one turn late, as fio
// times it). The clock reading after each submitting call ends the requests
// completed inside it (issued inline) and starts the next batch. Every
// request is recorded with its own start.
func uringLoop(j *job, rg submitter, depth int, o uringOpts, base unsafe.Pointer, s sink, r *run) {
	lp := uringLooper{j: j, rg: rg, s: s, r: r, base: base, batch: max(o.batchSubmit, 1),
		slots: make([]slot, depth), free: make([]int, depth), done: make([]cqe, depth)}
	rng := uint64(j.id+1)*0x9E3779B97F4A7C15 | 1
	for i := range lp.free {
		lp.free[i] = i
	}
	for {
		if err := lp.fill(&rng, depth); err != nil {
			r.fail(fmt.Errorf("io_uring_enter: %w", err))
			return
		}
		if lp.inflight == 0 {
			return
		}
		if err := rg.enter(uint32(min(max(o.completeMin, 1), lp.inflight))); err != nil {
			// The ring itself failed: completions may never come. Stop here;
			// the requests still in flight are not recorded.
			r.fail(fmt.Errorf("io_uring_enter: %w", err))
			return
		}
		end := s.Now()
		lp.complete(lp.done[:rg.reap(lp.done)], end)
		if end-lp.yielded >= yieldEvery {
			yieldThread()
			lp.yielded = end
		}
	}
}

// yieldEvery is how often (in sink time) a job's goroutine yields its
// scheduler P, and yieldThread how. The Go runtime's sysmon preempts a
// goroutine that has run for 10 ms without passing through the scheduler
// (forcePreemptNS): it signals the thread, takes its P away in the middle of
// io_uring_enter and, because it took something, goes back to waking every
// 20 µs for the next millisecond or more. A job's goroutine never passes
// through the scheduler by itself (its thread is locked, its waits are system
// calls), so without a yield that happened every 10 ms: about 2,000 sysmon
// wake-ups a second on the job's CPU, 0.007 context switches and 2-4% of the
// CPU per I/O at 300k IOPS pinned to one CPU (issue 20). One yield every
// 5 ms costs a hand-over of the locked thread (two switches) instead.
const yieldEvery = int64(5 * time.Millisecond)

// yieldThread is runtime.Gosched; tests count the calls.
var yieldThread = runtime.Gosched

// uringLooper is uringLoop's state between turns.
type uringLooper struct {
	j        *job
	rg       submitter
	s        sink
	r        *run
	base     unsafe.Pointer
	batch    int
	slots    []slot
	free     []int
	done     []cqe
	inflight int
	stopping bool
	yielded  int64 // sink time of the last yieldThread
}

// fill queues a request in every free slot, submitting each batch as it
// fills. A request the kernel completes inside a submitting call (issued
// inline, e.g. from the page cache) is reaped right after it, timed by the
// clock reading taken when the call returned, and its slot refilled.
func (lp *uringLooper) fill(rng *uint64, depth int) error {
	j := lp.j
	now := lp.s.Now()
	batched := 0
	for !lp.stopping && lp.inflight < depth {
		if lp.r.stopping(now) {
			lp.stopping = true
			break
		}
		k := lp.free[len(lp.free)-1]
		write, off := j.next(rng)
		buf := unsafe.Add(lp.base, k*int(j.bs))
		if write && j.scramble {
			stamp(buf, int(j.bs), off, now)
		}
		if !lp.rg.queue(write, j.fd, buf, uint32(j.bs), off, uint64(k)) {
			break
		}
		lp.free = lp.free[:len(lp.free)-1]
		lp.slots[k] = slot{start: now, off: off, write: write}
		lp.inflight++
		if batched++; batched == lp.batch && lp.inflight < depth {
			// The last batch of the turn goes with the waiting enter.
			lp.s.Begin(j.id, batched)
			batched = 0
			if err := lp.rg.submit(); err != nil {
				return err
			}
			now = lp.s.Now()
			lp.complete(lp.done[:lp.rg.reap(lp.done)], now)
		}
	}
	if batched > 0 {
		lp.s.Begin(j.id, batched)
	}
	return nil
}

// complete records the completions reaped at end.
func (lp *uringLooper) complete(done []cqe, end int64) {
	j := lp.j
	for _, c := range done {
		k := int(c.userData)
		sl := lp.slots[k]
		lp.free = append(lp.free, k)
		lp.inflight--
		if c.res < 0 || int64(c.res) != j.bs {
			errno := unix.Errno(0)
			if c.res < 0 {
				errno = unix.Errno(-c.res)
			}
			lp.s.Record(j.id, opOf(sl.write), sl.start, end, 0, classOrOther(errno))
			lp.r.fail(ioError(sl.write, sl.off, int(j.bs), int(c.res), errno))
			lp.stopping = true
			continue
		}
		lp.s.Record(j.id, opOf(sl.write), sl.start, end, uint64(c.res), vocab.ClassNone)
	}
}

// gate is platbench's own rate-limited file layer, a model of a throttled
// disk: I/O passes during the first on ns of every period (anchored at the
// test's start), at most rate bytes/s when rate is set, and is held, still
// outstanding, for the rest of the period: a disk whose token bucket refills
// once per period and drains in on ns.
type gate struct {
	on, period int64
	rate       float64 // bytes per second while on; 0: unlimited
	mu         sync.Mutex
	next       int64 // earliest start of the next I/O (rate limit)
}

func newGate(t *Throttle) *gate {
	if t == nil {
		return nil
	}
	return &gate{on: int64(t.On), period: int64(t.Period), rate: float64(t.Rate)}
}

// wait holds an I/O of n bytes issued at now until the layer lets it through.
func (g *gate) wait(now int64, n int) {
	g.mu.Lock()
	at := max(now, g.next)
	if ph := at % g.period; ph >= g.on {
		at += g.period - ph
	}
	if g.rate > 0 {
		g.next = at + int64(float64(n)/g.rate*1e9)
	}
	g.mu.Unlock()
	if at > now {
		time.Sleep(time.Duration(at - now))
	}
}
