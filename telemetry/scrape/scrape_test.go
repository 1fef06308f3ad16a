package scrape

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// recorder is a source's Keep that remembers what it was given.
type recorder struct {
	mu   sync.Mutex
	errs []error
	vals []int
}

func (r *recorder) keep(_, _ time.Time, v int, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs, r.vals = append(r.errs, err), append(r.vals, v)
}

// With wait, the first read is kept before Start returns; Stop reads once
// more; a failing source's reads reach Keep with their error; SkipFinal
// sees the last outcome.
func TestStartWaitStopFinal(t *testing.T) {
	var good, bad recorder
	n := 0
	boom := errors.New("boom")
	sources := []*Source[int]{
		{Timeout: time.Second, Get: func(context.Context) (int, error) { n++; return n, nil }, Keep: good.keep},
		{Timeout: time.Second, Get: func(context.Context) (int, error) { return 0, boom }, Keep: bad.keep},
	}
	var (
		mu        sync.Mutex
		sawFailed []bool
	)
	skip := func(_ time.Time, failed bool) bool {
		mu.Lock()
		defer mu.Unlock()
		sawFailed = append(sawFailed, failed)
		return failed
	}
	g := Start(context.Background(), Schedule{Interval: time.Hour, Wait: true, SkipFinal: skip}, sources, time.Now())
	good.mu.Lock()
	if len(good.vals) != 1 || good.vals[0] != 1 {
		t.Fatalf("first read not kept before Start returned: %v", good.vals)
	}
	good.mu.Unlock()
	g.Stop()
	if len(good.vals) != 2 || good.vals[1] != 2 {
		t.Errorf("final read of the good source: %v", good.vals)
	}
	if len(bad.errs) != 1 || !errors.Is(bad.errs[0], boom) {
		t.Errorf("failing source: kept %v, want one read with its error and no final one", bad.errs)
	}
	if len(sawFailed) != 2 {
		t.Errorf("SkipFinal asked %d times, want 2", len(sawFailed))
	}
}

// A read cut short by Stop is not kept, and the timeout bounds each read.
func TestCancelledReadNotKept(t *testing.T) {
	var r recorder
	started := make(chan struct{})
	src := &Source[int]{Timeout: time.Hour, Keep: r.keep, Get: func(ctx context.Context) (int, error) {
		close(started)
		<-ctx.Done()
		return 0, ctx.Err()
	}}
	g := Start(context.Background(), Schedule{Interval: time.Hour, SkipFinal: func(time.Time, bool) bool { return true }},
		[]*Source[int]{src}, time.Now())
	<-started
	g.Stop()
	if len(r.errs) != 0 {
		t.Errorf("kept %v, want nothing", r.errs)
	}
}
