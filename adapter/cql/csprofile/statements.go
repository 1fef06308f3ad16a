package csprofile

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// Settings are the target's: the consistency levels and page size of a
// profile's statements that name none of their own.
type Settings struct {
	ReadCL, WriteCL gocql.Consistency
	PageSize        int
}

// Server is what preparing needs of a connection: a statement's metadata
// (prepared on the server, in the profile's keyspace) and the adapter's
// classification of a driver error.
type Server struct {
	Metadata func(ctx context.Context, cql string) (gocql.StatementMetadata, error)
	Classify func(error) error
}

var lwtRE = regexp.MustCompile(`(?is)\sIF\s+(NOT\s+)?(EXISTS|"?\w+"?\s*(=|!=|<|>|IN\b))`)

// insertCQL builds the insert (one row; the profile's condition) and the
// load insert (one row, unconditional).
func (pr *Profile) insertCQL() (insert, load string, err error) {
	tbl := pr.Def.Table
	var keys, regs []string
	for _, c := range pr.Cols {
		if c.PK || c.Level >= 0 {
			keys = append(keys, quoteIdent(c.Name))
		} else {
			regs = append(regs, quoteIdent(c.Name))
		}
	}
	where := strings.Join(keys, " = ? AND ") + " = ?"
	cond := pr.Def.Insert.Condition
	var using []string
	if n := pr.Def.Insert.TTLSeconds; n > 0 {
		using = append(using, fmt.Sprintf("TTL %d", n))
	}
	if pr.Def.Insert.ClientTimestamp {
		using = append(using, "TIMESTAMP ?")
	}
	use := ""
	if len(using) > 0 {
		use = " USING " + strings.Join(using, " AND ")
	}
	if pr.Counter && use != "" {
		return "", "", adapter.Configf("cql: profile insert.ttl or insert.timestamp on a counter table (fix: remove them; counters take neither)")
	}
	if pr.Counter {
		set := make([]string, len(regs))
		for i, r := range regs {
			set[i] = r + " = " + r + " + ?"
		}
		if cond != "" {
			return "", "", adapter.Configf("cql: profile insert.condition on a counter table (fix: remove the condition; counters cannot be updated conditionally)")
		}
		u := fmt.Sprintf("UPDATE %s SET %s WHERE %s", tbl, strings.Join(set, ", "), where)
		return u, u, nil
	}
	all := append(append([]string{}, keys...), regs...)
	ins := fmt.Sprintf("INSERT INTO %s (%s) VALUES (?%s)", tbl, strings.Join(all, ", "), strings.Repeat(", ?", len(all)-1))
	load = ins + use
	switch {
	case cond == "":
		return load, load, nil
	case strings.EqualFold(strings.Join(strings.Fields(cond), " "), "IF NOT EXISTS"):
		return ins + " IF NOT EXISTS" + use, load, nil
	case len(regs) == 0:
		return "", "", adapter.Configf("cql: profile insert.condition %q needs a non-key column to update (fix: use IF NOT EXISTS)", cond)
	}
	return fmt.Sprintf("UPDATE %s%s SET %s = ? WHERE %s %s", tbl, use, strings.Join(regs, " = ?, "), where, cond), load, nil
}

// batchTypes sets Batch and LoadBatch. A counter table's insert in a
// LOGGED or UNLOGGED batch is refused by the server whenever a batch holds
// more than one statement: refused here, before any is sent, when the
// profile can write more than one row per insert.
func (pr *Profile) batchTypes() error {
	pr.Batch, pr.LoadBatch = gocql.LoggedBatch, gocql.UnloggedBatch
	if pr.Counter {
		pr.Batch, pr.LoadBatch = gocql.CounterBatch, gocql.CounterBatch
	}
	switch bt := pr.Def.Insert.BatchType; bt {
	case "LOGGED", "UNLOGGED":
		if pr.Counter && pr.MaxInsertRows() > 1 {
			return adapter.Configf("cql: profile insert.batchtype %s on counter table %s, whose inserts write up to %d rows: the server refuses counter updates in a %s batch (fix: batchtype: COUNTER, or leave batchtype out)",
				bt, pr.Def.Table, pr.MaxInsertRows(), bt)
		}
		if !pr.Counter {
			pr.Batch = map[string]gocql.BatchType{"LOGGED": gocql.LoggedBatch, "UNLOGGED": gocql.UnloggedBatch}[bt]
		}
	case "COUNTER":
		pr.Batch = gocql.CounterBatch
	}
	return nil
}

// MaxInsertRows is the most rows one insert can write: the largest
// partitions draw times, in each, the select ratio's largest share of the
// largest partition (at least one row), as cassandra-stress bounds a batch
// ("Generating batches with [..] rows").
func (pr *Profile) MaxInsertRows() uint64 {
	rows := 1.0
	for _, c := range pr.CK {
		rows *= float64(max(c.Spec.Cluster.Max, 1))
	}
	in := pr.Def.Insert
	sel := float64(in.Select.Max) / float64(max(in.SelectDiv, 1))
	per := max(math.Ceil(rows*sel), 1)
	return uint64(min(float64(max(in.Partitions.Max, 1))*per, math.MaxInt64))
}

func quoteIdent(s string) string {
	if strings.ToLower(s) == s && !strings.ContainsAny(s, " \"-") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// Prepare builds and prepares every statement of the profile.
func (pr *Profile) Prepare(ctx context.Context, c Settings, server Server) error {
	ins, load, err := pr.insertCQL()
	if err != nil {
		return err
	}
	pr.Insert = Stmt{Name: "insert", CQL: ins, CL: c.WriteCL, CAS: pr.Def.Insert.Condition != ""}
	pr.Load = Stmt{Name: "load", CQL: load, CL: c.WriteCL}
	if err := pr.batchTypes(); err != nil {
		return err
	}
	if pr.Insert.CAS {
		pr.Insert.Serial = gocql.Serial
	}
	for _, q := range pr.Def.Queries {
		st := Stmt{Name: q.Name, CQL: strings.TrimSuffix(strings.TrimSpace(q.CQL), ";"), Multirow: q.Fields == "multirow", PageSize: c.PageSize}
		isSelect := strings.HasPrefix(strings.ToUpper(st.CQL), "SELECT")
		st.CAS = !isSelect && lwtRE.MatchString(st.CQL)
		st.CL = c.WriteCL
		if isSelect {
			st.CL = c.ReadCL
		}
		if q.Consistency != "" {
			st.CL, _ = gocql.ParseConsistencyWrapper(q.Consistency)
		}
		if q.SerialConsistency != "" {
			st.Serial, _ = gocql.ParseConsistencyWrapper(q.SerialConsistency)
		} else if st.CAS {
			st.Serial = gocql.Serial
		}
		pr.Ops = append(pr.Ops, st)
	}
	var pks []string
	for _, k := range pr.PK {
		pks = append(pks, quoteIdent(k.Name))
	}
	tok := "token(" + strings.Join(pks, ", ") + ")"
	for _, r := range pr.Def.Ranges {
		q := fmt.Sprintf("SELECT %s FROM %s WHERE %s > ? AND %s <= ?", r.Columns, pr.Def.Table, tok, tok)
		pr.Ops = append(pr.Ops, Stmt{Name: r.Name, CQL: q, CL: c.ReadCL, PageSize: r.PageSize})
		pr.Ranges++
	}
	pr.Load.Idx, pr.Insert.Idx = 0, 1
	for i := range pr.Ops {
		pr.Ops[i].Idx = 2 + i
	}
	// The load statement first: it binds every column, and gives each its type.
	for _, st := range append([]*Stmt{&pr.Load, &pr.Insert}, ptrs(pr.Ops)...) {
		if err := pr.bindArgs(ctx, st, server); err != nil {
			return err
		}
	}
	return nil
}

func ptrs(s []Stmt) []*Stmt {
	out := make([]*Stmt, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// bindArgs prepares st and maps each bind marker to what it takes.
func (pr *Profile) bindArgs(ctx context.Context, st *Stmt, server Server) error {
	md, err := server.Metadata(ctx, st.CQL)
	if err != nil {
		if adapter.Classify(server.Classify(err)) == vocab.ClassRejected || strings.Contains(err.Error(), "rror") {
			return adapter.Configf("cql: the server refused profile statement %s %q: %s (fix: correct its cql)", st.Name, st.CQL, strings.Join(strings.Fields(err.Error()), " "))
		}
		return fmt.Errorf("cql: preparing %s: %w", st.Name, server.Classify(err))
	}
	for i, b := range md.BindColumns {
		name := strings.ToLower(b.Name)
		switch {
		case name == "[limit]":
			st.Args = append(st.Args, Arg{Kind: ArgLimit})
		case name == "[timestamp]":
			st.Args = append(st.Args, Arg{Kind: ArgTimestamp})
		case strings.Contains(name, "token"):
			st.Args = append(st.Args, Arg{Kind: ArgToken})
		case pr.col(b.Name) != nil:
			c := pr.col(b.Name)
			if _, tuple := b.TypeInfo.(gocql.TupleTypeInfo); tuple && !pr.Native {
				// The Apache driver expects a top-level tuple's elements as
				// separate values; platbench's own client binds the
				// encoded tuple as one.
				return adapter.Configf("cql: profile table %s: column %s is a top-level tuple, which the Apache driver path (driver=gocql) cannot bind (fix: driver=native, or a UDT, or a tuple inside a collection)", pr.Def.Table, c.Name)
			}
			if c.typ == nil {
				if c.typ, err = compileType(c.Name, b.TypeInfo); err != nil {
					return adapter.Configf("cql: profile table %s: %v", pr.Def.Table, err)
				}
			}
			st.Args = append(st.Args, Arg{Kind: ArgColumn, Col: c})
		default:
			return adapter.Configf("cql: profile statement %s: bind marker %d (%s) is not a column of %s (fix: bind markers take a column's value, LIMIT ? or a token)", st.Name, i+1, b.Name, pr.Def.Table)
		}
	}
	return nil
}
