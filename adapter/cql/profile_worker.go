package cql

import (
	"context"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/csprofile"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

var _ adapter.Worker = (*profWorker)(nil)

// profWorker runs a profile's operations through the driver's session
// (prepared statements bound to the generator's blobs). The values are
// generated without allocating (csprofile.Gen); the driver and batches
// allocate. On platbench's own client (driver=native) the pipelined native
// worker sends them instead (profile_pipeline.go).
type profWorker struct {
	pr   *profile
	g    *csprofile.Gen
	ops  []*gocql.Query // per pr.Ops, bound to g.Ops
	ins  *gocql.Query
	load *gocql.Query
	cas  map[string]any
}

// bind is the driver's query of b, bound once to b's blobs.
func (pr *profile) bind(b *csprofile.Bound) *gocql.Query {
	st := b.St
	args := make([]any, len(b.Vals))
	for i := range b.Vals {
		args[i] = &b.Vals[i]
	}
	q := pr.session.Query(st.CQL, args...).Consistency(st.CL).Idempotent(!st.CAS)
	if st.Serial != 0 {
		q = q.SerialConsistency(st.Serial)
	}
	if st.PageSize > 0 {
		q = q.PageSize(st.PageSize)
	}
	return q
}

func newProfWorker(pr *profile, id int) *profWorker {
	g := pr.NewGen(id)
	w := &profWorker{pr: pr, g: g, cas: map[string]any{}}
	w.ins, w.load = pr.bind(&g.Ins), pr.bind(&g.Load)
	for i := range g.Ops {
		w.ops = append(w.ops, pr.bind(&g.Ops[i]))
	}
	return w
}

// Do runs one operation: the profile's insert (the first named op), one of
// its queries or token-range scans (the named ops after it), or, for the
// load phase's INSERT, every row of one partition.
func (w *profWorker) Do(ctx context.Context, req *workload.Request) error {
	w.g.Buf = w.g.Buf[:0]
	switch {
	case req.Op == vocab.OpNamed0:
		return w.insert(ctx, req.KeyNum, false)
	case req.Op.Named() && int(req.Op-vocab.OpNamed0)-1 < len(w.ops):
		i := int(req.Op-vocab.OpNamed0) - 1
		if w.pr.IsRange(req.Op) {
			return w.tokenRange(ctx, i, req.KeyNum)
		}
		return w.query(ctx, i, req.KeyNum)
	case req.Op == vocab.OpInsert || req.Op == vocab.OpWrite:
		return w.insert(ctx, req.KeyNum, true)
	}
	return adapter.Configf("cql: op %s is not an operation of the profile (fix: give the mix in the names %v)", req.Op, w.pr.Def.OpNames())
}

// Close: the session is the target's.
func (w *profWorker) Close() error { return nil }

// insert writes the rows of one visit: partitions (insert.partitions) and,
// in each, a run of insert.select of its rows (all rows for the load).
func (w *profWorker) insert(ctx context.Context, keyNum uint64, all bool) error {
	pr := w.pr
	vs := w.g.Visits(nil, keyNum, all)
	st := &pr.Insert
	if all {
		st = &pr.Load
	}
	for len(vs) > 0 {
		n := csprofile.BatchLen(st, vs)
		used, err := w.write(ctx, st, vs[:n])
		if err != nil {
			return err
		}
		vs = vs[used:]
	}
	return nil
}

// write sends the first rows of vs as one statement or one batch and
// returns how many it sent.
func (w *profWorker) write(ctx context.Context, st *csprofile.Stmt, vs []csprofile.Visit) (int, error) {
	pr := w.pr
	if len(vs) == 1 {
		// A lone statement goes unbatched, as cassandra-stress sends it.
		b, q := &w.g.Ins, w.ins
		if st == &pr.Load {
			b, q = &w.g.Load, w.load
		}
		w.g.Fill(b, vs[0].Part, vs[0].Row, 1)
		if st.CAS {
			clear(w.cas)
			applied, err := q.MapScanCASContext(ctx, w.cas)
			w.countApplied(applied, err)
			return 1, classify(err)
		}
		return 1, classify(q.ExecContext(ctx))
	}
	return w.driverBatch(ctx, st, vs)
}

// driverBatch sends the rows as a batch on the driver's session.
func (w *profWorker) driverBatch(ctx context.Context, st *csprofile.Stmt, vs []csprofile.Visit) (int, error) {
	pr := w.pr
	bt := pr.Batch
	if st == &pr.Load {
		bt = pr.LoadBatch
	}
	batch := pr.session.Batch(bt).Consistency(st.CL)
	if st.Serial != 0 {
		batch = batch.SerialConsistency(st.Serial)
	}
	used, start := 0, len(w.g.Buf)
	for _, v := range vs {
		if used > 0 && len(w.g.Buf)-start > csprofile.MaxBatchBytes {
			break
		}
		b := csprofile.NewBound(st)
		args := make([]any, len(b.Vals))
		for i := range b.Vals {
			args[i] = &b.Vals[i]
		}
		w.g.Fill(&b, v.Part, v.Row, 1)
		batch = batch.Query(st.CQL, args...)
		used++
	}
	if st.CAS {
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

// query runs named query i on partition keyNum, reading every page, and
// counts the rows it returns; a conditional one counts "not applied".
func (w *profWorker) query(ctx context.Context, i int, keyNum uint64) error {
	pr, b := w.pr, &w.g.Ops[i]
	rows := pr.RowsIn(keyNum)
	w.g.Fill(b, keyNum, w.g.Next()%rows, rows)
	if b.St.CAS {
		clear(w.cas)
		applied, err := w.ops[i].MapScanCASContext(ctx, w.cas)
		if err == nil && !applied {
			pr.NotApplied.Add(1)
		}
		return classify(err)
	}
	return w.readAll(ctx, w.ops[i])
}

func (w *profWorker) readAll(ctx context.Context, q *gocql.Query) error {
	sc := q.IterContext(ctx).Scanner()
	var n uint64
	for sc.Next() {
		n++
	}
	w.pr.Returned.Add(n)
	if err := sc.Err(); err != nil {
		return classify(err)
	}
	return nil
}

// tokenRange reads one of csprofile.TokenSplits slices of the token ring
// (token-range query i), every page.
func (w *profWorker) tokenRange(ctx context.Context, i int, keyNum uint64) error {
	if err := w.g.BindRange(&w.g.Ops[i], keyNum); err != nil {
		return err
	}
	return w.readAll(ctx, w.ops[i])
}

func (w *profWorker) countApplied(applied bool, err error) {
	if err == nil && !applied {
		w.pr.NotApplied.Add(1)
	}
}
