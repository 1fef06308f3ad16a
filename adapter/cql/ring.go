package cql

import (
	"encoding/binary"
	"math"
	"math/bits"
	"sort"
	"strconv"
)

// Token-aware routing for the native worker: the Murmur3Partitioner's token
// of a partition key, and the ring of the nodes' tokens (from the driver's
// view of system.local and system.peers), so that each request goes to a
// node that owns its key.

// murmur3Token is Cassandra's Murmur3Partitioner token of a single-column
// partition key: the first half of MurmurHash3 x64 128 with seed 0, as
// Cassandra computes it (its tail bytes are sign-extended, unlike the
// reference implementation), with Long.MIN_VALUE mapped to Long.MAX_VALUE.
func murmur3Token(data []byte) int64 {
	const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f
	var h1, h2 uint64
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[nblocks*16:]
	sx := func(i int) uint64 { return uint64(int64(int8(tail[i]))) } // Java's signed byte
	var k1, k2 uint64
	switch len(tail) {
	case 15:
		k2 ^= sx(14) << 48
		fallthrough
	case 14:
		k2 ^= sx(13) << 40
		fallthrough
	case 13:
		k2 ^= sx(12) << 32
		fallthrough
	case 12:
		k2 ^= sx(11) << 24
		fallthrough
	case 11:
		k2 ^= sx(10) << 16
		fallthrough
	case 10:
		k2 ^= sx(9) << 8
		fallthrough
	case 9:
		k2 ^= sx(8)
		k2 *= c2
		k2 = bits.RotateLeft64(k2, 33)
		k2 *= c1
		h2 ^= k2
		fallthrough
	case 8:
		k1 ^= sx(7) << 56
		fallthrough
	case 7:
		k1 ^= sx(6) << 48
		fallthrough
	case 6:
		k1 ^= sx(5) << 40
		fallthrough
	case 5:
		k1 ^= sx(4) << 32
		fallthrough
	case 4:
		k1 ^= sx(3) << 24
		fallthrough
	case 3:
		k1 ^= sx(2) << 16
		fallthrough
	case 2:
		k1 ^= sx(1) << 8
		fallthrough
	case 1:
		k1 ^= sx(0)
		k1 *= c1
		k1 = bits.RotateLeft64(k1, 31)
		k1 *= c2
		h1 ^= k1
	}
	h1 ^= uint64(n)
	h2 ^= uint64(n)
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	t := int64(h1)
	if t == math.MinInt64 {
		return math.MaxInt64
	}
	return t
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// ring maps tokens to hosts: a node owns the range that ends at each of its
// tokens (a key with token t belongs to the first token >= t, wrapping).
type ring struct {
	tokens []int64
	hosts  []int // index into the worker's hosts
}

// newRing builds a ring from each host's tokens as strings (Murmur3 tokens
// are decimal int64s). Unparsable tokens (another partitioner) give an
// empty ring: requests then go round robin.
func newRing(tokens [][]string) ring {
	type ent struct {
		t int64
		h int
	}
	var all []ent
	for h, ts := range tokens {
		for _, s := range ts {
			t, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return ring{}
			}
			all = append(all, ent{t, h})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].t < all[j].t })
	r := ring{tokens: make([]int64, len(all)), hosts: make([]int, len(all))}
	for i, e := range all {
		r.tokens[i], r.hosts[i] = e.t, e.h
	}
	return r
}

// owner is the host owning token t (the primary replica), or -1 with no ring.
func (r *ring) owner(t int64) int {
	n := len(r.tokens)
	if n == 0 {
		return -1
	}
	// Binary search without a closure (sort.Search's would not allocate
	// either, but this keeps the hot path plain).
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if r.tokens[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == n {
		lo = 0
	}
	return r.hosts[lo]
}
