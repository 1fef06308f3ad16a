package adapter

import (
	"context"
	"time"

	"github.com/platbench/platbench/workload"
)

// Pipelined is implemented by targets whose workers can keep many requests
// in flight from one goroutine (a pipelined connection). The runner calls
// PipelineShape once, before NewWorker, with the requested concurrency (the
// total number of operations to keep in flight). If it returns workers > 0,
// the runner creates that many workers, each of which must implement
// Pipeliner, and keeps total operations in flight across them (spread as
// evenly as the workers' Depth allows). workers == 0 means "not pipelined":
// the runner drives plain Workers, one goroutine per operation in flight.
type Pipelined interface {
	PipelineShape(concurrency int) (workers, total int)
}

// Pipeliner is a worker that keeps up to Depth operations in flight at once
// and reports each completion on its own, so that one goroutine can drive a
// whole pipeline while every operation is still timed and recorded alone.
//
// The runner calls Submit for each new operation (with a tag of its own
// choosing, below Depth), then Flush to send what was submitted, then Poll to
// collect completions. Submit copies what it needs of req: req is reused
// after Submit returns. Every operation Submit accepted (nil error) is
// reported exactly once through Poll's done, with its own error (or nil); a
// broken connection completes every operation in flight with its error. A
// Submit error means the operation was not queued (it counts as failed).
//
// Do (from Worker) still runs one operation synchronously; it is only called
// with nothing in flight.
type Pipeliner interface {
	Worker
	// Depth is the most operations this worker can keep in flight.
	Depth() int
	// Submit queues one operation under tag. It does not send it.
	Submit(ctx context.Context, req *workload.Request, tag int) error
	// Flush sends every queued operation. A failure is reported through the
	// operations' completions, so Flush returns nothing.
	Flush(ctx context.Context)
	// Poll waits for completions and calls done once per completed
	// operation, in completion order; it returns how many completed. With
	// wait < 0 it blocks until at least one completes (if any is in flight);
	// with wait == 0 it only reports completions already available; with
	// wait > 0 it waits at most that long for the first one.
	Poll(ctx context.Context, wait time.Duration, done func(tag int, err error)) int
}

// TimedPoller is implemented by pipelined workers whose Poll with a wait
// wakes on time by itself (their own timerfd in the runtime's poller, as the
// native CQL worker's waiter): the runner then arms no timer of its own to
// wake the poller at the deadline, which would only add a wakeup per wait.
type TimedPoller interface {
	PollsOnTime() bool
}

// Syncer runs one operation at a time through a Pipeliner: what a pipelined
// worker's Do needs. A worker keeps one (its callback is made once, so Do
// does not allocate) and calls Do with nothing else in flight.
type Syncer struct {
	err  error
	done bool
	fn   func(int, error)
}

func (s *Syncer) complete(_ int, err error) { s.err, s.done = err, true }

// Do submits req, sends it and waits for its completion.
func (s *Syncer) Do(ctx context.Context, p Pipeliner, req *workload.Request) error {
	if s.fn == nil {
		s.fn = s.complete
	}
	if err := p.Submit(ctx, req, 0); err != nil {
		return err
	}
	p.Flush(ctx)
	s.done = false
	for !s.done {
		p.Poll(ctx, -1, s.fn)
	}
	return s.err
}
