package cql

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

var _ adapter.Worker = (*profWorker)(nil)

// profWorker runs a profile's operations through the driver's session
// (prepared statements bound to worker-owned buffers). The values are
// generated without allocating; the driver and batches allocate. On
// platbench's own client (driver=native) it only generates the values and
// tokens: the pipelined native worker sends them (profpipe.go).
type profWorker struct {
	pr   *profile
	rng  uint64
	buf  []byte
	ops  []boundQuery // per pr.ops
	ins  boundQuery
	load boundQuery
	rkey []byte // routing key scratch
	cas  map[string]any
}

// boundQuery is a query bound once to blobs whose contents change per op.
type boundQuery struct {
	st   *pstmt
	q    *gocql.Query
	vals []blob
}

func (pr *profile) bind(st *pstmt, native bool) boundQuery {
	b := boundQuery{st: st, vals: make([]blob, len(st.args))}
	if native {
		return b
	}
	args := make([]any, len(st.args))
	for i := range b.vals {
		args[i] = &b.vals[i]
	}
	b.q = pr.session.Query(st.cql, args...).Consistency(st.cl).Idempotent(!st.cas)
	if st.serial != 0 {
		b.q = b.q.SerialConsistency(st.serial)
	}
	if st.pageSize > 0 {
		b.q = b.q.PageSize(st.pageSize)
	}
	return b
}

func newProfWorker(pr *profile, id int) *profWorker {
	w := &profWorker{pr: pr, rng: mix(uint64(id) + 1), buf: make([]byte, 0, 4096), cas: map[string]any{}}
	w.ins, w.load = pr.bind(&pr.insert, pr.native), pr.bind(&pr.load, pr.native)
	for i := range pr.ops {
		w.ops = append(w.ops, pr.bind(&pr.ops[i], pr.native))
	}
	return w
}

func (w *profWorker) next() uint64 { w.rng = mix(w.rng); return w.rng }

// Do runs one operation: the profile's insert (the first named op), one of
// its queries or token-range scans (the named ops after it), or, for the
// load phase's INSERT, every row of one partition.
func (w *profWorker) Do(ctx context.Context, req *workload.Request) error {
	w.buf = w.buf[:0]
	switch {
	case req.Op == vocab.OpNamed0:
		return w.insert(ctx, req.KeyNum, false)
	case req.Op.Named() && int(req.Op-vocab.OpNamed0)-1 < len(w.ops):
		i := int(req.Op-vocab.OpNamed0) - 1
		if i >= len(w.ops)-w.pr.ranges {
			return w.tokenRange(ctx, &w.ops[i], req.KeyNum)
		}
		return w.query(ctx, &w.ops[i], req.KeyNum)
	case req.Op == vocab.OpInsert || req.Op == vocab.OpWrite:
		return w.insert(ctx, req.KeyNum, true)
	}
	return adapter.Configf("cql: op %s is not an operation of the profile (fix: give the mix in the names %v)", req.Op, w.pr.p.OpNames())
}

// Close: the session is the target's.
func (w *profWorker) Close() error { return nil }

// fill sets the blobs of b from row (part, row); multirow statements take
// each column from a row of their own.
func (w *profWorker) fill(b *boundQuery, part, row, rows uint64) {
	for i, a := range b.st.args {
		at := len(w.buf)
		switch a.kind {
		case argLimit:
			w.buf = binary.BigEndian.AppendUint32(w.buf, 100)
		case argToken:
			w.buf = binary.BigEndian.AppendUint64(w.buf, 0)
		case argTimestamp:
			w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(time.Now().UnixMicro()))
		default:
			r := row
			if b.st.multirow {
				r = w.next() % rows
			}
			w.buf = w.pr.appendValue(w.buf, a.col, part, r)
		}
		b.vals[i].b = w.buf[at:len(w.buf):len(w.buf)]
	}
}

// maxBatch bounds the statements of one batch, under the server's batch
// size limit for rows of a few hundred bytes; a visit of more rows is sent
// as several batches.
const maxBatch = 100

type visit struct{ part, row uint64 }

// insert writes the rows of one visit: partitions (insert.partitions) and,
// in each, a run of insert.select of its rows (all rows for the load).
func (w *profWorker) insert(ctx context.Context, keyNum uint64, all bool) error {
	pr := w.pr
	vs := w.visits(nil, keyNum, all)
	st := &pr.insert
	if all {
		st = &pr.load
	}
	for len(vs) > 0 {
		n := batchLen(st, vs)
		used, err := w.write(ctx, st, vs[:n])
		if err != nil {
			return err
		}
		vs = vs[used:]
	}
	return nil
}

// batchLen is how many of vs the next statement or batch may hold: a
// conditional batch holds one partition.
func batchLen(st *pstmt, vs []visit) int {
	n := min(len(vs), maxBatch)
	if st.cas {
		n = 1
		for n < len(vs) && n < maxBatch && vs[n].part == vs[0].part {
			n++
		}
	}
	return n
}

// visits appends to vs the rows one insert of keyNum writes, and counts
// its partitions and rows (not the load's).
func (w *profWorker) visits(vs []visit, keyNum uint64, all bool) []visit {
	pr := w.pr
	ins := pr.p.Insert
	np := uint64(1)
	if !all {
		np = uint64(max(ins.Partitions.Sample(unit(w.next()), unit(w.next()), keyNum), 1))
	}
	for i := range np {
		part := keyNum
		if i > 0 {
			part = mix2(keyNum, i) % pr.records
		}
		rows := pr.rowsIn(part)
		k, start := rows, uint64(0)
		if !all {
			sel := float64(ins.Select.Sample(unit(w.next()), unit(w.next()), keyNum)) / float64(ins.SelectDiv)
			k = uint64(max(math.Ceil(float64(rows)*sel), 1))
			start = w.next() % rows
		}
		for j := range k {
			vs = append(vs, visit{part, (start + j) % rows})
		}
		if !all {
			pr.partitions.Add(1)
			pr.rows.Add(k)
		}
	}
	return vs
}

// maxBatchBytes bounds a batch's values, under Cassandra's default
// batch_size_fail_threshold (50 KiB): rows beyond it go in the next batch.
const maxBatchBytes = 40 << 10

// write sends the first rows of vs as one statement or one batch and
// returns how many it sent.
func (w *profWorker) write(ctx context.Context, st *pstmt, vs []visit) (int, error) {
	pr := w.pr
	if len(vs) == 1 && !pr.batched {
		b := &w.ins
		if st == &pr.load {
			b = &w.load
		}
		w.fill(b, vs[0].part, vs[0].row, 1)
		if st.cas {
			clear(w.cas)
			applied, err := b.q.MapScanCASContext(ctx, w.cas)
			w.countApplied(applied, err)
			return 1, classify(err)
		}
		return 1, classify(b.q.ExecContext(ctx))
	}
	return w.driverBatch(ctx, st, vs)
}

// driverBatch sends the rows as a batch on the driver's session.
func (w *profWorker) driverBatch(ctx context.Context, st *pstmt, vs []visit) (int, error) {
	pr := w.pr
	batch := pr.session.Batch(pr.batch).Consistency(st.cl)
	if st.serial != 0 {
		batch = batch.SerialConsistency(st.serial)
	}
	used, start := 0, len(w.buf)
	for _, v := range vs {
		if used > 0 && len(w.buf)-start > maxBatchBytes {
			break
		}
		b := boundQuery{st: st, vals: make([]blob, len(st.args))}
		args := make([]any, len(st.args))
		for i := range b.vals {
			args[i] = &b.vals[i]
		}
		w.fill(&b, v.part, v.row, 1)
		batch = batch.Query(st.cql, args...)
		used++
	}
	if st.cas {
		clear(w.cas)
		applied, iter, err := batch.MapExecCASContext(ctx, w.cas)
		if iter != nil {
			_ = iter.Close()
		}
		w.countApplied(applied, err)
		return used, classify(err)
	}
	return used, classify(batch.ExecContext(ctx))
}

// query runs a named query on partition keyNum, reading every page, and
// counts the rows it returns; a conditional one counts "not applied".
func (w *profWorker) query(ctx context.Context, b *boundQuery, keyNum uint64) error {
	pr := w.pr
	rows := pr.rowsIn(keyNum)
	w.fill(b, keyNum, w.next()%rows, rows)
	if b.st.cas {
		clear(w.cas)
		applied, err := b.q.MapScanCASContext(ctx, w.cas)
		if err == nil && !applied {
			pr.notApplied.Add(1)
		}
		return classify(err)
	}
	return w.readAll(ctx, b)
}

func (w *profWorker) readAll(ctx context.Context, b *boundQuery) error {
	sc := b.q.IterContext(ctx).Scanner()
	var n uint64
	for sc.Next() {
		n++
	}
	w.pr.returned.Add(n)
	if err := sc.Err(); err != nil {
		return classify(err)
	}
	return nil
}

// tokenRange reads one of tokenSplits slices of the token ring, every page.
func (w *profWorker) tokenRange(ctx context.Context, b *boundQuery, keyNum uint64) error {
	if err := w.bindRange(b, keyNum); err != nil {
		return err
	}
	return w.readAll(ctx, b)
}

// bindRange binds b's two token markers to split keyNum % tokenSplits.
func (w *profWorker) bindRange(b *boundQuery, keyNum uint64) error {
	i := keyNum % tokenSplits
	const step = uint64(1) << 56 // 2^64 / tokenSplits
	lo := int64(i*step + 1<<63)  // math.MinInt64 + i*step
	hi := int64(uint64(lo) + step)
	if i == tokenSplits-1 {
		hi = math.MaxInt64
	}
	if len(b.vals) != 2 {
		return fmt.Errorf("cql: token-range query %s has %d markers, want 2", b.st.name, len(b.vals))
	}
	w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(lo))
	w.buf = binary.BigEndian.AppendUint64(w.buf, uint64(hi))
	at := len(w.buf) - 16
	b.vals[0].b, b.vals[1].b = w.buf[at:at+8:at+8], w.buf[at+8:at+16:at+16]
	return nil
}

func (w *profWorker) countApplied(applied bool, err error) {
	if err == nil && !applied {
		w.pr.notApplied.Add(1)
	}
}

// token is the Murmur3 token of the request's partition (the protocol's
// routing key: the value of a one-column partition key, or each
// component's length, value and a zero byte); not known for scans.
func (w *profWorker) token(req *workload.Request) (int64, bool) {
	if req.Op.Named() && int(req.Op-vocab.OpNamed0)-1 >= len(w.ops)-w.pr.ranges {
		return 0, false
	}
	pk := w.pr.pk
	w.rkey = w.rkey[:0]
	if len(pk) == 1 {
		w.rkey = w.pr.appendValue(w.rkey, pk[0], req.KeyNum, 0)
		return murmur3Token(w.rkey), true
	}
	for _, c := range pk {
		at := len(w.rkey)
		w.rkey = append(w.rkey, 0, 0)
		w.rkey = w.pr.appendValue(w.rkey, c, req.KeyNum, 0)
		n := len(w.rkey) - at - 2
		w.rkey[at], w.rkey[at+1] = byte(n>>8), byte(n)
		w.rkey = append(w.rkey, 0)
	}
	return murmur3Token(w.rkey), true
}
