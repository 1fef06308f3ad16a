package workload

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"testing"

	"github.com/platbench/platbench/vocab"
)

func TestFnvhash64MatchesYCSB(t *testing.T) {
	// YCSB's load phase writes record 0 as "user6284781860667377211".
	if got := fnvhash64(0); got != 6284781860667377211 {
		t.Errorf("fnvhash64(0) = %d, want 6284781860667377211", got)
	}
	for i := uint64(0); i < 1000; i++ {
		if int64(fnvhash64(i)) < 0 {
			t.Fatalf("fnvhash64(%d) is negative", i)
		}
	}
}

func TestZetaMatchesExactSum(t *testing.T) {
	for _, c := range []struct {
		n     uint64
		theta float64
	}{{10, 0.99}, {1 << 10, 0.99}, {1<<10 + 1, 0.99}, {5000, 0.99}, {3_000_000, 0.99}, {3_000_000, 0.5}, {3_000_000, 0.2}} {
		// Kahan sum of every term, smallest first.
		var sum, comp float64
		for i := c.n; i >= 1; i-- {
			y := math.Pow(float64(i), -c.theta) - comp
			t2 := sum + y
			comp = (t2 - sum) - y
			sum = t2
		}
		if got := zeta(c.n, c.theta); math.Abs(got-sum)/sum > 1e-12 {
			t.Errorf("zeta(%d, %v) = %.15g, exact sum %.15g", c.n, c.theta, got, sum)
		}
	}
	// Incremental growth agrees with the sum from scratch.
	if a, b := zeta(100_000, 0.99)+zetaRange(100_000, 5_000_000, 0.99), zeta(5_000_000, 0.99); math.Abs(a-b)/b > 1e-12 {
		t.Errorf("incremental zeta %.15g, from scratch %.15g", a, b)
	}
	// YCSB's precomputed constant for 1e10 items.
	if got := zeta(10_000_000_000, 0.99); math.Abs(got-scrambledZetan) > 1e-9 {
		t.Errorf("zeta(1e10, 0.99) = %.15g, YCSB ZETAN %.15g", got, scrambledZetan)
	}
}

func TestKeysAndValues(t *testing.T) {
	s := spec(DistUniform, 1000, vocab.Mix{Op: vocab.OpUpdate, Weight: 1})
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, 1, 0)
	var r Request
	g.Load(&r, 0)
	if string(r.Key) != "user6284781860667377211" || r.Op != vocab.OpInsert || r.KeyNum != 0 {
		t.Errorf("Load(0) = %s %d %q", r.Op, r.KeyNum, r.Key)
	}
	if len(r.Value) != 1000 || r.Fields != 10 || r.FieldLen != 100 {
		t.Errorf("load value %d bytes, %d fields of %d", len(r.Value), r.Fields, r.FieldLen)
	}
	for _, b := range r.Value {
		if b < ' ' || b > '_' {
			t.Fatalf("value byte %q outside ' '..'_'", b)
		}
	}
	first := append([]byte(nil), r.Value...)
	g.Next(&r)
	if r.Op != vocab.OpUpdate || len(r.Value) != 100 || r.Fields != 1 {
		t.Errorf("update: %s, %d bytes, %d fields", r.Op, len(r.Value), r.Fields)
	}
	want := "user" + strconv.FormatUint(fnvhash64(r.KeyNum), 10)
	if string(r.Key) != want {
		t.Errorf("key %q, want %q", r.Key, want)
	}
	g.Load(&r, 1)
	if bytes.Equal(first, r.Value) {
		t.Errorf("two loads got the same value; values should vary")
	}

	s.OrderedInserts, s.KeyPrefix, s.WriteAllFields = true, "k", true
	g = NewGenerator(s, ks, 1, 0)
	g.Load(&r, 42)
	if string(r.Key) != "k42" {
		t.Errorf("ordered key %q, want k42", r.Key)
	}
	g.Next(&r)
	if len(r.Value) != 1000 || r.Fields != 10 {
		t.Errorf("write_all_fields update: %d bytes, %d fields", len(r.Value), r.Fields)
	}
}

func TestOpsFillTheRightFields(t *testing.T) {
	for op := vocab.Op(0); op < vocab.NumOps; op++ {
		s := spec(DistUniform, 100, vocab.Mix{Op: op, Weight: 1})
		g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
		r := Request{ScanLen: 99, Value: []byte("stale")}
		g.Next(&r)
		if r.Op != op || len(r.Key) == 0 || r.FieldLen != 100 {
			t.Errorf("%s: got op %s key %q fieldlen %d", op, r.Op, r.Key, r.FieldLen)
		}
		writes := op == vocab.OpInsert || op == vocab.OpWrite || op == vocab.OpSet || op == vocab.OpCAS || op == vocab.OpProduce || op == vocab.OpUpdate || op == vocab.OpRMW
		if writes != (r.Value != nil) {
			t.Errorf("%s: value %d bytes", op, len(r.Value))
		}
		if writes && len(r.Value) != r.Fields*r.FieldLen {
			t.Errorf("%s: value %d bytes for %d fields of %d", op, len(r.Value), r.Fields, r.FieldLen)
		}
		if (op == vocab.OpScan) != (r.ScanLen > 0) {
			t.Errorf("%s: scan length %d", op, r.ScanLen)
		}
	}
}

func TestDeterministic(t *testing.T) {
	run := func(seed int64, worker int) string {
		s := spec(DistZipfian, 10000, vocab.Mix{Op: vocab.OpRead, Weight: 0.5}, vocab.Mix{Op: vocab.OpUpdate, Weight: 0.3}, vocab.Mix{Op: vocab.OpScan, Weight: 0.2})
		g := NewGenerator(s, NewKeyspace(s, 0, 1), seed, worker)
		var b bytes.Buffer
		var r Request
		for i := 0; i < 1000; i++ {
			g.Next(&r)
			fmt.Fprintf(&b, "%s %s %d %x|", r.Op, r.Key, r.ScanLen, r.Value)
		}
		return b.String()
	}
	if first, again := run(1, 0), run(1, 0); first != again {
		t.Error("same seed and worker gave different sequences")
	}
	if run(1, 0) == run(1, 1) {
		t.Error("two workers with one seed gave the same sequence")
	}
	if run(1, 0) == run(2, 0) {
		t.Error("two seeds gave the same sequence")
	}
}

func TestNoAllocations(t *testing.T) {
	for _, d := range Dists {
		s := spec(d, 100000, vocab.Mix{Op: vocab.OpRead, Weight: 0.4}, vocab.Mix{Op: vocab.OpUpdate, Weight: 0.2}, vocab.Mix{Op: vocab.OpScan, Weight: 0.2}, vocab.Mix{Op: vocab.OpInsert, Weight: 0.1}, vocab.Mix{Op: vocab.OpWrite, Weight: 0.1})
		g := NewGenerator(s, NewKeyspace(s, 0, 1), 1, 0)
		var r Request
		if a := testing.AllocsPerRun(10000, func() { g.Next(&r) }); a != 0 {
			t.Errorf("%s: Next allocates %v per op", d, a)
		}
		k := uint64(0)
		if a := testing.AllocsPerRun(10000, func() { g.Load(&r, k); k++ }); a != 0 {
			t.Errorf("%s: Load allocates %v per op", d, a)
		}
	}
}

func TestKeyspaceShards(t *testing.T) {
	for _, c := range []struct {
		records        uint64
		shards, worker int
	}{{100000, 1, 1}, {100000, 3, 7}, {10, 4, 3}, {3, 5, 2}, {1 << 40, 7, 13}} {
		s := spec(DistUniform, c.records, vocab.Mix{Op: vocab.OpInsert, Weight: 1})
		next := uint64(0)
		for sh := 0; sh < c.shards; sh++ {
			ks := NewKeyspace(s, sh, c.shards)
			lo, hi := ks.Shard()
			if lo != next || hi < lo {
				t.Fatalf("%+v: shard %d is [%d, %d), want to start at %d", c, sh, lo, hi, next)
			}
			wnext := lo
			for w := 0; w < c.worker; w++ {
				from, to := ks.LoadRange(w, c.worker)
				if from != wnext || to < from || to > hi {
					t.Fatalf("%+v: shard %d worker %d loads [%d, %d), want from %d within [%d, %d)", c, sh, w, from, to, wnext, lo, hi)
				}
				wnext = to
			}
			if wnext != hi {
				t.Fatalf("%+v: workers of shard %d stop at %d, shard ends at %d", c, sh, wnext, hi)
			}
			next = hi
		}
		if next != c.records {
			t.Fatalf("%+v: shards cover [0, %d), want [0, %d)", c, next, c.records)
		}
	}

	// Run-phase inserts of different shards never collide and start at Records.
	s := spec(DistUniform, 1000, vocab.Mix{Op: vocab.OpInsert, Weight: 1})
	seen := map[uint64]int{}
	for sh := 0; sh < 3; sh++ {
		ks := NewKeyspace(s, sh, 3)
		g := NewGenerator(s, ks, 1, 0)
		var r Request
		for i := 0; i < 100; i++ {
			g.Next(&r)
			if r.KeyNum < 1000 {
				t.Fatalf("shard %d inserted key %d inside the loaded records", sh, r.KeyNum)
			}
			if prev, ok := seen[r.KeyNum]; ok {
				t.Fatalf("key %d inserted by shards %d and %d", r.KeyNum, prev, sh)
			}
			seen[r.KeyNum] = sh
		}
		if ks.inserts.Load() != 100 {
			t.Errorf("shard %d counted %d inserts, want 100", sh, ks.inserts.Load())
		}
	}
	for k := uint64(1000); k < 1300; k++ {
		if _, ok := seen[k]; !ok {
			t.Errorf("key %d never inserted: the shards' inserts leave holes", k)
		}
	}
}

func TestKeyspaceConcurrentInserts(t *testing.T) {
	s := spec(DistLatest, 1000, vocab.Mix{Op: vocab.OpInsert, Weight: 0.5}, vocab.Mix{Op: vocab.OpRead, Weight: 0.5})
	ks := NewKeyspace(s, 0, 1)
	const workers, ops = 4, 5000
	keys := make(chan uint64, workers*ops)
	done := make(chan struct{})
	for w := 0; w < workers; w++ {
		go func(w int) {
			g := NewGenerator(s, ks, 1, w)
			var r Request
			for i := 0; i < ops; i++ {
				g.Next(&r)
				if r.Op == vocab.OpInsert {
					keys <- r.KeyNum
				}
			}
			done <- struct{}{}
		}(w)
	}
	for w := 0; w < workers; w++ {
		<-done
	}
	close(keys)
	seen := map[uint64]bool{}
	for k := range keys {
		if seen[k] {
			t.Fatalf("key %d inserted twice", k)
		}
		seen[k] = true
	}
	if uint64(len(seen)) != ks.inserts.Load() {
		t.Errorf("%d distinct inserts, keyspace counted %d", len(seen), ks.inserts.Load())
	}
}

func TestLatestReadsOnlyCompletedInserts(t *testing.T) {
	// Worker a inserts, then stays busy; worker b must not read a's key
	// (it does not exist yet) until a comes back for its next request.
	// Then a's key is the most popular read of b.
	ins := spec(DistLatest, 100, vocab.Mix{Op: vocab.OpInsert, Weight: 1})
	rd := spec(DistLatest, 100, vocab.Mix{Op: vocab.OpRead, Weight: 1})
	ks := NewKeyspace(ins, 0, 1)
	a := NewGenerator(ins, ks, 1, 0)
	b := NewGenerator(rd, ks, 1, 1)
	var ra, rb Request
	a.Next(&ra) // insert of key 100, in flight
	if ra.KeyNum != 100 {
		t.Fatalf("insert key %d, want 100", ra.KeyNum)
	}
	a2 := NewGenerator(ins, ks, 2, 2)
	var r2 Request
	a2.Next(&r2) // insert of key 101, in flight
	a2.Next(&r2) // 101 done, 102 in flight; 100 is not done, so nothing is visible
	for i := 0; i < 2000; i++ {
		b.Next(&rb)
		if rb.KeyNum >= 100 {
			t.Fatalf("read key %d while inserts from 100 on are not all done", rb.KeyNum)
		}
	}
	a.Next(&ra) // 100 done: 100 and 101 become visible; 102 still in flight
	hits := 0
	for i := 0; i < 2000; i++ {
		b.Next(&rb)
		if rb.KeyNum > 101 {
			t.Fatalf("read key %d, in flight", rb.KeyNum)
		}
		if rb.KeyNum == 101 {
			hits++
		}
	}
	if hits < 100 {
		t.Errorf("newest completed key read %d of 2000 times, want about a fifth", hits)
	}
}

// KeyName names a record as the generator's operations do.
func TestKeyNameMatchesTheGenerator(t *testing.T) {
	for _, ordered := range []bool{false, true} {
		s, err := Preset("ycsb-a")
		if err != nil {
			t.Fatal(err)
		}
		s.Records, s.OrderedInserts, s.KeyPadding = 1000, ordered, 12
		s.EnsureDefaults()
		g := NewGenerator(&s, NewKeyspace(&s, 0, 1), 1, 0)
		var req Request
		for _, k := range []uint64{0, 1, 999} {
			g.Load(&req, k)
			if got := s.KeyName(k); got != string(req.Key) {
				t.Errorf("ordered=%v: KeyName(%d) = %q, the generator's key is %q", ordered, k, got, req.Key)
			}
		}
	}
}
