package workload

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

func TestParseCSProfile(t *testing.T) {
	l, err := Open(filepath.Join("testdata", "cs-typestest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s, p := l.Spec, l.Spec.CQL
	if p == nil || p.Keyspace != "pbstress" || p.Table != "typestest" || !strings.Contains(p.TableDef, "PRIMARY KEY((name,choice)") {
		t.Fatalf("profile = %+v", p)
	}
	if got := strings.Join(s.NamedOps, ","); got != "insert,simple1,range1,all_columns" {
		t.Errorf("NamedOps = %s", got)
	}
	if len(s.Mix) != 1 || s.Mix[0].Op != vocab.OpNamed0 || s.OpName(s.Mix[0].Op) != "insert" {
		t.Errorf("default mix = %v", s.Mix)
	}
	if c := p.Column("date"); c.Cluster.String() != "uniform(20..40)" || c.Size.String() != "uniform(4..8)" {
		t.Errorf("date column = %v %v", c.Cluster, c.Size)
	}
	if c := p.Column("dbl"); !c.Population.Inverted || c.Population.Kind != "exp" {
		t.Errorf("dbl population = %+v", c.Population)
	}
	if c := p.Column("value"); c.Size.Mean != 500 || c.Size.Stdev != 100 {
		t.Errorf("value size = %+v", c.Size)
	}
	if in := p.Insert; in.Select.String() != "uniform(1..10)" || in.SelectDiv != 10 || in.BatchType != "UNLOGGED" || in.Partitions.String() != "fixed(1)" {
		t.Errorf("insert = %+v", in)
	}
	if q := p.Queries[1]; q.Name != "range1" || q.Fields != "multirow" || q.Consistency != "QUORUM" {
		t.Errorf("range1 = %+v", q)
	}
	if r := p.Ranges[0]; r.Name != "all_columns" || r.Columns != "*" || r.PageSize != 500 {
		t.Errorf("token range = %+v", r)
	}
	m, err := s.ParseMix("insert=1,simple1=9")
	if err != nil || len(m) != 2 || m[0].Op != vocab.OpNamed0 || m[1].Op != vocab.OpNamed0+1 || m[1].Weight != 9 {
		t.Fatalf("ParseMix = %v, %v", m, err)
	}
	s.Mix = m
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	// The mix prints with the profile's names, and reads back the same.
	if got := s.MixString(); got != "insert=1,simple1=9" {
		t.Errorf("MixString = %q", got)
	}
	if back, err := s.ParseMix(s.MixString()); err != nil || MixList(back).String() != MixList(m).String() {
		t.Errorf("ParseMix(MixString) = %v, %v; want %v", back, err, m)
	}
	if _, err := s.ParseMix("insert=1,simple2=9"); err == nil || !strings.Contains(err.Error(), "insert, simple1, range1, all_columns (this workload's operations)") {
		t.Errorf("an unknown query name: %v", err)
	}
}

// TestCSProfileRefused: every unsupported key is refused with one line
// naming the key and its line.
func TestCSProfileRefused(t *testing.T) {
	base := "keyspace: ks\ntable: t\n"
	cases := map[string]string{
		base + "ops:\n  - x\n":                                                 "line 3: ops",
		base + "columnspec:\n  - name: a\n    generator: x\n":                  "line 5: columnspec.generator",
		base + "columnspec:\n  - name: a\n    size: zipf(1..3)\n":              "line 5: columnspec.size",
		base + "insert:\n  visits: fixed(1)\n":                                 "line 4: insert.visits",
		base + "insert:\n  batchtype: SOMETIMES\n":                             "line 4: insert.batchtype",
		base + "insert:\n  select: fixed(11)/10\n":                             "line 4: insert.select",
		base + "insert:\n  condition: WHERE a = 1\n":                           "line 4: insert.condition",
		base + "queries:\n  q:\n    cql: select 1\n    fields: allrows\n":      "line 6: queries.q.fields",
		base + "queries:\n  q:\n    cql: x\n    serialConsistencyLevel: ONE\n": "line 6: queries.q.serialConsistencyLevel",
		base + "queries:\n  q:\n    fields: samerow\n":                         "line 5: queries.q",
		base + "token_range_queries:\n  tr:\n    split: 3\n":                   "line 5: token_range_queries.tr.split",
		base + "insert:\n  ttl: forever\n":                                     "line 4: insert.ttl",
		base + "insert:\n  timestamp: server\n":                                "line 4: insert.timestamp",
		base + "insert:\n  timestamp: client\n  condition: IF NOT EXISTS\n":    "insert.timestamp",
		"keyspace: ks\ntable_definition: x\n":                                  "line 1: keyspace/table",
	}
	for in, want := range cases {
		_, err := ParseCSProfile([]byte(in))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("profile\n%s\ngave %v, want one line with %q and a fix", in, err, want)
		}
	}
}

func TestCSProfileInsertExtensions(t *testing.T) {
	s, err := ParseCSProfile([]byte("keyspace: ks\ntable: t\ninsert:\n  ttl: 1h\n  timestamp: client\n"))
	if err != nil || s.CQL.Insert.TTLSeconds != 3600 || !s.CQL.Insert.ClientTimestamp {
		t.Fatalf("insert = %+v, %v", s.CQL, err)
	}
}

func TestOpenRefusedProfileIsUserError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	if err := os.WriteFile(path, []byte("keyspace: ks\ntable: t\nops: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path)
	var ue *usererr.Error
	if err == nil || !strings.Contains(err.Error(), "line 3: ops") || !errors.As(err, &ue) {
		t.Fatalf("Open = %v", err)
	}
	if cstress.IsProfile([]byte("base: ycsb-a\nrecords: 10\n")) {
		t.Error("a platbench workload file taken for a profile")
	}
}

func FuzzParseCSProfile(f *testing.F) {
	if data, err := os.ReadFile(filepath.Join("testdata", "cs-typestest.yaml")); err == nil {
		f.Add(string(data))
	}
	f.Add("keyspace: ks\ntable: t\ninsert:\n  select: fixed(1)/2\n")
	f.Add("keyspace: ks\ntable: t\nqueries:\n  q:\n    cql: select * from t where k = ?\n")
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseCSProfile([]byte(s))
		if err != nil {
			return
		}
		if sp.CQL == nil || len(sp.NamedOps) == 0 || len(sp.NamedOps) > vocab.MaxNamed {
			t.Fatalf("accepted %q as %+v", s, sp)
		}
		if err := sp.Validate(); err != nil {
			t.Fatalf("accepted profile is invalid: %v", err)
		}
	})
}

// TestProfileSpecJSON: a profile's spec survives the result file: the mix
// keeps its slots, the names and the profile come back.
func TestProfileSpecJSON(t *testing.T) {
	l, err := Open(filepath.Join("testdata", "cs-typestest.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	s := l.Spec
	if s.Mix, err = s.ParseMix("insert=1,simple1=9"); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.OpName(back.Mix[1].Op) != "simple1" || back.CQL == nil || back.CQL.Queries[0].CQL != s.CQL.Queries[0].CQL || back.CQL.Column("value").Size.Mean != 500 {
		t.Errorf("round trip: mix %v names %v profile %+v", back.Mix, back.NamedOps, back.CQL)
	}
}
