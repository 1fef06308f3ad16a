package embedded

import (
	"context"
	"io"

	"github.com/cockroachdb/pebble"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	return &worker{db: t.db, sync: t.sync, check: t.check, fieldLen: t.fieldLen, fieldCount: t.fieldCount}, nil
}

type worker struct {
	db   *pebble.DB
	sync *pebble.WriteOptions
	buf  []byte // record buffer for read-modify-write

	check                bool // checked workload: reads check values
	fieldLen, fieldCount int
}

var _ adapter.Worker = (*worker)(nil)

func (w *worker) Close() error { return nil }

// Do executes one request against pebble.
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	switch req.Op {
	case vocab.OpRead, vocab.OpGet:
		_, c, err := w.get(req.Key)
		if err != nil {
			return err
		}
		return c.Close()
	case vocab.OpInsert, vocab.OpWrite, vocab.OpSet:
		return classify(w.db.Set(req.Key, req.Value, w.sync))
	case vocab.OpUpdate, vocab.OpRMW:
		return w.update(req)
	case vocab.OpDelete:
		return classify(w.db.Delete(req.Key, w.sync))
	case vocab.OpScan:
		return w.scan(req)
	}
	return adapter.ErrUnsupported
}

// get reads a record and, in a checked workload, checks it. Unless it
// returns an error, the caller closes c once done with v.
func (w *worker) get(key []byte) ([]byte, io.Closer, error) {
	v, c, err := w.db.Get(key)
	if err != nil {
		return nil, nil, w.classify(err)
	}
	if w.check {
		if err := adapter.Verdict(workload.CheckRecord(v, key, w.fieldLen, w.fieldCount)); err != nil {
			c.Close()
			return nil, nil, err
		}
	}
	return v, c, nil
}

// update reads the record, overwrites len(Value) bytes from field
// req.Field (one field, or all of them from the first) and writes it back.
// A checked workload checks the record read first.
func (w *worker) update(req *workload.Request) error {
	v, c, err := w.get(req.Key)
	if err != nil {
		return err
	}
	w.buf = append(w.buf[:0], v...)
	c.Close()
	off := req.Field * req.FieldLen
	for len(w.buf) < off+len(req.Value) {
		w.buf = append(w.buf, 0)
	}
	copy(w.buf[off:], req.Value)
	return classify(w.db.Set(req.Key, w.buf, w.sync))
}

func (w *worker) scan(req *workload.Request) error {
	it, err := w.db.NewIter(&pebble.IterOptions{LowerBound: req.Key})
	if err != nil {
		return classify(err)
	}
	n := 0
	var bad error
	for ok := it.First(); ok && n < req.ScanLen; ok = it.Next() {
		v := it.Value()
		if w.check && bad == nil {
			bad = adapter.Verdict(workload.CheckRecord(v, it.Key(), w.fieldLen, w.fieldCount))
		}
		n++
	}
	if err := it.Close(); err != nil {
		return classify(err)
	}
	return bad
}
