// Package murmur3 is Cassandra's Murmur3Partitioner token of a partition
// key: the token a CQL client routes a request by, to a node (the ring, in
// package cql) and, on ScyllaDB, to a shard (package scylla). It is a
// package of its own so that the client and the test server (cqltest)
// compute the one token.
//
// What it does not do: keys of several columns (their composite encoding),
// or other partitioners (RandomPartitioner, ByteOrderedPartitioner).
package murmur3

import (
	"encoding/binary"
	"math"
	"math/bits"
)

const c1, c2 = 0x87c37b91114253d5, 0x4cf5ad432745937f

// Token is the Murmur3Partitioner token of a single-column partition key:
// the first half of MurmurHash3 x64 128 with seed 0, as Cassandra computes
// it (its tail bytes are sign-extended, unlike the reference
// implementation), with Long.MIN_VALUE mapped to Long.MAX_VALUE. It does not
// allocate.
func Token(data []byte) int64 {
	var h1, h2 uint64
	n := len(data)
	nblocks := n / 16
	for i := 0; i < nblocks; i++ {
		k1 := binary.LittleEndian.Uint64(data[i*16:])
		k2 := binary.LittleEndian.Uint64(data[i*16+8:])
		h1 ^= mixK1(k1)
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		h2 ^= mixK2(k2)
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	k1, k2 := tail(data[nblocks*16:])
	h1 ^= k1
	h2 ^= k2
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

func mixK1(k uint64) uint64 {
	k *= c1
	k = bits.RotateLeft64(k, 31)
	return k * c2
}

func mixK2(k uint64) uint64 {
	k *= c2
	k = bits.RotateLeft64(k, 33)
	return k * c1
}

// tail mixes the last len(t) < 16 bytes; Java's bytes are signed, so each
// is sign-extended before its shift (Cassandra's quirk, kept for
// compatibility with the tokens every node computes).
func tail(t []byte) (k1, k2 uint64) {
	sx := func(i int) uint64 { return uint64(int64(int8(t[i]))) }
	for i := len(t) - 1; i >= 8; i-- {
		k2 ^= sx(i) << (8 * uint(i-8))
	}
	for i := min(len(t), 8) - 1; i >= 0; i-- {
		k1 ^= sx(i) << (8 * uint(i))
	}
	if len(t) > 8 {
		k2 = mixK2(k2)
	}
	if len(t) > 0 {
		k1 = mixK1(k1)
	}
	return k1, k2
}

func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}
