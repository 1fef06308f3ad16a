package recorder

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// The shard histogram has result.NewHist's layout: values recorded into it
// and drained come out as the same hdr counts as recording them directly.
func TestCountsMatchHdr(t *testing.T) {
	ref := result.NewHist()
	if n := len(ref.Export().Counts); n != countsLen {
		t.Fatalf("hdr has %d counts, the shard histogram %d", n, countsLen)
	}
	vals := []int64{0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 1e6, 1e9, result.HistHighestNs - 1, result.HistHighestNs}
	for s := 0; s < 42; s++ {
		vals = append(vals, 1<<s-1, 1<<s, 1<<s+1)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 100000; i++ {
		vals = append(vals, rng.Int64N(result.HistHighestNs>>rng.IntN(42)+1))
	}
	// Two shard histograms of one set pair, one drained directly, the other
	// through an interval's merge (dense), as the collector does both.
	var c, d counts
	c.twin, d.twin = &d, &c
	for _, v := range vals {
		if err := ref.RecordValue(v); err != nil {
			t.Fatal(err)
		}
		c.add(v)
		if index(valueAt(index(v))) != index(v) {
			t.Fatalf("valueAt(index(%d)) = %d is in another bucket", v, valueAt(index(v)))
		}
	}
	for k := range c.b {
		if (c.b[k] == nil) != (d.b[k] == nil) {
			t.Fatalf("octave %d allocated in one histogram of the pair only", k)
		}
	}
	for _, v := range vals {
		d.add(v)
	}
	// c as the phase's service time is (moveTo), d as its latency is:
	// through the interval's merge (dense) into the phase's, into a counts
	// array beside (a stored interval's) and an hdr histogram (a live
	// window's).
	var pc, pd phaseCounts
	c.moveTo(&pc)
	var iv dense
	d.moveInto(&iv)
	also, win := make([]uint64, countsLen), result.NewHist()
	iv.drainTo(&pd, also, win)
	a, e := pc.hist(), pd.hist()
	b := result.NewHist()
	for i, n := range also {
		if n > 0 {
			_ = b.RecordValues(valueAt(i), int64(n))
		}
	}
	if !slices.Equal(win.Export().Counts, ref.Export().Counts) {
		t.Fatal("the window's counts differ from hdr's")
	}
	for _, h := range []*hdr.Histogram{a, b, e} {
		if !slices.Equal(h.Export().Counts, ref.Export().Counts) {
			t.Fatal("drained counts differ from hdr's")
		}
	}
	if a.TotalCount() != int64(len(vals)) || a.Max() != ref.Max() || a.Min() != ref.Min() || a.ValueAtQuantile(99.9) != ref.ValueAtQuantile(99.9) {
		t.Fatalf("drained histogram: total %d max %d min %d, hdr: %d %d %d", a.TotalCount(), a.Max(), a.Min(), ref.TotalCount(), ref.Max(), ref.Min())
	}
	for _, x := range []*counts{&c, &d} {
		for _, blk := range x.b {
			if blk != nil && *blk != (block{}) {
				t.Fatal("drain left counts behind")
			}
		}
		if x.blocks != 0 || x.nspill != 0 {
			t.Fatal("drain left block bits set or values spilled")
		}
	}
	if iv != (dense{}) {
		t.Fatal("drain left interval counts behind")
	}
}

// Rare outliers allocate nothing (issue 34: a long run's memory grew as
// they reached octaves not seen before): a shard histogram takes up to
// spillLen of them an interval without a block, and the phase's counts
// up to promoteAt distinct ones an octave; a burst of more gets its block. The counts
// stay exactly hdr's throughout.
func TestRareOutliersAllocateNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	ref := result.NewHist()
	var c, d counts // the two sets of one shard, recorded into in turn
	c.twin, d.twin = &d, &c
	var p phaseCounts
	hot := index(100_000) >> subHalfMag // 100 µs ± 20%: one octave
	const intervals, outliers = 200, 2
	for iv := range intervals {
		cur := &c
		if iv%2 == 1 {
			cur = &d
		}
		for range 2000 {
			v := 80_000 + rng.Int64N(40_000)
			cur.add(v)
			ref.RecordValue(v)
		}
		for range outliers { // 1 ms .. 1 h, log-uniform
			v := int64(1e6 * math.Pow(3.6e6, rng.Float64()))
			cur.add(v)
			ref.RecordValue(v)
		}
		cur.moveTo(&p)
	}
	for _, x := range []*counts{&c, &d} {
		for k, blk := range x.b {
			if blk != nil && k != hot {
				t.Errorf("a shard histogram grew octave %d for outliers (%d an interval, spill %d)", k, outliers, spillLen)
			}
		}
	}
	for k, blk := range p.b {
		if blk != nil && k != hot {
			t.Errorf("the phase's counts grew octave %d for %d outliers (%d pairs in it)", k, intervals*outliers, len(p.few[k]))
		}
	}
	if !slices.Equal(p.hist().Export().Counts, ref.Export().Counts) {
		t.Error("the phase's counts differ from hdr's")
	}
	// A burst past the spill in one interval gets its block (and the
	// twin's); an octave of the phase's counts with promoteAt distinct
	// values gets its block, and so does a count past 2^32: still exact.
	for range spillLen + 1 {
		v := 5e9 + rng.Int64N(1e9)
		c.add(v)
		ref.RecordValue(v)
	}
	if c.b[index(5e9)>>subHalfMag] == nil || d.b[index(5e9)>>subHalfMag] == nil {
		t.Error("a burst past the spill grew no block (or not the twin's)")
	}
	dense := index(1<<21) >> subHalfMag
	for j := range promoteAt + 1 {
		v := int64(1<<21 + j<<11) // one value in each of the octave's buckets
		c.add(v)
		ref.RecordValue(v)
	}
	c.moveTo(&p)
	huge := index(7e11)
	p.addAt(huge, 1<<33)
	ref.RecordValues(valueAt(huge), 1<<33)
	for k, blk := range p.b {
		want := k == hot || k == dense || k == huge>>subHalfMag
		if (blk != nil) != want || (blk != nil && p.few[k] != nil) {
			t.Errorf("octave %d: block %v (want %v), %d pairs", k, blk != nil, want, len(p.few[k]))
		}
	}
	if !slices.Equal(p.hist().Export().Counts, ref.Export().Counts) {
		t.Error("the phase's counts differ from hdr's after blocks grew")
	}
}

// RecordBegin keeps the shard in flight: the buckets of a stall after it are
// outstanding, and its ops are counted like Record's.
func TestRecordBeginKeepsRequestInFlight(t *testing.T) {
	r := New(Config{Shards: 1, BucketWidth: 20 * time.Millisecond})
	r.Start()
	sh := r.Shard(0)
	time.Sleep(50 * time.Millisecond) // idle
	sh.Begin()
	var sent int64
	for i := 0; i < 10; i++ {
		t0 := r.Now()
		sh.RecordBegin(vocab.OpRead, t0, t0, r.Now(), 1, vocab.ClassNone)
		sent = r.Now() // the next request is sent now
	}
	time.Sleep(70 * time.Millisecond) // the next request is in flight and stalls
	sh.Record(vocab.OpRead, sent, sent, r.Now(), 1, vocab.ClassNone)
	p := r.Stop()
	o := p.Buckets.Outstanding
	if len(o) < 6 || o[0] || !o[4] || !o[5] {
		t.Fatalf("outstanding %v: want idle buckets clear, stall buckets set", o)
	}
	if len(p.Ops) != 1 || p.Ops[0].Count != 11 || p.Ops[0].Bytes != 11 {
		t.Fatalf("ops %+v, want 11 READs", p.Ops)
	}
}

func BenchmarkRecordBegin(b *testing.B) {
	r := New(Config{Shards: 1})
	r.Start()
	defer r.Stop()
	sh := r.Shard(0)
	sh.Begin()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := r.Now()
		sh.RecordBegin(vocab.OpRead, t0, t0, r.Now(), 0, vocab.ClassNone)
	}
}

// BenchmarkIntervalTick: the collector's once-a-second work in an open loop
// (latency, service time and schedule lag of two op types in every shard,
// values over three octaves), which holds the only P of a one-core loader
// while it runs: its time is schedule lag for the operations due meanwhile.
func BenchmarkIntervalTick(b *testing.B) {
	r := New(Config{Shards: 2, ServiceTime: true, BucketWidth: 20 * time.Millisecond})
	rng := rand.New(rand.NewPCG(1, 2))
	fill := func() {
		for _, s := range r.shards {
			for i := 0; i < 2000; i++ {
				op := vocab.OpRead
				if i%2 == 1 {
					op = vocab.OpUpdate
				}
				v := 20_000 + rng.Int64N(140_000)
				s.Record(op, 0, v/10, v, 100, vocab.ClassNone)
			}
		}
	}
	b.ReportAllocs()
	var at int64
	for b.Loop() {
		b.StopTimer()
		fill()
		at += int64(time.Second)
		b.StartTimer()
		r.mu.Lock()
		r.intervalTick(at)
		r.mu.Unlock()
	}
}

// A stall's burst past a shard histogram's spill, into octaves without a
// block, takes its blocks from the shard's reserve: the record path
// allocates nothing, and the collector tops the reserve up at the swap.
func TestBurstPastTheSpillAllocatesNothing(t *testing.T) {
	if raceOn {
		testenv.Skip(t, testenv.Race, "allocation counts are not the program's under the race detector")
	}
	r := New(Config{Shards: 1, OnInterval: func(result.Interval) {}})
	sh := r.Shard(0)
	sh.Record(vocab.OpRead, 0, 0, 100_000, 0, vocab.ClassNone) // the op's histograms exist: spilled
	for i := range spillLen - 1 {
		sh.Record(vocab.OpRead, 0, 0, int64(1e6+i), 0, vocab.ClassNone) // fills the spill
	}
	v := int64(2e6)
	burst := func() { // each value in an octave with no block yet: one from the reserve, and its twin's
		sh.Record(vocab.OpRead, 0, 0, v, 0, vocab.ClassNone)
		v *= 2
	}
	if a := testing.AllocsPerRun(reserveLen/2-1, burst); a != 0 { // AllocsPerRun runs it once more first
		t.Errorf("a burst past the spill allocates %.1f times a value on the record path", a)
	}
	if n := len(sh.reserve.free); n != 0 {
		t.Fatalf("the reserve holds %d blocks after %d octaves were grown", n, reserveLen/2)
	}
	r.mu.Lock()
	r.intervalTick(1e9)
	r.mu.Unlock()
	if n := len(sh.reserve.free); n != reserveLen {
		t.Errorf("the collector left %d blocks in the reserve, want %d", n, reserveLen)
	}
	for k := range sh.cur.lat[vocab.OpRead].b {
		if (sh.cur.lat[vocab.OpRead].b[k] == nil) != (sh.spare.lat[vocab.OpRead].b[k] == nil) {
			t.Errorf("octave %d has a block in one set of the pair only", k)
		}
	}
}

// Blocks a burst grew go back once they have been empty for a minute (in
// both sets), so a long run holds the blocks its load uses, not every
// octave a stall ever reached; the octaves in use keep theirs, and the
// phase's counts stay exact.
func TestBurstBlocksGoBack(t *testing.T) {
	r := New(Config{Shards: 1, OnInterval: func(result.Interval) {}})
	sh := r.Shard(0)
	ref := result.NewHist()
	rec := func(v int64) {
		sh.Record(vocab.OpRead, 0, 0, v, 0, vocab.ClassNone)
		ref.RecordValue(v)
	}
	hot := index(100_000) >> subHalfMag
	at := int64(0)
	tick := func() {
		for range 3000 { // more than the spill: the hot octave gets its block
			rec(100_000 + at%1000)
		}
		at += 1e9
		r.mu.Lock()
		r.intervalTick(at)
		r.mu.Unlock()
	}
	tick()
	for i := range spillLen + 100 { // a stall: past the spill, into octaves without a block
		rec(int64(50e6 + i*20_000))
	}
	blocks := func() (n int) {
		for _, set := range []*hset{sh.cur, sh.spare} {
			for k, b := range set.lat[vocab.OpRead].b {
				if b != nil && k != hot {
					n++
				}
			}
		}
		return n
	}
	tick()
	if blocks() == 0 {
		t.Fatal("the burst grew no block")
	}
	for range 2*idleDrains - 2 {
		tick()
	}
	if n := blocks(); n == 0 {
		t.Errorf("the burst's blocks went back before they were empty for %d drains", idleDrains)
	}
	for range 4 {
		tick()
	}
	if n := blocks(); n != 0 {
		t.Errorf("%d blocks of the burst are still held after %d empty intervals", n, 2*idleDrains+2)
	}
	if sh.cur.lat[vocab.OpRead].b[hot] == nil || sh.spare.lat[vocab.OpRead].b[hot] == nil {
		t.Error("the octave in use lost its block")
	}
	if n := len(sh.reserve.free); n != reserveLen {
		t.Errorf("the reserve holds %d blocks, want %d", n, reserveLen)
	}
	for range spillLen + 100 { // the next stall, into the same octaves: blocks from the reserve
		rec(50e6)
	}
	tick()
	if !slices.Equal(r.total[vocab.OpRead].lat.hist().Export().Counts, ref.Export().Counts) {
		t.Error("the phase's counts differ from hdr's")
	}
}
