package fake

import (
	"context"
	"syscall"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// NewWorker returns a worker of the target's script.
func (t *Target) NewWorker(id int) (adapter.Worker, error) { return &worker{t: t}, nil }

// worker plays the target's script; the target's counters are shared.
type worker struct{ t *Target }

var _ adapter.Worker = (*worker)(nil)

func (w *worker) Close() error { return nil }

// Do waits out any stall in progress, then the scripted latency.
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	t := w.t
	t.once.Do(func() { t.start = time.Now() })
	n := t.n.Add(1)
	if t.StallFor > 0 {
		if end, ok := t.stallEnd(time.Since(t.start)); ok {
			sleep(ctx, end-time.Since(t.start))
		}
	}
	if t.Latency > 0 {
		sleep(ctx, t.Latency)
	}
	if t.ErrorEvery > 0 && n%uint64(t.ErrorEvery) == 0 {
		return adapter.ErrTimeout
	}
	return nil
}

// stallEnd returns the end (offset from start) of the stall covering
// `elapsed`, if there is one.
func (t *Target) stallEnd(elapsed time.Duration) (time.Duration, bool) {
	if elapsed < t.StallAt {
		return 0, false
	}
	off := elapsed - t.StallAt
	base := t.StallAt
	if t.StallEvery > 0 {
		k := off / t.StallEvery
		base += k * t.StallEvery
		off -= k * t.StallEvery
	}
	if off < t.StallFor {
		return base + t.StallFor, true
	}
	return 0, false
}

// sleep waits d, to within about a tenth of a millisecond, or until ctx
// ends. Below 100µs it spins. A Go timer fires on the runtime's poller,
// whose wait has a granularity of about a millisecond here, so a 300µs or
// 450µs latency asked of a timer alone came out as 1.14 ms (issue 44): the
// timer waits all but the last timerSlop, and nanosleep(2) the rest (it
// blocks the worker's thread, so only for that tail: a long stall held in
// syscalls would keep the runtime's Ps from the pacer on a small machine).
func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	end := time.Now().Add(d)
	if d < 100*time.Microsecond {
		for time.Now().Before(end) {
		}
		return
	}
	if d > timerSlop {
		tm := time.NewTimer(d - timerSlop)
		select {
		case <-ctx.Done():
			tm.Stop()
			return
		case <-tm.C:
		}
	}
	if left := time.Until(end); left > 0 {
		ts := syscall.NsecToTimespec(int64(left))
		for syscall.Nanosleep(&ts, &ts) == syscall.EINTR { // a signal: sleep what is left
		}
	}
}

// timerSlop is how early a Go timer is set: more than its granularity, so
// that it never fires after the end; nanosleep waits the rest.
const timerSlop = 2 * time.Millisecond
