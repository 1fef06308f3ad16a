package cql

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// statements are the CQL texts of one table shape, prepared once per target.
type statements struct {
	insert, read, scan, del string
	update                  []string // one per field: SET fieldI = ?
	fields                  int
}

func columnNames(c *Config, fields int) (key string, cols []string) {
	cols = make([]string, fields)
	for i := range cols {
		if c.Schema == SchemaStress {
			cols[i] = fmt.Sprintf(`"C%d"`, i)
		} else {
			cols[i] = fmt.Sprintf("field%d", i)
		}
	}
	if c.Schema == SchemaStress {
		return "key", cols
	}
	return "y_id", cols
}

// createTableCQL is the table of the chosen shape: YCSB's usertable (the
// fields are blobs: the server does not validate UTF-8 and cassandra-stress
// and latte use blobs too) or cassandra-stress's standard1.
func createTableCQL(c *Config, fields int) string {
	key, cols := columnNames(c, fields)
	keyType := "varchar"
	if c.Schema == SchemaStress {
		keyType = "blob"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE IF NOT EXISTS %s.%s (%s %s PRIMARY KEY", c.Keyspace, c.Table, key, keyType)
	for _, col := range cols {
		fmt.Fprintf(&b, ", %s blob", col)
	}
	b.WriteString(")")
	if cls, _ := compactionClass(c.Compaction); cls != "" {
		fmt.Fprintf(&b, " WITH compaction = {'class': '%s'}", cls)
	}
	return b.String()
}

func newStatements(c *Config, fields int) (*statements, error) {
	if fields < 1 || fields > 1000 {
		return nil, adapter.Configf("cql: field count %d out of range (fix: 1..1000 fields)", fields)
	}
	key, cols := columnNames(c, fields)
	tbl := c.Keyspace + "." + c.Table
	all := strings.Join(cols, ", ")
	marks := strings.Repeat(", ?", fields)
	st := &statements{
		insert: fmt.Sprintf("INSERT INTO %s (%s, %s) VALUES (?%s)", tbl, key, all, marks),
		read:   fmt.Sprintf("SELECT %s FROM %s WHERE %s = ?", all, tbl, key),
		scan:   fmt.Sprintf("SELECT %s, %s FROM %s WHERE token(%s) >= token(?) LIMIT ?", key, all, tbl, key),
		del:    fmt.Sprintf("DELETE FROM %s WHERE %s = ?", tbl, key),
		fields: fields,
	}
	for _, col := range cols {
		st.update = append(st.update, fmt.Sprintf("UPDATE %s SET %s = ? WHERE %s = ?", tbl, col, key))
	}
	return st, nil
}

func (s *statements) all() []string {
	return append([]string{s.insert, s.read, s.scan, s.del}, s.update...)
}

// blob hands a worker-owned byte slice to the driver without boxing a new
// slice header per request: a *blob in an interface is a pointer.
type blob struct{ b []byte }

func (v *blob) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v.b, nil }

// cqlInt is a CQL int bound the same way (the scan's LIMIT).
type cqlInt struct {
	v   int32
	buf [4]byte
}

func (v *cqlInt) MarshalCQL(gocql.TypeInfo) ([]byte, error) {
	binary.BigEndian.PutUint32(v.buf[:], uint32(v.v))
	return v.buf[:], nil
}

// sink receives a column without copying it: reads count bytes, the data
// itself is not kept (the runner does not look at values).
type sink struct{ n int }

func (s *sink) UnmarshalCQL(_ gocql.TypeInfo, data []byte) error {
	s.n += len(data)
	return nil
}

// worker executes requests on prepared statements bound once. It is used by
// one goroutine.
type worker struct {
	t      *Target
	st     *statements
	insert *gocql.Query
	read   *gocql.Query
	scan   *gocql.Query
	del    *gocql.Query
	update []*gocql.Query

	key     blob
	fields  []blob
	limit   cqlInt
	sink    sink
	keyOnly []any // {&key}
	setOne  []any // {&fields[0], &key}
	row     []any // {&key, &fields...} for inserts
	dest    []any // {&sink x fields}
	scanDst []any // {&sink x fields+1}
	scanArg []any // {&key, &limit}
	next    int   // rotates the field single-field updates write
}

var _ adapter.Worker = (*worker)(nil)

func newWorker(t *Target, st *statements, id int) *worker {
	s := t.session
	c := &t.cfg
	w := &worker{t: t, st: st, next: id % st.fields}
	// The driver keeps the values slice a query was bound with: bind once,
	// then only the blobs' contents change per request.
	w.fields = make([]blob, st.fields)
	w.keyOnly = []any{&w.key}
	w.setOne = []any{&w.fields[0], &w.key}
	w.row = make([]any, 0, st.fields+1)
	w.row = append(w.row, &w.key)
	for i := range w.fields {
		w.row = append(w.row, &w.fields[i])
	}
	w.dest = make([]any, st.fields)
	for i := range w.dest {
		w.dest[i] = &w.sink
	}
	w.scanDst = make([]any, st.fields+1)
	for i := range w.scanDst {
		w.scanDst[i] = &w.sink
	}
	w.scanArg = []any{&w.key, &w.limit}

	w.insert = s.Query(st.insert, w.row...).Consistency(c.WriteCL).Idempotent(true)
	w.read = s.Query(st.read, w.keyOnly...).Consistency(c.ReadCL).Idempotent(true)
	w.scan = s.Query(st.scan, w.scanArg...).Consistency(c.ReadCL).Idempotent(true).PageSize(c.PageSize)
	w.del = s.Query(st.del, w.keyOnly...).Consistency(c.WriteCL).Idempotent(true)
	for _, u := range st.update {
		w.update = append(w.update, s.Query(u, w.setOne...).Consistency(c.WriteCL).Idempotent(true))
	}
	return w
}

// Do executes one request. Its own steady path does not allocate; the driver
// allocates per request (see docs/targets-cql.md for the measured figure).
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	w.key.b = req.Key
	switch req.Op {
	case vocab.OpRead:
		return w.doRead(ctx)
	case vocab.OpInsert, vocab.OpWrite:
		w.splitValue(req)
		return classify(w.insert.ExecContext(ctx))
	case vocab.OpUpdate:
		return w.doUpdate(ctx, req)
	case vocab.OpScan:
		return w.doScan(ctx, req)
	case vocab.OpRMW:
		if err := w.doRead(ctx); err != nil {
			return err
		}
		return w.doUpdate(ctx, req)
	case vocab.OpDelete:
		return classify(w.del.ExecContext(ctx))
	}
	return adapter.ErrUnsupported
}

// splitValue points each field at its slice of the request's value. A value
// shorter than the record leaves the remaining fields empty (not null).
func (w *worker) splitValue(req *workload.Request) {
	v := req.Value
	fl := req.FieldLen
	if fl <= 0 {
		fl = (len(v) + len(w.fields) - 1) / len(w.fields)
	}
	for i := range w.fields {
		lo, hi := min(i*fl, len(v)), min((i+1)*fl, len(v))
		w.fields[i].b = v[lo:hi:hi]
	}
}

func (w *worker) doRead(ctx context.Context) error {
	iter := w.read.IterContext(ctx)
	found := iter.Scan(w.dest...)
	if err := iter.Close(); err != nil {
		return classify(err)
	}
	if !found {
		return adapter.ErrNotFound
	}
	return nil
}

func (w *worker) doUpdate(ctx context.Context, req *workload.Request) error {
	// A value holding the whole record writes every field (YCSB
	// writeallfields); otherwise one field, rotating over the fields.
	if len(w.fields) > 1 && req.FieldLen > 0 && len(req.Value) >= len(w.fields)*req.FieldLen {
		w.splitValue(req)
		return classify(w.insert.ExecContext(ctx))
	}
	i := w.next
	w.next++
	if w.next == len(w.update) {
		w.next = 0
	}
	n := req.FieldLen
	if n <= 0 || n > len(req.Value) {
		n = len(req.Value)
	}
	w.fields[0].b = req.Value[:n:n]
	return classify(w.update[i].ExecContext(ctx))
}

func (w *worker) doScan(ctx context.Context, req *workload.Request) error {
	n := req.ScanLen
	if n <= 0 {
		n = 1
	}
	w.limit.v = int32(n)
	iter := w.scan.IterContext(ctx)
	for iter.Scan(w.scanDst...) {
	}
	return classify(iter.Close())
}

// Close releases nothing: queries and buffers belong to the worker and the
// session to the target.
func (w *worker) Close() error { return nil }

// NewWorker returns a worker with its own bound queries and buffers.
func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	t.mu.Lock()
	st, pr := t.stmts, t.prof
	t.mu.Unlock()
	if pr != nil && pr.Native {
		hosts, rg := t.nodes()
		return newNativeConns(t, &pr.cfg, nil, pr.CQLs(), &profPipe{gen: pr.NewGen(id)}, hosts, rg, id)
	}
	if pr != nil {
		return newProfWorker(pr, id), nil
	}
	if st == nil {
		return nil, errors.New("cql: NewWorker before Setup")
	}
	if t.cfg.Driver == DriverNative {
		hosts, rg := t.nodes()
		return newNativeWorker(t, st, hosts, rg, id)
	}
	return newWorker(t, st, id), nil
}
