package cql

import (
	"context"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// natConn runs a profile worker's statements on platbench's own protocol v4
// client: one connection (to a node chosen by the worker's id, not by
// token), one request at a time on stream 0, the statements prepared on it
// once. Frames are built in a reused buffer from the values the worker
// generated, so a single-row write of fixed-size columns allocates nothing.
type natConn struct {
	cfg   *Config
	hosts []string
	host  int
	stmts []string // CQL in id order: the profile's load, insert, then ops
	c     *nconn
	frame []byte
	page  []byte // paging state of the last page, copied out of the frame
}

func newNatConn(cfg *Config, hosts []string, id int, stmts []string) *natConn {
	return &natConn{cfg: cfg, hosts: hosts, host: id % len(hosts), stmts: stmts, frame: make([]byte, 0, 16<<10)}
}

func (n *natConn) conn(ctx context.Context) (*nconn, error) {
	if n.c != nil {
		return n.c, nil
	}
	c, err := dialNative(ctx, n.cfg, n.hosts[n.host], n.stmts)
	if err != nil {
		n.host = (n.host + 1) % len(n.hosts) // try another node next time
		return nil, err
	}
	n.c = c
	return c, nil
}

func (n *natConn) close() {
	if n.c != nil {
		n.c.close()
		n.c = nil
	}
}

// round sends n.frame and returns the result body; an error answer is the
// server's exception, a broken or timed-out connection is closed (a late
// answer must not be taken for the next request's).
func (n *natConn) round() (reader, error) {
	h, body, err := n.c.roundTrip(n.frame, time.Now().Add(n.cfg.Timeout))
	if err != nil {
		n.close()
		return reader{}, classify(err)
	}
	r := reader{b: body}
	if h.op == opError {
		code, _ := errorBodyView(&r)
		if code == codeUnprepared {
			n.close() // re-prepared on the next dial
		}
		return r, serverError(code)
	}
	if h.op != opResult {
		n.close()
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

// batchStart begins a BATCH frame of count statements.
func (n *natConn) batchStart(ctx context.Context, typ gocql.BatchType, count int) error {
	if _, err := n.conn(ctx); err != nil {
		return err
	}
	n.frame = appendHeader(n.frame[:0], 0, opBatch)
	n.frame = append(n.frame, byte(typ))
	n.frame = appendShort(n.frame, count)
	return nil
}

// batchAdd adds prepared statement idx with vals to the batch.
func (n *natConn) batchAdd(idx int, vals []blob) {
	n.frame = append(n.frame, 1)
	n.frame = appendShortBytes(n.frame, n.c.ids[idx])
	n.frame = appendValues(n.frame, vals)
}

// batchRun sends the batch and reports whether a conditional one applied.
func (n *natConn) batchRun(st *pstmt) (applied bool, err error) {
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
