package redis

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// YCSB E on Redis: the load indexes every key, a scan returns the records
// that follow its start key in order, inserts and deletes keep the index,
// and a scan allocates nothing.
func TestScan(t *testing.T) {
	for _, env := range []string{"PLATBENCH_REDIS_URL", "PLATBENCH_REDIS_CLUSTER3_URL"} {
		t.Run(env, func(t *testing.T) { testScan(t, serverURL(t, env)) })
	}
}

// scanned is what the last scan of w read: keys, their ends, records found.
func scanned(w adapter.Worker) ([]byte, []int, int) {
	switch w := w.(type) {
	case *worker:
		return w.scanKeys, w.scanEnds, w.scanFound
	case *cworker:
		ix, _ := w.node(w.base.t.indexB)
		return ix.worker.scanKeys, ix.worker.scanEnds, ix.worker.scanFound
	}
	return nil, nil, 0
}

// anyVerifier is verifier for a standalone server or a cluster (several seeds).
func anyVerifier(t *testing.T, raw string) goredis.UniversalClient {
	if !strings.Contains(raw, ",") {
		return verifier(t, raw)
	}
	c := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: strings.Split(strings.TrimPrefix(raw, "redis://"), ",")})
	t.Cleanup(func() { c.Close() })
	return c
}

func testScan(t *testing.T, raw string) {
	v := anyVerifier(t, raw)
	ctx := context.Background()
	for _, mode := range []string{"kv", "hash"} {
		s, err := workload.Preset("ycsb-e")
		if err != nil {
			t.Fatal(err)
		}
		s.Records, s.FieldCount, s.FieldLength, s.KeyPrefix = 50, 2, 10, "scan"+mode+uniq+"-"
		s.EnsureDefaults()
		tg := open(t, raw, map[string]string{"mode": mode})
		if err := tg.Setup(ctx, &s); err != nil {
			t.Fatal(err)
		}
		ks := workload.NewKeyspace(&s, 0, 1)
		if _, err := runner.Load(ctx, tg, &s, ks, runner.Config{Concurrency: 4}); err != nil {
			t.Fatal(err)
		}
		if n := v.ZCard(ctx, indexKey(s.KeyPrefix)).Val(); n != 50 {
			t.Fatalf("%s: the index lists %d keys after loading 50", mode, n)
		}
		if err := tg.CheckDataset(ctx, &s); err != nil {
			t.Errorf("%s: CheckDataset after the load: %v", mode, err)
		}
		w, err := tg.NewWorker(0)
		if err != nil {
			t.Fatal(err)
		}
		scan := func(from uint64, n int) []uint64 {
			t.Helper()
			r := &workload.Request{Op: vocab.OpScan, KeyNum: from, Key: []byte(s.KeyName(from)), ScanLen: n}
			if err := w.Do(ctx, r); err != nil {
				t.Fatalf("%s: scan of %d from %d: %v", mode, n, from, err)
			}
			var got []uint64
			start := 0
			keys, ends, found := scanned(w)
			for _, end := range ends {
				k := string(keys[start:end])
				start = end
				for i := range uint64(60) {
					if s.KeyName(i) == k {
						got = append(got, i)
					}
				}
			}
			if found != len(ends) {
				t.Errorf("%s: scan from %d found %d of its %d records", mode, from, found, len(ends))
			}
			return got
		}
		seq := func(a, b uint64) (out []uint64) {
			for i := a; i < b; i++ {
				out = append(out, i)
			}
			return out
		}
		for _, c := range []struct {
			from uint64
			n    int
		}{{0, 10}, {17, 5}, {45, 10}, {49, 1}} {
			if got, want := scan(c.from, c.n), seq(c.from, min(c.from+uint64(c.n), 50)); !slices.Equal(got, want) {
				t.Errorf("%s: scan of %d from %d read records %v, want %v", mode, c.n, c.from, got, want)
			}
		}
		// An insert adds its key to the index, a delete removes it.
		val := make([]byte, 20)
		if err := w.Do(ctx, &workload.Request{Op: vocab.OpInsert, KeyNum: 50, Key: []byte(s.KeyName(50)), Value: val, Fields: 2, FieldLen: 10}); err != nil {
			t.Fatal(err)
		}
		if err := w.Do(ctx, &workload.Request{Op: vocab.OpDelete, KeyNum: 48, Key: []byte(s.KeyName(48))}); err != nil {
			t.Fatal(err)
		}
		if got := scan(47, 10); !slices.Equal(got, []uint64{47, 49, 50}) {
			t.Errorf("%s: after inserting 50 and deleting 48, a scan from 47 read %v, want [47 49 50]", mode, got)
		}
		if err := w.Do(ctx, &workload.Request{Op: vocab.OpScan, KeyNum: 51, Key: []byte(s.KeyName(51)), ScanLen: 5}); err != adapter.ErrNotFound {
			t.Errorf("%s: a scan past the last key: %v, want not found", mode, err)
		}
		r := &workload.Request{Op: vocab.OpScan, KeyNum: 10, Key: []byte(s.KeyName(10)), ScanLen: 20}
		if n := testing.AllocsPerRun(100, func() {
			if err := w.Do(ctx, r); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %.1f allocations per scan, want 0", mode, n)
		}
		w.Close()

		// The runner drives the workload: scans and inserts, no errors.
		p, _, err := runner.Run(ctx, tg, &s, ks, runner.Config{Ops: 2000, Concurrency: 4})
		if err != nil {
			t.Fatal(err)
		}
		var scans uint64
		for _, o := range p.Ops {
			for class, n := range o.Errors {
				t.Errorf("%s: %s: %d %s errors", mode, o.Op, n, class)
			}
			if o.Op == "SCAN" {
				scans = o.Count
			}
		}
		if scans < 1500 {
			t.Errorf("%s: %d scans of 2000 ops (ycsb-e has 95%%)", mode, scans)
		}
		if removed, err := tg.Clean(ctx, &s, manifestFor(tg, &s, s.Records+2000), false); err != nil || len(removed) == 0 {
			t.Errorf("%s: Clean: %v %v", mode, removed, err)
		}
		if n := v.Exists(ctx, indexKey(s.KeyPrefix)).Val(); n != 0 {
			t.Errorf("%s: Clean left the index", mode)
		}
	}
}

// A dataset loaded by a workload that does not scan has no index: a
// scanning run without a load says so.
func TestScanNeedsIndex(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	s := *spec(1, 10, vocab.OpRead)
	s.KeyPrefix = "noindex" + uniq + "-"
	s.EnsureDefaults()
	tg := open(t, raw, nil)
	if err := tg.Setup(ctx, &s); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.Load(ctx, tg, &s, workload.NewKeyspace(&s, 0, 1), runner.Config{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	e := s
	e.Mix = workload.MixList{{Op: vocab.OpScan, Weight: 1}}
	tg2 := open(t, raw, nil)
	if err := tg2.Setup(ctx, &e); err != nil {
		t.Fatal(err)
	}
	var de *adapter.DatasetError
	if err := tg2.CheckDataset(ctx, &e); !errors.As(err, &de) {
		t.Errorf("CheckDataset of a scan workload over an unindexed dataset: %v, want a missing-dataset error", err)
	}
	tg.Clean(ctx, &s, manifestFor(tg, &s, s.Records), false)
}
