package recorder

import (
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// counts is a shard's histogram: the counts array of an HDR histogram with
// result.NewHist's layout (TestCountsMatchHdr pins it) (1 ns .. 1 h, 3 significant figures), without the
// rest. Recording is one index computation and one increment (hdr's
// RecordValue is a method call, an error check and a total); the collector
// drains it into real hdr.Histograms once per interval, adding each
// non-empty bucket at its lowest value, which lands in the same bucket, so
// the hdr histograms are exactly what recording every value into them
// would have made.
type counts struct {
	n [countsLen]uint64
	// blocks has bit k set when n[k<<subHalfMag:(k+1)<<subHalfMag] may hold
	// a count: the collector walks only those 1024-count blocks (latencies
	// of an interval span a few octaves of the 33), so its once-a-second
	// work, which holds the only P of a one-core loader, stays short.
	blocks uint64
}

// add counts one value.
func (c *counts) add(v int64) {
	i := index(v)
	c.n[i]++
	c.blocks |= 1 << uint(i>>subHalfMag)
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

// drainInto adds c to a (and to b and d, if not nil) and zeroes c.
func (c *counts) drainInto(a, b *hdr.Histogram, d ...*hdr.Histogram) {
	c.each(func(i int, n uint64) {
		v := valueAt(i)
		a.RecordValues(v, int64(n))
		if b != nil {
			b.RecordValues(v, int64(n))
		}
		for _, h := range d {
			if h != nil {
				h.RecordValues(v, int64(n))
			}
		}
	})
}

// moveInto adds c to d and zeroes c.
func (c *counts) moveInto(d *counts) {
	d.blocks |= c.blocks
	c.each(func(i int, n uint64) { d.n[i] += n })
}

// each calls f for every non-zero count of the blocks in use, in index
// order, and zeroes them.
func (c *counts) each(f func(i int, n uint64)) {
	for m := c.blocks; m != 0; m &= m - 1 {
		k := bits.TrailingZeros64(m)
		blk := c.n[k<<subHalfMag : (k+1)<<subHalfMag]
		for j, n := range blk {
			if n != 0 {
				f(k<<subHalfMag+j, n)
				blk[j] = 0
			}
		}
	}
	c.blocks = 0
}
