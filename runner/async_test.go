package runner

import (
	"context"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/workload"
)

// pfake is a pipelined target whose ops complete after a scripted latency
// (by global submit order), possibly out of order, with an optional stall
// (ops that would complete during it complete when it ends).
type pfake struct {
	depth    int
	lat      func(seq uint64) time.Duration
	stallAt  time.Duration
	stallFor time.Duration
	slowPoll time.Duration // a Poll that waits sleeps at least this long (a coarse timer)

	base     time.Time
	seq      atomic.Uint64
	inFlight atomic.Int64
	maxIn    atomic.Int64
	done     atomic.Uint64
	flushes  atomic.Uint64 // Flushes that sent at least one op
	marks    [2]uint64     // read mem when these many ops have completed
	mem      *[2]runtime.MemStats
	mu       sync.Mutex
	problems []string
}

func (f *pfake) problem(s string) {
	f.mu.Lock()
	if len(f.problems) < 5 {
		f.problems = append(f.problems, s)
	}
	f.mu.Unlock()
}

func (f *pfake) Setup(context.Context, *workload.Spec) error { return nil }
func (f *pfake) Close() error                                { return nil }
func (f *pfake) PipelineShape(c int) (int, int) {
	f.base = time.Now()
	return (c + f.depth - 1) / f.depth, c
}
func (f *pfake) NewWorker(int) (adapter.Worker, error) {
	return &pfakeWorker{f: f, q: make([]pent, 0, f.depth)}, nil
}

type pent struct {
	tag  int
	due  time.Time
	sent bool
}

type pfakeWorker struct {
	f *pfake
	q []pent
}

func (w *pfakeWorker) Do(context.Context, *workload.Request) error { return nil }
func (w *pfakeWorker) Close() error                                { return nil }
func (w *pfakeWorker) Depth() int                                  { return w.f.depth }

func (w *pfakeWorker) Submit(_ context.Context, _ *workload.Request, tag int) error {
	f := w.f
	if len(w.q) >= f.depth {
		f.problem("submitted beyond the worker's depth")
	}
	for _, e := range w.q {
		if e.tag == tag {
			f.problem("tag reused while in flight")
		}
	}
	now := time.Now()
	due := now
	if f.lat != nil {
		due = now.Add(f.lat(f.seq.Add(1) - 1))
	}
	if f.stallFor > 0 {
		s0, s1 := f.base.Add(f.stallAt), f.base.Add(f.stallAt+f.stallFor)
		if !due.Before(s0) && now.Before(s1) && due.Before(s1) {
			due = s1
		}
	}
	w.q = append(w.q, pent{tag: tag, due: due})
	n := f.inFlight.Add(1)
	for m := f.maxIn.Load(); n > m && !f.maxIn.CompareAndSwap(m, n); m = f.maxIn.Load() {
	}
	return nil
}

func (w *pfakeWorker) Flush(context.Context) {
	sent := false
	for i := range w.q {
		sent = sent || !w.q[i].sent
		w.q[i].sent = true
	}
	if sent {
		w.f.flushes.Add(1)
	}
}

func (w *pfakeWorker) Poll(_ context.Context, wait time.Duration, done func(int, error)) int {
	if len(w.q) == 0 {
		return 0
	}
	var first time.Time
	for _, e := range w.q {
		if !e.sent {
			w.f.problem("polled for an op that was submitted but not flushed")
			continue
		}
		if first.IsZero() || e.due.Before(first) {
			first = e.due
		}
	}
	if first.IsZero() {
		return 0
	}
	if d := time.Until(first); d > 0 && wait != 0 {
		if wait > 0 && wait < d {
			d = wait
		}
		time.Sleep(max(d, w.f.slowPoll))
	}
	now := time.Now()
	n := 0
	for i := 0; i < len(w.q); {
		if e := w.q[i]; e.sent && !e.due.After(now) {
			w.q = append(w.q[:i], w.q[i+1:]...)
			w.f.inFlight.Add(-1)
			if d := w.f.done.Add(1); w.f.mem != nil {
				for i, m := range w.f.marks {
					if d == m {
						runtime.ReadMemStats(&w.f.mem[i])
					}
				}
			}
			done(e.tag, nil)
			n++
			continue
		}
		i++
	}
	return n
}

func (f *pfake) check(t *testing.T) {
	t.Helper()
	for _, p := range f.problems {
		t.Error(p)
	}
}

func totalOps(p *result.Phase) uint64 {
	var n uint64
	for _, o := range p.Ops {
		n += o.Count
		for _, e := range o.Errors {
			n += e
		}
	}
	return n
}

// The op bound is exact, in-flight ops never exceed the concurrency, and the
// concurrency is spread over ceil(concurrency/depth) workers.
func TestPipelinedExactBoundAndDepth(t *testing.T) {
	s, ks := spec(t, "ycsb-a")
	f := &pfake{depth: 8, lat: func(uint64) time.Duration { return 50 * time.Microsecond }}
	p, _, err := Run(context.Background(), f, s, ks, Config{Ops: 10_007, Concurrency: 37})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t)
	if got := totalOps(p); got != 10_007 || f.done.Load() != 10_007 {
		t.Errorf("recorded %d ops, target completed %d, want exactly 10007", got, f.done.Load())
	}
	if m := f.maxIn.Load(); m > 37 || m < 30 {
		t.Errorf("at most %d ops in flight, want up to 37 (and close to it)", m)
	}
	if p.Concurrency != 37 {
		t.Errorf("phase concurrency %d, want 37 (ops in flight)", p.Concurrency)
	}
	if f.inFlight.Load() != 0 {
		t.Errorf("%d ops still in flight after the phase", f.inFlight.Load())
	}

	// At a fixed rate too: the lanes that find the bound reached still send
	// the ops they had taken within it (they were once dropped, a few ops
	// short of the bound, found with the Kafka target).
	for _, rate := range []float64{2_000, 50_000} {
		fr := &pfake{depth: 8, lat: func(uint64) time.Duration { return 50 * time.Microsecond }}
		p, _, err := Run(context.Background(), fr, s, ks, Config{Ops: 1_003, Rate: rate, Concurrency: 37})
		if err != nil {
			t.Fatal(err)
		}
		fr.check(t)
		if got := totalOps(p); got != 1_003 || fr.done.Load() != 1_003 {
			t.Errorf("at %v/s: recorded %d ops, target completed %d, want exactly 1003", rate, got, fr.done.Load())
		}
	}

	// The load phase inserts every record once through the same workers.
	f2 := &pfake{depth: 16}
	lp, err := Load(context.Background(), f2, s, ks, Config{Concurrency: 40})
	if err != nil {
		t.Fatal(err)
	}
	f2.check(t)
	if got := totalOps(lp); got != s.Records {
		t.Errorf("load recorded %d inserts, want %d", got, s.Records)
	}
}

// Each op is recorded with its own latency, not its batch's: half the ops
// take 2 ms and half 10 ms, in the same pipelines.
func TestPipelinedPerOpLatency(t *testing.T) {
	s, ks := spec(t, "ycsb-c")
	f := &pfake{depth: 8, lat: func(n uint64) time.Duration {
		if n%2 == 0 {
			return 2 * time.Millisecond
		}
		return 10 * time.Millisecond
	}}
	p, _, err := Run(context.Background(), f, s, ks, Config{Ops: 4000, Concurrency: 16})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t)
	o := p.Ops[0]
	h, err := result.DecodeHist(o.Hist)
	if err != nil {
		t.Fatal(err)
	}
	p25, p75 := float64(h.ValueAtQuantile(25))/1e6, float64(h.ValueAtQuantile(75))/1e6
	var under int64
	for _, b := range h.Distribution() {
		if b.To < 6e6 {
			under += b.Count
		}
	}
	fast := float64(under) / float64(h.TotalCount())
	t.Logf("p25 %.2f ms, p75 %.2f ms, %.1f%% under 6 ms", p25, p75, 100*fast)
	if p25 < 2 || p25 > 5 {
		t.Errorf("p25 = %.2f ms, want the 2 ms ops (2..5 ms)", p25)
	}
	if p75 < 10 || p75 > 16 {
		t.Errorf("p75 = %.2f ms, want the 10 ms ops (10..16 ms)", p75)
	}
	if math.Abs(fast-0.5) > 0.06 {
		t.Errorf("%.1f%% of ops under 6 ms, want about half", 100*fast)
	}
}

// At a fixed rate a stall is charged to latency from the intended start (no
// coordinated omission): as runner_test.go's test for plain workers, with
// 4 ops in flight over 2 pipelined workers.
func TestPipelinedFixedRateStallIsChargedToLatency(t *testing.T) {
	testenv.SkipShort(t, "3 s run")
	const (
		rate     = 1000.0
		stallAt  = 1.0
		stallFor = 0.5
		runFor   = 3.0
	)
	s, ks := spec(t, "ycsb-c")
	f := &pfake{depth: 2, stallAt: time.Second, stallFor: 500 * time.Millisecond}
	p, _, err := Run(context.Background(), f, s, ks, Config{Duration: 3 * time.Second, Rate: rate, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t)
	var want []float64
	for n := 0; float64(n)/rate < runFor; n++ {
		at := float64(n) / rate
		lat := 0.0
		if at >= stallAt && at < stallAt+stallFor {
			lat = stallAt + stallFor - at
		}
		want = append(want, lat)
	}
	wantP99 := 0.0
	{
		c := append([]float64(nil), want...)
		sort.Float64s(c)
		wantP99 = c[int(0.99*float64(len(c)))] * 1e9
	}
	o := p.Ops[0]
	got99 := float64(o.Latency.P99Ns)
	t.Logf("ops %d, latency p99 %.1f ms (hand: %.1f ms), p50 %.3f ms; service p99 %.3f ms, max %.1f ms; delayed %d",
		o.Count, got99/1e6, wantP99/1e6, float64(o.Latency.P50Ns)/1e6, float64(o.Service.P99Ns)/1e6, float64(o.Service.MaxNs)/1e6, p.Delayed)
	checkStallP99(t, got99, wantP99)
	if o.Latency.P50Ns > 20e6 {
		t.Errorf("latency p50 = %.1f ms, want about 0", float64(o.Latency.P50Ns)/1e6)
	}
	if o.Service.P99Ns > 20e6 {
		t.Errorf("service time p99 = %.1f ms: the stall leaked into service time", float64(o.Service.P99Ns)/1e6)
	}
	if o.Service.MaxNs < 400e6 {
		t.Errorf("service time max = %.1f ms: the ops caught in the stall should show it", float64(o.Service.MaxNs)/1e6)
	}
	if p.Delayed < 450 {
		t.Errorf("delayed = %d, want at least the ~500 ops scheduled during the stall", p.Delayed)
	}
	checkQueuedWait(t, p, stallFor)
	if n := totalOps(p); n < 2900 || n > 3000 {
		t.Errorf("%d ops at 1000/s for 3 s, want about 3000 and never more", n)
	}
	// The stall held every worker (slot): the server-attributable latency
	// keeps the whole wait, as latency does (within 5% at p95 and p99).
	if o.Attributable == nil {
		t.Fatal("no server-attributable latency in an open-loop phase")
	}
	for _, q := range []struct {
		name      string
		lat, attr int64
	}{{"p95", o.Latency.P95Ns, o.Attributable.P95Ns}, {"p99", o.Latency.P99Ns, o.Attributable.P99Ns}} {
		if math.Abs(float64(q.attr-q.lat)) > 0.05*float64(q.lat) {
			t.Errorf("attributable %s %.1f ms, latency %s %.1f ms: the stall's queue must be charged to the server", q.name, float64(q.attr)/1e6, q.name, float64(q.lat)/1e6)
		}
	}
}

// The pipelined loop allocates nothing per op: the fake reads the process's
// allocation count when op 20000 and op 220000 complete, in the middle of
// the run (the result's histogram encoding at the end allocates in
// proportion to distinct values, not ops, and is left out).
func TestPipelinedLoopDoesNotAllocatePerOp(t *testing.T) {
	s, ks := spec(t, "ycsb-a")
	var m [2]runtime.MemStats
	f := &pfake{depth: 16, marks: [2]uint64{20_000, 220_000}, mem: &m}
	if _, _, err := Run(context.Background(), f, s, ks, Config{Ops: 240_000, Concurrency: 32}); err != nil {
		t.Fatal(err)
	}
	f.check(t)
	per := float64(m[1].Mallocs-m[0].Mallocs) / 200_000
	t.Logf("%d allocations over 200000 ops: %.4f per op", m[1].Mallocs-m[0].Mallocs, per)
	if m[1].Mallocs == 0 || per > 0.01 {
		t.Errorf("%.4f allocations per op, want none on the steady path", per)
	}
}

// A fixed-rate phase ends although the stop comes while the worker waits
// for its next op's start with ops in flight: here every wait overshoots
// (a coarse timer), so the wait that straddles the phase's end returns
// with the next op overdue, the phase over and slow ops still in flight.
// The worker once spun there forever without polling them (found with the
// CQL target at --rate 3000).
func TestPipelinedFixedRateStopsWithOpsInFlight(t *testing.T) {
	s, ks := spec(t, "ycsb-c")
	f := &pfake{depth: 64, lat: func(uint64) time.Duration { return 100 * time.Millisecond }, slowPoll: 50 * time.Millisecond}
	done := make(chan error, 1)
	go func() {
		_, _, err := Run(context.Background(), f, s, ks, Config{Duration: 500 * time.Millisecond, Rate: 100, Concurrency: 64})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("a 0.5 s fixed-rate phase still running after 20 s")
	}
	f.check(t)
	if n := f.inFlight.Load(); n != 0 {
		t.Errorf("%d ops still in flight after the phase", n)
	}
}

// An asynchronous lane's timed wakeups are a tick apart, counted from the
// last deadline reached: a completion that wakes the loop before the
// deadline does not push the next timed wakeup a tick further (it once did,
// so that with a 1 ms tick ops waited up to two ticks), and a late wakeup
// does not shift the ticks after it.
func TestTicksCountFromTheLastDeadlineReached(t *testing.T) {
	const us = int64(time.Microsecond)
	k := ticks{tick: 1000 * us, last: -1 << 62}
	if at := k.next(5 * us); at != 5*us {
		t.Fatalf("first wakeup at %d, want the op's own start", at)
	}
	k.woke(5*us, 5*us)
	// The next op is due 333 µs later: it waits for the tick.
	at := k.next(338 * us)
	if at != 1005*us {
		t.Fatalf("next wakeup at %d µs, want a tick after the last (1005 µs)", at/us)
	}
	// A completion wakes the loop at 600 µs: the tick is not spent, and
	// the op due at 338 µs may not start on it (no tick has passed).
	if k.woke(at, 600*us) {
		t.Errorf("a wakeup at 600 µs reached the 1005 µs deadline")
	}
	if got := k.next(338 * us); got != 1005*us {
		t.Errorf("after a completion wakeup the next timed wakeup is at %d µs, want 1005 µs", got/us)
	}
	if k.open(600 * us) {
		t.Errorf("ops may start at 600 µs, within a tick of the last timed wakeup (5 µs)")
	}
	if !k.open(1005 * us) {
		t.Errorf("a tick after the last timed wakeup, ops may start on any wakeup")
	}
	// The timed wakeup comes 300 µs late: the next tick still counts from
	// the deadline, not from the late wakeup.
	if !k.woke(1005*us, 1305*us) {
		t.Errorf("a wakeup at 1305 µs did not reach its 1005 µs deadline")
	}
	if got := k.next(1338 * us); got != 2005*us {
		t.Errorf("after a late wakeup the next is at %d µs, want 2005 µs", got/us)
	}
	// An op due later than a tick wakes the loop at its own start.
	if got := k.next(5000 * us); got != 5000*us {
		t.Errorf("a far op wakes at %d µs, want its start (5000 µs)", got/us)
	}
}

// With a 20 ms pace tick at 2,000 op/s a lane sends its ops in batches, about
// one per tick instead of one per op, and latency still runs from each op's
// own intended start: the ops wait half a tick on average, shown as lag and
// latency, not as service time. The replies (5 ms) wake the lane between
// ticks: ops that came due by then still wait for the tick (sending them on
// each completion made three or four sends per tick, and as many spread
// replies, each a wakeup on a real target). (Counts are bounded loosely: a
// loaded machine only makes batches larger.)
func TestPipelinedPaceTickBatchesStarts(t *testing.T) {
	testenv.SkipShort(t, "1 s run")
	s, ks := spec(t, "ycsb-c")
	f := &pfake{depth: 64, lat: func(uint64) time.Duration { return 5 * time.Millisecond }}
	p, _, err := Run(context.Background(), f, s, ks, Config{Duration: time.Second, Rate: 2000, Concurrency: 64, PaceTick: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	f.check(t)
	o := p.Ops[0]
	t.Logf("%d ops in %d flushes; lag p50 %v p99 %v; service p99 %v; pace tick %v, late threshold %v, late client %d",
		o.Count, f.flushes.Load(), time.Duration(o.Lag.P50Ns), time.Duration(o.Lag.P99Ns), time.Duration(o.Service.P99Ns),
		time.Duration(p.PaceTickNs), time.Duration(p.DelayThresholdNs), p.LateClient)
	if p.PaceTickNs != int64(20*time.Millisecond) {
		t.Errorf("phase pace tick %d ns, want 20 ms recorded", p.PaceTickNs)
	}
	if p.DelayThresholdNs != int64(21*time.Millisecond) {
		t.Errorf("late threshold %v, want 1 ms past the 20 ms tick", time.Duration(p.DelayThresholdNs))
	}
	if n := f.flushes.Load(); n == 0 || n > 120 || o.Count < 1000 {
		t.Errorf("%d ops in %d flushes: want batches of about 40 (about 50 flushes in 1 s, and never one per op)", o.Count, n)
	}
	if o.Lag == nil || o.Lag.P50Ns < int64(3*time.Millisecond) {
		t.Errorf("lag %+v: ops released once per 20 ms tick wait about 10 ms on average", o.Lag)
	}
	if o.Latency.P50Ns < o.Lag.P50Ns {
		t.Errorf("latency p50 %v under lag p50 %v: latency must run from the intended start", time.Duration(o.Latency.P50Ns), time.Duration(o.Lag.P50Ns))
	}
}
