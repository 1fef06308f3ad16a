package redis

import (
	"context"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// worker executes one request at a time on its own connection (c); in
// cluster mode a cworker (cluster.go) has one per master.
type worker struct {
	t    *Target
	c    *conn     // own connection; nil after a network error until redialled
	dial *dialOpts // the server this worker talks to; nil: the target's (t.dial)
	ask  bool      // cluster: send ASKING before each command (cluster.go)

	rng        uint64
	fieldNames []string
	writeAll   bool
	lastFail   time.Time // last failed dial, to pace reconnects

	// The last scan's keys (scan.go): scanKeys[scanEnds[i-1]:scanEnds[i]]
	// is the i-th; scanFound of their records were there.
	scanKeys  []byte
	scanEnds  []int
	scanFound int
	scanPend  int // cluster scans: record reads queued on this connection
}

var _ adapter.Worker = (*worker)(nil)

// reconnectPause paces redials to a server that is down, so that a dead
// server yields a bounded rate of errors instead of a busy loop.
const reconnectPause = 100 * time.Millisecond

// Do executes req. Standalone paths do not allocate on the steady path.
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	switch {
	case req.Op == vocab.OpScan && w.t.index != "":
		return w.scan(req)
	case (req.Op == vocab.OpInsert || req.Op == vocab.OpDelete) && w.t.index != "":
		return w.indexed(req)
	case req.Op == vocab.OpRMW:
		if err := w.one(req, vocab.OpRead); err != nil {
			return err
		}
		return w.one(req, vocab.OpUpdate)
	}
	return w.one(req, req.Op)
}

// one sends the command for op and reads its reply.
func (w *worker) one(req *workload.Request, op vocab.Op) error {
	if w.c == nil {
		if err := w.redial(); err != nil {
			return err
		}
	}
	buf := w.c.wbuf[:0]
	if w.ask { // cluster: the slot is being imported here (ASK): ASKING first
		buf = resp.AppendArray(buf, 1)
		buf = resp.AppendBulkString(buf, "ASKING")
	}
	buf, isRead, err := w.build(buf, req, op)
	if err != nil {
		return err
	}
	w.c.wbuf = buf
	if isRead && w.t.check {
		return w.checkedRead(req)
	}
	r, err := w.c.roundTrip()
	if w.ask && (err == nil || resp.IsServerError(err)) {
		r, err = w.c.readReply() // the command's, after ASKING's
	}
	if err != nil && !resp.IsServerError(err) {
		// The stream is out of step with its replies: start over.
		w.c.Close()
		w.c = nil
	}
	if err != nil {
		return err
	}
	if isRead {
		switch {
		case r.Kind == '$' && r.N < 0, r.Kind == '*' && r.N <= 0:
			return adapter.ErrNotFound
		case r.Kind != '$' && r.Kind != '*':
			return errReplyMismatch
		}
	}
	return nil
}

// checkedRead sends the read in the write buffer and checks its reply.
func (w *worker) checkedRead(req *workload.Request) error {
	var v workload.Verdict
	err := w.c.flush()
	if err == nil {
		w.c.refreshRead()
		v, err = w.c.checkedReply(req.Key, w.t.cfg.Mode == "hash", w.t.fieldLen, len(w.fieldNames))
	}
	if err != nil {
		if !resp.IsServerError(err) {
			w.c.Close()
			w.c = nil
		}
		return err
	}
	return adapter.Verdict(v)
}

func (w *worker) dialOpts() *dialOpts {
	if w.dial != nil {
		return w.dial
	}
	return &w.t.dial
}

func (w *worker) redial() error {
	if d := time.Since(w.lastFail); d < reconnectPause {
		time.Sleep(reconnectPause - d)
	}
	c, err := dial(context.Background(), w.dialOpts())
	if err != nil {
		w.lastFail = time.Now()
		return err
	}
	w.c = c
	return nil
}

// build appends the command for op to buf. isRead marks commands whose nil
// or empty reply means the key was not found.
func (w *worker) build(buf []byte, req *workload.Request, op vocab.Op) (_ []byte, isRead bool, _ error) {
	hash := w.t.cfg.Mode == "hash"
	if op.Named() {
		if i := int(op - vocab.OpNamed0); i < len(w.t.tmpls) {
			return w.t.tmpls[i].appendTo(buf, req, w), false, nil
		}
		return buf, false, adapter.ErrUnsupported
	}
	switch op {
	case vocab.OpRead, vocab.OpGet:
		if hash {
			buf = resp.AppendArray(buf, 2)
			buf = resp.AppendBulkString(buf, "HGETALL")
		} else {
			buf = resp.AppendArray(buf, 2)
			buf = resp.AppendBulkString(buf, "GET")
		}
		return resp.AppendBulk(buf, req.Key), true, nil
	case vocab.OpUpdate:
		if hash && !w.writeAll {
			f := w.fieldNames[w.next()%uint64(len(w.fieldNames))]
			if w.t.check { // the field the checked value was made for
				f = w.fieldNames[req.Field%len(w.fieldNames)]
			}
			v := req.Value
			if fl := req.FieldLen; fl > 0 && fl < len(v) {
				v = v[:fl]
			}
			buf = resp.AppendArray(buf, 4)
			buf = resp.AppendBulkString(buf, "HSET")
			buf = resp.AppendBulk(buf, req.Key)
			buf = resp.AppendBulkString(buf, f)
			return resp.AppendBulk(buf, v), false, nil
		}
		return w.buildWriteAll(buf, req, hash), false, nil
	case vocab.OpInsert, vocab.OpWrite, vocab.OpSet:
		return w.buildWriteAll(buf, req, hash), false, nil
	case vocab.OpDelete:
		buf = resp.AppendArray(buf, 2)
		buf = resp.AppendBulkString(buf, "DEL")
		return resp.AppendBulk(buf, req.Key), false, nil
	case vocab.OpIncr:
		buf = resp.AppendArray(buf, 2)
		buf = resp.AppendBulkString(buf, "INCR")
		return resp.AppendBulk2(buf, "ctr:", req.Key), false, nil
	}
	return buf, false, adapter.ErrUnsupported
}

// buildWriteAll writes the whole record: SET, or HSET of every field.
func (w *worker) buildWriteAll(buf []byte, req *workload.Request, hash bool) []byte {
	if !hash {
		buf = resp.AppendArray(buf, 3)
		buf = resp.AppendBulkString(buf, "SET")
		buf = resp.AppendBulk(buf, req.Key)
		return resp.AppendBulk(buf, req.Value)
	}
	n := len(w.fieldNames)
	buf = resp.AppendArray(buf, 2+2*n)
	buf = resp.AppendBulkString(buf, "HSET")
	buf = resp.AppendBulk(buf, req.Key)
	per := len(req.Value) / n
	for i, f := range w.fieldNames {
		buf = resp.AppendBulkString(buf, f)
		buf = resp.AppendBulk(buf, req.Value[i*per:(i+1)*per])
	}
	return buf
}

// next is xorshift64: a field number for one-field updates, as YCSB picks one at random.
func (w *worker) next() uint64 {
	x := w.rng
	x ^= x << 13
	x ^= x >> 7
	x ^= x << 17
	w.rng = x
	return x
}

// Close releases the worker's connection.
func (w *worker) Close() error {
	if w.c != nil {
		err := w.c.Close()
		w.c = nil
		return err
	}
	return nil
}

// NewWorker returns worker id. Its connection is dialled now, so an
// unreachable server shows up before the run starts.
func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	if t.fieldNames == nil {
		if err := t.Setup(context.Background(), &workload.Spec{FieldCount: 1}); err != nil {
			return nil, err
		}
	}
	w := &worker{t: t, rng: uint64(id)*0x9E3779B97F4A7C15 + 1, fieldNames: t.fieldNames, writeAll: t.writeAll}
	t.mu.Lock()
	async := t.async
	t.mu.Unlock()
	if t.cluster != nil {
		if async {
			return t.newCPWorker(w), nil
		}
		return &cworker{base: w}, nil
	}
	if async {
		return t.newPWorker(w)
	}
	c, err := dial(context.Background(), &t.dial)
	if err != nil {
		return nil, err
	}
	w.c = c
	return w, nil
}
