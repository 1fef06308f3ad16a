package recorder

import (
	"math"
	"math/bits"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/result"
)

// counts is a shard's histogram: the counts array of an HDR histogram with
// result.NewHist's layout (TestCountsMatchHdr pins it) (1 ns .. 1 h, 3
// significant figures), without the rest, in blocks of 1024 counts (one
// octave each), one allocated when a value falls in its octave while the
// spill is full (spillLen values an interval of all the octaves without a
// block), so rare outliers allocate nothing. Recording is
// one index computation, one load and one increment (hdr's RecordValue is a
// method call, an error check and a total); the collector moves it into
// the phase's counts (phaseCounts, the same layout) once per interval, and
// makes hdr histograms of them by adding each non-empty bucket at its
// lowest value, which lands in the same bucket, so the hdr histograms are
// exactly what recording every value into them would have made.
//
// Why blocks: a shard holds eight of these per op type in an open loop
// (latency, service time, lag and attributable latency, twice for the
// swap), and the latencies of one op span a few of the 33 octaves. Whole
// arrays of uint64 were 270 KB each: 85 MB of live heap from the first
// second for ten op types on four shards (a heap profile of the soak's
// load, issue 34), which the collector then let double before collecting.
// Blocks of uint32 hold the octaves used at 4 KB each. A count wraps at
// 2^32 values of one bucket in one shard in one interval: a collector
// starved for minutes at tens of millions of operations a second.
type counts struct {
	b [bucketCount + 1]*block
	// blocks has bit k set when b[k] may hold a count: the collector walks
	// only those blocks, so its once-a-second work, which holds the only P
	// of a one-core loader, stays short.
	blocks uint64
	// twin is the same histogram of the shard's other set (hset): a block
	// is allocated in both at once, so that the set the workers record into
	// after a swap has it already (one allocation per octave per op per
	// histogram in a phase, as newHists is one per op). The twin may be
	// being drained meanwhile: only its nil blocks are written, which the
	// collector does not read (their bits are clear).
	twin *counts
	// spill holds the indexes of values in octaves with no block, up to
	// spillLen an interval, which the collector drains with the blocks: a
	// rare outlier (a GC pause, a scheduler hiccup, a slow request) costs
	// no 4 KB block, so a long run's memory does not grow as outliers reach
	// octaves not seen before (the soak of issue 34 grew 38 MB an hour by
	// them). A burst of more in one interval grows the octave's block.
	nspill int
	spill  [spillLen]int32
	// reserve is the shard's blocks made ahead (nil: blocks are made when
	// needed, as in tests of a lone histogram).
	reserve *blockReserve
	// idle[k] is how many drains in a row found block k empty (at most
	// 255): a block grown by a burst (a stall's latencies and lags) goes
	// back to the reserve when it and its twin's have been empty for
	// idleDrains (dropIdle), so a long run's blocks are those its load
	// uses now and its worst burst, not every octave a burst ever reached.
	idle [bucketCount + 1]uint8
	// drained is blocks as the last drain found it (which blocks had values).
	drained uint64
}

// idleDrains is how many drains of one set in a row (one every other
// interval: a minute) a block must have been empty before dropIdle takes
// it and its twin's back.
const idleDrains = 30

// blockReserve is a shard's blocks made ahead by the collector, which a
// burst past a histogram's spill takes on the record path instead of
// allocating there (the hot path allocates nothing, a stall's burst
// included). Guarded by the shard's mutex; the collector tops it up once
// an interval (Shard.refill).
type blockReserve struct {
	free []*block
}

// reserveLen is the blocks a shard keeps ahead: a burst past the spill
// into four octaves without a block, each taken with its twin's (32 KB a
// shard). A larger burst in one interval makes the rest where it lands.
const reserveLen = 8

func newReserve() *blockReserve {
	r := &blockReserve{free: make([]*block, reserveLen)}
	for i := range r.free {
		r.free[i] = new(block)
	}
	return r
}

// dropIdle counts the drains that found each block of c empty (c was just
// drained) and takes back the blocks that have been empty for idleDrains
// drains of c and of its twin, whose octave got no value since its own
// drain (so both are zero): into r while it has room, else
// to the collector. The pair keeps blocks in the same octaves. Called with
// the shard's mutex held, after c's drain.
func (c *counts) dropIdle(r *blockReserve) {
	t := c.twin
	if t == nil {
		return
	}
	for k, b := range c.b {
		switch {
		case b == nil:
			continue
		case c.drained&(1<<uint(k)) != 0:
			c.idle[k] = 0
		case c.idle[k] < 255:
			c.idle[k]++
		}
		if c.idle[k] < idleDrains || t.idle[k] < idleDrains-1 || t.blocks&(1<<uint(k)) != 0 || t.b[k] == nil {
			continue
		}
		r.put(b)
		r.put(t.b[k])
		c.b[k], t.b[k] = nil, nil
		c.idle[k], t.idle[k] = 0, 0
	}
}

// put gives back a zeroed block, kept while the reserve has room.
func (r *blockReserve) put(b *block) {
	if r != nil && len(r.free) < cap(r.free) {
		r.free = append(r.free, b)
	}
}

// take is a zeroed block: the reserve's last, or a new one when it is
// empty (or there is none).
func (r *blockReserve) take() *block {
	if r == nil || len(r.free) == 0 {
		return new(block)
	}
	b := r.free[len(r.free)-1]
	r.free[len(r.free)-1] = nil
	r.free = r.free[:len(r.free)-1]
	return b
}

// spillLen is how many values of octaves without a block a shard histogram
// takes in an interval before it grows a block: a loader stalled for 800
// ms at 100k op/s queues 80,000 operations, 2,000 per op type per shard for
// ten op types on four shards, whose latency and lag fall in octaves that
// had no block (8 KB a histogram, 64 KB per op per shard in an open loop).
// With 512 the soak of issue 34 grew a block in every op's latency and lag
// on every shard, 640 KB at a time, at each of its few stalls.
const spillLen = 2048

// block is one octave of counts.
type block [1 << subHalfMag]uint32

// add counts one value.
func (c *counts) add(v int64) {
	i := index(v)
	k := i >> subHalfMag
	b := c.b[k]
	if b == nil {
		c.miss(i)
		return
	}
	b[i&(1<<subHalfMag-1)]++
	c.blocks |= 1 << uint(k)
}

// miss counts value index i of an octave with no block: into the spill
// while it has room, else into the octave's block, taken now from the
// shard's reserve (and the twin's), which takes the spilled values of its
// octave too (the first interval of an op spills its usual values before
// their block grows).
// Called with the shard's mutex held.
//
//go:noinline
func (c *counts) miss(i int) {
	if c.nspill < len(c.spill) {
		c.spill[c.nspill] = int32(i)
		c.nspill++
		return
	}
	k := i >> subHalfMag
	blk := c.reserve.take()
	c.b[k] = blk
	if t := c.twin; t != nil && t.b[k] == nil {
		t.b[k] = c.reserve.take()
	}
	blk[i&(1<<subHalfMag-1)]++
	n := 0
	for _, j := range c.spill[:c.nspill] {
		if int(j)>>subHalfMag == k {
			blk[int(j)&(1<<subHalfMag-1)]++
		} else {
			c.spill[n] = j
			n++
		}
	}
	c.nspill = n
	c.blocks |= 1 << uint(k)
}

const (
	// For lowest trackable value 1 and 3 significant figures hdr uses
	// 2048 sub-buckets (2*10^3 rounded up to a power of two): half of them,
	// 1024 = 1<<subHalfMag, per bucket after the first.
	subHalfMag = 10
	subMask    = 1<<(subHalfMag+1) - 1
	// Buckets needed to reach result.HistHighestNs: 2048<<31 > 3.6e12.
	bucketCount = 32
	countsLen   = (bucketCount + 1) << subHalfMag
)

// index is hdr's countsIndexFor(v) for v in [0, result.HistHighestNs].
func index(v int64) int {
	b := 64 - bits.LeadingZeros64(uint64(v)|subMask) - (subHalfMag + 1)
	return b<<subHalfMag + int(v>>uint(b))
}

// valueAt is the lowest value that index maps to i.
func valueAt(i int) int64 {
	if i < 2<<subHalfMag {
		return int64(i)
	}
	b := i>>subHalfMag - 1
	return int64(i-b<<subHalfMag) << uint(b)
}

// moveInto adds c to d and zeroes c.
func (c *counts) moveInto(d *dense) {
	d.blocks |= c.blocks
	c.each(func(i int, n uint64) {
		d.n[i] += n
		d.blocks |= 1 << uint(i>>subHalfMag) // a spilled value's octave
	})
}

// each calls f for every non-zero count of the blocks in use, in index
// order, then once for each spilled value (any order, an index maybe more
// than once), and zeroes them.
func (c *counts) each(f func(i int, n uint64)) {
	c.drained = c.blocks
	for m := c.blocks; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		blk := c.b[k]
		for j, n := range blk {
			if n != 0 {
				f(k<<subHalfMag+j, uint64(n))
				blk[j] = 0
			}
		}
	}
	c.blocks = 0
	for _, i := range c.spill[:c.nspill] {
		f(int(i), 1)
	}
	c.nspill = 0
}

// dense is the collector's histogram of an interval's latencies of one op,
// every shard's merged (moveInto): the whole array, which the result's
// summary and encoding read as it is; one per op type.
type dense struct {
	n      [countsLen]uint64
	blocks uint64 // as counts.blocks
}

// each is counts.each.
func (d *dense) each(f func(i int, n uint64)) {
	for m := d.blocks; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		blk := d.n[k<<subHalfMag : (k+1)<<subHalfMag]
		for j, n := range blk {
			if n != 0 {
				f(k<<subHalfMag+j, n)
				blk[j] = 0
			}
		}
	}
	d.blocks = 0
}

// phaseCounts is a phase's histogram of one op and kind (latency, service
// time, lag, attributable latency), in blocks of uint64 as counts is in
// blocks of uint32: the collector adds each interval to it, and Stop makes
// the hdr histogram the result holds (hist). Whole hdr histograms were 270
// KB each, four per op type from the first second.
//
// An octave with no block keeps its counts in few[k], index and count
// pairs sorted by index (8 bytes each): the outliers of a phase, seen
// rarely, cost 8 bytes per distinct value rather than an 8 KB block per
// octave they reach, so the phase's memory grows with the distinct values
// it has seen, not with its length. An octave gets its block when it holds
// promoteAt pairs (half a block's memory), or when a count would pass
// 2^32. (Giving the fullest octave a block whenever 512 pairs of all
// octaves were held grew the heap by 8 KB per octave reached, for as few
// as 16 values: 142 kB in the soak's second and third minute, issue 34.)
type phaseCounts struct {
	b   [bucketCount + 1]*[1 << subHalfMag]uint64
	few [bucketCount + 1][]fewCount
}

// fewCount is a count of phaseCounts.few: the index within its octave.
type fewCount struct {
	j uint16
	n uint32
}

// promoteAt is how many pairs an octave holds before it gets its block:
// 4 KB of pairs, against the block's 8 KB.
const promoteAt = 512

// addAt adds n values at index i.
func (p *phaseCounts) addAt(i int, n uint64) {
	k := i >> subHalfMag
	if p.b[k] == nil && !p.addFew(k, uint16(i&(1<<subHalfMag-1)), n) {
		p.promote(k)
	}
	if p.b[k] != nil {
		p.b[k][i&(1<<subHalfMag-1)] += n
	}
}

// addFew adds n values at index j of octave k, which has no block, and
// says whether it could (not when the octave is full or the count would
// pass 2^32: then it needs its block).
func (p *phaseCounts) addFew(k int, j uint16, n uint64) bool {
	f := p.few[k]
	at, found := slices.BinarySearchFunc(f, j, func(c fewCount, j uint16) int { return int(c.j) - int(j) })
	switch {
	case found && uint64(f[at].n)+n <= math.MaxUint32:
		f[at].n += uint32(n)
		return true
	case found || len(f) >= promoteAt || n > math.MaxUint32:
		return false
	}
	p.few[k] = slices.Insert(f, at, fewCount{j, uint32(n)})
	return true
}

// promote gives octave k its block and moves its pairs there.
func (p *phaseCounts) promote(k int) {
	blk := new([1 << subHalfMag]uint64)
	for _, c := range p.few[k] {
		blk[c.j] += uint64(c.n)
	}
	p.b[k], p.few[k] = blk, nil
}

// hist is the hdr histogram of p (result.NewHist's layout).
func (p *phaseCounts) hist() *hdr.Histogram {
	h := result.NewHist()
	for k, blk := range p.b {
		if blk == nil {
			continue
		}
		for j, n := range blk {
			if n != 0 {
				h.RecordValues(valueAt(k<<subHalfMag+j), int64(n))
			}
		}
	}
	for k, f := range p.few {
		for _, c := range f {
			h.RecordValues(valueAt(k<<subHalfMag+int(c.j)), int64(c.n))
		}
	}
	return h
}

// moveTo adds c to p and zeroes c.
func (c *counts) moveTo(p *phaseCounts) {
	c.each(p.addAt)
}

// drainTo adds d to p, to also (a counts array of the same layout) and to
// win when they are not nil, and zeroes d.
func (d *dense) drainTo(p *phaseCounts, also []uint64, win *hdr.Histogram) {
	d.each(func(i int, n uint64) {
		p.addAt(i, n)
		if also != nil {
			also[i] += n
		}
		if win != nil {
			_ = win.RecordValues(valueAt(i), int64(n))
		}
	})
}
