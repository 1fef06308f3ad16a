package hazelcast

import (
	"bytes"
	"context"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// NewWorker returns a worker; all workers share the client (it multiplexes
// invocations over one connection per member).
func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	t.mu.Lock()
	setup := t.setup
	t.mu.Unlock()
	if !setup {
		if err := t.proxies(context.Background(), true, false, false); err != nil {
			return nil, err
		}
	}
	return &worker{t: t}, nil
}

type worker struct {
	t        *Target
	thread   int64   // the worker's thread id in the CP session (cp=lock, semaphore)
	name     []byte  // the object name of the op
	last     []byte  // value this worker last set or read on a reference (for CAS)
	lastLong []int64 // per counter, the value this worker last set or read (for CAS)
}

var _ adapter.Worker = (*worker)(nil)

// Do executes one request. It bounds the call with the timeout option
// itself: with members gone the client can otherwise retry an invocation
// past its own InvocationTimeout (seen with IMap.Set after two of three
// members were killed).
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	ctx, cancel := context.WithTimeout(ctx, w.t.cfg.Timeout)
	defer cancel()
	t := w.t
	switch req.Op {
	case vocab.OpRead:
		return w.get(ctx, req)
	case vocab.OpInsert:
		if t.cpOnly {
			r := *req
			r.Op = vocab.OpSet
			if t.locks != nil {
				return w.doLock(ctx, &r)
			}
			if t.cfg.CP == "long" || t.refs == nil {
				return w.doLong(ctx, &r)
			}
			return w.doRef(ctx, &r)
		}
		return w.set(ctx, req)
	case vocab.OpUpdate, vocab.OpWrite:
		return w.set(ctx, req)
	case vocab.OpRMW:
		if err := w.get(ctx, req); err != nil {
			return err
		}
		return w.set(ctx, req)
	case vocab.OpDelete:
		if t.m == nil {
			return adapter.ErrUnsupported
		}
		return classify(t.m.Delete(ctx, string(req.Key)))
	case vocab.OpIncr:
		if t.long == nil {
			return adapter.ErrUnsupported
		}
		_, err := t.longs[req.KeyNum%uint64(len(t.longs))].IncrementAndGet(ctx)
		return classify(err)
	case vocab.OpSet, vocab.OpGet, vocab.OpCAS:
		switch t.cfg.CP {
		case "long":
			return w.doLong(ctx, req)
		case "lock", "semaphore":
			return w.doLock(ctx, req)
		}
		return w.doRef(ctx, req)
	}
	return adapter.ErrUnsupported
}

func (w *worker) get(ctx context.Context, req *workload.Request) error {
	if w.t.m == nil {
		return adapter.ErrUnsupported
	}
	v, err := w.t.m.Get(ctx, string(req.Key))
	if err != nil {
		return classify(err)
	}
	if w.t.check {
		b, _ := v.([]byte) // nil (absent) is missing; another type is corrupt
		if v != nil && b == nil {
			return adapter.ErrValidationCorrupt
		}
		return adapter.Verdict(workload.CheckRecord(b, req.Key, w.t.fieldLen, w.t.fieldCount))
	}
	if v == nil {
		return adapter.ErrNotFound
	}
	return nil
}

func (w *worker) set(ctx context.Context, req *workload.Request) error {
	if w.t.m == nil {
		return adapter.ErrUnsupported
	}
	// The client serializes the value before Set returns: req.Value is not kept.
	return classify(w.t.m.Set(ctx, string(req.Key), req.Value))
}

func (w *worker) doRef(ctx context.Context, req *workload.Request) error {
	refs := w.t.refs
	if refs == nil {
		return adapter.ErrUnsupported
	}
	r := refs[req.KeyNum%uint64(len(refs))]
	switch req.Op {
	case vocab.OpSet:
		if err := r.Set(ctx, req.Value); err != nil {
			return classify(err)
		}
		w.remember(req.Value)
	case vocab.OpGet:
		v, err := r.Get(ctx)
		if err != nil {
			return classify(err)
		}
		if v == nil {
			return adapter.ErrNotFound
		}
		if b, ok := v.([]byte); ok {
			w.last = b // the client made this slice for us
		}
	case vocab.OpCAS:
		var expect any
		if w.last != nil {
			expect = w.last
		}
		ok, err := r.CompareAndSet(ctx, expect, req.Value)
		if err != nil {
			return classify(err)
		}
		if ok {
			w.remember(req.Value)
		} else {
			w.t.casFailed.Add(1)
			w.last = nil
		}
	}
	return nil
}

// remember keeps a copy of v as the expected value of the next CAS.
func (w *worker) remember(v []byte) {
	if len(w.last) == len(v) && bytes.Equal(w.last, v) {
		return
	}
	if cap(w.last) < len(v) {
		w.last = make([]byte, len(v))
	}
	w.last = w.last[:len(v)]
	copy(w.last, v)
}

func (w *worker) doLong(ctx context.Context, req *workload.Request) error {
	longs := w.t.longs
	if longs == nil {
		return adapter.ErrUnsupported
	}
	if w.lastLong == nil {
		w.lastLong = make([]int64, len(longs))
	}
	i := req.KeyNum % uint64(len(longs))
	l, last := longs[i], &w.lastLong[i]
	var err error
	switch req.Op {
	case vocab.OpSet:
		err = l.Set(ctx, int64(req.KeyNum))
		if err == nil {
			*last = int64(req.KeyNum)
		}
	case vocab.OpGet:
		*last, err = l.Get(ctx)
	case vocab.OpCAS:
		var ok bool
		ok, err = l.CompareAndSet(ctx, *last, *last+1)
		if err == nil {
			if ok {
				*last++
			} else {
				w.t.casFailed.Add(1)
			}
		}
	}
	return classify(err)
}

func (w *worker) Close() error { return nil }
