package adapter

import (
	"context"

	"github.com/platbench/platbench/vocab"
)

// Sink receives operations a target completes on its own, outside Worker.Do:
// a Kafka consumer's end-to-end latency (timestamp written at produce, read at
// consume), for example. It is safe for concurrent use and does not allocate.
type Sink interface {
	// RecordAsync records one completed op with its latency, payload bytes and
	// error class (ClassNone for success).
	RecordAsync(op vocab.Op, latencyNs int64, bytes uint64, class vocab.Class)
	// NoteAsyncError keeps what the server said about an op RecordAsync
	// recorded as failed (call it after, with the op's class and error), as
	// the runner does for a worker's: the first few distinct messages of
	// each class reach the result and the report. Not timed; a nil err is
	// ignored.
	NoteAsyncError(op vocab.Op, class vocab.Class, err error)
}

// Background is implemented by targets that run loops of their own during the
// run phase (consumers). The runner starts RunBackground in a goroutine when
// the run phase starts and cancels ctx when it ends; it must return then.
type Background interface {
	RunBackground(ctx context.Context, sink Sink) error
}

// Summarizer is implemented by targets with figures of their own to add to the
// result at the end of a run (consumer lag, lost or duplicated messages...).
type Summarizer interface {
	Summary(ctx context.Context) map[string]string
}
