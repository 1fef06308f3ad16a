package cql

import (
	"context"
	"testing"

	"github.com/platbench/platbench/workload"
)

// BenchmarkDo measures one worker's Do against the real server: time and
// allocations per op, driver included. The worker's own code (binding into
// reused queries, splitting values, sinking columns) adds no allocation; the
// rest is the driver's (see docs/targets-cql.md for the figures).
//
//	go test -run '^$' -bench Do -benchmem ./target/cql/
func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	tg := openTest(b, nil)
	defer tg.Close()
	spec := &workload.Spec{FieldCount: 5, FieldLength: 34}
	if err := tg.Setup(ctx, spec); err != nil {
		b.Fatalf("Setup: %v", err)
	}
	wk, _ := tg.NewWorker(0)
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = key(i)
	}
	req := &workload.Request{Fields: 5, FieldLen: 34, Value: value(0, 5, 34), ScanLen: 10}
	for _, op := range []workload.Op{workload.OpInsert, workload.OpRead, workload.OpUpdate, workload.OpScan} {
		b.Run(op.String(), func(b *testing.B) {
			req.Op = op
			if op == workload.OpRead || op == workload.OpScan {
				req.Value = nil
			} else {
				req.Value = value(0, 5, 34)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				req.Key = keys[i%len(keys)]
				if err := wk.Do(ctx, req); err != nil {
					b.Fatalf("%v: %v", op, err)
				}
			}
		})
	}
}

// TestWorkerBindingDoesNotAllocate checks the worker's own steady path, the
// part platbench controls: pointing the bound values at a new request.
func TestWorkerBindingDoesNotAllocate(t *testing.T) {
	st, err := newStatements(&Config{Keyspace: "k", Table: "t", Schema: SchemaYCSB}, 10)
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{st: st, fields: make([]blob, 10)}
	req := &workload.Request{Op: workload.OpInsert, Key: []byte("user1"), Value: make([]byte, 1000), Fields: 10, FieldLen: 100}
	allocs := testing.AllocsPerRun(1000, func() {
		w.key.b = req.Key
		w.splitValue(req)
		for i := range w.fields {
			if _, err := w.fields[i].MarshalCQL(nil); err != nil {
				t.Fatal(err)
			}
		}
		w.limit.v = 50
		_, _ = w.limit.MarshalCQL(nil)
		_ = w.sink.UnmarshalCQL(nil, req.Value)
	})
	if allocs != 0 {
		t.Errorf("binding allocates %.1f times per request, want 0", allocs)
	}
	if len(w.fields[9].b) != 100 || &w.fields[9].b[0] != &req.Value[900] {
		t.Errorf("field 9 is not the request's bytes 900..1000")
	}
}
