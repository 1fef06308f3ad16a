package disk

import (
	"bytes"
	"compress/flate"
	"context"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/vocab"
)

// fakeRing is a submission ring that completes a random number (at least
// the number asked for) of the requests submitted, in a random order, at
// each waiting enter, as a device with reordering would; submit passes
// requests on and completes none (a DEFER_TASKRUN ring posts completions
// only in a waiting enter). It remembers, for every
// request, the clock reading of the sink when it was queued and the one
// after the enter that completed it.
type fakeRing struct {
	t        *testing.T
	s        *fakeSink
	rng      *rand.Rand
	depth    int
	pending  []fakeReq // queued, not yet submitted
	queued   []fakeReq // submitted, not yet complete
	ready    []fakeReq // complete, not yet reaped
	reaped   []fakeReq // handed out by reap, in order, for the sink to check
	serial   uint64
	failAt   uint64 // serial of a request that fails with EIO (0: none)
	enters   int
	submits  int
	batch    int             // the submission batch uringLoop was given: submit passes exactly so many
	minWait  int             // the completions uringLoop asks for (fewer only when fewer are in flight)
	inline   bool            // submit completes a random part of what it submits
	inFlight map[uint64]bool // slots (userData) in flight
}

type fakeReq struct {
	serial, slot uint64
	queuedAt     int64 // the sink's clock when queued
	enteredAt    int64 // the sink's clock reading after the enter that completed it
	res          int32
}

func (f *fakeRing) queue(write bool, fd int, buf unsafe.Pointer, n uint32, off int64, ud uint64) bool {
	if len(f.pending)+len(f.queued)+len(f.ready) >= f.depth {
		return false
	}
	if f.inFlight[ud] {
		f.t.Errorf("slot %d queued while still in flight", ud)
	}
	f.inFlight[ud] = true
	f.serial++
	res := int32(n)
	if f.serial == f.failAt {
		res = -int32(5) // EIO
	}
	f.pending = append(f.pending, fakeReq{serial: f.serial, slot: ud, queuedAt: f.s.clock, res: res})
	return true
}

func (f *fakeRing) submit() error {
	f.submits++
	if len(f.pending) != f.batch {
		f.t.Errorf("submit of %d requests; the batch is %d", len(f.pending), f.batch)
	}
	if len(f.ready) != 0 {
		f.t.Errorf("submit with %d completions not reaped", len(f.ready))
	}
	// With inline, the kernel completes some of the requests inside the
	// submitting call (issued inline): the next clock reading is their end.
	n := 0
	if f.inline {
		n = f.rng.IntN(len(f.pending) + 1)
	}
	for _, q := range f.pending[:n] {
		q.enteredAt = f.s.clock + f.s.tick()
		f.ready = append(f.ready, q)
	}
	f.queued = append(f.queued, f.pending[n:]...)
	f.pending = f.pending[:0]
	return nil
}

func (f *fakeRing) enter(min uint32) error {
	f.enters++
	if len(f.pending) > f.batch {
		f.t.Errorf("enter with %d requests queued; the batch is %d", len(f.pending), f.batch)
	}
	f.queued = append(f.queued, f.pending...)
	f.pending = f.pending[:0]
	inFlight := len(f.queued) + len(f.ready)
	if int(min) > inFlight || int(min) != f.minWait && int(min) != inFlight {
		f.t.Fatalf("enter waits for %d completions with %d in flight; want %d (or all in flight when fewer)", min, inFlight, f.minWait)
	}
	n := max(int(min)-len(f.ready), 0)
	n += f.rng.IntN(len(f.queued) - n + 1)
	f.rng.Shuffle(len(f.queued), func(i, j int) { f.queued[i], f.queued[j] = f.queued[j], f.queued[i] })
	// The sink's next reading is the end of every request completed here.
	for _, q := range f.queued[:n] {
		q.enteredAt = f.s.clock + f.s.tick()
		f.ready = append(f.ready, q)
	}
	f.queued = append(f.queued[:0], f.queued[n:]...)
	return nil
}

func (f *fakeRing) reap(dst []cqe) int {
	n := min(len(dst), len(f.ready))
	for i, q := range f.ready[:n] {
		dst[i] = cqe{userData: q.slot, res: q.res}
		delete(f.inFlight, q.slot)
		f.reaped = append(f.reaped, q)
	}
	f.ready = append(f.ready[:0], f.ready[n:]...)
	return n
}

// fakeSink is a clock that advances by one at every reading and a record of
// every Record call, checked against the fake ring's completions in order.
type fakeSink struct {
	t     *testing.T
	ring  *fakeRing
	clock int64
	begun int
	recs  int
	errs  int
	bytes uint64
	seen  map[uint64]bool // serials recorded
	step  int64           // the clock's advance per reading (0: 1)
}

func (s *fakeSink) tick() int64    { return max(s.step, 1) }
func (s *fakeSink) Now() int64     { s.clock += s.tick(); return s.clock }
func (s *fakeSink) Begin(_, n int) { s.begun += n }
func (s *fakeSink) Record(_ int, op vocab.Op, start, end int64, bytes uint64, class vocab.Class) {
	if s.recs >= len(s.ring.reaped) {
		s.t.Fatalf("record %d without a completion reaped", s.recs)
	}
	q := s.ring.reaped[s.recs]
	s.recs++
	if s.recs > s.begun {
		s.t.Errorf("request %d recorded before it was marked in flight (%d recorded, %d begun)", q.serial, s.recs, s.begun)
	}
	if s.seen[q.serial] {
		s.t.Errorf("request %d recorded twice", q.serial)
	}
	s.seen[q.serial] = true
	if start != q.queuedAt {
		s.t.Errorf("request %d recorded with start %d; it was queued at %d", q.serial, start, q.queuedAt)
	}
	if end != q.enteredAt || end <= start {
		s.t.Errorf("request %d recorded with end %d; the clock read after its enter was %d (start %d)", q.serial, end, q.enteredAt, start)
	}
	if class != vocab.ClassNone {
		s.errs++
		if q.res >= 0 {
			s.t.Errorf("request %d (res %d) recorded as an error", q.serial, q.res)
		}
	} else {
		s.bytes += bytes
	}
}

// Batching neither loses nor double-counts an I/O: every request queued is
// recorded exactly once, with the clock reading taken before it was queued
// as its start and the reading taken after the enter that completed it as its
// end, whatever order and batch sizes the completions come in.
func TestUringLoopFakeRing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		depth  int
		n      int64
		failAt uint64
		o      uringOpts
	}{
		{"depth 1", 1, 500, 0, uringOpts{batchSubmit: 1, completeMin: 1}},
		{"depth 32, fio's defaults", 32, 20000, 0, uringOpts{batchSubmit: 1, completeMin: 1}},
		{"depth 32, whole refills", 32, 20000, 0, uringOpts{batchSubmit: 32, completeMin: 1}},
		{"depth 32, batches of 4, at least 8 completions", 32, 20000, 0, uringOpts{batchSubmit: 4, completeMin: 8}},
		{"depth 128, batches of 16, at least 16", 128, 20000, 0, uringOpts{batchSubmit: 16, completeMin: 16}},
		{"depth 7 with a failure", 7, 5000, 1234, uringOpts{batchSubmit: 1, completeMin: 1}},
		{"depth 7, batches of 3, with a failure", 7, 5000, 1234, uringOpts{batchSubmit: 3, completeMin: 2}},
		{"depth 32, completions inside submits", 32, 20000, 0, uringOpts{batchSubmit: 1, completeMin: 1}},
		{"depth 16, batches of 4, completions inside submits, a failure", 16, 20000, 777, uringOpts{batchSubmit: 4, completeMin: 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &fakeSink{t: t, seen: map[uint64]bool{}}
			f := &fakeRing{t: t, s: s, rng: rand.New(rand.NewPCG(1, uint64(tc.depth))), depth: tc.depth, failAt: tc.failAt, inFlight: map[uint64]bool{},
				batch: tc.o.batchSubmit, minWait: tc.o.completeMin, inline: strings.Contains(tc.name, "inside submits")}
			s.ring = f
			j := &job{bs: 4096, hi: 1 << 30, rand: true, readPct: 50}
			r := &run{deadline: 1 << 62, limit: tc.n}
			r.left.Store(tc.n)
			mem := make([]byte, tc.depth*4096)
			uringLoop(j, f, tc.depth, tc.o, unsafe.Pointer(&mem[0]), s, r)
			if len(f.pending)+len(f.queued)+len(f.ready) != 0 {
				t.Errorf("%d requests left in flight", len(f.pending)+len(f.queued)+len(f.ready))
			}
			want := int(f.serial)
			if tc.failAt == 0 && want != int(tc.n) {
				t.Errorf("%d requests queued; want the limit %d", want, tc.n)
			}
			if s.recs != want || len(s.seen) != want || s.begun != want {
				t.Errorf("queued %d, begun %d, recorded %d (%d distinct); want all equal", want, s.begun, s.recs, len(s.seen))
			}
			if tc.failAt != 0 && (s.errs != 1 || r.err == nil) {
				t.Errorf("%d errors recorded, run error %v; want the one failure", s.errs, r.err)
			}
			if okIOs := uint64(want - s.errs); s.bytes != okIOs*4096 {
				t.Errorf("%d bytes recorded for %d successful I/Os of 4096", s.bytes, okIOs)
			}
			if tc.depth > 1 && f.enters >= want {
				t.Errorf("%d waiting enters for %d I/Os: completions not batched", f.enters, want)
			}
			if tc.o.batchSubmit == tc.depth && f.submits != 0 {
				t.Errorf("%d submits with batches of the whole depth: each refill should go with its waiting enter", f.submits)
			}
			if tc.o.batchSubmit < tc.depth && tc.depth > 1 && f.submits == 0 {
				t.Errorf("no submits with batches of %d at depth %d", tc.o.batchSubmit, tc.depth)
			}
		})
	}
}

// The job's goroutine passes through the Go scheduler (yieldThread) once
// every yieldEvery of its clock, never more often, with every I/O still
// recorded once: sysmon then never finds it running on one scheduling tick
// for its 10 ms and preempts it (issue 20).
func TestUringLoopYields(t *testing.T) {
	yields := []int64{}
	s := &fakeSink{t: t, seen: map[uint64]bool{}, step: int64(20 * time.Microsecond)}
	defer func(y func()) { yieldThread = y }(yieldThread)
	yieldThread = func() { yields = append(yields, s.clock) }
	o := uringOpts{batchSubmit: 1, completeMin: 1}
	f := &fakeRing{t: t, s: s, rng: rand.New(rand.NewPCG(1, 2)), depth: 32, inFlight: map[uint64]bool{}, batch: 1, minWait: 1}
	s.ring = f
	j := &job{bs: 4096, hi: 1 << 30, rand: true, readPct: 50}
	const n = 20000
	r := &run{deadline: 1 << 62, limit: n}
	r.left.Store(n)
	mem := make([]byte, 32*4096)
	uringLoop(j, f, 32, o, unsafe.Pointer(&mem[0]), s, r)
	if s.recs != n || len(s.seen) != n {
		t.Errorf("recorded %d (%d distinct) of %d I/Os", s.recs, len(s.seen), n)
	}
	elapsed := s.clock
	turn := int64(40 * s.step) // a turn of the loop: at most depth+2 clock readings
	if most, least := elapsed/yieldEvery, elapsed/(yieldEvery+turn)-1; int64(len(yields)) < least || int64(len(yields)) > most {
		t.Errorf("%d yields in %v of the job's clock; want %d to %d (one per %v, late by at most a turn)", len(yields), time.Duration(elapsed), least, most, time.Duration(yieldEvery))
	}
	for i := 1; i < len(yields); i++ {
		if d := yields[i] - yields[i-1]; d < yieldEvery || d > yieldEvery+turn {
			t.Fatalf("yields %d and %d are %v apart; want %v (plus at most one turn of the loop)", i-1, i, time.Duration(d), time.Duration(yieldEvery))
		}
	}
}

// The per-I/O path of each engine and access mode allocates nothing: runs of
// 500 and of 10,500 I/Os through the real engine and the recorder differ by
// far fewer allocations than the 10,000 I/Os between them (the difference
// left is the recorder's collector, which appends per bucket, not per I/O).
func TestEnginesDoNotAllocatePerIO(t *testing.T) {
	c := small(t.TempDir())
	tf, err := openTestFile(&c)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.close(true)
	if err := tf.layout(context.Background()); err != nil {
		t.Fatal(err)
	}
	type mode struct {
		eng, name string
		o         uringOpts
	}
	modes := []mode{{eng: EngineSync}}
	if uringProbe() == "" {
		modes = append(modes,
			mode{EngineIOUring, "fio-defaults", uringOpts{batchSubmit: 1, completeMin: 1}},
			mode{EngineIOUring, "whole-refills", uringOpts{batchSubmit: 4, completeMin: 2}},
			mode{EngineIOUring, "registerfiles+fixedbufs", uringOpts{batchSubmit: 2, completeMin: 1, registerFiles: true, fixedBufs: true}})
	}
	for _, m := range modes {
		eng := m.eng
		for _, rw := range []string{RWRandRead, RWRandWrite, RWRandRW, RWRead, RWWrite} {
			t.Run(eng+"/"+m.name+"/"+rw, func(t *testing.T) {
				allocs := func(n int64) uint64 {
					jobs, err := newJobs(tf.fd, Test{RW: rw, BS: 4096}, tf.size, 2, 50, true) // writes stamped, the default
					if err != nil {
						t.Fatal(err)
					}
					bufs, err := jobBuffers(jobs, 4)
					if err != nil {
						t.Fatal(err)
					}
					defer bufs.free()
					shards := len(jobs)
					if eng == EngineSync {
						shards *= 4
					}
					// Buckets and intervals of an hour: the collector, whose
					// allocations grow with the run's duration (a loaded
					// machine stretches the longer run), stays idle, so
					// what differs is the per-I/O path's.
					rec := recorder.New(recorder.Config{Shards: shards, BucketWidth: time.Hour, IntervalWidth: time.Hour})
					s := newRecSink(rec, shards)
					r := &run{deadline: int64(time.Hour), limit: n}
					r.left.Store(n)
					rec.Start()
					var before, after runtime.MemStats
					runtime.ReadMemStats(&before)
					if eng == EngineIOUring {
						err = runUring(context.Background(), jobs, 4, m.o, bufs, s, r)
					} else {
						err = runSync(context.Background(), jobs, 4, bufs, s, r, nil)
					}
					runtime.ReadMemStats(&after)
					ph := rec.Stop()
					if err != nil {
						t.Fatal(err)
					}
					var got uint64
					for _, op := range ph.Ops {
						got += op.Count
					}
					if got != uint64(n) {
						t.Fatalf("%d I/Os recorded; want %d", got, n)
					}
					return after.Mallocs - before.Mallocs
				}
				small, big := allocs(500), allocs(10500)
				if big > small+200 {
					t.Errorf("%d allocations for 500 I/Os, %d for 10,500: the per-I/O path allocates", small, big)
				}
			})
		}
	}
}

// Buffers that writes send hold random bytes (incompressible, distinct per
// buffer); buffers that only reads fill are left as mapped (zero), as fio
// leaves a read job's buffers: filling them cost CPU that counted per I/O.
func TestJobBuffersFilledOnlyForWrites(t *testing.T) {
	for _, c := range []struct {
		rw      string
		readPct int
		filled  bool
	}{{RWRandRead, 0, false}, {RWRead, 0, false}, {RWRandWrite, 0, true}, {RWWrite, 0, true}, {RWRandRW, 50, true}, {RWRandRW, 100, false}} {
		jobs, err := newJobs(-1, Test{RW: c.rw, BS: 4096}, 1<<20, 2, c.readPct, true)
		if err != nil {
			t.Fatal(err)
		}
		bufs, err := jobBuffers(jobs, 4)
		if err != nil {
			t.Fatal(err)
		}
		zero := 0
		for i := range 8 {
			if bytes.Count(bufs.get(i), []byte{0}) == 4096 {
				zero++
			}
		}
		same := bytes.Equal(bufs.get(0), bufs.get(7))
		var z bytes.Buffer
		fw, _ := flate.NewWriter(&z, flate.BestCompression)
		fw.Write(bufs.mem)
		fw.Close()
		bufs.free()
		if c.filled && z.Len() < 8*4096 {
			t.Errorf("%s: 8 buffers of 4096 random bytes compressed to %d bytes: the content is compressible", c.rw, z.Len())
		}
		if c.filled && (zero > 0 || same) {
			t.Errorf("%s at %d%% reads: %d of 8 buffers all zero, first equals last %v; want random content in each", c.rw, c.readPct, zero, same)
		}
		if !c.filled && zero != 8 {
			t.Errorf("%s at %d%% reads: %d of 8 buffers left zero, want all 8 (reads need no content)", c.rw, c.readPct, zero)
		}
	}
	// Each set of buffers has its own content: a test does not write what
	// the layout, or the test before it, wrote.
	a, err := newBuffers(1, 4096, true)
	if err != nil {
		t.Fatal(err)
	}
	defer a.free()
	b, err := newBuffers(1, 4096, true)
	if err != nil {
		t.Fatal(err)
	}
	defer b.free()
	if bytes.Equal(a.get(0), b.get(0)) {
		t.Error("two sets of buffers were filled with the same bytes")
	}
}
