package workload

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/platbench/platbench/cstress"
	"github.com/platbench/platbench/vocab"
)

// TestRecordKeepsEveryField: a Spec with every field set, its record and the
// Spec read back from the record encode to the same JSON bytes. The spec
// below must set every field (checked by reflection), so a field added to
// Spec and forgotten in result.Workload fails here.
func TestRecordKeepsEveryField(t *testing.T) {
	d := &cstress.Dist{Kind: "gaussian", Min: 1, Max: 10, Mean: 5, Stdev: 2, Shape: 1.5, Inverted: true}
	s := Spec{
		Name: "w", Description: "every field", Records: 7, FieldCount: 3, FieldLength: 9, KeyPrefix: "k",
		OrderedInserts: true, KeyPadding: 8, Mix: MixList{{Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpNamed0, Weight: 2}},
		Distribution: DistHotspot, ZipfConstant: 0.9, HotsetFraction: 0.1, HotOpnFraction: 0.7, MaxScanLength: 5,
		WriteAllFields: true, CheckValues: true, NamedOps: []string{"insert"},
		CQL: &cstress.Profile{Keyspace: "ks", KeyspaceDef: "CREATE KEYSPACE ks", Table: "t", TableDef: "CREATE TABLE t (k int PRIMARY KEY)",
			ExtraDefs: []string{"CREATE TYPE u (a int)"}, Columns: []cstress.Column{{Name: "k", Size: d, Population: d, Cluster: d}},
			Insert:  cstress.Insert{Partitions: *d, Select: *d, SelectDiv: 2, BatchType: "LOGGED", Condition: "IF k > ?", TTLSeconds: 60, ClientTimestamp: true},
			Queries: []cstress.Query{{Name: "q", CQL: "SELECT * FROM t WHERE k < ? & 1", Fields: "samerow", Consistency: "ONE", SerialConsistency: "SERIAL"}},
			Ranges:  []cstress.TokenRange{{Name: "r", Columns: "*", PageSize: 100}}},
		Commands: []Command{{Name: "set", Command: "SET __key__ __data__", Weight: 1}},
		Options:  map[string]string{"cp": "long"},
	}
	allSet(t, reflect.ValueOf(s), "Spec")
	want, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := s.Record()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(&rec); !bytes.Equal(got, want) {
		t.Errorf("result.Workload encodes\n%s\nworkload.Spec\n%s", got, want)
	}
	back, err := FromRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, s) {
		t.Errorf("read back %+v, want %+v", back, s)
	}
}

// allSet fails for every zero field of v, recursively through structs,
// pointers and the first element of slices.
func allSet(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			t.Errorf("%s is not set (fix: set it in this test, and add it to result.Workload)", path)
			return
		}
		allSet(t, v.Elem(), path)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				allSet(t, v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	case reflect.Slice:
		if v.Len() == 0 {
			t.Errorf("%s is empty (fix: set it in this test, and add it to result.Workload)", path)
			return
		}
		allSet(t, v.Index(0), path+"[0]")
	default:
		if v.IsZero() {
			t.Errorf("%s is not set (fix: set it in this test, and add it to result.Workload)", path)
		}
	}
}
