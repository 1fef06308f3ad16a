package embedded

import (
	"context"
	"errors"
	"net/url"
	"testing"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A checked workload: a clean load and run reports nothing; a value
// overwritten behind platbench's back is corrupt, a deleted one missing.
func TestValidate(t *testing.T) {
	ctx := context.Background()
	u, _ := url.Parse("embedded://")
	tg, err := Open(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	spec := &workload.Spec{Records: 200, FieldCount: 4, FieldLength: 40, CheckValues: true,
		Mix: workload.MixList{{Op: vocab.OpRead, Weight: 2}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpScan, Weight: 1}}}
	spec.EnsureDefaults()
	if err := spec.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := tg.Setup(ctx, spec); err != nil {
		t.Fatal(err)
	}
	if err := tg.(adapter.ReadChecker).ChecksReads(spec); err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWorker(0)
	g := workload.NewGenerator(spec, workload.NewKeyspace(spec, 0, 1), 1, 0)
	var req workload.Request
	for k := range spec.Records {
		g.Load(&req, k)
		if err := w.Do(ctx, &req); err != nil {
			t.Fatal(err)
		}
	}
	for range 3000 {
		g.Next(&req)
		if err := w.Do(ctx, &req); err != nil {
			t.Fatalf("clean run: %s %s: %v", req.Op, req.Key, err)
		}
	}
	// Another client: junk over record 5, record 9 deleted.
	db := tg.(*Target).db
	junk, gone := spec.KeyName(5), spec.KeyName(9)
	if err := db.Set([]byte(junk), []byte("not what platbench wrote, not at all, no"), nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Delete([]byte(gone), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		op   vocab.Op
		want vocab.Class
	}{{junk, vocab.OpRead, vocab.ClassValidationCorrupt}, {gone, vocab.OpRead, vocab.ClassValidationMissing},
		{junk, vocab.OpUpdate, vocab.ClassValidationCorrupt}, {gone, vocab.OpUpdate, vocab.ClassValidationMissing}} {
		r := workload.Request{Op: c.op, Key: []byte(c.key), FieldLen: 40, Fields: 1, Value: make([]byte, 40)}
		if got := adapter.Classify(w.Do(ctx, &r)); got != c.want {
			t.Errorf("%s of %s: %s, want %s", c.op, c.key, got, c.want)
		}
	}
	r := workload.Request{Op: vocab.OpScan, Key: []byte(junk), ScanLen: 1}
	if err := w.Do(ctx, &r); !errors.Is(err, adapter.ErrValidationCorrupt) {
		t.Errorf("scan from the junk: %v", err)
	}
	// The read path allocates nothing.
	g.Next(&req)
	rd := workload.Request{Op: vocab.OpRead, Key: []byte(spec.KeyName(1))}
	if n := testing.AllocsPerRun(200, func() { _ = w.Do(ctx, &rd) }); n != 0 {
		t.Errorf("checked read: %v allocations", n)
	}
}
