package redis

import (
	"context"
	"strings"
	"testing"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A checked workload against the real Redis (database 7), in both modes: a
// clean load and run reports nothing; values overwritten by another client
// are corrupt, deleted keys missing; checked reads do not allocate.
func TestValidate(t *testing.T) {
	raw := strings.TrimSuffix(serverURL(t, "PLATBENCH_REDIS_URL"), "/") + "/7"
	for _, mode := range []string{"kv", "hash"} {
		t.Run(mode, func(t *testing.T) { validateMode(t, raw, mode) })
	}
}

func validateMode(t *testing.T, raw, mode string) {
	ctx := context.Background()
	tg := open(t, raw, map[string]string{"mode": mode})
	if err := tg.ChecksReads(nil); err != nil {
		t.Fatal(err)
	}
	s := &workload.Spec{Name: "validate", Records: 300, FieldCount: 5, FieldLength: 30, CheckValues: true,
		KeyPrefix: "pbv-" + mode + "-" + uniq + "-", Distribution: workload.DistUniform,
		Mix: workload.MixList{{Op: vocab.OpRead, Weight: 2}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpRMW, Weight: 1}}}
	s.EnsureDefaults()
	if err := s.Validate(); err != nil {
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
	v := verifier(t, raw)
	defer func() {
		for k := range s.Records {
			v.Del(ctx, s.KeyName(k))
		}
	}()
	g := workload.NewGenerator(s, workload.NewKeyspace(s, 0, 1), 1, 0)
	var req workload.Request
	for k := range s.Records {
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
	read := func(key string) vocab.Class {
		r := workload.Request{Op: vocab.OpRead, Key: []byte(key), Fields: 5, FieldLen: 30}
		return adapter.Classify(w.Do(ctx, &r))
	}
	// Another client changes things behind platbench's back.
	junk, gone, field := s.KeyName(5), s.KeyName(9), s.KeyName(11)
	if mode == "kv" {
		v.Set(ctx, junk, strings.Repeat("x", 150), 0)
		v.Append(ctx, field, "y") // one byte more
	} else {
		v.HSet(ctx, junk, "field2", strings.Repeat("x", 30))
		v.HDel(ctx, field, "field4") // a field removed
	}
	v.Del(ctx, gone)
	for key, want := range map[string]vocab.Class{junk: vocab.ClassValidationCorrupt, field: vocab.ClassValidationCorrupt,
		gone: vocab.ClassValidationMissing, s.KeyName(1): vocab.ClassNone} {
		if got := read(key); got != want {
			t.Errorf("read of %s: %s, want %s", key, got, want)
		}
	}
	// RMW reads first: the junk is caught before the write.
	r := workload.Request{Op: vocab.OpRMW, Key: []byte(junk), Fields: 1, FieldLen: 30, Value: make([]byte, 30)}
	if got := adapter.Classify(w.Do(ctx, &r)); got != vocab.ClassValidationCorrupt {
		t.Errorf("RMW of the junk: %s", got)
	}
	// The connection stays in step after every verdict, and a server error
	// is still a server error.
	v.LPush(ctx, "pbv-list-"+uniq, "a")
	defer v.Del(ctx, "pbv-list-"+uniq)
	if got := read("pbv-list-" + uniq); got != vocab.ClassRejected {
		t.Errorf("read of a list: %s, want rejected", got)
	}
	if got := read(s.KeyName(1)); got != vocab.ClassNone {
		t.Errorf("after the errors: %s", got)
	}
	rd := workload.Request{Op: vocab.OpRead, Key: []byte(s.KeyName(2)), Fields: 5, FieldLen: 30}
	if n := testing.AllocsPerRun(200, func() { _ = w.Do(ctx, &rd) }); n != 0 {
		t.Errorf("checked read: %v allocations", n)
	}
}

// The paths that do not check refuse validate with one line.
func TestValidateRefused(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	tg := open(t, raw, map[string]string{"pipeline": "8"})
	if err := tg.ChecksReads(nil); err == nil || !strings.Contains(err.Error(), "pipeline") {
		t.Fatalf("pipelined: %v", err)
	}
}

func TestFieldNumber(t *testing.T) {
	for name, want := range map[string]int{"field0": 0, "field12": 12, "field": -1, "fieldx": -1, "f1": -1, "field1234567": -1} {
		if got := fieldNumber([]byte(name)); got != want {
			t.Errorf("%s: %d, want %d", name, got, want)
		}
	}
}
