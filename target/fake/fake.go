// Package fake is a target with scripted latency, errors and stalls, for
// testing the runner and recorder. It stores nothing.
//
// URL: fake://?latency=200us&stall_at=2s&stall_for=500ms&error_every=100
//   - latency: service time of every op (sleep; below ~100 µs it spins)
//   - stall_at, stall_for: between these offsets from the first op, every op
//     waits until the stall ends (a server pause)
//   - stall_every: repeat the stall with this period (a regulated disk)
//   - error_every: every Nth op fails with a timeout
package fake

import (
	"context"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/workload"
)

// Target is the fake target.
type Target struct {
	Latency    time.Duration
	StallAt    time.Duration
	StallFor   time.Duration
	StallEvery time.Duration
	ErrorEvery uint64

	once  sync.Once
	start time.Time
	n     atomic.Uint64
}

var _ target.Target = (*Target)(nil)

// Open implements target.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (target.Target, error) {
	t := &Target{}
	q := u.Query()
	for k, v := range opts {
		q.Set(k, v)
	}
	for k, vs := range q {
		v := vs[0]
		var err error
		switch k {
		case "latency":
			t.Latency, err = time.ParseDuration(v)
		case "stall_at":
			t.StallAt, err = time.ParseDuration(v)
		case "stall_for":
			t.StallFor, err = time.ParseDuration(v)
		case "stall_every":
			t.StallEvery, err = time.ParseDuration(v)
		case "error_every":
			t.ErrorEvery, err = strconv.ParseUint(v, 10, 64)
		default:
			return nil, target.Configf("fake target: unknown option %q (use latency, stall_at, stall_for, stall_every, error_every)", k)
		}
		if err != nil {
			return nil, target.Configf("fake target: bad %s %q: %v", k, v, err)
		}
	}
	return t, nil
}

func (t *Target) Setup(ctx context.Context, w *workload.Spec) error { return nil }
func (t *Target) NewWorker(id int) (target.Worker, error)           { return &worker{t: t}, nil }
func (t *Target) Close() error                                      { return nil }

type worker struct{ t *Target }

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
	if t.ErrorEvery > 0 && n%t.ErrorEvery == 0 {
		return target.ErrTimeout
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

func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	if d < 100*time.Microsecond {
		end := time.Now().Add(d)
		for time.Now().Before(end) {
		}
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}
