package cql

import (
	"context"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// natConn runs a profile worker's statements on platbench's own protocol v4
// client: a connection per node, dialled when first used, the request sent
// to the owner of its partition's token (token_aware) or round robin, one
// request at a time on stream 0, the statements prepared on each connection
// once. Frames are built in a reused buffer from the values the worker
// generated, so a single-row write of fixed-size columns allocates nothing.
type natConn struct {
	cfg   *Config
	hosts []string
	ring  ring
	stmts []string // CQL in id order: the profile's load, insert, then ops
	conns []*nconn // per host; nil until dialled or after a failure
	cur   int      // the host of the request being built
	rr    int
	c     *nconn
	frame []byte
	page  []byte // paging state of the last page, copied out of the frame
}

func newNatConn(cfg *Config, hosts []string, rg ring, id int, stmts []string) *natConn {
	return &natConn{cfg: cfg, hosts: hosts, ring: rg, rr: id, stmts: stmts, conns: make([]*nconn, len(hosts)), frame: make([]byte, 0, 16<<10)}
}

// route makes the next request go to the owner of token (token_aware),
// or to the next node round robin when token is not known (ok false).
func (n *natConn) route(token int64, ok bool) {
	n.cur = -1
	if ok && n.cfg.TokenAware && len(n.hosts) > 1 {
		n.cur = n.ring.owner(token)
	}
	if n.cur < 0 {
		n.rr++
		n.cur = n.rr % len(n.hosts)
	}
}

// conn returns the chosen node's connection, dialling it if needed; a node
// that cannot be reached is skipped for the next one.
func (n *natConn) conn(ctx context.Context) (*nconn, error) {
	var err error
	for i := range n.hosts {
		h := (n.cur + i) % len(n.hosts)
		if n.conns[h] == nil {
			n.conns[h], err = dialNative(ctx, n.cfg, n.hosts[h], n.stmts)
		}
		if n.conns[h] != nil {
			n.cur, n.c = h, n.conns[h]
			return n.c, nil
		}
	}
	return nil, err
}

func (n *natConn) closeCur() {
	if n.c != nil {
		n.c.close()
		n.conns[n.cur], n.c = nil, nil
	}
}

func (n *natConn) close() {
	for i, c := range n.conns {
		if c != nil {
			c.close()
			n.conns[i] = nil
		}
	}
	n.c = nil
}

// round sends n.frame and returns the result body; an error answer is the
// server's exception, a broken or timed-out connection is closed (a late
// answer must not be taken for the next request's).
func (n *natConn) round() (reader, error) {
	h, body, err := n.c.roundTrip(n.frame, time.Now().Add(n.cfg.Timeout))
	if err != nil {
		n.closeCur()
		return reader{}, classify(err)
	}
	r := reader{b: body}
	if h.op == opError {
		code, _ := errorBodyView(&r)
		if code == codeUnprepared {
			n.closeCur() // re-prepared on the next dial
		}
		return r, serverError(code)
	}
	if h.op != opResult {
		n.closeCur()
		return r, errShortFrame
	}
	return r, nil
}

func appendValues(b []byte, vals []blob) []byte {
	b = appendShort(b, len(vals))
	for i := range vals {
		b = appendBytes(b, nonNil(vals[i].b))
	}
	return b
}

// execute runs statement idx once (one page for reads: page is the paging
// state to continue from, nil for the first) and returns its rows, whether
// more pages follow and, for a conditional statement, whether it applied.
func (n *natConn) execute(ctx context.Context, st *pstmt, idx int, vals []blob, more bool) (rows int, hasMore, applied bool, err error) {
	c, err := n.conn(ctx)
	if err != nil {
		return 0, false, false, err
	}
	b := appendHeader(n.frame[:0], 0, opExecute)
	b = appendShortBytes(b, c.ids[idx])
	b = appendShort(b, int(st.cl))
	flags := byte(qpValues)
	if !st.cas {
		flags |= qpSkipMetadata
	}
	if st.pageSize > 0 {
		flags |= qpPageSize
	}
	if more {
		flags |= qpPagingState
	}
	if st.serial != 0 {
		flags |= qpSerial
	}
	b = append(b, flags)
	b = appendValues(b, vals)
	if st.pageSize > 0 {
		b = appendInt(b, int32(st.pageSize))
	}
	if more {
		b = appendBytes(b, n.page)
	}
	if st.serial != 0 {
		b = appendShort(b, int(st.serial))
	}
	finishFrame(b, 0)
	n.frame = b
	r, err := n.round()
	if err != nil {
		return 0, false, false, err
	}
	return n.result(&r, st.cas)
}

// result reads a RESULT: rows, the paging state, and [applied].
func (n *natConn) result(r *reader, cas bool) (rows int, hasMore, applied bool, err error) {
	if r.int() != resultRows {
		return 0, false, true, r.err
	}
	flags := r.int()
	cols := int(r.int())
	if flags&rowsHasMorePages != 0 {
		n.page = append(n.page[:0], r.bytesView()...)
		hasMore = true
	}
	if flags&rowsNoMetadata == 0 {
		if flags&rowsGlobalSpec != 0 {
			r.skipString()
			r.skipString()
		}
		for i := 0; i < cols && r.err == nil; i++ {
			if flags&rowsGlobalSpec == 0 {
				r.skipString()
				r.skipString()
			}
			r.skipString()
			r.skipOption()
		}
	}
	rows = int(r.int())
	applied = true
	if cas && rows > 0 {
		v := r.bytesView()
		applied = len(v) == 1 && v[0] != 0
	}
	return rows, hasMore, applied, r.err
}

// batchStart begins a BATCH frame; batchRun writes its statement count.
func (n *natConn) batchStart(ctx context.Context, typ gocql.BatchType) error {
	if _, err := n.conn(ctx); err != nil {
		return err
	}
	n.frame = appendHeader(n.frame[:0], 0, opBatch)
	n.frame = append(n.frame, byte(typ), 0, 0)
	return nil
}

// batchBytes is the size of the batch so far.
func (n *natConn) batchBytes() int { return len(n.frame) }

// batchAdd adds prepared statement idx with vals to the batch.
func (n *natConn) batchAdd(idx int, vals []blob) {
	n.frame = append(n.frame, 1)
	n.frame = appendShortBytes(n.frame, n.c.ids[idx])
	n.frame = appendValues(n.frame, vals)
}

// batchRun sends the batch of count statements and reports whether a
// conditional one applied.
func (n *natConn) batchRun(st *pstmt, count int) (applied bool, err error) {
	n.frame[headerLen+1], n.frame[headerLen+2] = byte(count>>8), byte(count)
	n.frame = appendShort(n.frame, int(st.cl))
	if st.serial != 0 {
		n.frame = append(n.frame, qpSerial)
		n.frame = appendShort(n.frame, int(st.serial))
	} else {
		n.frame = append(n.frame, 0)
	}
	finishFrame(n.frame, 0)
	r, err := n.round()
	if err != nil {
		return false, err
	}
	_, _, applied, err = n.result(&r, st.cas)
	return applied, err
}
