package runner

import (
	"context"
	"math"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/workload"
)

// The open loop for plain (synchronous) workers. One pacer goroutine keeps
// the schedule: it wakes when the next operation is due (at most once per
// tick when operations come faster than that), releases every operation that
// has come due into a queue, each with its own intended start, and wakes as
// many idle workers as there are operations released. A worker that finishes
// takes the next due operation without sleeping; one that finds none parks
// until the pacer wakes it. So a fast target at a high rate costs a wakeup per
// tick, not one per operation, and latency is still charged from each
// operation's own intended start.

// DefaultPaceTick is the shortest time between two of a pacer's wakeups.
// Operations due within one tick of each other are released together, so a
// released operation starts at most about a tick late on an idle machine.
const DefaultPaceTick = 50 * time.Microsecond

// due is an operation the pacer released.
type due struct {
	intended int64 // when the schedule wanted it to start
	released int64 // when the pacer released it
	a        *arrival
	// noIdle: no worker was idle to take it when it was released (every
	// worker was busy with the target).
	noIdle bool
	// could is when it could have started: the later of intended and the
	// moment an idle worker had become free for it (set at release when a
	// worker was idle; otherwise the worker that takes it sets it from its
	// own previous completion).
	could int64
}

// lateness counts the open-loop operations that started more than the
// threshold after their intended start, by cause.
type lateness struct {
	slots  uint64 // no worker or in-flight slot was free: the target held them
	client uint64 // a worker or slot was free: the client was late (pacer, CPU)
	// waitNs and waitMaxNs are the total and the longest wait for a worker
	// or slot (could-start less intended start) of the ops counted in slots:
	// how long the bursts queued behind the target. Two integer ops on an op
	// that was late, nothing on one that was not.
	waitNs, waitMaxNs int64
}

// queued counts an op that waited wait ns for a worker or slot the target held.
func (l *lateness) queued(wait int64) {
	l.slots++
	l.waitNs += wait
	l.waitMaxNs = max(l.waitMaxNs, wait)
}

func (l *lateness) add(o lateness) {
	l.slots += o.slots
	l.client += o.client
	l.waitNs += o.waitNs
	l.waitMaxNs = max(l.waitMaxNs, o.waitMaxNs)
}

// pacer is the shared state of a synchronous open loop.
type pacer struct {
	mu   sync.Mutex
	q    []due // ring of released operations
	head int
	n    int
	idle []chan struct{} // parked workers' wake channels (a stack)
	// since[i] is when idle[i]'s worker became free (see work):
	// pushed in the order workers park, so the bottom is the longest idle.
	since []int64
	// freeAt is scratch: since as it was when a release began.
	freeAt []int64
	done   bool // nothing more will be released
	// wasFull: the queue was full at the end of the last release, so the
	// ops that came due since waited for the workers, not for the pacer.
	wasFull bool
	wake    []chan struct{} // scratch: workers to wake after unlocking
}

func newPacer(workers int) *pacer {
	return &pacer{q: make([]due, max(1024, 4*workers)), idle: make([]chan struct{}, 0, workers), wake: make([]chan struct{}, 0, workers),
		since: make([]int64, 0, workers), freeAt: make([]int64, 0, workers)}
}

// run releases operations as they come due until the phase ends (the
// schedule runs out, the op bound is reached, or s.stop), then tells the
// workers. ctx ending drops what was released and not started.
func (p *pacer) run(ctx context.Context, rec *recorder.Recorder, sch *schedule, s *sched, tick int64) {
	slp := openLoopSleeper()
	defer slp.close()
	var released uint64
	for {
		finished, full := p.release(rec.Now(), sch, s, &released, ctx.Err() != nil)
		if finished {
			s.stop.Store(true)
			return
		}
		// Sleep until the next operation is due, but at least a tick (a
		// full queue waits a tick for the workers to catch up), and at most
		// 100 ms so that a stop is seen.
		_, next := sch.peek()
		wait := max(next-rec.Now(), tick)
		if full {
			wait = tick
		}
		pause(rec, slp, min(wait, int64(100*time.Millisecond)))
	}
}

// release puts every operation due by now into the queue (each with its own
// intended start), wakes an idle worker for each, and reports whether the
// phase is over (then the workers are told) and whether the queue is full.
// released counts the operations so far.
func (p *pacer) release(now int64, sch *schedule, s *sched, released *uint64, cancelled bool) (finished, full bool) {
	finished = s.stop.Load()
	// The phase's end (its duration, or ctx) drops what was released and
	// not started, as the workers start nothing after it; the op bound
	// (below) lets the released ops run, so that the count is exact.
	drop := finished || cancelled
	p.mu.Lock()
	// The j-th op released now could have started as soon as the j-th
	// longest-idle worker was free (whichever worker is woken for it).
	p.freeAt = append(p.freeAt[:0], p.since...)
	j := 0
	for !finished && p.n < len(p.q) {
		a, at := sch.peek()
		if at > now {
			break
		}
		if s.endNs > 0 && at >= s.endNs {
			finished, drop = true, true
			break
		}
		if s.maxOps > 0 && *released >= s.maxOps {
			finished = true
			break
		}
		idle := len(p.idle) > 0
		d := due{intended: at, released: now, a: a, noIdle: !idle}
		if p.wasFull {
			// It came due while the queue was full of ops no worker had
			// taken: its wait so far was for a worker.
			d.noIdle, d.released = true, at
		}
		if idle { // wake a worker for it, whatever its wait was for
			p.wake = append(p.wake, p.idle[len(p.idle)-1])
			p.idle = p.idle[:len(p.idle)-1]
			p.since = p.since[:len(p.since)-1]
			d.could = max(at, p.freeAt[j])
			j++
		}
		p.q[(p.head+p.n)%len(p.q)] = d
		p.n++
		*released++
		a.advance()
	}
	if finished {
		p.done = true
		if drop {
			p.n = 0
		}
		p.wake = append(p.wake, p.idle...)
		p.idle = p.idle[:0]
		p.since = p.since[:0]
	}
	full = p.n == len(p.q)
	p.wasFull = full
	p.mu.Unlock()
	for _, c := range p.wake {
		c <- struct{}{}
	}
	p.wake = p.wake[:0]
	return finished, full
}

// pause sleeps d ns on the sleeper's timerfd (or nanosleep without one).
func pause(rec *recorder.Recorder, slp *sleeper, d int64) {
	if slp != nil && slp.sleepUntil(rec.Mono(rec.Now()+d)) == nil {
		return
	}
	ts := unix.NsecToTimespec(d)
	unix.Nanosleep(&ts, nil)
}

// take hands a worker the next released operation, parking it while there is
// none; false when the phase is over. free is when the worker became free
// (its last op's service time after that op could have started).
func (p *pacer) take(wake chan struct{}, free int64) (due, bool) {
	for {
		p.mu.Lock()
		if p.n > 0 {
			d := p.q[p.head]
			p.head = (p.head + 1) % len(p.q)
			p.n--
			p.mu.Unlock()
			return d, true
		}
		if p.done {
			p.mu.Unlock()
			return due{}, false
		}
		p.idle = append(p.idle, wake)
		p.since = append(p.since, free)
		p.mu.Unlock()
		<-wake
	}
}

// couldStart is when d could have started, given free, when the worker that
// takes it became free: set at release when a worker was idle then; else
// the op was queued for want of a worker, and this one was the first free.
func couldStart(d due, free int64) int64 {
	if d.noIdle {
		return max(d.intended, free)
	}
	return d.could
}

// work runs released operations on w until the phase is over.
func (p *pacer) work(ctx context.Context, w adapter.Worker, gen *workload.Generator, rec *recorder.Recorder, sh *recorder.Shard, threshold int64) lateness {
	wake := make(chan struct{}, 1)
	var req workload.Request
	var late lateness
	free := int64(math.MinInt64) // when this worker became free (see below)
	for {
		d, ok := p.take(wake, free)
		if !ok {
			return late
		}
		could := couldStart(d, free)
		if d.a.hasOp {
			gen.NextOp(&req, d.a.op)
		} else {
			gen.Next(&req)
		}
		sh.Begin()
		t0 := rec.Now()
		if t0-d.intended > threshold {
			// Late for want of a worker when none was idle at release and
			// the wait for one is the larger part of the lateness.
			if d.noIdle && t0-d.released >= d.released-d.intended {
				late.queued(could - d.intended)
			} else {
				late.client++
			}
		}
		err := w.Do(ctx, &req)
		end := rec.Now()
		sh.RecordOpen(req.Op, d.intended, could, t0, end, uint64(len(req.Value)), adapter.Classify(err))
		// When this worker would have been free had the client not been late:
		// the op's service time after it could have started. With its actual
		// end instead, the pacer's lateness on one op would count as a wait
		// for a worker on the next.
		free = could + (end - t0)
		noteErr(sh, req.Op, err)
	}
}
