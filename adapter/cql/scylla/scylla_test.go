package scylla

import (
	"context"
	"encoding/binary"
	"errors"
	"math"
	"math/big"
	"math/rand"
	"net"
	"sort"
	"testing"

	"github.com/platbench/platbench/adapter/cql/cqlwire"
)

// shardBig is the algorithm of ScyllaDB's docs/dev/protocol-extensions.md
// ("Intranode sharding") in infinite precision, step by step as the
// document states it, with math/big: independent of ShardOf's 64-bit
// arithmetic.
func shardBig(token int64, n int, msb uint) int {
	two64 := new(big.Int).Lsh(big.NewInt(1), 64)
	b := new(big.Int).Sub(big.NewInt(token), new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))) // token - (-2^63)
	b.Lsh(b, msb)
	b.Mod(b, two64)
	b.Mul(b, big.NewInt(int64(n)))
	b.Div(b, two64)
	return int(b.Int64())
}

// TestShardOf: ShardOf against the big-integer algorithm on the extreme
// tokens and 20,000 random ones, for shard counts and ignore_msb values
// seen on real nodes (12 is ScyllaDB's default) and the edges (0, 63).
func TestShardOf(t *testing.T) {
	rng := rand.New(rand.NewSource(35))
	tokens := []int64{math.MinInt64, math.MinInt64 + 1, -1, 0, 1, math.MaxInt64}
	for range 20000 {
		tokens = append(tokens, int64(rng.Uint64()))
	}
	for _, n := range []int{1, 2, 3, 4, 7, 12, 14, 64, 255, 4096} {
		for _, msb := range []uint{0, 1, 12, 63} {
			s := NewSharder(n, msb)
			for _, tok := range tokens {
				if got, want := s.ShardOf(tok), shardBig(tok, n, msb); got != want {
					t.Fatalf("ShardOf(%d) with %d shards, ignore_msb %d = %d, want %d", tok, n, msb, got, want)
				}
			}
		}
	}
}

// TestShardOfByHand: values worked out on paper (4 shards, ignore_msb 12),
// and the two the public drivers test.
func TestShardOfByHand(t *testing.T) {
	s := NewSharder(4, 12)
	for _, c := range []struct {
		token int64
		shard int
		why   string
	}{
		{math.MinInt64, 0, "biased 0"},
		{0, 0, "biased 2^63, shifted left by 12: 0 mod 2^64"},
		{-1, 3, "biased 2^63-1, shifted: 2^64-4096; times 4 over 2^64: 3.99..."},
		{math.MinInt64 + 1<<50, 1, "biased 2^50, shifted: 2^62 = a quarter of 2^64"},
		{math.MinInt64 + 3<<50, 3, "biased 3*2^50, shifted: three quarters"},
		// scylladb/scylla-rust-driver, scylla/src/routing/sharding.rs,
		// test_shard_of (values it says come from the gocql driver; read,
		// not copied: its shard_of is the Java form of the algorithm, and
		// scylladb/gocql scylla.go's scyllaConnPicker.shardOf the same).
		{-9219783007514621794, 3, "scylla-rust-driver test_shard_of"},
		{9222582454147032830, 3, "scylla-rust-driver test_shard_of"},
	} {
		if got := s.ShardOf(c.token); got != c.shard {
			t.Errorf("ShardOf(%d) = %d, want %d (%s)", c.token, got, c.shard, c.why)
		}
		if got := shardBig(c.token, 4, 12); got != c.shard {
			t.Errorf("the big-integer form gives %d for %d, want %d: the hand value is wrong", got, c.token, c.shard)
		}
	}
}

// TestShardOfSpreads: with ignore_msb 12, consecutive token ranges of
// 2^52 cycle through the shards, the round robin the name promises.
func TestShardOfSpreads(t *testing.T) {
	s := NewSharder(7, 12)
	for i := int64(0); i < 100; i++ {
		tok := math.MinInt64 + i<<52 + 1<<40
		if got := s.ShardOf(tok); got != 0 {
			t.Fatalf("token range %d starts on shard %d, want 0", i, got)
		}
	}
	counts := make([]int, 7)
	rng := rand.New(rand.NewSource(1))
	for range 70000 {
		counts[s.ShardOf(int64(rng.Uint64()))]++
	}
	for sh, c := range counts {
		if c < 9000 || c > 11000 {
			t.Errorf("shard %d got %d of 70,000 random tokens, want about 10,000", sh, c)
		}
	}
}

func TestShardOfDoesNotAllocate(t *testing.T) {
	s := NewSharder(12, 12)
	if n := testing.AllocsPerRun(100, func() { shardSink = s.ShardOf(12345) }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}

// scyllaOpts is what a ScyllaDB 2025 node sends (the keys of
// protocol-extensions.md, values as a node of 4 shards sends them).
func scyllaOpts(shard string) map[string][]string {
	return map[string][]string{
		"CQL_VERSION":            {"3.3.1"},
		"COMPRESSION":            {"lz4", "snappy"},
		KeyShard:                 {shard},
		KeyNrShards:              {"4"},
		KeyPartitioner:           {Murmur3},
		KeyShardingAlgorithm:     {BiasedTokenRoundRobin},
		KeyIgnoreMSB:             {"12"},
		KeyShardAwarePort:        {"19042"},
		KeyShardAwarePortSSL:     {"19142"},
		KeyLWTMark:               {"LWT_OPTIMIZATION_META_BIT_MASK=2147483648"},
		KeyRateLimitError:        {"ERROR_CODE=61440"},
		"TABLETS_ROUTING_V1":     {},
		"SCYLLA_USE_METADATA_ID": {},
	}
}

func TestParse(t *testing.T) {
	s, err := Parse(scyllaOpts("3"))
	if err != nil {
		t.Fatal(err)
	}
	want := Supported{Shard: 3, NrShards: 4, Partitioner: Murmur3, Algorithm: BiasedTokenRoundRobin, IgnoreMSB: 12,
		ShardAwarePort: 19042, ShardAwarePortSSL: 19142, LWTMark: true, LWTMask: 1 << 31, RateLimit: true, RateLimitCode: 61440}
	if s != want {
		t.Errorf("Parse = %+v\nwant    %+v", s, want)
	}
	if got := s.Startup(); len(got) != 2 || got[0] != [2]string{KeyLWTMark, "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"} || got[1] != [2]string{KeyRateLimitError, ""} {
		t.Errorf("Startup = %q", got)
	}
	// Cassandra: none of the keys, not sharded, no error, nothing asked.
	c, err := Parse(map[string][]string{"CQL_VERSION": {"3.4.7"}, "PROTOCOL_VERSIONS": {"3/v3", "4/v4", "5/v5"}})
	if err != nil || c != (Supported{}) || c.Sharded() || c.Startup() != nil {
		t.Errorf("Cassandra's options: %+v, %v", c, err)
	}
	for _, tc := range []struct {
		name    string
		key     string
		vals    []string
		wantErr bool
	}{
		{"another algorithm: not sharded, no error", KeyShardingAlgorithm, []string{"modulo"}, false},
		{"another partitioner: not sharded, no error", KeyPartitioner, []string{"org.apache.cassandra.dht.RandomPartitioner"}, false},
		{"a shard count that is not a number", KeyNrShards, []string{"four"}, true},
		{"no shards", KeyNrShards, []string{"0"}, true},
		{"a shard beyond the count", KeyShard, []string{"4"}, true},
		{"ignore_msb beyond 63", KeyIgnoreMSB, []string{"64"}, true},
		{"a port beyond 65535", KeyShardAwarePort, []string{"70000"}, true},
		{"an LWT mark without its mask", KeyLWTMark, []string{"SOMETHING=1"}, true},
		{"a rate-limit error without its code", KeyRateLimitError, []string{"ERROR_CODE=x"}, true},
	} {
		o := scyllaOpts("0")
		o[tc.key] = tc.vals
		s, err := Parse(o)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error %v", tc.name, err, tc.wantErr)
		}
		if s.Sharded() {
			t.Errorf("%s: Sharded", tc.name)
		}
	}
}

// FuzzParseSupported: any SUPPORTED body (read by cqlwire) decodes or
// fails without a panic, and what Parse accepts as sharded can be computed on.
func FuzzParseSupported(f *testing.F) {
	body := func(m map[string][]string) []byte {
		var keys []string
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return appendMultimap(nil, keys, m)
	}
	f.Add(body(scyllaOpts("2")))
	f.Add(body(map[string][]string{"CQL_VERSION": {"3.4.7"}}))
	f.Add(body(map[string][]string{KeyNrShards: {"0"}, KeyShard: {"1"}}))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := cqlwire.Reader{B: body}
		m := r.StringMultimap()
		if r.Err != nil {
			return
		}
		s, err := Parse(m)
		if err != nil && s.Sharded() {
			t.Fatalf("an error (%v) and Sharded", err)
		}
		if s.Sharded() {
			if s.Shard < 0 || s.Shard >= s.NrShards || s.IgnoreMSB > 63 {
				t.Fatalf("sharded with %+v", s)
			}
			if sh := s.Sharder().ShardOf(int64(len(body))); sh < 0 || sh >= s.NrShards {
				t.Fatalf("shard %d of %d", sh, s.NrShards)
			}
		}
	})
}

// TestDialShard: connections to a listener come from source ports that map
// to the shard asked for; a port in use is skipped; with every port of the
// shard taken, the dial says so.
func TestDialShard(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	lo, hi := PortRange()
	for _, n := range []int{1, 3, 8} {
		for shard := range n {
			c, err := DialShard(context.Background(), net.Dialer{}, ln.Addr().String(), shard, n, lo, hi)
			if err != nil {
				t.Fatalf("shard %d of %d: %v", shard, n, err)
			}
			if p := sourcePort(c); p%n != shard || p < lo || p > hi {
				t.Errorf("shard %d of %d: source port %d (range %d-%d)", shard, n, p, lo, hi)
			}
			c.Close()
		}
	}
	// Two ports that map to one shard: one taken by a listener, one free.
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pb, pf := busy.Addr().(*net.TCPAddr).Port, free.Addr().(*net.TCPAddr).Port
	free.Close()
	n := max(pb-pf, pf-pb)
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}}
	// (Once: the port this dial takes is in TIME_WAIT after it closes.)
	c, err := DialShard(context.Background(), d, ln.Addr().String(), pf%n, n, min(pb, pf), max(pb, pf))
	if err != nil {
		t.Fatalf("%v (port %d busy, %d free)", err, pb, pf)
	}
	if p := sourcePort(c); p != pf {
		t.Errorf("source port %d, want the free %d", p, pf)
	}
	// Held open, it takes the last free port.
	_, err = DialShard(context.Background(), d, ln.Addr().String(), pf%n, n, min(pb, pf), max(pb, pf))
	if !errors.Is(err, ErrNoSourcePort) {
		t.Errorf("every port taken: %v, want ErrNoSourcePort", err)
	}
	c.Close()
	if _, err := DialShard(context.Background(), net.Dialer{}, ln.Addr().String(), 4, 4, lo, hi); err == nil {
		t.Errorf("shard 4 of 4 dialled")
	}
}

var shardSink int

// appendMultimap is a SUPPORTED body: a [string multimap] of m, keys in
// the order given.
func appendMultimap(b []byte, keys []string, m map[string][]string) []byte {
	str := func(b []byte, s string) []byte { return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...) }
	b = binary.BigEndian.AppendUint16(b, uint16(len(keys)))
	for _, k := range keys {
		b = str(b, k)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m[k])))
		for _, v := range m[k] {
			b = str(b, v)
		}
	}
	return b
}

// sourcePort is the local port of c.
func sourcePort(c net.Conn) int { return c.LocalAddr().(*net.TCPAddr).Port }
