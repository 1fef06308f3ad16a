package recorder

import (
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// Values recorded across shards and intervals come out in the totals, the
// intervals and the buckets, with latency and service time kept apart.
func TestRecorderSeries(t *testing.T) {
	r := New(Config{Shards: 3, BucketWidth: 10 * time.Millisecond, IntervalWidth: 50 * time.Millisecond, ServiceTime: true})
	r.Start()
	var wg sync.WaitGroup
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			sh := r.Shard(w)
			for i := 0; i < 1000; i++ {
				sh.Begin()
				now := r.Now()
				// latency 2 ms from the intended start, service 1 ms
				sh.Record(vocab.OpRead, now-2_000_000, now-1_000_000, now, 10, vocab.ClassNone)
				if i%100 == 0 {
					sh.Begin()
					sh.Record(vocab.OpUpdate, now, now, now, 0, vocab.ClassTimeout)
				}
				if i%50 == 0 {
					time.Sleep(5 * time.Millisecond)
				}
			}
		}(w)
	}
	wg.Wait()
	r.RecordAsync(vocab.OpConsume, 3_000_000, 100, vocab.ClassNone)
	p := r.Stop()

	byOp := map[string]result.OpTotal{}
	for _, o := range p.Ops {
		byOp[o.Op] = o
	}
	rd := byOp["READ"]
	if rd.Count != 3000 || rd.Bytes != 30000 {
		t.Fatalf("READ count %d bytes %d, want 3000 and 30000", rd.Count, rd.Bytes)
	}
	if rd.Latency.P50Ns < 1_990_000 || rd.Latency.P50Ns > 2_010_000 {
		t.Errorf("READ latency p50 %d ns, want 2 ms", rd.Latency.P50Ns)
	}
	if rd.Service.P50Ns < 990_000 || rd.Service.P50Ns > 1_010_000 {
		t.Errorf("READ service p50 %d ns, want 1 ms", rd.Service.P50Ns)
	}
	up := byOp["UPDATE"]
	if up.Count != 0 || up.Errors["timeout"] != 30 {
		t.Errorf("UPDATE count %d errors %v, want 0 and 30 timeouts", up.Count, up.Errors)
	}
	if c := byOp["CONSUME"]; c.Count != 1 || c.Latency.MaxNs < 2_990_000 {
		t.Errorf("CONSUME = %+v", c)
	}
	var iv, bk uint64
	for _, i := range p.Intervals {
		for _, o := range i.Ops {
			if o.Op == "READ" {
				iv += o.Count
			}
		}
	}
	for _, c := range p.Buckets.Counts["READ"] {
		bk += uint64(c)
	}
	if iv != 3000 || bk != 3000 {
		t.Errorf("READ in intervals %d, in buckets %d, want 3000", iv, bk)
	}
	if len(p.Intervals) < 2 {
		t.Errorf("only %d intervals of 50 ms", len(p.Intervals))
	}
	if len(p.Buckets.Outstanding) != len(p.Buckets.Counts["READ"]) {
		t.Errorf("outstanding has %d buckets, counts %d", len(p.Buckets.Outstanding), len(p.Buckets.Counts["READ"]))
	}
}

// A bucket with a request in flight and nothing completed is marked outstanding
// (a stall); an idle bucket is not. The test steps on the collector's own
// events (the in-flight samples it takes at each bucket's end), not on
// sleeps: a late collector on a loaded machine moves the buckets, not the
// outcome.
func TestOutstandingTellsStallFromIdle(t *testing.T) {
	r := New(Config{Shards: 1, BucketWidth: 20 * time.Millisecond})
	r.Start()
	sh := r.Shard(0)
	waitSamples(t, r, 2) // idle buckets
	r.mu.Lock()
	sh.Begin()
	first := samples(r) // the first bucket sampled with the request in flight
	r.mu.Unlock()
	t0 := r.Now()
	waitSamples(t, r, first+2) // in flight, nothing completes
	r.mu.Lock()
	sh.Record(vocab.OpRead, t0, t0, r.Now(), 0, vocab.ClassNone)
	end := samples(r)
	r.mu.Unlock()
	p := r.Stop()
	o := p.Buckets.Outstanding
	if len(o) < end {
		t.Fatalf("%d buckets, %d sampled before the request completed", len(o), end)
	}
	for i := 0; i < first; i++ {
		if o[i] {
			t.Errorf("idle bucket %d (of %d before the request began) marked outstanding: %v", i, first, o)
		}
	}
	for i := first; i < end; i++ {
		if !o[i] {
			t.Errorf("bucket %d (request in flight in buckets %d to %d) not marked: %v", i, first, end-1, o)
		}
	}
}

// samples is how many buckets' in-flight state the collector has sampled
// (harvested buckets, then the samples waiting). Called with r.mu held.
func samples(r *Recorder) int { return int(r.nb) + len(r.inflightAt) }

// waitSamples waits until the collector has sampled n buckets. The minute
// bound only ends a collector that stopped: no loaded machine is that late.
func waitSamples(t *testing.T, r *Recorder, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
		r.mu.Lock()
		got := samples(r)
		r.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector sampled %d buckets in a minute, want %d", got, n)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	r := New(Config{Shards: 1})
	r.Start()
	defer r.Stop()
	sh := r.Shard(0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sh.Begin()
		t0 := r.Now()
		sh.Record(vocab.OpRead, t0, t0, r.Now(), 0, vocab.ClassNone)
	}
}

func BenchmarkNow(b *testing.B) {
	r := New(Config{})
	r.Start()
	defer r.Stop()
	for i := 0; i < b.N; i++ {
		r.Now()
	}
}

// BenchmarkTimeNow is the peer of BenchmarkNow: what time.Now would cost.
func BenchmarkTimeNow(b *testing.B) {
	base := time.Now()
	for i := 0; i < b.N; i++ {
		_ = time.Since(base)
	}
}

// Completions land in the bucket of their end time, not the bucket the
// collector happens to close next: a starved collector (or a burst recorded
// at once) must not make lumps and false stalls. A completion recorded after
// its bucket was harvested goes into the next bucket, not nowhere.
func TestBucketsByCompletionTime(t *testing.T) {
	r := New(Config{Shards: 2, BucketWidth: 10 * time.Millisecond})
	r.Start()
	ms := int64(time.Millisecond)
	for i := 0; i < 100; i++ {
		r.Shard(i).Record(vocab.OpRead, 0, 0, 5*ms, 1, vocab.ClassNone)  // bucket 0
		r.Shard(i).Record(vocab.OpRead, 0, 0, 25*ms, 1, vocab.ClassNone) // bucket 2
	}
	time.Sleep(80 * time.Millisecond)                                // buckets 0..6 harvested
	r.Shard(0).Record(vocab.OpRead, 0, 0, 15*ms, 1, vocab.ClassNone) // bucket 1, already harvested: late
	p := r.Stop()
	c := p.Buckets.Counts["READ"]
	if c[0] != 100 || c[1] != 0 || c[2] != 100 {
		t.Fatalf("buckets %v: want 100 in bucket 0, 0 in 1, 100 in 2", c[:4])
	}
	var total uint32
	for _, n := range c {
		total += n
	}
	if total != 201 {
		t.Errorf("buckets hold %d completions, want 201 (the late one kept)", total)
	}
}
