// Package cstress is platbench's one home of a cassandra-stress user
// profile as data: its types (Profile and its columnspec, insert, queries
// and token-range queries, with the JSON a result file stores), the reader
// of the profile file (Parse, IsProfile), the distributions (Dist: parse,
// sample, expected value) and the estimates drawn from them
// (RowsPerPartition). It sits beneath result, which stores a profile, and
// workload, which makes a Spec of one (workload.ParseCSProfile).
//
// It runs nothing: the CQL adapter (adapter/cql, adapter/cql/csprofile)
// executes a profile on a server.
package cstress

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/vocab"
)

// Profile is a cassandra-stress user profile as platbench runs it on the
// CQL target: the schema as CQL, a value generator per column, how inserts
// visit partitions and rows, and named queries. Parse reads it;
// docs/targets-cql.md says what is supported and what is refused. A result
// file stores it as it is (result.Workload's cql_profile).
type Profile struct {
	Keyspace    string `json:"keyspace"`
	KeyspaceDef string `json:"keyspace_definition,omitempty"`
	Table       string `json:"table"`
	TableDef    string `json:"table_definition,omitempty"`
	// ExtraDefs are CQL statements run before the table is created (user
	// types), as cassandra-stress 4's extra_definitions.
	ExtraDefs []string `json:"extra_definitions,omitempty"`
	// Columns are the columnspec entries; columns not listed get the
	// defaults (size uniform(4..8), population uniform(1..100B), cluster fixed(1)).
	Columns []Column     `json:"columnspec,omitempty"`
	Insert  Insert       `json:"insert"`
	Queries []Query      `json:"queries,omitempty"`
	Ranges  []TokenRange `json:"token_range_queries,omitempty"`
}

// Column is one columnspec entry.
type Column struct {
	Name       string `json:"name"`
	Size       *Dist  `json:"size,omitempty"`
	Population *Dist  `json:"population,omitempty"`
	Cluster    *Dist  `json:"cluster,omitempty"`
}

// Insert is the insert section: partitions per batch, the share of a
// partition's rows one visit writes (Select/SelectDiv), the batch type
// of an insert of more than one row (LOGGED, UNLOGGED, COUNTER; "" for
// cassandra-stress's default, LOGGED, or COUNTER on a counter table) and an
// optional LWT condition ("IF NOT EXISTS", "IF col = ?", "IF body = NULL").
type Insert struct {
	Partitions Dist   `json:"partitions"`
	Select     Dist   `json:"select"`
	SelectDiv  int64  `json:"select_divisor"`
	BatchType  string `json:"batchtype,omitempty"`
	Condition  string `json:"condition,omitempty"`
	// TTLSeconds (platbench's `ttl:`, a duration) writes USING TTL; 0: the
	// table's default_time_to_live.
	TTLSeconds int64 `json:"ttl_seconds,omitempty"`
	// ClientTimestamp (platbench's `timestamp: client`) writes USING
	// TIMESTAMP with the client's clock in microseconds.
	ClientTimestamp bool `json:"client_timestamp,omitempty"`
}

// Query is one named query: its CQL with ? markers, whether the markers
// are bound from one row ("samerow") or any rows of the partition
// ("multirow"), and its consistency levels ("" = the target's).
type Query struct {
	Name              string `json:"name"`
	CQL               string `json:"cql"`
	Fields            string `json:"fields"`
	Consistency       string `json:"consistency,omitempty"`
	SerialConsistency string `json:"serial_consistency,omitempty"`
}

// TokenRange is a token-range query: a full-table read split by token range.
type TokenRange struct {
	Name     string `json:"name"`
	Columns  string `json:"columns"`
	PageSize int    `json:"page_size"`
}

// Default column distributions, as cassandra-stress's.
var (
	DefaultSize       = Dist{Kind: "uniform", Min: 4, Max: 8}
	DefaultPopulation = Dist{Kind: "uniform", Min: 1, Max: 100_000_000_000}
	DefaultCluster    = Dist{Kind: "fixed", Min: 1, Max: 1}
)

// profileKeys are the top-level keys of a cassandra-stress profile.
var profileKeys = []string{"specname", "keyspace", "keyspace_definition", "table", "table_definition", "extra_definitions", "columnspec", "insert", "queries", "token_range_queries"}

// IsProfile reports whether data is a cassandra-stress user profile (a
// YAML map with table_definition, columnspec, or table and keyspace) rather
// than a platbench workload file.
func IsProfile(data []byte) bool {
	var top map[string]yaml.Node
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, td := top["table_definition"]
	_, cs := top["columnspec"]
	_, t := top["table"]
	_, ks := top["keyspace"]
	return td || cs || (t && ks)
}

// csErr is one problem: the line, the key and the fix, on one line.
func csErr(n *yaml.Node, key, format string, a ...any) error {
	return fmt.Errorf("line %d: %s: %s", n.Line, key, fmt.Sprintf(format, a...))
}

// Parse reads a cassandra-stress user profile from top, the file's
// top-level YAML map; its errors name the line and the key, with the fix.
func Parse(top *yaml.Node) (*Profile, error) {
	p := &Profile{Insert: Insert{Partitions: DefaultCluster, Select: Dist{Kind: "fixed", Min: 1, Max: 1}, SelectDiv: 1}}
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if err := p.topKey(k, v); err != nil {
			return nil, err
		}
	}
	if err := p.check(top); err != nil {
		return nil, err
	}
	return p, nil
}

func scalar(k, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode {
		return "", csErr(v, k.Value, "is not a single value (fix: write %s: VALUE)", k.Value)
	}
	return v.Value, nil
}

func (p *Profile) topKey(k, v *yaml.Node) error {
	var err error
	switch k.Value {
	case "specname":
		_, err = scalar(k, v)
	case "keyspace":
		p.Keyspace, err = scalar(k, v)
	case "keyspace_definition":
		p.KeyspaceDef, err = scalar(k, v)
	case "table":
		p.Table, err = scalar(k, v)
	case "table_definition":
		p.TableDef, err = scalar(k, v)
	case "extra_definitions":
		if v.Kind != yaml.SequenceNode {
			return csErr(v, k.Value, "is not a list (fix: write `- CREATE TYPE ...` items)")
		}
		for _, it := range v.Content {
			s, err := scalar(k, it)
			if err != nil {
				return err
			}
			p.ExtraDefs = append(p.ExtraDefs, s)
		}
	case "columnspec":
		err = p.columnspec(v)
	case "insert":
		err = p.insert(v)
	case "queries":
		err = p.queries(v)
	case "token_range_queries":
		err = p.tokenRanges(v)
	default:
		return csErr(k, k.Value, "is not supported by platbench (fix: remove it; the keys read are %s)", strings.Join(profileKeys, ", "))
	}
	return err
}

func (p *Profile) columnspec(v *yaml.Node) error {
	if v.Kind != yaml.SequenceNode {
		return csErr(v, "columnspec", "is not a list (fix: write `- name: col` items)")
	}
	for _, it := range v.Content {
		if it.Kind != yaml.MappingNode {
			return csErr(it, "columnspec", "item is not a map (fix: e.g. `- name: col` and `size: uniform(1..10)`)")
		}
		var c Column
		for i := 0; i+1 < len(it.Content); i += 2 {
			k, val := it.Content[i], it.Content[i+1]
			if k.Value == "name" {
				var err error
				if c.Name, err = scalar(k, val); err != nil {
					return err
				}
				continue
			}
			dst := map[string]**Dist{"size": &c.Size, "population": &c.Population, "cluster": &c.Cluster}[k.Value]
			if dst == nil {
				return csErr(k, "columnspec."+k.Value, "is not supported (fix: a columnspec item has name, size, population and cluster)")
			}
			d, err := distNode(k, val, "columnspec."+k.Value)
			if err != nil {
				return err
			}
			*dst = &d
		}
		if c.Name == "" {
			return csErr(it, "columnspec", "item has no name (fix: add `name: COLUMN`)")
		}
		p.Columns = append(p.Columns, c)
	}
	return nil
}

func distNode(k, v *yaml.Node, key string) (Dist, error) {
	s, err := scalar(k, v)
	if err != nil {
		return Dist{}, err
	}
	d, err := ParseDist(s)
	if err != nil {
		return d, csErr(v, key, "%v", err)
	}
	return d, nil
}

func (p *Profile) insert(v *yaml.Node) error {
	if v.Kind != yaml.MappingNode {
		return csErr(v, "insert", "is not a map (fix: e.g. `partitions: fixed(1)` under insert)")
	}
	return eachScalar(v, p.Insert.set)
}

// set reads one key of the insert section.
func (in *Insert) set(k, val *yaml.Node, s string) error {
	var err error
	switch k.Value {
	case "partitions":
		if in.Partitions, err = distNode(k, val, "insert.partitions"); err != nil {
			return err
		}
	case "select":
		if err := in.parseSelect(val, s); err != nil {
			return err
		}
	case "batchtype":
		bt := strings.ToUpper(strings.TrimSpace(s))
		if !slices.Contains([]string{"LOGGED", "UNLOGGED", "COUNTER"}, bt) {
			return csErr(val, "insert.batchtype", "%q is not a batch type (fix: use LOGGED, UNLOGGED or COUNTER)", s)
		}
		in.BatchType = bt
	case "condition":
		in.Condition = strings.TrimSpace(s)
		if c := strings.ToUpper(in.Condition); !strings.HasPrefix(c, "IF ") {
			return csErr(val, "insert.condition", "%q does not start with IF (fix: e.g. IF NOT EXISTS, or IF col = ?)", s)
		}
	case "ttl":
		d, err := units.ParseDuration(s)
		if err != nil || d < time.Second || d.Seconds() > 630720000 {
			return csErr(val, "insert.ttl", "%q is not a TTL (fix: a duration from 1s to 20 years, e.g. 1h)", s)
		}
		in.TTLSeconds = int64(d / time.Second)
	case "timestamp":
		if strings.TrimSpace(strings.ToLower(s)) != "client" {
			return csErr(val, "insert.timestamp", "%q is not supported (fix: timestamp: client, or leave it out for the server's)", s)
		}
		in.ClientTimestamp = true
	default:
		return csErr(k, "insert."+k.Value, "is not supported (fix: insert has partitions, select, batchtype, condition, and platbench's ttl and timestamp)")
	}
	return nil
}

// parseSelect reads a ratio distribution, DIST/divisor, e.g. fixed(1)/10.
func (in *Insert) parseSelect(val *yaml.Node, s string) error {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return csErr(val, "insert.select", "%q is not DIST/divisor (fix: e.g. fixed(1)/1 for every row, uniform(1..10)/10)", s)
	}
	d, err := ParseDist(s[:i])
	if err != nil {
		return csErr(val, "insert.select", "%v", err)
	}
	div, err := strconv.ParseInt(strings.TrimSpace(s[i+1:]), 10, 64)
	if err != nil || div <= 0 || d.Max > div || d.Min < 0 {
		return csErr(val, "insert.select", "%q is not a ratio in [0, 1] (fix: give a divisor at least the distribution's max, e.g. fixed(1)/10)", s)
	}
	in.Select, in.SelectDiv = d, div
	return nil
}

func (p *Profile) queries(v *yaml.Node) error {
	return eachNamed(v, "queries", "e.g. `simple1:` with `cql:` and `fields:` under it", "give cql and fields", func(k, q *yaml.Node) error {
		cq := Query{Name: k.Value, Fields: "samerow"}
		if err := eachScalar(q, cq.set); err != nil {
			return err
		}
		if cq.CQL == "" {
			return csErr(q, "queries."+k.Value, "has no cql (fix: add `cql: SELECT ... WHERE key = ?`)")
		}
		p.Queries = append(p.Queries, cq)
		return nil
	})
}

// eachNamed calls f with each name and body of v, a map of names each a map
// of single values (queries, token_range_queries), once both are known to
// be maps; fixNames and fixBody are the fixes when they are not.
func eachNamed(v *yaml.Node, key, fixNames, fixBody string, f func(name, body *yaml.Node) error) error {
	if v.Kind != yaml.MappingNode {
		return csErr(v, key, "is not a map of names (fix: %s)", fixNames)
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, q := v.Content[i], v.Content[i+1]
		if q.Kind != yaml.MappingNode {
			return csErr(q, key+"."+k.Value, "is not a map (fix: %s)", fixBody)
		}
		if err := f(k, q); err != nil {
			return err
		}
	}
	return nil
}

// eachScalar calls set with each key of m, a map, its value and the
// value's text; a value that is not a single value is refused first.
func eachScalar(m *yaml.Node, set func(k, v *yaml.Node, s string) error) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		s, err := scalar(k, v)
		if err != nil {
			return err
		}
		if err := set(k, v, s); err != nil {
			return err
		}
	}
	return nil
}

// Consistencies are the consistency level names a query may give.
var Consistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "SERIAL", "LOCAL_SERIAL", "LOCAL_ONE"}

func (cq *Query) set(k, v *yaml.Node, s string) error {
	key := "queries." + cq.Name + "." + k.Value
	switch k.Value {
	case "cql":
		cq.CQL = strings.TrimSpace(s)
	case "fields":
		f := strings.ToLower(strings.TrimSpace(s))
		if f != "samerow" && f != "multirow" {
			return csErr(v, key, "%q is not samerow or multirow (fix: use one of them)", s)
		}
		cq.Fields = f
	case "consistencyLevel", "consistency", "serialConsistencyLevel", "serial_consistency":
		c := strings.ToUpper(strings.TrimSpace(s))
		if !slices.Contains(Consistencies, c) {
			return csErr(v, key, "%q is not a consistency level (fix: use one of %s)", s, strings.Join(Consistencies, ", "))
		}
		serial := strings.HasPrefix(k.Value, "serial")
		if serial && c != "SERIAL" && c != "LOCAL_SERIAL" {
			return csErr(v, key, "%q is not a serial consistency (fix: use SERIAL or LOCAL_SERIAL)", s)
		}
		if serial {
			cq.SerialConsistency = c
		} else {
			cq.Consistency = c
		}
	default:
		return csErr(k, key, "is not supported (fix: a query has cql, fields, consistencyLevel and serialConsistencyLevel)")
	}
	return nil
}

func (p *Profile) tokenRanges(v *yaml.Node) error {
	return eachNamed(v, "token_range_queries", "e.g. `all_tr:` with `columns: '*'`", "give columns and page_size", func(k, q *yaml.Node) error {
		tr := TokenRange{Name: k.Value, Columns: "*", PageSize: 5000}
		err := eachScalar(q, func(qk, qv *yaml.Node, s string) error {
			switch qk.Value {
			case "columns":
				tr.Columns = strings.TrimSpace(s)
			case "page_size":
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n <= 0 || n > 1<<20 {
					return csErr(qv, "token_range_queries."+k.Value+".page_size", "%q is not a page size (fix: e.g. 5000)", s)
				}
				tr.PageSize = n
			default:
				return csErr(qk, "token_range_queries."+k.Value+"."+qk.Value, "is not supported (fix: a token-range query has columns and page_size)")
			}
			return nil
		})
		if err != nil {
			return err
		}
		p.Ranges = append(p.Ranges, tr)
		return nil
	})
}

// check reports what the profile lacks or repeats.
func (p *Profile) check(top *yaml.Node) error {
	if p.Keyspace == "" || p.Table == "" {
		return csErr(top, "keyspace/table", "missing (fix: give both `keyspace:` and `table:`)")
	}
	if p.Insert.ClientTimestamp && p.Insert.Condition != "" {
		return csErr(top, "insert.timestamp", "with a condition: the server refuses a client timestamp on conditional writes (fix: remove timestamp or condition)")
	}
	names := p.OpNames()
	if len(names) > vocab.MaxNamed {
		return csErr(top, "queries", "%d operations, more than %d (fix: keep at most %d queries and token-range queries)", len(names), vocab.MaxNamed, vocab.MaxNamed-1)
	}
	for i, n := range names {
		if slices.Index(names, n) != i {
			return csErr(top, "queries."+n, "is named twice (fix: give each query and token-range query its own name)")
		}
		if _, builtin := vocab.ParseOp(n); builtin && i > 0 {
			return csErr(top, "queries."+n, "has the name of a built-in op (fix: rename it)")
		}
	}
	for _, c := range p.Columns {
		if c.Size != nil && c.Size.Min < 0 {
			return errors.New("columnspec." + c.Name + ".size: below 0 (fix: give sizes of 0 or more)")
		}
	}
	return nil
}

// OpNames are the profile's operations in named-slot order: "insert", the
// queries, the token-range queries.
func (p *Profile) OpNames() []string {
	out := []string{"insert"}
	for _, q := range p.Queries {
		out = append(out, q.Name)
	}
	for _, r := range p.Ranges {
		out = append(out, r.Name)
	}
	return out
}

// Column returns the columnspec of name with defaults for what it omits.
func (p *Profile) Column(name string) Column {
	c := Column{Name: name}
	for _, cc := range p.Columns {
		if strings.EqualFold(cc.Name, name) {
			c = cc
		}
	}
	if c.Size == nil {
		c.Size = &DefaultSize
	}
	if c.Population == nil {
		c.Population = &DefaultPopulation
	}
	if c.Cluster == nil {
		c.Cluster = &DefaultCluster
	}
	return c
}
