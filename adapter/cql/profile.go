package cql

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A cassandra-stress profile (workload.CQLProfile) runs on a model of its
// table: partition p (the request's key number) has rowsIn(p) clustering
// rows, the product of each clustering column's cluster draw; every value
// is a function of (column, partition, row) through the column's
// population and size distributions, so a query's bind markers can name the
// same rows the inserts wrote.

// pcol is one column of the profile's table.
type pcol struct {
	name  string
	typ   *ctype
	spec  workload.CSColumn
	id    uint64
	level int // clustering level; -1 for partition key and regular columns
	pk    bool
}

// argKind says what a bind marker takes.
type argKind uint8

const (
	argColumn    argKind = iota
	argLimit             // LIMIT ?
	argToken             // token(...) > ? / <= ?
	argTimestamp         // USING TIMESTAMP ?: the client's clock
)

type arg struct {
	kind argKind
	col  *pcol
}

// pstmt is one prepared statement and what its markers take.
type pstmt struct {
	name     string
	idx      int // its id's index on a native connection (profile.cqls)
	cql      string
	args     []arg
	cl       gocql.Consistency
	serial   gocql.Consistency // 0: none
	cas      bool              // a conditional statement: [applied] is read
	multirow bool
	pageSize int
}

// profile is the compiled profile a Target runs.
type profile struct {
	p       *workload.CQLProfile
	cols    []*pcol
	pk, ck  []*pcol
	counter bool
	records uint64
	insert  pstmt // one row
	load    pstmt // one row, unconditional (the load phase)
	batch   gocql.BatchType
	batched bool    // insert.batchtype given
	ops     []pstmt // the named slots after insert: queries, then token ranges
	ranges  int     // how many of ops (at the end) are token-range scans
	session *gocql.Session
	cfg     Config // the target's, with the profile's keyspace as the session's
	native  bool   // workers use platbench's own client (driver=native)

	partitions, rows, returned, notApplied atomic.Uint64
}

// tokenSplits is how many token ranges a full-table scan is split into; one
// token-range op reads one of them.
const tokenSplits = 256

var createTableRE = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:TABLE|TYPE)\s+(IF\s+NOT\s+EXISTS\s+)?("?[A-Za-z0-9_]+"?)\s*\(`)

// qualifyTable writes ks. in front of an unqualified CREATE TABLE's name.
func qualifyTable(def, ks string) string {
	m := createTableRE.FindStringSubmatchIndex(def)
	if m == nil {
		return def
	}
	return def[:m[4]] + ks + "." + def[m[4]:]
}

// setupProfile creates what the profile defines and does not exist yet,
// compiles the table's columns and prepares every statement.
func (t *Target) setupProfile(ctx context.Context, w *workload.Spec) error {
	p := w.CQL
	admin, err := t.adminSession(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	t.cfg.Keyspace, t.cfg.Table = p.Keyspace, p.Table // what Close drops
	if err := t.createProfileSchema(ctx, admin, p); err != nil {
		return err
	}
	tm, err := tableMeta(ctx, admin, p.Keyspace, p.Table)
	if err != nil {
		return err
	}
	pr := &profile{p: p, records: w.Records}
	if err := pr.compileColumns(tm); err != nil {
		return err
	}
	pr.cfg = t.cfg
	pr.cfg.sessionKeyspace = p.Keyspace
	pr.native = t.cfg.Driver == DriverNative
	if pr.session, err = connect(ctx, &pr.cfg, pr.cfg.Timeout, nil); err != nil {
		return err
	}
	if err := pr.prepare(ctx, &t.cfg); err != nil {
		pr.session.Close()
		return err
	}
	t.prof = pr
	return nil
}

func (t *Target) createProfileSchema(ctx context.Context, admin *gocql.Session, p *workload.CQLProfile) error {
	ks, err := admin.KeyspaceMetadata(p.Keyspace)
	ksExists := err == nil
	if err != nil && !errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return fmt.Errorf("cql: reading the schema of keyspace %s: %w", p.Keyspace, classify(err))
	}
	if !ksExists {
		if p.KeyspaceDef == "" || !t.cfg.Create {
			return t.missing("keyspace "+p.Keyspace, adapter.Configf("cql: keyspace %q of the profile does not exist (fix: give keyspace_definition in the profile, and do not set create=false)", p.Keyspace))
		}
		if err := profileDDL(ctx, admin, "keyspace_definition", p.KeyspaceDef); err != nil {
			return err
		}
		t.createdKS = true
	}
	if ksExists && ks.Tables[p.Table] != nil {
		return nil
	}
	if p.TableDef == "" || !t.cfg.Create {
		return t.missing("table "+p.Keyspace+"."+p.Table, adapter.Configf("cql: table %s.%s of the profile does not exist (fix: give table_definition in the profile, and do not set create=false)", p.Keyspace, p.Table))
	}
	for _, d := range p.ExtraDefs {
		if err := profileDDL(ctx, admin, "extra_definitions", qualifyTable(d, p.Keyspace)); err != nil {
			return err
		}
	}
	if err := profileDDL(ctx, admin, "table_definition", qualifyTable(p.TableDef, p.Keyspace)); err != nil {
		return err
	}
	t.createdTbl = true
	return nil
}

// profileDDL runs one of the profile's definitions; a definition the server
// refuses is reported with the server's message and, where known, the fix.
func profileDDL(ctx context.Context, s *gocql.Session, key, q string) error {
	ctx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	q = strings.TrimSuffix(strings.TrimSpace(q), ";")
	err := s.Query(q).Consistency(gocql.One).ExecContext(ctx)
	if err == nil {
		return nil
	}
	msg := strings.Join(strings.Fields(err.Error()), " ")
	fix := "correct the profile's " + key + " so that the server accepts it"
	switch {
	case strings.Contains(strings.ToUpper(q), "COMPACT STORAGE"):
		fix = "remove WITH COMPACT STORAGE from table_definition: Cassandra 4.0 and later do not support it"
	case strings.Contains(msg, "already exists"):
		fix = "the object exists with another definition; drop it or remove the definition from the profile"
	}
	if classOf(err) == vocab.ClassRejected || strings.Contains(msg, "rror") {
		return adapter.Configf("cql: the server refused the profile's %s: %s (fix: %s)", key, msg, fix)
	}
	return fmt.Errorf("cql: profile %s: %w", key, classify(err))
}

// tableMeta waits for the driver's schema view to show the table.
func tableMeta(ctx context.Context, s *gocql.Session, ks, table string) (*gocql.TableMetadata, error) {
	for i := 0; ; i++ {
		km, err := s.KeyspaceMetadata(ks)
		if err == nil && km.Tables[table] != nil {
			return km.Tables[table], nil
		}
		if i == 50 || ctx.Err() != nil {
			return nil, fmt.Errorf("cql: table %s.%s not in the schema after creating it: %v", ks, table, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (pr *profile) compileColumns(tm *gocql.TableMetadata) error {
	add := func(cm *gocql.ColumnMetadata, level int, pk bool) {
		// The type comes from the prepared insert's metadata (bindArgs):
		// the schema metadata does not resolve user types.
		c := &pcol{name: cm.Name, spec: pr.p.Column(cm.Name), id: uint64(len(pr.cols)) + 1, level: level, pk: pk}
		pr.cols = append(pr.cols, c)
		if pk {
			pr.pk = append(pr.pk, c)
		} else if level >= 0 {
			pr.ck = append(pr.ck, c)
		}
		if cm.Type != nil && cm.Type.Type() == gocql.TypeCounter {
			pr.counter = true
		}
	}
	for _, cm := range tm.PartitionKey {
		add(cm, -1, true)
	}
	for i, cm := range tm.ClusteringColumns {
		add(cm, i, false)
	}
	for _, name := range tm.OrderedColumns {
		if cm := tm.Columns[name]; cm.Kind == gocql.ColumnRegular || cm.Kind == gocql.ColumnStatic {
			add(cm, -1, false)
		}
	}
	for _, c := range pr.p.Columns {
		if pr.col(c.Name) == nil {
			return adapter.Configf("cql: profile columnspec names %q, which table %s does not have (fix: use the table's column names)", c.Name, tm.Name)
		}
	}
	return nil
}

func (pr *profile) col(name string) *pcol {
	for _, c := range pr.cols {
		if strings.EqualFold(c.name, name) || strings.EqualFold(`"`+c.name+`"`, name) {
			return c
		}
	}
	return nil
}

// rowsIn is the number of clustering rows of partition part.
func (pr *profile) rowsIn(part uint64) uint64 {
	n := uint64(1)
	for _, c := range pr.ck {
		s := mix2(part, c.id)
		k := c.spec.Cluster.Sample(unit(s), unit(mix(s)), part)
		n *= uint64(max(k, 1))
		if n > 1<<24 {
			return 1 << 24
		}
	}
	return n
}

// valueSeed is the seed of column c's value in row (part, row): the
// population draw of the column's own seed for that position.
func (pr *profile) valueSeed(c *pcol, part, row uint64) uint64 {
	var s uint64
	switch {
	case c.pk:
		s = mix2(part, c.id)
	case c.level >= 0:
		stride := uint64(1)
		for _, d := range pr.ck[c.level+1:] {
			dk := d.spec.Cluster.Sample(unit(mix2(part, d.id)), unit(mix(mix2(part, d.id))), part)
			stride *= uint64(max(dk, 1))
		}
		own := pr.ck[c.level].spec.Cluster.Sample(unit(mix2(part, c.id)), unit(mix(mix2(part, c.id))), part)
		s = mix2(mix2(part, c.id), (row/stride)%uint64(max(own, 1)))
	default:
		s = mix2(mix2(part, c.id), row)
	}
	pop := c.spec.Population.Sample(unit(s), unit(mix(s)), s)
	return mix2(c.id, uint64(pop))
}

// appendValue appends column c's value for (part, row) to buf.
func (pr *profile) appendValue(buf []byte, c *pcol, part, row uint64) []byte {
	vs := pr.valueSeed(c, part, row)
	size := c.spec.Size.Sample(unit(vs), unit(mix(vs)), vs)
	return c.typ.encode(buf, vs, int(min(size, math.MaxInt32)))
}

// summary adds the profile's counts to the target details: partitions and
// rows its inserts wrote (for cassandra-stress's partition and row rates),
// rows its queries returned, and conditional writes not applied.
func (pr *profile) summary(m map[string]string) {
	m["profile_partitions"] = fmt.Sprint(pr.partitions.Load())
	m["profile_rows"] = fmt.Sprint(pr.rows.Load())
	m["profile_rows_returned"] = fmt.Sprint(pr.returned.Load())
	m["profile_lwt_not_applied"] = fmt.Sprint(pr.notApplied.Load())
	m["profile_driver"] = "gocql (the Apache driver's session)"
	if pr.native {
		m["profile_driver"] = "native (platbench's protocol v4 client, pipelined: many requests in flight per connection; batches and pages follow each other on the operation's stream)"
	}
}

// cqls are the statements in native id order: load, insert, then ops.
func (pr *profile) cqls() []string {
	out := []string{pr.load.cql, pr.insert.cql}
	for _, o := range pr.ops {
		out = append(out, o.cql)
	}
	return out
}
