package csprofile

import (
	"encoding/binary"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/cstress"
)

func TestEncodeSizes(t *testing.T) {
	for _, k := range []gocql.Type{gocql.TypeBoolean, gocql.TypeTinyInt, gocql.TypeSmallInt, gocql.TypeInt, gocql.TypeFloat,
		gocql.TypeDouble, gocql.TypeBigInt, gocql.TypeVarint, gocql.TypeCounter, gocql.TypeTimestamp, gocql.TypeTime,
		gocql.TypeDate, gocql.TypeDecimal, gocql.TypeUUID, gocql.TypeTimeUUID, gocql.TypeInet, gocql.TypeDuration} {
		c := &ctype{kind: k}
		if got := len(c.encode(nil, 42, 5)); got != fixedSize(k) {
			t.Errorf("type %v: %d bytes, want %d", k, got, fixedSize(k))
		}
	}
	txt := (&ctype{kind: gocql.TypeText}).encode(nil, 7, 13)
	if len(txt) != 13 {
		t.Errorf("text of size 13: %q", txt)
	}
	for _, b := range txt {
		if b < 'a' || b > 'z' {
			t.Fatalf("text %q is not lower-case letters", txt)
		}
	}
	tu := (&ctype{kind: gocql.TypeTimeUUID}).encode(nil, 9, 0)
	if tu[6]>>4 != 1 || tu[8]>>6 != 2 {
		t.Errorf("timeuuid %x has version %d variant %d", tu, tu[6]>>4, tu[8]>>6)
	}
	m := &ctype{kind: gocql.TypeMap, elems: []*ctype{{kind: gocql.TypeText}, {kind: gocql.TypeInt}}}
	enc := m.encode(nil, 1, 3)
	if n := binary.BigEndian.Uint32(enc); n != 3 || len(enc) != 4+3*(4+elemSize+4+4) {
		t.Errorf("map of 3: count %d, %d bytes", n, len(enc))
	}
	udt := &ctype{kind: gocql.TypeUDT, elems: []*ctype{{kind: gocql.TypeInt}, {kind: gocql.TypeBoolean}}}
	if got := len(udt.encode(nil, 1, 0)); got != 4+4+4+1 {
		t.Errorf("udt: %d bytes", got)
	}
	if a, b := m.encode(nil, 5, 2), m.encode(nil, 5, 2); string(a) != string(b) {
		t.Error("the same seed gave two values")
	}
}

// TestFixedSizeValuesDoNotAllocate: generating a row's fixed-size values
// into a worker's buffer allocates nothing.
func TestFixedSizeValuesDoNotAllocate(t *testing.T) {
	p := &cstress.Profile{Columns: []cstress.Column{{Name: "c"}}}
	pr := &Profile{Def: p}
	for i, k := range []gocql.Type{gocql.TypeBigInt, gocql.TypeInt, gocql.TypeUUID, gocql.TypeTimestamp, gocql.TypeDouble, gocql.TypeDecimal, gocql.TypeBoolean} {
		pr.Cols = append(pr.Cols, &Column{Name: "c", typ: &ctype{kind: k}, Spec: p.Column("c"), ID: uint64(i + 1), Level: -1})
	}
	ck := &Column{Name: "k", typ: &ctype{kind: gocql.TypeInt}, Spec: p.Column("k"), ID: 99, Level: 0}
	pr.CK = []*Column{ck}
	pr.Cols = append(pr.Cols, ck)
	buf := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(100, func() {
		buf = buf[:0]
		for _, c := range pr.Cols {
			buf = pr.AppendValue(buf, c, 12345, 3)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per row of fixed-size values, want 0", allocs)
	}
}

func TestQualifyTable(t *testing.T) {
	cases := map[string]string{
		"CREATE TABLE t (a int PRIMARY KEY)":                "CREATE TABLE ks.t (a int PRIMARY KEY)",
		"  create table if not exists t(a int primary key)": "  create table if not exists ks.t(a int primary key)",
		"CREATE TYPE IF NOT EXISTS addr (street text)":      "CREATE TYPE IF NOT EXISTS ks.addr (street text)",
		"CREATE TABLE other.t (a int PRIMARY KEY)":          "CREATE TABLE other.t (a int PRIMARY KEY)",
	}
	for in, want := range cases {
		if got := QualifyTable(in, "ks"); got != want {
			t.Errorf("qualifyTable(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkAppendValue: the cost of one generated value of each CQL type,
// written into a worker's buffer as the native path binds it (the
// allocations per operation the issue asks for, by type: 0 for every type,
// fixed-size or not, once the buffer has grown).
// `go test -run X -bench AppendValue ./adapter/cql/csprofile`.
func BenchmarkAppendValue(b *testing.B) {
	elem := func(k gocql.Type) *ctype { return &ctype{kind: k} }
	types := []struct {
		name string
		t    *ctype
	}{
		{"boolean", elem(gocql.TypeBoolean)}, {"tinyint", elem(gocql.TypeTinyInt)}, {"smallint", elem(gocql.TypeSmallInt)},
		{"int", elem(gocql.TypeInt)}, {"bigint", elem(gocql.TypeBigInt)}, {"varint", elem(gocql.TypeVarint)},
		{"counter", elem(gocql.TypeCounter)}, {"float", elem(gocql.TypeFloat)}, {"double", elem(gocql.TypeDouble)},
		{"decimal", elem(gocql.TypeDecimal)}, {"timestamp", elem(gocql.TypeTimestamp)}, {"date", elem(gocql.TypeDate)},
		{"time", elem(gocql.TypeTime)}, {"duration", elem(gocql.TypeDuration)}, {"uuid", elem(gocql.TypeUUID)},
		{"timeuuid", elem(gocql.TypeTimeUUID)}, {"inet", elem(gocql.TypeInet)},
		{"text", elem(gocql.TypeText)}, {"ascii", elem(gocql.TypeAscii)}, {"blob", elem(gocql.TypeBlob)},
		{"list<int>", &ctype{kind: gocql.TypeList, elems: []*ctype{elem(gocql.TypeInt)}}},
		{"set<text>", &ctype{kind: gocql.TypeSet, elems: []*ctype{elem(gocql.TypeText)}}},
		{"map<text,int>", &ctype{kind: gocql.TypeMap, elems: []*ctype{elem(gocql.TypeText), elem(gocql.TypeInt)}}},
		{"tuple<int,boolean>", &ctype{kind: gocql.TypeTuple, elems: []*ctype{elem(gocql.TypeInt), elem(gocql.TypeBoolean)}}},
		{"udt{int,text}", &ctype{kind: gocql.TypeUDT, elems: []*ctype{elem(gocql.TypeInt), elem(gocql.TypeText)}}},
	}
	for _, ty := range types {
		b.Run(ty.name, func(b *testing.B) {
			p := &cstress.Profile{Columns: []cstress.Column{{Name: "c"}}}
			pr := &Profile{Def: p}
			c := &Column{Name: "c", typ: ty.t, Spec: p.Column("c"), ID: 1, Level: -1}
			pr.Cols = []*Column{c}
			buf := make([]byte, 0, 4096)
			b.ReportAllocs()
			var seed uint64
			for b.Loop() {
				seed++
				buf = pr.AppendValue(buf[:0], c, seed, 3)
			}
		})
	}
}
