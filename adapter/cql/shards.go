package cql

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/platbench/platbench/adapter/cql/scylla"
)

// ScyllaDB shard awareness in the native client. A ScyllaDB node runs one
// shard per core and says in its SUPPORTED answer how tokens map to shards
// (package scylla). A native worker then keeps one connection per shard of
// each node, its "slots": node h's shards are slots base[h] ..
// base[h]+shards-1, and a request goes to the slot of its token's owner
// node and of the shard owning its token there. A node without ScyllaDB's
// options (Cassandra), or with shard_aware=false, has one slot, as before.
//
// Connections to a chosen shard go through the node's shard-aware port
// (scylla.DialShard); without one, plain connections are opened until
// every shard has one (the node hands each to a shard of its choosing;
// one that lands on a shard already served is closed).

// shardLayout is where each node's connections sit among a worker's slots.
type shardLayout struct {
	base    []int            // per node: its first slot; base[len(nodes)] is the slot count
	sharder []scylla.Sharder // per node: its token-to-shard map (1 shard: unsharded)
	aware   []string         // per node: the shard-aware port's address; "": none
	node    []int            // per slot: its node
	shard   []int            // per slot: its shard
}

// newShardLayout lays out slots from what each node's first connection
// said (nil: the node did not answer, or is not sharded): a sharded node
// gets one slot per shard when enabled.
func newShardLayout(hosts []string, sups []*scylla.Supported, enabled bool) shardLayout {
	l := shardLayout{base: make([]int, len(hosts)+1), sharder: make([]scylla.Sharder, len(hosts)), aware: make([]string, len(hosts))}
	for h := range hosts {
		n := 1
		if s := sups[h]; enabled && s != nil && s.Sharded() {
			n = s.NrShards
			l.sharder[h] = s.Sharder()
			if s.ShardAwarePort != 0 {
				l.aware[h], _ = scylla.ShardAwareAddr(hosts[h], s.ShardAwarePort)
			}
		} else {
			l.sharder[h] = scylla.NewSharder(1, 0)
		}
		l.base[h+1] = l.base[h] + n
		for s := range n {
			l.node = append(l.node, h)
			l.shard = append(l.shard, s)
		}
	}
	return l
}

// slots is the number of connection slots.
func (l *shardLayout) slots() int { return len(l.node) }

// sharded reports whether node h has a slot per shard.
func (l *shardLayout) sharded(h int) bool { return l.base[h+1]-l.base[h] > 1 }

// slotOf is the slot serving token on node h. It does not allocate.
func (l *shardLayout) slotOf(h int, token int64) int {
	if !l.sharded(h) {
		return l.base[h]
	}
	return l.base[h] + l.sharder[h].ShardOf(token)
}

// home is the slot a connection that node h's shard serves belongs to;
// -1 when the node's answer does not fit its layout (another shard count:
// the node restarted with other settings).
func (l *shardLayout) home(h int, s *scylla.Supported) int {
	if !l.sharded(h) {
		return l.base[h]
	}
	if s == nil || !s.Sharded() || s.NrShards != l.base[h+1]-l.base[h] {
		return -1
	}
	return l.base[h] + s.Shard
}

// shardStats is what the native workers' shard awareness did, for the
// result: folded in by each worker as it closes (nothing on the hot path).
type shardStats struct {
	mu    sync.Mutex
	nodes map[string]*nodeShards
	off   string // why requests were not routed to shards, when no node was sharded
}

// nodeShards is one node's figures, summed over the workers.
type nodeShards struct {
	shards   int
	requests []int64 // per shard (one entry: not sharded)
	aware    int     // connections opened through the shard-aware port
	plain    int     // connections opened on the CQL port
	excess   int     // plain connections closed: their shard was served already
	workers  int
}

// fold adds one worker's figures: requests per slot and its connection
// counts per node.
func (st *shardStats) fold(hosts []string, l *shardLayout, requests []int64, aware, plain, excess []int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.nodes == nil {
		st.nodes = map[string]*nodeShards{}
	}
	for h, host := range hosts {
		n := st.nodes[host]
		shards := l.base[h+1] - l.base[h]
		if n == nil || n.shards != shards {
			n = &nodeShards{shards: shards, requests: make([]int64, shards)}
			st.nodes[host] = n
		}
		for s := range shards {
			n.requests[s] += requests[l.base[h]+s]
		}
		n.aware += aware[h]
		n.plain += plain[h]
		n.excess += excess[h]
		n.workers++
	}
}

// summary writes the figures to the result's target details:
// cql_shard_aware (yes or no and why), cql_shards_per_node,
// cql_connections and cql_requests_per_shard.
func (st *shardStats) summary(m map[string]string, why string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.nodes) == 0 {
		return
	}
	hosts := make([]string, 0, len(st.nodes))
	sharded := 0
	for h, n := range st.nodes {
		hosts = append(hosts, h)
		if n.shards > 1 {
			sharded++
		}
	}
	sort.Strings(hosts)
	var shards, conns, reqs []string
	for _, h := range hosts {
		n := st.nodes[h]
		shards = append(shards, fmt.Sprintf("%s %d", h, n.shards))
		conns = append(conns, fmt.Sprintf("%s %d through the shard-aware port, %d plain (%d closed as excess) over %d workers", h, n.aware, n.plain, n.excess, n.workers))
		if n.shards > 1 {
			per := make([]string, len(n.requests))
			for i, r := range n.requests {
				per[i] = fmt.Sprint(r)
			}
			reqs = append(reqs, h+" "+strings.Join(per, "/"))
		}
	}
	switch {
	case sharded == len(hosts):
		m["cql_shard_aware"] = "yes: every request to the shard owning its token (ScyllaDB's biased-token-round-robin)"
	case sharded > 0:
		m["cql_shard_aware"] = fmt.Sprintf("partly: %d of %d nodes sharded (the others answered without ScyllaDB's options, or were down when the workers started)", sharded, len(hosts))
	default:
		m["cql_shard_aware"] = "no: " + why
	}
	m["cql_shards_per_node"] = strings.Join(shards, "; ")
	m["cql_connections"] = strings.Join(conns, "; ")
	if len(reqs) > 0 {
		m["cql_requests_per_shard"] = strings.Join(reqs, "; ")
	}
}
