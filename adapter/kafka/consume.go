package kafka

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// The streaming workload's consumers: the consumer group members that run
// beside the producing workers (adapter.Background) and record every
// message of this run as a CONSUME with its end-to-end latency.

// RunBackground runs the streaming workload's consumer group members: each
// consumed message of this run is recorded as a CONSUME with its end-to-end
// latency. When ctx ends it notes the consumer lag and lets the consumers
// drain on until Summary has counted lost messages.
func (t *Target) RunBackground(ctx context.Context, sink adapter.Sink) error {
	n := t.cfg.Consumers
	if n == 0 {
		<-ctx.Done()
		return nil
	}
	t.mu.Lock()
	t.watch = newGroupWatch()
	for i := 0; i < n; i++ {
		cl, err := t.consumer(t.watch.opts(i)...)
		if err != nil {
			t.mu.Unlock()
			return err
		}
		t.bg = append(t.bg, cl)
	}
	dctx, stop := context.WithCancel(context.Background())
	t.bgStop, t.bgDone = stop, make(chan struct{})
	bg := t.bg
	t.mu.Unlock()

	var recording atomic.Bool
	recording.Store(true)
	// Messages sent before the run phase (by the load phase's workers, all
	// closed by now) are backlog: counted for lost and
	// duplicated, but their end-to-end latency is not the stream's.
	t.mu.Lock()
	backlog := map[uint32]bool{}
	for _, w := range t.workers {
		if w.finished {
			backlog[w.pid] = true
		}
	}
	t.backlog = backlog
	t.mu.Unlock()
	var wg sync.WaitGroup
	members := make([]*member, len(bg))
	for i, cl := range bg {
		m := &member{cl: cl, done: make(chan struct{})}
		members[i] = m
		var mctx context.Context
		mctx, m.stop = context.WithCancel(dctx)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(m.done)
			t.consumeLoop(mctx, cl, sink, &recording, backlog)
		}()
	}
	if t.cfg.JoinAfter > 0 || t.cfg.LeaveAfter > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t.churn(ctx, dctx, members, func(cl *kgo.Client) { t.consumeLoop(dctx, cl, sink, &recording, backlog) })
		}()
	}
	go func() { wg.Wait(); close(t.bgDone) }()
	<-ctx.Done()
	recording.Store(false)
	t.noteGroupType()
	t.mu.Lock()
	bg = append([]*kgo.Client(nil), t.bg...) // with the one that joined, without the one that left
	t.mu.Unlock()
	t.noteLag(bg)
	return nil
}

// consumeLoop polls until ctx ends; while recording it sends every message
// of this run to sink.
func (t *Target) consumeLoop(ctx context.Context, cl *kgo.Client, sink adapter.Sink, recording *atomic.Bool, backlog map[uint32]bool) {
	for ctx.Err() == nil {
		fs := cl.PollRecords(ctx, 4096)
		rec := recording.Load()
		fs.EachError(func(_ string, _ int32, err error) {
			if rec && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				cerr := classify(err)
				class := adapter.Classify(cerr)
				sink.RecordAsync(vocab.OpConsume, 0, 0, class)
				sink.NoteAsyncError(vocab.OpConsume, class, cerr)
			}
		})
		now := time.Now().UnixNano()
		fs.EachRecord(func(r *kgo.Record) {
			if r.Attrs.IsControl() { // a transaction's marker
				t.ledger.marker(r.Topic, r.Partition, r.Offset)
				return
			}
			h, ok := readHeader(r.Value)
			d := t.ledger.note(h, ok, len(r.Value), r.Topic, r.Partition, r.Offset)
			if rec && d == deliveredOurs && !backlog[h.producer] {
				sink.RecordAsync(vocab.OpConsume, max(0, now-h.sendNs), uint64(len(r.Value)), vocab.ClassNone)
			}
		})
	}
}

// stopBackground stops the background consumers and waits for them.
func (t *Target) stopBackground() {
	t.mu.Lock()
	stop, done, bg := t.bgStop, t.bgDone, t.bg
	t.bgStop, t.bg = nil, nil
	t.mu.Unlock()
	if stop != nil {
		stop()
		<-done
		for _, cl := range bg {
			cl.Close()
		}
	}
}
