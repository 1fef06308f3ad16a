package kafka

import (
	"context"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Pipelined producers (adapter.Pipeliner), the default (async=true) unless
// the workload consumes. The runner then keeps --concurrency records in
// flight from one goroutine per producer client, as ProducerPerformance and
// any application producing with callbacks do, instead of one goroutine per
// record in flight each waiting for its acknowledgement. Submit hands the
// record to franz-go; its promise, on franz-go's goroutine, notes the
// acknowledgement and queues the completion, and the first promise of a
// produce response rings a doorbell (a channel of one) that Poll waits on:
// the runner wakes once for every record a response acknowledges, where the
// synchronous workers wake a goroutine per record on each side. Every
// record is still timed on its own (its slot's intended start, its own
// completion).

var (
	_ adapter.Pipelined = (*Target)(nil)
	_ adapter.Pipeliner = (*pworker)(nil)
)

// PipelineShape makes the workers pipelined when async=true, no worker
// consumes and there are no transactions: one worker per producer client
// (producers), sharing the concurrency as records in flight.
//
// Transactions keep the synchronous workers: ending one flushes the client
// (tens of milliseconds), and a pipelined worker ending it would see the
// completions that arrive meanwhile only afterwards, charging the commit to
// records that were acknowledged before it.
func (t *Target) PipelineShape(concurrency int) (workers, total int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.depth = 0
	if !t.pipelined() || concurrency < 1 {
		return 0, 0
	}
	workers = min(t.cfg.Producers, concurrency)
	t.depth = (concurrency + workers - 1) / workers
	return workers, concurrency
}

// pipelined says whether the workers are pipelined (PipelineShape).
func (t *Target) pipelined() bool { return t.cfg.Async && !t.pull && !t.cfg.Transactional }

// tagCtx is a record's context: the runner's context, and the slot tag the
// promise reports the completion under (one per slot, made once).
type tagCtx struct {
	context.Context
	tag int
}

// pdone is one completion waiting for Poll.
type pdone struct {
	tag int
	err error
}

// pworker is a pipelined worker: up to depth records in flight, one per
// slot tag, each with its own record, value and key buffers.
type pworker struct {
	*worker
	depth int
	recs  []kgo.Record
	ctxs  []tagCtx
	vals  [][]byte
	keys  [][]byte
	nfly  int // records submitted whose completion Poll has not reported

	// Under ackMu (with the acknowledgements the promise notes): the
	// completions the promises queued. Poll swaps ready and spare.
	ready, spare []pdone
	bell         chan struct{} // rung by a promise that queued a completion
	now          []pdone       // completions known at Submit (INSERTs that do not wait)
	timer        *time.Timer
	prom         func(*kgo.Record, error)
}

var _ adapter.Pipeliner = (*pworker)(nil)

func newPWorker(w *worker, depth int) *pworker {
	p := &pworker{worker: w, depth: depth, recs: make([]kgo.Record, depth), ctxs: make([]tagCtx, depth),
		vals: make([][]byte, depth), keys: make([][]byte, depth),
		ready: make([]pdone, 0, depth), spare: make([]pdone, 0, depth), now: make([]pdone, 0, depth),
		bell: make(chan struct{}, 1), timer: time.NewTimer(time.Hour)}
	p.timer.Stop()
	for i := range p.ctxs {
		p.ctxs[i].tag = i
	}
	// The load phase's INSERTs (which do not wait) keep as many records in
	// flight per worker as the synchronous workers did together.
	p.window = asyncWindow * depth
	p.prom = p.promise
	return p
}

func (w *pworker) Depth() int { return w.depth }

// Submit produces req's record under tag; Poll reports its acknowledgement.
// An INSERT that does not wait (sync_insert=false) is complete at once, as
// it is for a synchronous worker.
func (w *pworker) Submit(ctx context.Context, req *workload.Request, tag int) error {
	switch req.Op {
	case vocab.OpProduce, vocab.OpWrite, vocab.OpUpdate:
	case vocab.OpInsert:
		if !w.t.cfg.SyncInsert {
			if err := w.insertAsync(ctx, req); err != nil {
				return err
			}
			w.now = append(w.now, pdone{tag: tag})
			return nil
		}
	default:
		return adapter.ErrUnsupported
	}
	t := w.t
	n := w.size(req)
	if n > len(w.vals[tag]) { // once per slot (or when the workload's values outgrow the spec)
		w.vals[tag] = make([]byte, max(n, t.msgMax))
		fillValue(w.vals[tag])
	}
	v := w.vals[tag][:n]
	seq := w.seq
	w.seq++
	putHeader(v, header{sendNs: time.Now().UnixNano(), run: t.run, producer: w.pid, seq: seq})
	c := &w.ctxs[tag]
	c.Context = ctx
	r := &w.recs[tag]
	*r = kgo.Record{Topic: t.topicFor(w.pid, seq), Value: v, Context: c}
	if t.cfg.Key != "none" && len(req.Key) > 0 {
		w.keys[tag] = append(w.keys[tag][:0], req.Key...)
		r.Key = w.keys[tag]
	}
	w.nfly++
	w.prod.Produce(ctx, r, w.prom)
	return nil
}

// promise runs on franz-go's promise goroutine: it notes the
// acknowledgement and queues the completion. It never blocks.
func (w *pworker) promise(r *kgo.Record, err error) {
	tag := r.Context.(*tagCtx).tag
	w.ackMu.Lock()
	if err == nil {
		h, _ := readHeader(r.Value) // Submit wrote it
		w.noteAck(h.seq, len(r.Value))
	}
	w.ready = append(w.ready, pdone{tag: tag, err: err})
	w.ackMu.Unlock()
	select {
	case w.bell <- struct{}{}:
	default:
	}
}

// Flush: Submit has handed each record to franz-go already, whose sender
// batches what arrives while a request is in flight (and lingers, with
// linger).
func (w *pworker) Flush(context.Context) {}

// Poll reports the completions queued, waiting for the doorbell when there
// are none (wait < 0: until one comes; wait > 0: at most that long).
func (w *pworker) Poll(_ context.Context, wait time.Duration, done func(int, error)) int {
	if n := w.drain(done); n > 0 || wait == 0 || w.nfly == 0 {
		return n
	}
	if wait < 0 {
		for {
			<-w.bell
			if n := w.drain(done); n > 0 {
				return n
			}
		}
	}
	deadline := time.Now().Add(wait)
	for {
		w.timer.Reset(wait)
		select {
		case <-w.bell:
		case <-w.timer.C:
		}
		w.timer.Stop()
		if n := w.drain(done); n > 0 {
			return n
		}
		if wait = time.Until(deadline); wait <= 0 {
			return 0
		}
	}
}

// drain reports every completion known: the INSERTs complete at Submit,
// then those the promises queued.
func (w *pworker) drain(done func(int, error)) int {
	n := len(w.now)
	for _, c := range w.now {
		done(c.tag, nil)
	}
	w.now = w.now[:0]
	w.ackMu.Lock()
	w.ready, w.spare = w.spare[:0], w.ready
	w.ackMu.Unlock()
	for _, c := range w.spare {
		err := c.err
		if err != nil {
			err = classify(err)
		}
		done(c.tag, err)
	}
	w.nfly -= len(w.spare)
	return n + len(w.spare)
}
