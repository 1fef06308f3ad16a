package csprofile

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"sync/atomic"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/cstress"
)

// A cassandra-stress profile (cstress.Profile) runs on a model of its
// table: partition p (the request's key number) has RowsIn(p) clustering
// rows, the product of each clustering column's cluster draw; every value
// is a function of (column, partition, row) through the column's
// population and size distributions, so a query's bind markers can name the
// same rows the inserts wrote.

// Column is one column of the profile's table.
type Column struct {
	Name  string
	typ   *ctype
	Spec  cstress.Column
	ID    uint64
	Level int // clustering level; -1 for partition key and regular columns
	PK    bool
}

// ArgKind says what a bind marker takes.
type ArgKind uint8

// What a bind marker takes.
const (
	ArgColumn    ArgKind = iota
	ArgLimit             // LIMIT ?
	ArgToken             // token(...) > ? / <= ?
	ArgTimestamp         // USING TIMESTAMP ?: the client's clock
)

// Arg is one bind marker of a statement.
type Arg struct {
	Kind ArgKind
	Col  *Column
}

// Stmt is one prepared statement and what its markers take.
type Stmt struct {
	Name     string
	Idx      int // its id's index on a native connection (Profile.CQLs)
	CQL      string
	Args     []Arg
	CL       gocql.Consistency
	Serial   gocql.Consistency // 0: none
	CAS      bool              // a conditional statement: [applied] is read
	Multirow bool
	PageSize int
}

// Profile is the compiled profile a CQL target runs.
type Profile struct {
	Def     *cstress.Profile
	Cols    []*Column
	PK, CK  []*Column
	Counter bool
	Records uint64
	Insert  Stmt // one row
	Load    Stmt // one row, unconditional (the load phase)
	// Batch is the type of an insert's batch: insert.batchtype, or
	// cassandra-stress's default, LOGGED (COUNTER on a counter table,
	// where the server refuses any other). LoadBatch is the load phase's,
	// which cassandra-stress does not have: UNLOGGED (COUNTER). A lone
	// statement is never batched (cassandra-stress's SchemaInsert).
	Batch, LoadBatch gocql.BatchType
	Ops              []Stmt // the named slots after insert: queries, then token ranges
	Ranges           int    // how many of Ops (at the end) are token-range scans
	Native           bool   // workers use platbench's own client (driver=native)

	// Partitions and Rows are what the inserts wrote (not the load),
	// Returned the rows queries returned, NotApplied the conditional
	// writes not applied.
	Partitions, Rows, Returned, NotApplied atomic.Uint64
}

// TokenSplits is how many token ranges a full-table scan is split into; one
// token-range op reads one of them.
const TokenSplits = 256

var createTableRE = regexp.MustCompile(`(?is)^\s*CREATE\s+(?:TABLE|TYPE)\s+(IF\s+NOT\s+EXISTS\s+)?("?[A-Za-z0-9_]+"?)\s*\(`)

// QualifyTable writes ks. in front of an unqualified CREATE TABLE's name.
func QualifyTable(def, ks string) string {
	m := createTableRE.FindStringSubmatchIndex(def)
	if m == nil {
		return def
	}
	return def[:m[4]] + ks + "." + def[m[4]:]
}

// New is the model of profile def on table tm (as the server describes it)
// with records partitions; native says the workers use platbench's own client.
func New(def *cstress.Profile, records uint64, tm *gocql.TableMetadata, native bool) (*Profile, error) {
	pr := &Profile{Def: def, Records: records, Native: native}
	if err := pr.compileColumns(tm); err != nil {
		return nil, err
	}
	return pr, nil
}

func (pr *Profile) compileColumns(tm *gocql.TableMetadata) error {
	add := func(cm *gocql.ColumnMetadata, level int, pk bool) {
		// The type comes from the prepared insert's metadata (bindArgs):
		// the schema metadata does not resolve user types.
		c := &Column{Name: cm.Name, Spec: pr.Def.Column(cm.Name), ID: uint64(len(pr.Cols)) + 1, Level: level, PK: pk}
		pr.Cols = append(pr.Cols, c)
		if pk {
			pr.PK = append(pr.PK, c)
		} else if level >= 0 {
			pr.CK = append(pr.CK, c)
		}
		if cm.Type != nil && cm.Type.Type() == gocql.TypeCounter {
			pr.Counter = true
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
	for _, c := range pr.Def.Columns {
		if pr.col(c.Name) == nil {
			return adapter.Configf("cql: profile columnspec names %q, which table %s does not have (fix: use the table's column names)", c.Name, tm.Name)
		}
	}
	return nil
}

func (pr *Profile) col(name string) *Column {
	for _, c := range pr.Cols {
		if strings.EqualFold(c.Name, name) || strings.EqualFold(`"`+c.Name+`"`, name) {
			return c
		}
	}
	return nil
}

// RowsIn is the number of clustering rows of partition part.
func (pr *Profile) RowsIn(part uint64) uint64 {
	n := uint64(1)
	for _, c := range pr.CK {
		s := mix2(part, c.ID)
		k := c.Spec.Cluster.Sample(unit(s), unit(mix(s)), part)
		n *= uint64(max(k, 1))
		if n > 1<<24 {
			return 1 << 24
		}
	}
	return n
}

// valueSeed is the seed of column c's value in row (part, row): the
// population draw of the column's own seed for that position.
func (pr *Profile) valueSeed(c *Column, part, row uint64) uint64 {
	var s uint64
	switch {
	case c.PK:
		s = mix2(part, c.ID)
	case c.Level >= 0:
		stride := uint64(1)
		for _, d := range pr.CK[c.Level+1:] {
			dk := d.Spec.Cluster.Sample(unit(mix2(part, d.ID)), unit(mix(mix2(part, d.ID))), part)
			stride *= uint64(max(dk, 1))
		}
		own := pr.CK[c.Level].Spec.Cluster.Sample(unit(mix2(part, c.ID)), unit(mix(mix2(part, c.ID))), part)
		s = mix2(mix2(part, c.ID), (row/stride)%uint64(max(own, 1)))
	default:
		s = mix2(mix2(part, c.ID), row)
	}
	pop := c.Spec.Population.Sample(unit(s), unit(mix(s)), s)
	return mix2(c.ID, uint64(pop))
}

// AppendValue appends column c's value for (part, row) to buf.
func (pr *Profile) AppendValue(buf []byte, c *Column, part, row uint64) []byte {
	vs := pr.valueSeed(c, part, row)
	size := c.Spec.Size.Sample(unit(vs), unit(mix(vs)), vs)
	return c.typ.encode(buf, vs, int(min(size, math.MaxInt32)))
}

// Summary adds the profile's counts to the target details: partitions and
// rows its inserts wrote (for cassandra-stress's partition and row rates),
// rows its queries returned, and conditional writes not applied.
func (pr *Profile) Summary(m map[string]string) {
	m["profile_partitions"] = fmt.Sprint(pr.Partitions.Load())
	m["profile_rows"] = fmt.Sprint(pr.Rows.Load())
	m["profile_rows_returned"] = fmt.Sprint(pr.Returned.Load())
	m["profile_lwt_not_applied"] = fmt.Sprint(pr.NotApplied.Load())
	m["profile_driver"] = "gocql (the Apache driver's session)"
	if pr.Native {
		m["profile_driver"] = "native (platbench's protocol v4 client, pipelined: many requests in flight per connection; batches and pages follow each other on the operation's stream)"
	}
}

// CQLs are the statements in native id order: load, insert, then ops.
func (pr *Profile) CQLs() []string {
	out := []string{pr.Load.CQL, pr.Insert.CQL}
	for _, o := range pr.Ops {
		out = append(out, o.CQL)
	}
	return out
}
