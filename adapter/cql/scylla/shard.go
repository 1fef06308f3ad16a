package scylla

import "math/bits"

// Sharder maps a Murmur3 token to the shard of a node that owns it, by the
// biased-token-round-robin algorithm: bias the token by 2^63 (so that the
// smallest token is 0), shift out the ignore_msb most significant bits,
// and scale the remaining fraction of 2^64 by the shard count:
//
//	shard = ((token + 2^63) << ignore_msb mod 2^64) * nr_shards / 2^64
//
// ScyllaDB's docs/dev/protocol-extensions.md ("Intranode sharding")
// defines it in infinite-precision arithmetic; the 128-bit product is
// bits.Mul64's high word.
type Sharder struct {
	n   uint64
	msb uint
}

// NewSharder is the map of a node with n shards and ignore_msb bits.
func NewSharder(n int, ignoreMSB uint) Sharder {
	return Sharder{n: uint64(max(n, 1)), msb: ignoreMSB & 63}
}

// Shards is the shard count.
func (s Sharder) Shards() int { return int(s.n) }

// ShardOf is the shard owning token. It does not allocate.
func (s Sharder) ShardOf(token int64) int {
	biased := (uint64(token) + 1<<63) << s.msb
	hi, _ := bits.Mul64(biased, s.n)
	return int(hi)
}
