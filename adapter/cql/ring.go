package cql

import (
	"sort"
	"strconv"

	"github.com/platbench/platbench/adapter/cql/murmur3"
)

// Token-aware routing for the native worker: the Murmur3Partitioner's token
// of a partition key, and the ring of the nodes' tokens (from the driver's
// view of system.local and system.peers), so that each request goes to a
// node that owns its key.

// murmur3Token is the Murmur3Partitioner token of a single-column
// partition key (package murmur3, which the test server shares).
func murmur3Token(data []byte) int64 { return murmur3.Token(data) }

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
