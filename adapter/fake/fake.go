// Package fake is a target with scripted latency, errors and stalls, for
// testing the runner and recorder. It stores nothing.
//
// URL: fake://?latency=200us&stall_at=2s&stall_for=500ms&error_every=100;
// the options are declared in options (`platbench targets fake` prints them).
package fake

import (
	"context"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Target is the fake target. Its exported fields are its options.
type Target struct {
	Latency    time.Duration // service time of every op
	StallAt    time.Duration // offset from the first op where a stall starts
	StallFor   time.Duration // length of a stall (0: none)
	StallEvery time.Duration // period of repeated stalls (0: one stall)
	ErrorEvery int           // every Nth op fails with a timeout (0: none)

	once  sync.Once
	start time.Time
	n     atomic.Uint64
}

var _ adapter.Target = (*Target)(nil)

func (t *Target) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("fake")
	s.Duration(&t.Latency, "latency", "0", "service time of every op (a sleep; below 100µs a spin)")
	s.Duration(&t.StallAt, "stall_at", "0", "offset from the first op at which a stall starts: every op waits until it ends (a server pause)")
	s.Duration(&t.StallFor, "stall_for", "0", "length of the stall; 0 means no stall")
	s.Duration(&t.StallEvery, "stall_every", "0", "repeat the stall with this period (a regulated disk); 0 stalls once")
	s.Count(&t.ErrorEvery, "error_every", "0", "every Nth op fails with a timeout; 0 means none").WithUnit("ops").Example("100")
	return s
}

// Options declares the fake target's options.
func Options() *adapter.OptionSet { return new(Target).options() }

// Open implements adapter.Opener.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	t := &Target{}
	s := t.options()
	s.ParseURL(u, opts)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func (t *Target) Setup(ctx context.Context, w *workload.Spec) error { return nil }
func (t *Target) NewWorker(id int) (adapter.Worker, error)          { return &worker{t: t}, nil }
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
