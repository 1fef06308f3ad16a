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
	"github.com/platbench/platbench/workload"
)

// worker produces (and, in consume-only workloads, consumes) for one runner
// worker. It owns its record, value buffer and promise, so Do allocates
// nothing of its own; see BenchmarkProduce for what franz-go allocates.
type worker struct {
	t     *Target
	prod  *kgo.Client
	pid   uint32 // producer id written into payloads: unique per Target
	seq   uint64
	rec   kgo.Record
	value []byte // msgMax bytes, filled once
	key   []byte
	done  chan error
	prom  func(*kgo.Record, error)
	rng   uint64
	ackMu sync.Mutex // acked and bytes: async INSERTs' promises run on franz-go's goroutines
	acked bitmap     // sequence numbers the broker acknowledged
	bytes uint64     // bytes of acknowledged messages

	tx        *txnProducer // the client's transactions; nil without
	pend      []uint64     // acknowledged in the open transaction (under ackMu)
	pendBytes uint64

	free        chan *kgo.Record // records of asynchronous INSERTs not in flight
	window      int              // how many asynchronous INSERTs may be in flight
	asyncProm   func(*kgo.Record, error)
	pending     sync.WaitGroup
	asyncErr    atomic.Pointer[error]
	asyncFailed atomic.Uint64

	cons     *kgo.Client // consumer group member, in consume-only workloads
	buf      []*kgo.Record
	pos      int
	fill     func(*kgo.Record)
	closed   bool // consumer closed
	finished bool // Close called: a worker of an earlier phase
}

var _ adapter.Worker = (*worker)(nil)

// errDrained is a CONSUME that found no message within poll_timeout.
var errDrained = &adapter.Error{Class: vocab.ClassNotFound, Err: errors.New("kafka: no message within poll_timeout (the topic is drained)")}

func newWorker(t *Target, prod *kgo.Client, tx *txnProducer, pid uint32) *worker {
	w := &worker{t: t, prod: prod, tx: tx, pid: pid, value: make([]byte, t.msgMax), done: make(chan error, 1),
		rng: uint64(pid)*0x9E3779B97F4A7C15 + 1, window: asyncWindow}
	fillValue(w.value)
	w.prom = func(_ *kgo.Record, err error) { w.done <- err }
	w.fill = func(r *kgo.Record) { w.buf = append(w.buf, r) }
	return w
}

// fillValue fills b with bytes that do not compress to nothing (so that
// compression=... is measured on data with some entropy, like text).
func fillValue(b []byte) {
	x := uint64(0x2545F4914F6CDD1D)
	for i := range b {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		b[i] = 'a' + byte(x%26)
	}
}

// Do runs one operation: a produce waits for its acknowledgement.
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	switch req.Op {
	case vocab.OpProduce, vocab.OpWrite, vocab.OpUpdate:
		return w.produce(ctx, req)
	case vocab.OpInsert:
		if w.t.cfg.SyncInsert {
			return w.produce(ctx, req)
		}
		return w.insertAsync(ctx, req)
	case vocab.OpConsume:
		return w.consume(ctx, req)
	}
	return adapter.ErrUnsupported
}

// size is the number of bytes of the next message.
func (w *worker) size(req *workload.Request) int {
	t := w.t
	n := t.msgSize
	if t.sizeFromReq && len(req.Value) >= HeaderLen {
		n = len(req.Value)
	} else if t.msgMax > n {
		w.rng ^= w.rng << 13
		w.rng ^= w.rng >> 7
		w.rng ^= w.rng << 17
		n += int(w.rng % uint64(t.msgMax-n+1))
	}
	return n
}

func (w *worker) produce(ctx context.Context, req *workload.Request) error {
	t := w.t
	n := w.size(req)
	if n > len(w.value) { // once: the workload's values are bigger than its spec said
		w.value = make([]byte, n)
		fillValue(w.value)
	}
	v := w.value[:n]
	seq := w.seq
	w.seq++
	putHeader(v, header{sendNs: time.Now().UnixNano(), run: t.run, producer: w.pid, seq: seq})
	w.rec = kgo.Record{Topic: t.topicFor(w.pid, seq), Value: v}
	if t.cfg.Key != "none" && len(req.Key) > 0 {
		w.key = append(w.key[:0], req.Key...)
		w.rec.Key = w.key
	}
	if w.tx != nil {
		w.tx.gate.RLock()
		w.tx.n.Add(1)
	}
	w.prod.Produce(ctx, &w.rec, w.prom)
	// The promise always runs, also when ctx ends: wait for it so that the
	// record and buffers can be reused.
	err := <-w.done
	if err == nil {
		w.ackMu.Lock()
		w.noteAck(seq, n)
		w.ackMu.Unlock()
	}
	if w.tx != nil {
		w.tx.gate.RUnlock()
		if err == nil {
			err = w.maybeEnd()
		}
	}
	if err != nil {
		return classify(err)
	}
	return nil
}

// asyncWindow is how many asynchronous INSERTs one worker keeps in flight
// (a pipelined worker: this many per record of its depth).
const asyncWindow = 256

// insertAsync produces without waiting for the acknowledgement: the load
// phase fills a topic (consume, backlog-drain) as fast as the client batches,
// whatever the concurrency. At most asyncWindow inserts per worker are in
// flight (window); a failed insert is returned by the worker's next INSERT and counted
// in kafka.insert_failed.
func (w *worker) insertAsync(ctx context.Context, req *workload.Request) error {
	if p := w.asyncErr.Swap(nil); p != nil {
		return classify(*p)
	}
	if w.free == nil {
		w.free = make(chan *kgo.Record, w.window)
		for i := 0; i < w.window; i++ {
			w.free <- &kgo.Record{}
		}
		w.asyncProm = w.asyncDone
	}
	var r *kgo.Record
	select {
	case r = <-w.free:
	case <-ctx.Done():
		return ctx.Err()
	}
	n := w.size(req)
	if cap(r.Value) < n {
		r.Value = make([]byte, n)
		copy(r.Value, w.value)
	}
	v, kb := r.Value[:n], r.Key[:0]
	seq := w.seq
	w.seq++
	putHeader(v, header{sendNs: time.Now().UnixNano(), run: w.t.run, producer: w.pid, seq: seq})
	*r = kgo.Record{Topic: w.t.topicFor(w.pid, seq), Value: v}
	if w.t.cfg.Key != "none" && len(req.Key) > 0 {
		r.Key = append(kb, req.Key...)
	}
	w.pending.Add(1)
	if w.tx == nil {
		w.prod.Produce(ctx, r, w.asyncProm)
		return nil
	}
	w.tx.gate.RLock()
	w.tx.n.Add(1)
	w.prod.Produce(ctx, r, w.asyncProm)
	w.tx.gate.RUnlock()
	if err := w.maybeEnd(); err != nil {
		return classify(err)
	}
	return nil
}

// asyncDone is the promise of an asynchronous INSERT; franz-go calls it on
// its own goroutines.
func (w *worker) asyncDone(r *kgo.Record, err error) {
	if err != nil {
		w.asyncFailed.Add(1)
		w.asyncErr.CompareAndSwap(nil, &err)
	} else {
		h, _ := readHeader(r.Value)
		w.ackMu.Lock()
		w.noteAck(h.seq, len(r.Value))
		w.ackMu.Unlock()
	}
	w.free <- r
	w.pending.Done()
}

// consume takes the next record of this worker's group member. It points
// req.Value at the record's value so that the runner, which counts an op's
// bytes as len(req.Value), counts the bytes consumed (the generator resets
// Value before the next op; nothing writes through it).
func (w *worker) consume(ctx context.Context, req *workload.Request) error {
	if w.cons == nil {
		if w.closed {
			return adapter.ErrUnavailable
		}
		cl, err := w.t.consumer()
		if err != nil {
			return err
		}
		w.cons = cl
	}
	for {
		if w.pos >= len(w.buf) {
			// Refill: one poll per batch of records. The poll is bounded so
			// that a worker whose partitions are drained gives its turn back
			// to the runner instead of blocking to the end of the run.
			w.buf, w.pos = w.buf[:0], 0
			pctx, cancel := context.WithTimeout(ctx, w.t.cfg.PollTimeout)
			fs := w.cons.PollRecords(pctx, 1024)
			cancel()
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fs.Err0(); err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
				return classify(err)
			}
			fs.EachRecord(w.fill)
			if len(w.buf) == 0 {
				return errDrained
			}
		}
		r := w.buf[w.pos]
		w.buf[w.pos] = nil
		w.pos++
		if r.Attrs.IsControl() { // a transaction's marker (transactional_id)
			w.t.ledger.marker(r.Topic, r.Partition, r.Offset)
			continue
		}
		h, ok := readHeader(r.Value)
		if w.t.ledger.note(h, ok, len(r.Value), r.Topic, r.Partition, r.Offset) == deliveredAgain {
			continue // read before (the group rewound after a rebalance): not progress
		}
		req.Value = r.Value
		return nil
	}
}

func (w *worker) closeConsumer() {
	if w.cons == nil || w.closed {
		return
	}
	w.closed = true
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = w.cons.CommitUncommittedOffsets(ctx)
	w.cons.Close()
}

// Close leaves the consumer group (the producer client is the Target's).
func (w *worker) Close() error {
	w.pending.Wait() // asynchronous INSERTs still in flight
	var err error
	if w.tx != nil {
		// Commit what this worker (and the others of its client) produced.
		err = w.t.flushTxn(w.tx)
	}
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	w.finished = true
	w.closeConsumer()
	return err
}

// NewWorker returns a worker with its own producer record and buffers; its
// first CONSUME makes it a consumer group member (consume-only and drain
// workloads), so the load phase's workers never join the group.
func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	if t.topic == "" {
		return nil, errors.New("kafka: NewWorker before Setup")
	}
	prod, tx, pid, err := t.producer()
	if err != nil {
		return nil, err
	}
	w := newWorker(t, prod, tx, pid)
	if tx != nil {
		tx.join(w)
	}
	t.mu.Lock()
	t.workers = append(t.workers, w)
	depth := t.depth
	t.mu.Unlock()
	if depth > 0 {
		return newPWorker(w, depth), nil
	}
	return w, nil
}
