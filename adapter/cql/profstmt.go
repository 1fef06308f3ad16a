package cql

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

var lwtRE = regexp.MustCompile(`(?is)\sIF\s+(NOT\s+)?(EXISTS|"?\w+"?\s*(=|!=|<|>|IN\b))`)

// statementsCQL builds the insert (one row; the profile's condition) and the
// load insert (one row, unconditional).
func (pr *profile) insertCQL() (insert, load string, err error) {
	tbl := pr.p.Table
	var keys, regs []string
	for _, c := range pr.cols {
		if c.pk || c.level >= 0 {
			keys = append(keys, quoteIdent(c.name))
		} else {
			regs = append(regs, quoteIdent(c.name))
		}
	}
	where := strings.Join(keys, " = ? AND ") + " = ?"
	cond := pr.p.Insert.Condition
	var using []string
	if n := pr.p.Insert.TTLSeconds; n > 0 {
		using = append(using, fmt.Sprintf("TTL %d", n))
	}
	if pr.p.Insert.ClientTimestamp {
		using = append(using, "TIMESTAMP ?")
	}
	use := ""
	if len(using) > 0 {
		use = " USING " + strings.Join(using, " AND ")
	}
	if pr.counter && use != "" {
		return "", "", adapter.Configf("cql: profile insert.ttl or insert.timestamp on a counter table (fix: remove them; counters take neither)")
	}
	if pr.counter {
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

func quoteIdent(s string) string {
	if strings.ToLower(s) == s && !strings.ContainsAny(s, " \"-") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// prepare builds and prepares every statement of the profile.
func (pr *profile) prepare(ctx context.Context, c *Config) error {
	ins, load, err := pr.insertCQL()
	if err != nil {
		return err
	}
	pr.insert = pstmt{name: "insert", cql: ins, cl: c.WriteCL, cas: pr.p.Insert.Condition != ""}
	pr.load = pstmt{name: "load", cql: load, cl: c.WriteCL}
	switch pr.p.Insert.BatchType {
	case "LOGGED":
		pr.batch, pr.batched = gocql.LoggedBatch, true
	case "UNLOGGED":
		pr.batch, pr.batched = gocql.UnloggedBatch, true
	case "COUNTER":
		pr.batch, pr.batched = gocql.CounterBatch, true
	default:
		pr.batch = gocql.UnloggedBatch
		if pr.counter {
			pr.batch = gocql.CounterBatch
		}
	}
	if pr.insert.cas {
		pr.insert.serial = gocql.Serial
	}
	for _, q := range pr.p.Queries {
		st := pstmt{name: q.Name, cql: strings.TrimSuffix(strings.TrimSpace(q.CQL), ";"), multirow: q.Fields == "multirow", pageSize: c.PageSize}
		isSelect := strings.HasPrefix(strings.ToUpper(st.cql), "SELECT")
		st.cas = !isSelect && lwtRE.MatchString(st.cql)
		st.cl = c.WriteCL
		if isSelect {
			st.cl = c.ReadCL
		}
		if q.Consistency != "" {
			st.cl, _ = gocql.ParseConsistencyWrapper(q.Consistency)
		}
		if q.SerialConsistency != "" {
			st.serial, _ = gocql.ParseConsistencyWrapper(q.SerialConsistency)
		} else if st.cas {
			st.serial = gocql.Serial
		}
		pr.ops = append(pr.ops, st)
	}
	var pks []string
	for _, k := range pr.pk {
		pks = append(pks, quoteIdent(k.name))
	}
	tok := "token(" + strings.Join(pks, ", ") + ")"
	for _, r := range pr.p.Ranges {
		q := fmt.Sprintf("SELECT %s FROM %s WHERE %s > ? AND %s <= ?", r.Columns, pr.p.Table, tok, tok)
		pr.ops = append(pr.ops, pstmt{name: r.Name, cql: q, cl: c.ReadCL, pageSize: r.PageSize})
		pr.ranges++
	}
	pr.load.idx, pr.insert.idx = 0, 1
	for i := range pr.ops {
		pr.ops[i].idx = 2 + i
	}
	// The load statement first: it binds every column, and gives each its type.
	for _, st := range append([]*pstmt{&pr.load, &pr.insert}, ptrs(pr.ops)...) {
		if err := pr.bindArgs(ctx, st); err != nil {
			return err
		}
	}
	return nil
}

func ptrs(s []pstmt) []*pstmt {
	out := make([]*pstmt, len(s))
	for i := range s {
		out[i] = &s[i]
	}
	return out
}

// bindArgs prepares st and maps each bind marker to what it takes.
func (pr *profile) bindArgs(ctx context.Context, st *pstmt) error {
	md, err := pr.session.StatementMetadata(ctx, st.cql, pr.p.Keyspace)
	if err != nil {
		if classOf(err) == vocab.ClassRejected || strings.Contains(err.Error(), "rror") {
			return adapter.Configf("cql: the server refused profile statement %s %q: %s (fix: correct its cql)", st.name, st.cql, strings.Join(strings.Fields(err.Error()), " "))
		}
		return fmt.Errorf("cql: preparing %s: %w", st.name, classify(err))
	}
	for i, b := range md.BindColumns {
		name := strings.ToLower(b.Name)
		switch {
		case name == "[limit]":
			st.args = append(st.args, arg{kind: argLimit})
		case name == "[timestamp]":
			st.args = append(st.args, arg{kind: argTimestamp})
		case strings.Contains(name, "token"):
			st.args = append(st.args, arg{kind: argToken})
		case pr.col(b.Name) != nil:
			c := pr.col(b.Name)
			if _, tuple := b.TypeInfo.(gocql.TupleTypeInfo); tuple && !pr.native {
				// The Apache driver expects a top-level tuple's elements as
				// separate values; platbench's own client binds the
				// encoded tuple as one.
				return adapter.Configf("cql: profile table %s: column %s is a top-level tuple, which the Apache driver path (driver=gocql) cannot bind (fix: driver=native, or a UDT, or a tuple inside a collection)", pr.p.Table, c.name)
			}
			if c.typ == nil {
				if c.typ, err = compileType(c.name, b.TypeInfo); err != nil {
					return adapter.Configf("cql: profile table %s: %v", pr.p.Table, err)
				}
			}
			st.args = append(st.args, arg{kind: argColumn, col: c})
		default:
			return adapter.Configf("cql: profile statement %s: bind marker %d (%s) is not a column of %s (fix: bind markers take a column's value, LIMIT ? or a token)", st.name, i+1, b.Name, pr.p.Table)
		}
	}
	return nil
}
