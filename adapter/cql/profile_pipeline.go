package cql

import (
	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/adapter/cql/csprofile"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A profile on platbench's own client (driver=native) runs on the pipelined
// native worker (pipeline.go): Submit generates an operation's values (the
// profWorker's generator, without allocating for fixed-size types), routes
// it to the owner of its partition's token (or round robin for token-range
// scans) and encodes its first frame on a stream of its own; many
// operations are in flight at once over the worker's one connection per
// node. An operation that needs more than one frame continues on the same
// stream as its responses arrive, across Poll calls:
//
//   - an insert of several rows (a visit of several partitions or rows, or
//     the load phase's whole partition) sends its batches one after the
//     other, each after the previous one succeeded (as the driver path);
//   - a query whose result has more pages asks for the next page with the
//     paging state of the last one, until the last page; every page's rows
//     are counted.
//
// A conditional statement's [applied] is read from each response; "not
// applied" is counted, not an error (as cassandra-stress).

// profPipe is the profile side of a native worker.
type profPipe struct {
	gen  *csprofile.Gen // values, routing keys and visits; its bound values are reused
	vals []byte         // one statement's encoded values (scratch)
}

// token is the Murmur3 token of the request's partition; not known for
// token-range scans.
func (p *profPipe) token(req *workload.Request) (int64, bool) {
	key, ok := p.gen.RoutingKey(req)
	if !ok {
		return 0, false
	}
	return murmur3Token(key), true
}

// stmtIdx is the index (in Profile.CQLs) of the statement req starts
// with; -1 for an op the profile does not have.
func (p *profPipe) stmtIdx(req *workload.Request) int {
	g := p.gen
	pr := g.Profile()
	switch {
	case req.Op == vocab.OpNamed0:
		return pr.Insert.Idx
	case req.Op == vocab.OpInsert || req.Op == vocab.OpWrite:
		return pr.Load.Idx
	case req.Op.Named() && int(req.Op-vocab.OpNamed0)-1 < len(g.Ops):
		return g.Ops[int(req.Op-vocab.OpNamed0)-1].St.Idx
	}
	return -1
}

// submitProfile encodes the first frame of a profile operation.
func (w *pworker) submitProfile(req *workload.Request, tag int) error {
	g := w.prof.gen
	pr := g.Profile()
	g.Buf = g.Buf[:0]
	tok, ok := w.prof.token(req)
	ci, err := w.routeTo(tok, ok, w.cfg.TokenAware || w.lwtOp(req))
	if err != nil {
		return err
	}
	c := w.conns[ci]
	id := w.free[len(w.free)-1]
	s := &w.streams[id]
	mark := len(c.Out)
	kind := uint8(kindPWrite)
	s.vs, s.vi = s.vs[:0], 0
	switch {
	case req.Op == vocab.OpNamed0 || req.Op == vocab.OpInsert || req.Op == vocab.OpWrite:
		all := req.Op != vocab.OpNamed0
		s.st = &pr.Insert
		if all {
			s.st = &pr.Load
		}
		s.vs = g.Visits(s.vs, req.KeyNum, all)
		c.Out = w.appendWrite(c.Out, c, int(id), s)
	case req.Op.Named() && int(req.Op-vocab.OpNamed0)-1 < len(g.Ops):
		i := int(req.Op-vocab.OpNamed0) - 1
		b := &g.Ops[i]
		if pr.IsRange(req.Op) {
			if err := g.BindRange(b, req.KeyNum); err != nil {
				return err
			}
		} else {
			rows := pr.RowsIn(req.KeyNum)
			g.Fill(b, req.KeyNum, g.Next()%rows, rows)
		}
		s.st = b.St
		if !b.St.CAS {
			kind = kindPQuery
		}
		s.pending = appendValues(s.pending[:0], b.Vals)
		c.Out = appendProfExec(c.Out, c, int(id), b.St, s.pending, nil)
	default:
		return adapter.Configf("cql: op %s is not an operation of the profile (fix: give the mix in the names %v)", req.Op, pr.Def.OpNames())
	}
	if len(c.Out)-mark > 256<<20 {
		c.Out = c.Out[:mark]
		return adapter.Configf("cql: a request of %d bytes exceeds the protocol's 256 MiB frame (fix: smaller column sizes in the profile)", len(c.Out)-mark)
	}
	w.take(id, kind, ci, tag)
	return nil
}

// appendWrite encodes the next write of s's rows (s.vs[s.vi:]): one row as
// an EXECUTE, or a BATCH of up to csprofile.MaxBatch rows and MaxBatchBytes, one
// partition for a conditional one.
func (w *pworker) appendWrite(b []byte, c *cqlwire.Conn, id int, s *stream) []byte {
	g := w.prof.gen
	pr, st := g.Profile(), s.st
	vs := s.vs[s.vi:]
	n := csprofile.BatchLen(st, vs)
	bq := &g.Ins
	if st == &pr.Load {
		bq = &g.Load
	}
	if n == 1 {
		// A lone statement goes unbatched, as cassandra-stress sends it.
		g.Buf = g.Buf[:0]
		g.Fill(bq, vs[0].Part, vs[0].Row, 1)
		w.prof.vals = appendValues(w.prof.vals[:0], bq.Vals)
		s.vi++
		return appendProfExec(b, c, id, st, w.prof.vals, nil)
	}
	start := len(b)
	b = cqlwire.AppendHeader(b, id, cqlwire.OpBatch)
	bt := pr.Batch
	if st == &pr.Load {
		bt = pr.LoadBatch
	}
	b = append(b, byte(bt), 0, 0)
	used := 0
	for _, v := range vs[:n] {
		if used > 0 && len(b)-start > csprofile.MaxBatchBytes {
			break
		}
		g.Buf = g.Buf[:0]
		g.Fill(bq, v.Part, v.Row, 1)
		b = append(b, 1)
		b = cqlwire.AppendShortBytes(b, c.IDs[st.Idx])
		b = appendValues(b, bq.Vals)
		used++
	}
	b[start+cqlwire.HeaderLen+1], b[start+cqlwire.HeaderLen+2] = byte(used>>8), byte(used)
	b = cqlwire.AppendShort(b, int(st.CL))
	if st.Serial != 0 {
		b = append(b, cqlwire.QuerySerial)
		b = cqlwire.AppendShort(b, int(st.Serial))
	} else {
		b = append(b, 0)
	}
	cqlwire.FinishFrame(b, start)
	s.vi += used
	return b
}

// appendProfExec encodes an EXECUTE of st with its encoded values (count
// included), continuing from paging state page when not nil.
func appendProfExec(b []byte, c *cqlwire.Conn, id int, st *csprofile.Stmt, vals, page []byte) []byte {
	start := len(b)
	b = cqlwire.AppendHeader(b, id, cqlwire.OpExecute)
	b = cqlwire.AppendShortBytes(b, c.IDs[st.Idx])
	b = cqlwire.AppendShort(b, int(st.CL))
	flags := byte(cqlwire.QueryValues)
	if !st.CAS {
		flags |= cqlwire.QuerySkipMetadata
	}
	if st.PageSize > 0 {
		flags |= cqlwire.QueryPageSize
	}
	if page != nil {
		flags |= cqlwire.QueryPagingState
	}
	if st.Serial != 0 {
		flags |= cqlwire.QuerySerial
	}
	b = append(b, flags)
	b = append(b, vals...)
	if st.PageSize > 0 {
		b = cqlwire.AppendInt(b, int32(st.PageSize))
	}
	if page != nil {
		b = cqlwire.AppendBytes(b, page)
	}
	if st.Serial != 0 {
		b = cqlwire.AppendShort(b, int(st.Serial))
	}
	cqlwire.FinishFrame(b, start)
	return b
}

func appendValues(b []byte, vals []csprofile.Blob) []byte {
	b = cqlwire.AppendShort(b, len(vals))
	for i := range vals {
		b = cqlwire.AppendBytes(b, nonNil(vals[i].B))
	}
	return b
}

// profResult takes a profile operation's RESULT on stream id of c: it
// counts a query's rows and a conditional write not applied, and sends
// the operation's next frame (more true) if it has one.
func (w *pworker) profResult(c *cqlwire.Conn, id int, s *stream, r *cqlwire.Reader) (more bool, err error) {
	pr := w.prof.gen.Profile()
	rows, page, applied := profRows(r, s.st.CAS)
	if r.Err != nil {
		return false, &adapter.Error{Class: vocab.ClassOther, Err: r.Err}
	}
	if s.kind == kindPQuery {
		pr.Returned.Add(uint64(rows))
		if page != nil {
			c.Out = appendProfExec(c.Out, c, id, s.st, s.pending, page)
			return true, nil
		}
		return false, nil
	}
	if !applied {
		pr.NotApplied.Add(1)
	}
	if s.vi < len(s.vs) {
		c.Out = w.appendWrite(c.Out, c, id, s)
		return true, nil
	}
	return false, nil
}

// profRows reads a RESULT: its rows, the paging state when more pages
// follow (a view into the frame), and a conditional statement's [applied]
// (true for any other result).
func profRows(r *cqlwire.Reader, cas bool) (rows int, page []byte, applied bool) {
	rows, _, page, isRows := cqlwire.RowsMeta(r)
	if !isRows {
		return 0, nil, true
	}
	applied = true
	if cas && rows > 0 {
		v := r.BytesView()
		applied = len(v) == 1 && v[0] != 0
	}
	return rows, page, applied
}
