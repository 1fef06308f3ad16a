package redis

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Pipelined workers (adapter.Pipeliner). When the runner asks for them
// (PipelineShape), each worker owns one connection and keeps up to depth
// commands in flight on it from the runner's one goroutine: Submit appends a
// command to the connection's write buffer, Flush writes them all in one
// write, Poll reads replies in order (RESP replies come back in command
// order on a connection) and reports each op's completion on its own. No
// reader goroutine, no channel hand-off, no allocation per op.
//
// READ-MODIFY-WRITE is sent as its GET/HGETALL and its SET/HSET back to back
// (the write does not wait for the read's reply); the op completes with the
// write's reply, or with the read's error if it had one.

var (
	_ adapter.Pipelined = (*Target)(nil)
	_ adapter.Pipeliner = (*pworker)(nil)
)

// PipelineShape maps the runner's concurrency (operations in flight) onto
// connections when pipelining is asked for:
//   - pipeline=D: ceil(concurrency/D) connections, concurrency in flight
//     (D per connection, the last one gets the remainder);
//   - conns=N: N connections sharing concurrency in flight;
//   - pipeline=D and conns=N: N connections with D each, N*D in flight,
//     whatever --concurrency says (as redis-benchmark -c N -P D).
//
// With neither the target is not pipelined. In cluster mode each worker
// has one pipeline of that depth per master (cluster.go).
func (t *Target) PipelineShape(concurrency int) (workers, total int) {
	if (t.cfg.Pipeline <= 1 && t.cfg.Conns == 0) || concurrency < 1 {
		return 0, 0
	}
	c, d := t.cfg.Conns, t.cfg.Pipeline
	switch {
	case c > 0 && d > 1:
		workers, total = c, c*d
	case c > 0:
		workers, total = min(c, concurrency), concurrency
		d = (concurrency + workers - 1) / workers
	default:
		workers, total = (concurrency+d-1)/d, concurrency
	}
	t.mu.Lock()
	t.async, t.depth, t.inFlight, t.nconns = true, d, total, workers
	t.mu.Unlock()
	return workers, total
}

// pent is one command in flight.
type pent struct {
	tag    int32
	isRead bool // a nil/empty reply means not found
	last   bool // the op's last command (RMW has two)
}

// pworker is a pipelined worker with its own connection.
type pworker struct {
	*worker
	depth  int
	ring   []pent // commands in flight, in order; len is a power of two
	head   int
	n      int
	broken error // the connection failed; the in-flight ops fail with it at the next Poll
	carry  error // the error of an RMW's read, reported with its write

	syncer adapter.Syncer
}

var _ adapter.Pipeliner = (*pworker)(nil)

func (t *Target) newPWorker(w *worker) (*pworker, error) {
	c, err := dial(context.Background(), w.dialOpts())
	if err != nil {
		return nil, err
	}
	w.c = c
	return &pworker{worker: w, depth: t.depth, ring: make([]pent, ringSize(t.depth))}, nil
}

// ringSize is a power of two that holds depth ops of two commands each.
func ringSize(depth int) int {
	size := 4
	for size < 2*depth+2 {
		size *= 2
	}
	return size
}

func (w *pworker) Depth() int { return w.depth }

// Submit appends req's command(s) to the write buffer.
func (w *pworker) Submit(ctx context.Context, req *workload.Request, tag int) error {
	if w.broken != nil {
		return w.broken
	}
	if w.n+2 > len(w.ring) {
		return &adapter.Error{Class: vocab.ClassOther, Err: errors.New("redis: more commands submitted than the pipeline depth")}
	}
	if w.c == nil {
		if err := w.redial(); err != nil {
			return err
		}
	}
	buf := w.c.wbuf
	mark := len(buf)
	var isRead bool
	var err error
	if req.Op == vocab.OpRMW {
		if buf, isRead, err = w.build(buf, req, vocab.OpRead); err == nil {
			w.push(pent{tag: int32(tag), isRead: isRead})
			if buf, isRead, err = w.build(buf, req, vocab.OpUpdate); err != nil {
				w.n-- // undo the read's entry
			}
		}
	} else {
		buf, isRead, err = w.build(buf, req, req.Op)
	}
	if err != nil {
		w.c.wbuf = buf[:mark]
		return err
	}
	w.c.wbuf = buf
	w.push(pent{tag: int32(tag), isRead: isRead, last: true})
	return nil
}

func (w *pworker) push(e pent) {
	w.ring[(w.head+w.n)&(len(w.ring)-1)] = e
	w.n++
}

// Flush writes the queued commands.
func (w *pworker) Flush(ctx context.Context) {
	if w.c == nil || len(w.c.wbuf) == 0 {
		return
	}
	if err := w.c.flush(); err != nil {
		w.breakConn(err)
	}
}

func (w *pworker) breakConn(err error) {
	w.broken = err
	if w.c != nil {
		w.c.Close()
		w.c = nil
	}
}

// Poll reads replies and reports completed ops (see adapter.Pipeliner).
func (w *pworker) Poll(ctx context.Context, wait time.Duration, done func(tag int, err error)) int {
	if w.broken != nil {
		return w.failAll(done)
	}
	if w.n == 0 {
		return 0
	}
	c := w.c
	if c.br.Buffered() == 0 && wait >= 0 {
		if wait == 0 {
			return 0
		}
		// Wait for the first byte with a deadline: Peek consumes nothing
		// on a timeout, so the stream stays in step.
		_ = c.nc.SetReadDeadline(time.Now().Add(wait))
		c.rdl = time.Time{} // the next refreshRead sets the command timeout again
		if _, err := c.br.Peek(1); err != nil {
			if adapter.Classify(resp.ClassifyNet(err)) == vocab.ClassTimeout {
				return 0
			}
			w.breakConn(resp.ClassifyNet(err))
			return w.failAll(done)
		}
	}
	// One deadline refresh per Poll (a clock read), not per reply: a
	// command still times out after between timeout/2 and timeout.
	c.refreshRead()
	n := 0
	for w.n > 0 {
		r, err := c.readReply()
		if err != nil && !resp.IsServerError(err) {
			w.breakConn(err)
			return n + w.failAll(done)
		}
		e := w.ring[w.head]
		w.head = (w.head + 1) & (len(w.ring) - 1)
		w.n--
		if err == nil && e.isRead {
			switch {
			case r.Kind == '$' && r.N < 0, r.Kind == '*' && r.N <= 0:
				err = adapter.ErrNotFound
			case r.Kind != '$' && r.Kind != '*':
				err = errReplyMismatch
			}
		}
		if !e.last {
			w.carry = err
			continue
		}
		if w.carry != nil {
			if err == nil {
				err = w.carry
			}
			w.carry = nil
		}
		done(int(e.tag), err)
		n++
		if c.br.Buffered() == 0 {
			break
		}
	}
	return n
}

// failAll completes every op in flight with the connection's error.
func (w *pworker) failAll(done func(int, error)) int {
	err := w.broken
	n := 0
	for ; w.n > 0; w.n-- {
		e := w.ring[w.head]
		w.head = (w.head + 1) & (len(w.ring) - 1)
		if e.last {
			done(int(e.tag), err)
			n++
		}
	}
	w.head, w.broken, w.carry = 0, nil, nil
	return n
}

// Do runs one op synchronously (nothing else may be in flight).
func (w *pworker) Do(ctx context.Context, req *workload.Request) error {
	if w.n != 0 {
		return &adapter.Error{Class: vocab.ClassOther, Err: errors.New("redis: Do called with pipelined commands in flight")}
	}
	return w.syncer.Do(ctx, w, req)
}

// inFlightText describes the pipelined shape (call with t.mu held).
func (t *Target) inFlightText() string {
	if t.cluster != nil {
		return fmt.Sprintf("%d ops over %d workers, each with a pipeline of up to %d per master (one goroutine each)", t.inFlight, t.nconns, t.depth)
	}
	return fmt.Sprintf("%d ops over %d connections (up to %d per connection, one goroutine each)", t.inFlight, t.nconns, t.depth)
}
