// Package fake is a target with scripted latency, errors and stalls, for
// testing the runner and recorder. It stores nothing.
//
// URL: fake://?latency=200us&stall_at=2s&stall_for=500ms&error_every=100;
// the options are declared in options (`platbench targets fake` prints them).
package fake

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/workload"
)

// Target is the fake target. Its exported fields are its options.
type Target struct {
	Latency    time.Duration // service time of every op
	StallAt    time.Duration // offset from the first op where a stall starts
	StallFor   time.Duration // length of a stall (0: none)
	StallEvery time.Duration // period of repeated stalls (0: one stall)
	ErrorEvery int           // every Nth op fails with a timeout (0: none)
	// Drift is a run-level spread of the latency, a fraction: each Open
	// scales Latency by exp(Drift*z), z standard normal, so repeated runs
	// of one setup differ by more than a run varies inside itself, as runs
	// on real machines do. DriftSeed makes the z of the k-th Open in this
	// process reproducible (0: a new seed each time).
	Drift     float64
	DriftSeed int

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
	s.Func(adapter.KindString, "drift", "", "run-level spread of the latency, a fraction (0.03, or 3% written 3%25 in a URL): each run scales latency by exp(drift*z), z standard normal, so repeated runs differ like runs on real machines; none by default",
		func(v string) error {
			f, err := units.ParseFraction(v)
			if err != nil {
				return errors.New("not a fraction above 0 and at most 1")
			}
			t.Drift = f
			return nil
		}, func() { t.Drift = 0 })
	s.Count(&t.DriftSeed, "drift_seed", "0", "seed of drift's run-level draws: the k-th run opened in one process with a seed draws the same z; 0 draws a new one")
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
	if t.Drift > 0 {
		t.Latency = time.Duration(float64(t.Latency) * math.Exp(t.Drift*driftZ(t.DriftSeed)))
	}
	return t, nil
}

// opens counts the Opens of each drift seed in this process.
var opens = struct {
	sync.Mutex
	n map[int]uint64
}{n: map[int]uint64{}}

// driftZ is the standard normal draw of the next Open with seed (a fresh
// one for seed 0).
func driftZ(seed int) float64 {
	if seed == 0 {
		return rand.NormFloat64()
	}
	opens.Lock()
	k := opens.n[seed]
	opens.n[seed]++
	opens.Unlock()
	return rand.New(rand.NewPCG(uint64(seed), k)).NormFloat64()
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
