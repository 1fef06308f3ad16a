// Package scrape is the schedule the server-side collectors share
// (telemetry/nodes for node_exporter, telemetry/dbmetrics for Redis INFO
// and JMX exporters), so that timing and gap handling are defined once:
//
//   - every source is read on its own goroutine, once at the start and then
//     on every tick of the interval, each read bounded by the source's
//     timeout: a source that is down or slow never holds up the run or
//     another source;
//   - a failed read is handed to the source's Keep with its error, to be
//     stored as a missing sample; the next good read spans the gap;
//   - a read cut short by Stop is not kept: the source did nothing wrong;
//   - Stop reads every source once more (all at once), unless the
//     Schedule's SkipFinal says otherwise, so counters' differences reach
//     the end of the run.
//
// The package knows nothing of what is read: Get fetches and parses, Keep
// turns readings into samples. Kept keeps a source's samples for both
// (the sinks first, then a result.Thin). URL reads an exporter's address as
// a person types it, for both collectors' config fields.
package scrape

import (
	"context"
	"sync"
	"time"
)

// Source is one endpoint read on the group's schedule.
type Source[R any] struct {
	// Timeout bounds each read.
	Timeout time.Duration
	// Get reads the endpoint once; its ctx carries the timeout.
	Get func(ctx context.Context) (R, error)
	// Keep records one read: due is when it was due (a tick, or the start
	// or stop time), done when the answer came; a non-nil err is why there
	// is no reading, to be kept as a missing sample at due. Reads of one
	// source never overlap, but Keep runs on the source's goroutine: it
	// guards what others read.
	Keep func(due, done time.Time, r R, err error)

	mu     sync.Mutex
	lastAt time.Time // when the last kept read was due
	failed bool      // whether it failed
}

// Schedule is when a group's sources are read.
type Schedule struct {
	// Interval is the period between reads (required).
	Interval time.Duration
	// Wait has Start take the first reads (all at once) before it returns,
	// so that counters' base precedes the run's first operation; without,
	// each source's goroutine takes its own.
	Wait bool
	// SkipFinal, when set, tells Stop not to read a source once more: it
	// gets when the source's last kept read was due and whether it failed.
	// It is called for every source at once. Nil: Stop reads every source
	// again.
	SkipFinal func(lastDue time.Time, failed bool) bool
}

// Group is a running set of sources.
type Group[R any] struct {
	sch     Schedule
	sources []*Source[R]
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// Start reads every source at start (the first reads are due then) and
// then every interval until Stop.
func Start[R any](ctx context.Context, sch Schedule, sources []*Source[R], start time.Time) *Group[R] {
	ctx, cancel := context.WithCancel(ctx)
	g := &Group[R]{sch: sch, sources: sources, cancel: cancel}
	if sch.Wait {
		each(sources, func(s *Source[R]) { s.read(ctx, start) })
	}
	for _, s := range sources {
		g.wg.Add(1)
		go func() {
			defer g.wg.Done()
			if !sch.Wait {
				s.read(ctx, start)
			}
			g.loop(ctx, s)
		}()
	}
	return g
}

func (g *Group[R]) loop(ctx context.Context, s *Source[R]) {
	t := time.NewTicker(g.sch.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			s.read(ctx, now)
		}
	}
}

// Stop ends the schedule, waits for the reads under way, then takes the
// final reads (see SkipFinal), each bounded by its source's timeout. Call
// it once.
func (g *Group[R]) Stop() {
	g.cancel()
	g.wg.Wait()
	each(g.sources, func(s *Source[R]) {
		s.mu.Lock()
		skip := g.sch.SkipFinal != nil && g.sch.SkipFinal(s.lastAt, s.failed)
		s.mu.Unlock()
		if !skip {
			s.read(context.Background(), time.Now())
		}
	})
}

// read reads the source once, due at due, and keeps the outcome unless
// ctx ended meanwhile.
func (s *Source[R]) read(ctx context.Context, due time.Time) {
	r, err := s.get(ctx)
	if ctx.Err() != nil {
		return
	}
	done := time.Now()
	s.mu.Lock()
	s.lastAt, s.failed = due, err != nil
	s.mu.Unlock()
	s.Keep(due, done, r, err)
}

func (s *Source[R]) get(ctx context.Context) (R, error) {
	ctx, cancel := context.WithTimeout(ctx, s.Timeout)
	defer cancel()
	return s.Get(ctx)
}

// each runs f for every source on its own goroutine and waits for all.
func each[R any](sources []*Source[R], f func(*Source[R])) {
	var wg sync.WaitGroup
	for _, s := range sources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(s)
		}()
	}
	wg.Wait()
}
