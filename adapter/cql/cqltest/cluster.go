// Package cqltest is a CQL protocol v4 server for tests: a small ring of
// nodes on loopback, each with several shards, that answers what
// platbench's native client sends (OPTIONS, STARTUP, REGISTER, QUERY with
// USE, PREPARE, EXECUTE, BATCH) and advertises ScyllaDB's extensions in
// SUPPORTED (or none: Cassandra). Each node listens on its CQL port and,
// when asked, on a shard-aware port where the client's source port chooses
// the shard, as ScyllaDB's does.
//
// What it is for: it counts the requests each shard of each node served and
// checks each against the owner of its token (the bound partition key of
// the statement it prepared): a request coordinated by a node that does not
// own its token, or served by a shard that does not, is counted as a wrong
// node or a wrong shard. It keeps the rows written, so that a read finds
// its record.
//
// What it is not: a database. No replication (every key has one owner),
// no consistency levels, no paging, no schema: a statement's table is
// whatever it names, and its partition key is the first of
// Config.KeyColumns it binds.
package cqltest

import (
	"errors"
	"fmt"
	"math/rand"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/platbench/platbench/adapter/cql/scylla"
)

// Config is a cluster's shape; zero fields take the defaults named.
type Config struct {
	Nodes  int // default 3
	Shards int // per node; default 4 (Cassandra mode: 1)
	// Scylla: advertise ScyllaDB's options in SUPPORTED; false: a
	// Cassandra node, which advertises none and serves on one shard.
	Scylla bool
	// ShardAwarePort: listen on a shard-aware port and advertise it
	// (SCYLLA_SHARD_AWARE_PORT); only with Scylla.
	ShardAwarePort bool
	IgnoreMSB      uint // default 12, ScyllaDB's
	Tokens         int  // tokens per node; default 8
	Seed           int64
	// KeyColumns are the partition key columns statements may bind;
	// default y_id and key (platbench's ycsb and stress schemas).
	KeyColumns []string
	// RateLimitEvery: every Nth EXECUTE of a node fails with the rate-limit
	// error (0: none).
	RateLimitEvery int
	// RandomPlainShard: a connection to the CQL port gets a random shard
	// (default: the one with the fewest connections, as ScyllaDB does).
	RandomPlainShard bool
}

// RateLimitCode is the error code the nodes advertise for
// SCYLLA_RATE_LIMIT_ERROR (ScyllaDB's own choice too).
const RateLimitCode = 0xF000

// LWTMask is the bit the nodes set in a prepared LWT statement's flags.
const LWTMask = 1 << 31

// Cluster is a running ring of nodes.
type Cluster struct {
	cfg   Config
	nodes []*Node
	ring  []ringEntry
}

type ringEntry struct {
	token int64
	node  int
}

// Start starts a cluster; Close stops it.
func Start(cfg Config) (*Cluster, error) {
	if cfg.Nodes <= 0 {
		cfg.Nodes = 3
	}
	if !cfg.Scylla {
		cfg.Shards, cfg.ShardAwarePort = 1, false
	} else if cfg.Shards <= 0 {
		cfg.Shards = 4
	}
	if cfg.IgnoreMSB == 0 {
		cfg.IgnoreMSB = 12
	}
	if cfg.Tokens <= 0 {
		cfg.Tokens = 8
	}
	if len(cfg.KeyColumns) == 0 {
		cfg.KeyColumns = []string{"y_id", "key"}
	}
	c := &Cluster{cfg: cfg}
	rng := rand.New(rand.NewSource(cfg.Seed))
	for i := range cfg.Nodes {
		n, err := c.startNode(i, rng)
		if err != nil {
			c.Close()
			return nil, err
		}
		c.nodes = append(c.nodes, n)
		for _, t := range n.tokens {
			c.ring = append(c.ring, ringEntry{t, i})
		}
	}
	sort.Slice(c.ring, func(i, j int) bool { return c.ring[i].token < c.ring[j].token })
	return c, nil
}

func (c *Cluster) startNode(i int, rng *rand.Rand) (*Node, error) {
	n := &Node{c: c, index: i, sharder: scylla.NewSharder(c.cfg.Shards, c.cfg.IgnoreMSB),
		prepared: map[string]*stmt{}, rows: map[string]map[string][]byte{}, open: map[net.Conn]bool{},
		rng: rand.New(rand.NewSource(rng.Int63()))}
	n.requests = make([]atomic.Int64, c.cfg.Shards)
	n.plainConns = make([]int, c.cfg.Shards)
	n.awareConns = make([]int, c.cfg.Shards)
	for range c.cfg.Tokens {
		n.tokens = append(n.tokens, int64(rng.Uint64()))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	n.ln = ln
	go n.accept(ln, false)
	if c.cfg.ShardAwarePort {
		if n.aware, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			ln.Close()
			return nil, err
		}
		go n.accept(n.aware, true)
	}
	return n, nil
}

// Hosts are the nodes' CQL addresses, host:port, in node order.
func (c *Cluster) Hosts() []string {
	var h []string
	for _, n := range c.nodes {
		h = append(h, n.ln.Addr().String())
	}
	return h
}

// Tokens are each node's tokens as system.local and system.peers give them
// (decimal strings), in node order.
func (c *Cluster) Tokens() [][]string {
	var out [][]string
	for _, n := range c.nodes {
		var ts []string
		for _, t := range n.tokens {
			ts = append(ts, strconv.FormatInt(t, 10))
		}
		out = append(out, ts)
	}
	return out
}

// Node is node i.
func (c *Cluster) Node(i int) *Node { return c.nodes[i] }

// Owner is the node owning token t: the first of the ring's tokens >= t,
// wrapping (Cassandra's and ScyllaDB's rule).
func (c *Cluster) Owner(t int64) int {
	i := sort.Search(len(c.ring), func(i int) bool { return c.ring[i].token >= t })
	if i == len(c.ring) {
		i = 0
	}
	return c.ring[i].node
}

// Close stops every node and closes its connections.
func (c *Cluster) Close() {
	for _, n := range c.nodes {
		n.close()
	}
}

// Stats is what the cluster served since Start.
type Stats struct {
	// Requests[node][shard]: EXECUTE and BATCH requests served.
	Requests [][]int64
	// WrongNode: requests coordinated by a node that does not own their
	// token; WrongShard: requests served on the right node by a shard
	// that does not own it (ScyllaDB would hop across shards).
	WrongNode, WrongShard int64
	// PlainConns and AwareConns [node][shard]: connections accepted on
	// the CQL port and on the shard-aware port.
	PlainConns, AwareConns [][]int
	// RateLimited: requests failed with the rate-limit error.
	RateLimited int64
	// Unrouted: executions with no partition key bound (not checked).
	Unrouted int64
}

// Stats returns the counts so far.
func (c *Cluster) Stats() Stats {
	var s Stats
	for _, n := range c.nodes {
		req := make([]int64, len(n.requests))
		for i := range n.requests {
			req[i] = n.requests[i].Load()
		}
		s.Requests = append(s.Requests, req)
		s.WrongNode += n.wrongNode.Load()
		s.WrongShard += n.wrongShard.Load()
		s.RateLimited += n.rateLimited.Load()
		s.Unrouted += n.unrouted.Load()
		n.mu.Lock()
		s.PlainConns = append(s.PlainConns, append([]int(nil), n.plainConns...))
		s.AwareConns = append(s.AwareConns, append([]int(nil), n.awareConns...))
		n.mu.Unlock()
	}
	return s
}

// Node is one node of the ring.
type Node struct {
	c         *Cluster
	index     int
	tokens    []int64
	sharder   scylla.Sharder
	ln, aware net.Listener

	mu         sync.Mutex
	prepared   map[string]*stmt             // by id
	rows       map[string]map[string][]byte // table + key -> column -> the value written
	open       map[net.Conn]bool
	plainConns []int
	awareConns []int
	rng        *rand.Rand
	closed     bool

	requests                                     []atomic.Int64
	wrongNode, wrongShard, rateLimited, unrouted atomic.Int64
	executes                                     atomic.Int64
}

// Addr is the node's CQL address.
func (n *Node) Addr() string { return n.ln.Addr().String() }

// AwarePort is the shard-aware port (0: none).
func (n *Node) AwarePort() int {
	if n.aware == nil {
		return 0
	}
	return n.aware.Addr().(*net.TCPAddr).Port
}

// DropConnections closes the node's open connections (a node restart, as
// its clients see it); the node accepts new ones.
func (n *Node) DropConnections() {
	n.mu.Lock()
	defer n.mu.Unlock()
	for c := range n.open {
		c.Close()
	}
}

// ResetStats zeroes the node's request counts.
func (n *Node) ResetStats() {
	for i := range n.requests {
		n.requests[i].Store(0)
	}
	n.wrongNode.Store(0)
	n.wrongShard.Store(0)
	n.unrouted.Store(0)
}

func (n *Node) close() {
	n.mu.Lock()
	n.closed = true
	for c := range n.open {
		c.Close()
	}
	n.mu.Unlock()
	if n.ln != nil {
		n.ln.Close()
	}
	if n.aware != nil {
		n.aware.Close()
	}
}

func (n *Node) accept(ln net.Listener, aware bool) {
	for {
		nc, err := ln.Accept()
		if err != nil {
			return
		}
		shard, ok := n.register(nc, aware)
		if !ok {
			nc.Close()
			return
		}
		go (&conn{n: n, nc: nc, shard: shard, aware: aware}).serve()
	}
}

// register picks a new connection's shard: on the shard-aware port the
// client's source port modulo the shard count, on the CQL port the shard
// with the fewest connections (or a random one).
func (n *Node) register(nc net.Conn, aware bool) (int, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.closed {
		return 0, false
	}
	n.open[nc] = true
	shards := len(n.plainConns)
	var shard int
	switch {
	case aware:
		shard = nc.RemoteAddr().(*net.TCPAddr).Port % shards
		n.awareConns[shard]++
		return shard, true
	case n.c.cfg.RandomPlainShard:
		shard = n.rng.Intn(shards)
	default:
		for s := range shards {
			if n.plainConns[s]+n.awareConns[s] < n.plainConns[shard]+n.awareConns[shard] {
				shard = s
			}
		}
	}
	n.plainConns[shard]++
	return shard, true
}

func (n *Node) forget(nc net.Conn) {
	n.mu.Lock()
	delete(n.open, nc)
	n.mu.Unlock()
}

var errUnknownStatement = errors.New("cqltest: unknown prepared statement")

func (n *Node) statement(id []byte) (*stmt, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	s, ok := n.prepared[string(id)]
	if !ok {
		return nil, fmt.Errorf("%w %x", errUnknownStatement, id)
	}
	return s, nil
}
