package bench

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The record of acknowledged writes: written keys as ranges, deleted keys
// left out (and counted), failed writes not acknowledged, keys past the
// room counted as untracked.
func TestAckLogRanges(t *testing.T) {
	l := newAckLog(100)
	for k := range uint64(50) {
		l.record(vocab.OpInsert, k, nil)
	}
	l.record(vocab.OpUpdate, 60, nil)
	l.record(vocab.OpUpdate, 61, errors.New("timeout"))
	l.record(vocab.OpRead, 62, nil)
	l.record(vocab.OpDelete, 10, nil)
	l.record(vocab.OpInsert, 100+ackChunkKeys*3+5, nil) // a run-phase insert, in a chunk made now
	l.record(vocab.OpInsert, uint64(len(l.chunks))*ackChunkKeys, nil)
	rs, n, del := l.ranges()
	want := [][2]uint64{{0, 10}, {11, 50}, {60, 61}, {100 + ackChunkKeys*3 + 5, 100 + ackChunkKeys*3 + 6}}
	if !slices.Equal(rs, want) || n != 51 || del != 1 || l.untracked.Load() != 1 {
		t.Fatalf("ranges %v, %d keys, %d deleted, %d untracked; want %v, 51, 1, 1", rs, n, del, l.untracked.Load(), want)
	}
	ix := newRangeIndex(rs)
	for i, k := range map[uint64]uint64{0: 0, 9: 9, 10: 11, 48: 49, 49: 60, 50: 100 + ackChunkKeys*3 + 5} {
		if got := ix.key(i); got != k {
			t.Errorf("key %d = %d, want %d", i, got, k)
		}
	}
}

// okWorker completes every operation at once.
type okWorker struct{}

func (okWorker) Do(context.Context, *workload.Request) error { return nil }
func (okWorker) Close() error                                { return nil }

// Recording an acknowledged write stays off the hot path's allocation
// budget: a worker's Do through the wrapper does not allocate.
func TestAckWorkerAllocs(t *testing.T) {
	spec := &workload.Spec{Records: 1000, FieldCount: 2, FieldLength: 20, CheckValues: true,
		Mix: workload.MixList{{Op: vocab.OpInsert, Weight: 1}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpRead, Weight: 1}}}
	spec.EnsureDefaults()
	g := workload.NewGenerator(spec, workload.NewKeyspace(spec, 0, 1), 1, 0)
	w := &ackWorker{Worker: okWorker{}, log: newAckLog(spec.Records)}
	var req workload.Request
	ctx := context.Background()
	g.Next(&req)
	if a := testing.AllocsPerRun(10000, func() {
		g.Next(&req)
		_ = w.Do(ctx, &req)
	}); a > 0.01 { // a new chunk per 65,536 inserts
		t.Fatalf("%v allocations per operation", a)
	}
}

func TestParseSample(t *testing.T) {
	for in, want := range map[string]Sample{"": {}, "all": {}, "10k": {Keys: 10000}, "10%": {Fraction: 0.1}, "0.5": {Fraction: 0.5}, "1": {Keys: 1}, "100%": {}} {
		got, err := ParseSample(in)
		if err != nil || got != want {
			t.Errorf("ParseSample(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back, err := ParseSample(got.String()); err != nil || back != got {
			t.Errorf("ParseSample(%q).String() = %q reads back as %v, %v", in, got.String(), back, err)
		}
	}
	for _, in := range []string{"0", "-1", "150%", "some", "1.5"} {
		if _, err := ParseSample(in); err == nil {
			t.Errorf("ParseSample(%q) accepted", in)
		}
	}
	if got := spread(3, 1<<62, 4); got != 3<<60 {
		t.Errorf("spread over 2^62 keys = %d, want %d", got, uint64(3)<<60)
	}
	if got := (Sample{Fraction: 0.1}).of(25); got != 3 {
		t.Errorf("10%% of 25 = %d, want 3", got)
	}
}

func FuzzParseSample(f *testing.F) {
	for _, s := range []string{"", "all", "10k", "10%", "0.1", "1e3", "-1", "100%", "0.0000001%"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseSample(s)
		if err != nil {
			return
		}
		if v.Fraction < 0 || v.Fraction > 1 || v.Fraction != v.Fraction || (v.Keys > 0 && v.Fraction > 0) {
			t.Fatalf("%q -> %+v", s, v)
		}
		if back, err := ParseSample(v.String()); err != nil || back.Keys != v.Keys {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, v, v.String(), back, err)
		}
		if n := v.of(1000); n > 1000 || n == 0 {
			t.Fatalf("%q reads %d of 1000 keys", s, n)
		}
	})
}

// Against the embedded store: a clean verified run finds every
// acknowledged write; a value overwritten behind platbench's back is wrong
// and a deleted key missing when the result is verified again; a sample
// reads as many keys as asked.
func TestVerifyEmbedded(t *testing.T) {
	ctx := context.Background()
	url := "embedded://" + filepath.Join(t.TempDir(), "db")
	spec, err := workload.Preset("ycsb-a")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 400
	spec.Mix = workload.MixList{{Op: vocab.OpRead, Weight: 2}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpInsert, Weight: 1}}
	r, err := Run(ctx, Config{Open: registry.Open, Target: url, Workload: spec, Verify: true,
		Runner: runner.Config{Ops: 2000, Concurrency: 4, Seed: 1}, Telemetry: quietTelemetry()})
	if err != nil {
		t.Fatal(err)
	}
	v := r.Verification
	if v == nil {
		t.Fatal("no verification in the result")
	}
	if v.AckedKeys < 400+400 || v.Checked != v.AckedKeys || v.Missing+v.Wrong+v.Unreadable != 0 || v.Acked[0] != [2]uint64{0, v.Acked[0][1]} {
		t.Fatalf("clean run: %+v", *v)
	}
	if !r.Config.Workload.CheckValues {
		t.Fatal("a verified run did not write checked values")
	}

	// Another client changes record 5 and deletes record 9.
	tg, err := registry.Open(ctx, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWorker(0)
	junk := make([]byte, spec.RecordBytes())
	for i := range junk {
		junk[i] = 'x'
	}
	for _, req := range []workload.Request{
		{Op: vocab.OpInsert, KeyNum: 5, Key: []byte(spec.KeyName(5)), Value: junk, Fields: spec.FieldCount, FieldLen: spec.FieldLength},
		{Op: vocab.OpDelete, KeyNum: 9, Key: []byte(spec.KeyName(9))},
	} {
		if err := w.Do(ctx, &req); err != nil {
			t.Fatalf("%s: %v", req.Op, err)
		}
	}
	w.Close()
	tg.Close()

	v2, err := VerifyResult(ctx, r, VerifyConfig{Open: registry.Open, Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	if v2.Checked != v.AckedKeys || v2.Missing != 1 || v2.Wrong != 1 || !slices.Equal(v2.MissingKeys, []uint64{9}) || !slices.Equal(v2.WrongKeys, []uint64{5}) {
		t.Fatalf("after the other client: %+v", *v2)
	}
	v3, err := VerifyResult(ctx, r, VerifyConfig{Open: registry.Open, Sample: Sample{Keys: 50}})
	if err != nil {
		t.Fatal(err)
	}
	if v3.Checked != 50 || v3.Sample != "50" {
		t.Fatalf("sample of 50: %+v", *v3)
	}
	r.Verification = nil
	if _, err := VerifyResult(ctx, r, VerifyConfig{Open: registry.Open}); err == nil {
		t.Fatal("a result without a record was verified")
	}
	var _ adapter.Worker = okWorker{}
}
