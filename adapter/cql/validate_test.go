package cql

import (
	"context"
	"testing"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A checked workload against the real Cassandra (keyspace pb_validate),
// both table shapes, the native client: a clean load and run reports
// nothing; a field overwritten by another client is corrupt, a deleted row
// and a truncated table missing; checked reads do not allocate.
func TestValidate(t *testing.T) {
	for _, schema := range []string{SchemaYCSB, SchemaStress} {
		t.Run(schema, func(t *testing.T) { testValidate(t, schema) })
	}
}

func testValidate(t *testing.T, schema string) {
	ctx := context.Background()
	tg := openTest(t, map[string]string{"schema": schema, "keyspace": "pb_validate"})
	defer tg.Close()
	s := &workload.Spec{Name: "validate", Records: 300, FieldCount: 4, FieldLength: 24, CheckValues: true, Distribution: workload.DistUniform,
		Mix: workload.MixList{{Op: vocab.OpRead, Weight: 2}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpRMW, Weight: 1}, {Op: vocab.OpScan, Weight: 1}}}
	s.EnsureDefaults()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := tg.ChecksReads(s); err != nil {
		t.Fatal(err)
	}
	if err := tg.Setup(ctx, s); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	g := workload.NewGenerator(s, workload.NewKeyspace(s, 0, 1), 1, 0)
	var req workload.Request
	for k := range s.Records {
		g.Load(&req, k)
		if err := w.Do(ctx, &req); err != nil {
			t.Fatal(err)
		}
	}
	for range 2000 {
		g.Next(&req)
		if err := w.Do(ctx, &req); err != nil {
			t.Fatalf("clean run: %s %s: %v", req.Op, req.Key, err)
		}
	}
	read := func(op vocab.Op, key string) vocab.Class {
		r := workload.Request{Op: op, Key: []byte(key), Fields: 1, FieldLen: 24, Value: make([]byte, 24), ScanLen: 1}
		return adapter.Classify(w.Do(ctx, &r))
	}
	// Another client (the target's gocql session) behind platbench's back.
	keyCol, cols := columnNames(&tg.cfg, 4)
	tbl := tg.cfg.Keyspace + "." + tg.cfg.Table
	junk, gone := s.KeyName(5), s.KeyName(9)
	if err := tg.session.Query("UPDATE "+tbl+" SET "+cols[2]+" = ? WHERE "+keyCol+" = ?", []byte("junk junk junk junk junk"), []byte(junk)).Exec(); err != nil {
		t.Fatal(err)
	}
	if err := tg.session.Query("DELETE FROM "+tbl+" WHERE "+keyCol+" = ?", []byte(gone)).Exec(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		op   vocab.Op
		key  string
		want vocab.Class
	}{{vocab.OpRead, junk, vocab.ClassValidationCorrupt}, {vocab.OpRMW, junk, vocab.ClassValidationCorrupt},
		{vocab.OpScan, junk, vocab.ClassValidationCorrupt}, {vocab.OpRead, gone, vocab.ClassValidationMissing},
		{vocab.OpRMW, gone, vocab.ClassValidationMissing}, {vocab.OpRead, s.KeyName(1), vocab.ClassNone}} {
		if got := read(c.op, c.key); got != c.want {
			t.Errorf("%s of %s: %s, want %s", c.op, c.key, got, c.want)
		}
	}
	rd := workload.Request{Op: vocab.OpRead, Key: []byte(s.KeyName(2))}
	if n := testing.AllocsPerRun(200, func() { _ = w.Do(ctx, &rd) }); n != 0 {
		t.Errorf("checked read: %v allocations", n)
	}
	if err := tg.session.Query("TRUNCATE " + tbl).Exec(); err != nil {
		t.Fatal(err)
	}
	for k := range uint64(20) {
		if got := read(vocab.OpRead, s.KeyName(k)); got != vocab.ClassValidationMissing {
			t.Fatalf("after TRUNCATE, read of record %d: %s", k, got)
		}
	}
}

// The gocql driver refuses validate with one line.
func TestValidateRefusedByGocql(t *testing.T) {
	tg := openTest(t, map[string]string{"driver": DriverGocql})
	defer tg.Close()
	if err := tg.ChecksReads(&workload.Spec{CheckValues: true}); err == nil {
		t.Fatal("driver=gocql accepted validate")
	}
}
