package runner

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Pipelined workers (adapter.Pipeliner): one goroutine per worker keeps up to
// its depth operations in flight, submitting new ones as completions arrive,
// and records each operation on its own: its intended start, when it was
// submitted and when its completion was seen. Concurrency is then the total
// number of operations in flight, spread over the workers (connections) the
// target asks for; see adapter.Pipelined.

// newRunWorkers creates the workers of a phase. For a adapter.Pipelined
// target that asks for it, depths holds each worker's in-flight depth
// (summing to the total in flight); otherwise depths is nil and there are
// concurrency plain workers.
func newRunWorkers(t adapter.Target, concurrency int) (ws []adapter.Worker, depths []int, err error) {
	p, ok := t.(adapter.Pipelined)
	if !ok {
		ws, err = newWorkers(t, concurrency)
		return ws, nil, err
	}
	n, total := p.PipelineShape(concurrency)
	if n <= 0 || total <= 0 {
		ws, err = newWorkers(t, concurrency)
		return ws, nil, err
	}
	n = min(n, total)
	ws, err = newWorkers(t, n)
	if err != nil {
		return nil, nil, err
	}
	depths = make([]int, n)
	for i, w := range ws {
		pw, ok := w.(adapter.Pipeliner)
		if !ok {
			closeWorkers(ws)
			return nil, nil, fmt.Errorf("target %T asked for pipelined workers but worker %d (%T) does not implement adapter.Pipeliner", t, i, w)
		}
		depths[i] = total / n
		if i < total%n {
			depths[i]++
		}
		if d := pw.Depth(); depths[i] > d {
			depths[i] = d
		}
		if depths[i] < 1 {
			depths[i] = 1
		}
	}
	return ws, depths, nil
}

// inFlight is the total depth of a pipelined phase (its concurrency).
func inFlight(depths []int) int {
	n := 0
	for _, d := range depths {
		n += d
	}
	return n
}

// slot is one operation in flight.
type slot struct {
	op       vocab.Op
	bytes    uint64
	intended int64
	could    int64 // when a slot was free for it (RecordOpen)
	start    int64
}

// asyncState is what a pipelined worker's loop keeps; its done method is
// Poll's callback (a method value made once per loop, so that Poll does not
// allocate per call).
type asyncState struct {
	rec   *recorder.Recorder
	sh    *recorder.Shard
	slots []slot
	free  []int // free slot tags (a stack)
	nfly  int
	ops   uint64 // completed or failed to submit
	// firstFree is the earliest moment a slot became free among the
	// completions since it was reset: the op's service time after it could
	// have started (so the client's own lateness is not counted as a wait
	// for a slot on the next op).
	firstFree int64
}

func newAsyncState(rec *recorder.Recorder, sh *recorder.Shard, depth int) *asyncState {
	st := &asyncState{rec: rec, sh: sh, slots: make([]slot, depth), free: make([]int, depth)}
	for i := range st.free {
		st.free[i] = depth - 1 - i
	}
	return st
}

func (st *asyncState) done(tag int, err error) {
	end := st.rec.Now()
	s := &st.slots[tag]
	st.sh.RecordOpen(s.op, s.intended, s.could, s.start, end, s.bytes, adapter.Classify(err))
	st.firstFree = min(st.firstFree, s.could+(end-s.start))
	noteErr(st.sh, s.op, err)
	st.free = append(st.free, tag)
	st.nfly--
	st.ops++
}

// submit queues req under a free slot; it must have one. could is when a
// slot was free for it (intended in closed loop).
func (st *asyncState) submit(ctx context.Context, w adapter.Pipeliner, req *workload.Request, intended, could, now int64) {
	tag := st.free[len(st.free)-1]
	st.free = st.free[:len(st.free)-1]
	s := &st.slots[tag]
	s.op, s.bytes, s.intended, s.could, s.start = req.Op, uint64(len(req.Value)), intended, could, now
	st.sh.Begin()
	if err := w.Submit(ctx, req, tag); err != nil {
		st.sh.RecordOpen(s.op, intended, could, now, st.rec.Now(), s.bytes, adapter.Classify(err))
		noteErr(st.sh, s.op, err)
		st.free = append(st.free, tag)
		st.ops++
		return
	}
	st.nfly++
}

// asyncClosedLoop keeps depth operations in flight on w until the phase
// stops, then waits for those in flight. Op numbers are taken from the
// shared counter in blocks, as closedLoop does (the bound stays exact).
func asyncClosedLoop(ctx context.Context, w adapter.Pipeliner, depth int, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, s *sched) uint64 {
	var left uint64 // op numbers this worker holds (see sched.claim)
	st := newAsyncState(rec, sh, depth)
	done := st.done
	var req workload.Request
	stopped := false
	for {
		// The ops of one refill go out in one Flush: they share a start
		// time, read once (a clock read per op is a visible cost here).
		sent := false
		var now int64
		for !stopped && len(st.free) > 0 {
			if !s.claim(&left) {
				stopped = true
				break
			}
			if !sent {
				now = rec.Now()
			}
			gen.Next(&req)
			st.submit(ctx, w, &req, now, now, now)
			sent = true
		}
		if sent {
			w.Flush(ctx)
		}
		if st.nfly == 0 {
			if stopped {
				return st.ops
			}
			continue
		}
		w.Poll(ctx, -1, done)
	}
}

// asyncOpenLoop submits each operation of its lane's schedule when it is
// due, as long as the worker has room; latency runs from the intended start,
// so an operation that waited for room (all depth in flight) is charged for
// the wait. Between operations it waits for completions and for the next
// one's start together: Poll with a deadline at the start, and the lane's
// timerfd armed at the same moment so that the runtime's poller wakes on
// time (its own timeouts are whole milliseconds). Operations due within a
// tick of each other go out in one Flush.
func asyncOpenLoop(ctx context.Context, w adapter.Pipeliner, depth int, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, s *sched, sch *schedule, threshold, tick int64) lateness {
	slp := openLoopSleeper()
	defer slp.close()
	st := newAsyncState(rec, sh, depth)
	done := st.done
	nudge := slp != nil
	if tp, ok := w.(adapter.TimedPoller); ok && tp.PollsOnTime() {
		nudge = false
	}
	var req workload.Request
	var late lateness
	var cur *arrival
	var intended int64
	pending, stopped := false, false
	// freedAt is when the last wait for a free slot (all depth in flight)
	// ended: an op that came due before it waited for the target.
	freedAt := int64(-1 << 62)
	tk := ticks{tick: tick, last: -1 << 62}
	ticked := true // the last wait ended at its deadline (a tick)
	for {
		sent := false
		for !stopped && len(st.free) > 0 {
			if !pending {
				if cur, intended, pending = s.take(sch); !pending {
					stopped = true
					break
				}
			}
			now := rec.Now()
			if intended > now || !(ticked || tk.open(now)) {
				// Not due; or due, but woken by a completion within a tick
				// of the last timed wakeup: ops start on the lane's ticks,
				// not on the completions between them (an op sent on each
				// completion spreads the replies too, a wakeup each; tokio,
				// under latte, starts ops on its timer's ticks only).
				break
			}
			if now-intended > threshold {
				if intended < freedAt {
					late.queued(freedAt - intended) // could start at freedAt
				} else {
					late.client++
				}
			}
			if cur.hasOp {
				gen.NextOp(&req, cur.op)
			} else {
				gen.Next(&req)
			}
			st.submit(ctx, w, &req, intended, max(intended, freedAt), now) // could start: due, or a slot freed
			pending = false
			sent = true
		}
		if sent {
			w.Flush(ctx)
		}
		if stopped && st.nfly == 0 {
			return late
		}
		wait := time.Duration(-1) // block for a completion
		at := int64(math.MaxInt64)
		if pending && !stopped && len(st.free) > 0 {
			// The next op's start, but at least a tick after the last timed
			// wait: ops due closer together than that go out together
			// (completions, which wake the loop anyway, do not count).
			at = tk.next(intended)
			if st.nfly == 0 {
				// Nothing in flight: sleep until the next op is due (in
				// slices of 100 ms so that a stop is seen).
				pause(rec, slp, min(at-rec.Now(), int64(100*time.Millisecond)))
				ticked = tk.woke(at, rec.Now())
				continue
			}
			if nudge {
				// Wake the poller just after the deadline Poll sets.
				slp.arm(rec.Mono(at) + pollNudge)
			}
			// Never negative: the clock may pass at after it was chosen,
			// and a negative wait would block until a completion.
			wait = time.Duration(max(at-rec.Now(), 0))
		}
		full := len(st.free) == 0
		st.firstFree = math.MaxInt64
		w.Poll(ctx, wait, done)
		now := rec.Now()
		ticked = tk.woke(at, now)
		if full {
			freedAt = min(now, st.firstFree)
		}
		if pending && s.stop.Load() && (!s.full.Load() || ctx.Err() != nil) {
			// The phase ended (its time, or the run was stopped) while this
			// op waited for its start: it is not sent, and the loop now
			// only collects what is in flight (keeping it pending made the
			// loop spin on its overdue start without polling). An op taken
			// within the op-count bound is still sent when another lane
			// reached the bound: the count stays exact.
			stopped, pending = true, false
		}
	}
}

// take is a lane's next operation from sch and its intended start, or false
// when the phase is over (stopped, or the schedule reached the phase's end
// or its op bound, which take then stops).
func (s *sched) take(sch *schedule) (*arrival, int64, bool) {
	if s.stop.Load() {
		return nil, 0, false
	}
	a, at := sch.peek()
	if s.endNs > 0 && at >= s.endNs {
		s.stop.Store(true)
		return nil, 0, false
	}
	if s.maxOps > 0 && s.issued.Add(1) > s.maxOps {
		s.full.Store(true)
		s.stop.Store(true)
		return nil, 0, false
	}
	a.advance()
	return a, at, true
}

// ticks spaces an asynchronous lane's timed wakeups at least a tick apart.
type ticks struct {
	tick int64
	last int64 // the deadline of the last timed wait that was reached
}

// next is when to wake for an op intended to start at intended: then, or a
// tick after the last timed wakeup if that is later.
func (k *ticks) next(intended int64) int64 { return max(intended, k.last+k.tick) }

// woke tells that a wait for deadline at ended at now, and whether it
// reached it (a tick). Only a wait that reached its deadline starts a new
// tick: a completion that woke the loop earlier does not push the next timed
// wakeup a tick further.
func (k *ticks) woke(at, now int64) bool {
	if now >= at {
		k.last = at
		return true
	}
	return false
}

// open reports whether a tick has passed since the last timed wakeup, so
// that ops due may start at now although the loop was woken otherwise.
func (k *ticks) open(now int64) bool { return now >= k.last+k.tick }

// pollNudge is how long after a Poll deadline the lane's timerfd fires: the
// deadline Poll sets is computed a little after ours, and a poller woken
// before it would go back to sleep for a whole millisecond.
const pollNudge = 10 * int64(time.Microsecond)

// asyncLoad inserts the records [from, to) through w with depth in flight.
func asyncLoad(ctx context.Context, w adapter.Pipeliner, depth int, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, from, to uint64) {
	st := newAsyncState(rec, sh, depth)
	done := st.done
	var req workload.Request
	k := from
	for {
		sent := false
		var now int64
		for k < to && len(st.free) > 0 {
			if k&63 == 0 && ctx.Err() != nil {
				to = k
				break
			}
			if !sent {
				now = rec.Now()
			}
			gen.Load(&req, k)
			k++
			st.submit(ctx, w, &req, now, now, now)
			sent = true
		}
		if sent {
			w.Flush(ctx)
		}
		if st.nfly == 0 {
			if k >= to {
				return
			}
			continue
		}
		w.Poll(ctx, -1, done)
	}
}
