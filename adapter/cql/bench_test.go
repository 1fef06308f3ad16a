package cql

import (
	"testing"

	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// TestWorkerBindingDoesNotAllocate checks the worker's own steady path, the
// part platbench controls: pointing the bound values at a new request.
func TestWorkerBindingDoesNotAllocate(t *testing.T) {
	st, err := newStatements(&Config{Keyspace: "k", Table: "t", Schema: SchemaYCSB}, 10)
	if err != nil {
		t.Fatal(err)
	}
	w := &worker{st: st, fields: make([]blob, 10)}
	req := &workload.Request{Op: vocab.OpInsert, Key: []byte("user1"), Value: make([]byte, 1000), Fields: 10, FieldLen: 100}
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
