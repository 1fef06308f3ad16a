// Package scylla is what a CQL client needs of ScyllaDB's extensions to
// the native protocol (docs/dev/protocol-extensions.md in the ScyllaDB
// tree): the options a node advertises in its SUPPORTED response (Parse,
// of the options cqlwire.Conn.Options reads),
// which of them a client asks for in STARTUP (Supported.Startup), the shard
// that owns a token (Sharder, the biased-token-round-robin algorithm) and a
// dialer that opens a connection to a chosen shard through the shard-aware
// port (DialShard).
//
// It knows options, tokens and ports, not frames: the CQL framing is the
// client's (package cql). The name is ScyllaDB's because every option here
// is one of its own; a Cassandra node advertises none of them and Parse
// then returns the zero Supported (not sharded).
//
// What it does not do: tablets (TABLETS_ROUTING_V1/V2), whose routing is
// per table and learnt from responses, and the CDC partitioner.
package scylla

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The keys of SUPPORTED that this package reads.
const (
	KeyShard             = "SCYLLA_SHARD"
	KeyNrShards          = "SCYLLA_NR_SHARDS"
	KeyPartitioner       = "SCYLLA_PARTITIONER"
	KeyShardingAlgorithm = "SCYLLA_SHARDING_ALGORITHM"
	KeyIgnoreMSB         = "SCYLLA_SHARDING_IGNORE_MSB"
	KeyShardAwarePort    = "SCYLLA_SHARD_AWARE_PORT"
	KeyShardAwarePortSSL = "SCYLLA_SHARD_AWARE_PORT_SSL"
	KeyLWTMark           = "SCYLLA_LWT_ADD_METADATA_MARK"
	KeyRateLimitError    = "SCYLLA_RATE_LIMIT_ERROR"

	// Murmur3 is the one partitioner whose tokens the sharding algorithm
	// below is defined on.
	Murmur3 = "org.apache.cassandra.dht.Murmur3Partitioner"
	// BiasedTokenRoundRobin is the one sharding algorithm defined.
	BiasedTokenRoundRobin = "biased-token-round-robin"

	lwtMaskArg   = "LWT_OPTIMIZATION_META_BIT_MASK"
	errorCodeArg = "ERROR_CODE"
)

// Supported is what one connection's SUPPORTED response said. The zero
// value is a node without ScyllaDB's extensions (Cassandra).
type Supported struct {
	// Shard is the shard this connection is served by (SCYLLA_SHARD).
	Shard int
	// NrShards is the node's shard count (SCYLLA_NR_SHARDS); 0: the
	// node is not sharded, or advertises a sharding this package does not
	// know (see Sharded).
	NrShards int
	// Partitioner and Algorithm are SCYLLA_PARTITIONER and
	// SCYLLA_SHARDING_ALGORITHM as the node sent them.
	Partitioner, Algorithm string
	// IgnoreMSB is SCYLLA_SHARDING_IGNORE_MSB (bits, 0-63).
	IgnoreMSB uint
	// ShardAwarePort and ShardAwarePortSSL are the ports where the
	// client's source port chooses the shard; 0: absent.
	ShardAwarePort, ShardAwarePortSSL uint16
	// LWTMark: the node sets LWTMask in the flags of a prepared
	// statement's metadata when the statement is a lightweight transaction
	// (SCYLLA_LWT_ADD_METADATA_MARK).
	LWTMark bool
	LWTMask uint32
	// RateLimit: the node reports a per-partition rate limit with
	// RateLimitCode as its error code (SCYLLA_RATE_LIMIT_ERROR).
	RateLimit     bool
	RateLimitCode int32
}

// Sharded reports whether requests can be routed to shards: the node
// advertised a shard count, the Murmur3 partitioner and the
// biased-token-round-robin algorithm.
func (s *Supported) Sharded() bool { return s.NrShards > 0 }

// Sharder is the node's token-to-shard map (valid when Sharded).
func (s *Supported) Sharder() Sharder { return NewSharder(s.NrShards, s.IgnoreMSB) }

// Startup is the options a client adds to its STARTUP to enable the
// extensions it understands: the LWT mark and the rate-limit error (the
// sharding information needs no negotiation). Without them a node sends no
// LWT mark and reports a rate limit as a Config_error.
func (s *Supported) Startup() [][2]string {
	var o [][2]string
	if s.LWTMark {
		o = append(o, [2]string{KeyLWTMark, lwtMaskArg + "=" + strconv.FormatUint(uint64(s.LWTMask), 10)})
	}
	if s.RateLimit {
		o = append(o, [2]string{KeyRateLimitError, ""})
	}
	return o
}

// maxShards bounds SCYLLA_NR_SHARDS: ScyllaDB runs one shard per core, and
// a pool per shard per node of more than this is a misreading.
const maxShards = 1 << 12

// Parse reads a SUPPORTED response's options (its [string multimap]). A
// node without ScyllaDB's keys gives the zero Supported and no error. A
// malformed value of a key it advertises is an error naming the key: the
// client then treats the node as not sharded rather than routing on a
// misread. A sharding it does not know (another partitioner or algorithm)
// is not an error: Sharded is false and the fields say what was sent.
func Parse(opts map[string][]string) (Supported, error) {
	var s Supported
	var errs []error
	num := func(key string, bits int, set func(uint64)) {
		v, ok := first(opts, key)
		if !ok {
			return
		}
		n, err := strconv.ParseUint(v, 10, bits)
		if err != nil {
			errs = append(errs, fmt.Errorf("scylla: %s=%q is not a %d-bit unsigned number", key, v, bits))
			return
		}
		set(n)
	}
	num(KeyShard, 16, func(n uint64) { s.Shard = int(n) })
	num(KeyNrShards, 16, func(n uint64) { s.NrShards = int(n) })
	num(KeyIgnoreMSB, 8, func(n uint64) { s.IgnoreMSB = uint(n) })
	num(KeyShardAwarePort, 16, func(n uint64) { s.ShardAwarePort = uint16(n) })
	num(KeyShardAwarePortSSL, 16, func(n uint64) { s.ShardAwarePortSSL = uint16(n) })
	s.Partitioner, _ = first(opts, KeyPartitioner)
	s.Algorithm, _ = first(opts, KeyShardingAlgorithm)
	if err := s.parseExtensions(opts); err != nil {
		errs = append(errs, err)
	}
	if _, ok := opts[KeyNrShards]; ok && len(errs) == 0 {
		errs = append(errs, s.checkSharding())
	}
	if err := errors.Join(errs...); err != nil {
		s.NrShards = 0
		return s, err
	}
	if s.Partitioner != Murmur3 || s.Algorithm != BiasedTokenRoundRobin {
		s.NrShards = 0 // a sharding this package cannot compute
	}
	return s, nil
}

// checkSharding checks the numbers the shard computation relies on.
func (s *Supported) checkSharding() error {
	switch {
	case s.NrShards < 1 || s.NrShards > maxShards:
		return fmt.Errorf("scylla: %s=%d is out of range 1..%d", KeyNrShards, s.NrShards, maxShards)
	case s.Shard >= s.NrShards:
		return fmt.Errorf("scylla: %s=%d is not below %s=%d", KeyShard, s.Shard, KeyNrShards, s.NrShards)
	case s.IgnoreMSB > 63:
		return fmt.Errorf("scylla: %s=%d is more than 63 bits", KeyIgnoreMSB, s.IgnoreMSB)
	}
	return nil
}

// parseExtensions reads the extensions whose values are ARG=VALUE pairs.
func (s *Supported) parseExtensions(opts map[string][]string) error {
	if vs, ok := opts[KeyLWTMark]; ok {
		v, found := arg(vs, lwtMaskArg)
		n, err := strconv.ParseUint(v, 10, 32)
		if !found || err != nil || n == 0 {
			return fmt.Errorf("scylla: %s without a nonzero 32-bit %s (got %q)", KeyLWTMark, lwtMaskArg, vs)
		}
		s.LWTMark, s.LWTMask = true, uint32(n)
	}
	if vs, ok := opts[KeyRateLimitError]; ok {
		v, found := arg(vs, errorCodeArg)
		n, err := strconv.ParseInt(v, 10, 32)
		if !found || err != nil {
			return fmt.Errorf("scylla: %s without a 32-bit %s (got %q)", KeyRateLimitError, errorCodeArg, vs)
		}
		s.RateLimit, s.RateLimitCode = true, int32(n)
	}
	return nil
}

func first(opts map[string][]string, key string) (string, bool) {
	vs, ok := opts[key]
	if !ok || len(vs) == 0 {
		return "", false
	}
	return vs[0], true
}

// arg finds NAME=VALUE among an extension's values.
func arg(vs []string, name string) (string, bool) {
	for _, v := range vs {
		if k, val, ok := strings.Cut(v, "="); ok && k == name {
			return val, true
		}
	}
	return "", false
}
