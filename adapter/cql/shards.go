package cql

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/adapter/cql/scylla"
	"github.com/platbench/platbench/workload"
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
	mu         sync.Mutex
	lwt        int // statements marked as lightweight transactions (the most a worker saw)
	nodes      map[string]*nodeShards
	unreadable string // the last SUPPORTED whose ScyllaDB options could not be read
}

// note keeps why a node's ScyllaDB options could not be read.
func (st *shardStats) note(err error) {
	st.mu.Lock()
	st.unreadable = err.Error()
	st.mu.Unlock()
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
func (st *shardStats) fold(hosts []string, l *shardLayout, requests []int64, aware, plain, excess []int, lwt []bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for _, b := range lwt {
		if b {
			n++
		}
	}
	st.lwt = max(st.lwt, n)
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
	if st.lwt > 0 {
		m["cql_lwt_statements"] = fmt.Sprintf("%d marked by the nodes as lightweight transactions: sent to the primary replica's owning shard", st.lwt)
	}
	if st.unreadable != "" {
		m["cql_scylla_options_unreadable"] = st.unreadable
	}
	m["cql_shards_per_node"] = strings.Join(shards, "; ")
	m["cql_connections"] = strings.Join(conns, "; ")
	if len(reqs) > 0 {
		m["cql_requests_per_shard"] = strings.Join(reqs, "; ")
	}
}

// dialResult is the outcome of a dial of slot i, made by connect (possibly
// in the background) and taken in by dialDone on the worker's goroutine.
type dialResult struct {
	i      int
	c      *cqlwire.Conn
	sup    scylla.Supported // what the node said in SUPPORTED
	supErr error            // its ScyllaDB options could not be read
	aware  bool             // opened through the shard-aware port
	err    error
}

// connect dials slot i: its node's shard through the shard-aware port
// when the node is sharded and has one, else the node's CQL port.
func (w *pworker) connect(i int) dialResult {
	h := w.lay.node[i]
	var to dialTarget
	if w.lay.sharded(h) {
		to = dialTarget{aware: w.lay.aware[h], shard: w.lay.shard[i], shards: w.lay.sharder[h].Shards()}
	}
	r := w.dialHost(h, to)
	r.i = i
	return r
}

func (w *pworker) dialHost(h int, to dialTarget) dialResult {
	ctx, cancel := context.WithTimeout(context.Background(), w.cfg.ConnectTimeout)
	defer cancel()
	return dialNative(ctx, w.cfg, w.hosts[h], w.cqls, to)
}

// connectAll opens each node's first connection, which says whether and
// how the node is sharded, lays out the slots, and then opens a connection
// to every other shard of the sharded nodes. It fails when no node
// answers.
func (w *pworker) connectAll() error {
	first := make([]dialResult, len(w.hosts))
	sups := make([]*scylla.Supported, len(w.hosts))
	for h := range w.hosts {
		first[h] = w.dialHost(h, dialTarget{})
		if first[h].err == nil {
			sups[h] = &first[h].sup
		}
	}
	w.lay = newShardLayout(w.hosts, sups, w.cfg.ShardAware)
	n := w.lay.slots()
	w.conns, w.fail, w.dialing = make([]*cqlwire.Conn, n), make([]time.Time, n), make([]bool, n)
	w.dialed = make(chan dialResult, n)
	w.broken, w.inflight, w.sups, w.sent = make([]error, n), make([]int, n), make([]scylla.Supported, n), make([]int64, n)
	w.nAware, w.nPlain, w.nExcess = make([]int, len(w.hosts)), make([]int, len(w.hosts)), make([]int, len(w.hosts))
	w.lwt = make([]bool, len(w.cqls))
	var firstErr error
	for h := range w.hosts {
		first[h].i = w.lay.base[h]
		if err := w.dialDone(first[h]); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	for i := range w.conns {
		if w.conns[i] != nil {
			w.fillShards(sups)
			return nil
		}
	}
	return firstErr
}

// fillRounds bounds the rounds of plain dials that fill a node's shards
// when it has no shard-aware port: the node puts each connection on a
// shard of its choosing, so a round may leave some empty. What is still
// empty after them is redialled during the run, when a request needs it.
const fillRounds = 8

// fillShards dials, in parallel, every empty slot of the sharded nodes
// that answered (up[h] != nil), and waits for the dials.
func (w *pworker) fillShards(up []*scylla.Supported) {
	for range fillRounds {
		for i, c := range w.conns {
			h := w.lay.node[i]
			if c == nil && !w.dialing[i] && w.lay.sharded(h) && up[h] != nil {
				w.redial(i)
			}
		}
		if w.ndial == 0 {
			return
		}
		for w.ndial > 0 {
			_ = w.dialDone(<-w.dialed) // a failure leaves the slot to the run's redials
		}
	}
}

// place is the slot a new connection serves, counted by how it was
// opened: its node's shard (which is the slot asked for, unless a plain
// connection landed elsewhere); -1 when that shard has a connection
// already, and this one was closed.
func (w *pworker) place(r dialResult) int {
	h := w.lay.node[r.i]
	if r.supErr != nil {
		w.t.stats.event("scylla_options_unreadable")
		w.t.stats.shards.note(r.supErr)
	}
	j := w.lay.home(h, &r.sup)
	if j < 0 {
		j = r.i // a node that changed its shard count: served as asked
	}
	if w.conns[j] != nil {
		r.c.Close()
		w.nExcess[h]++
		w.fail[r.i] = time.Now() // retried after the reconnect interval
		return -1
	}
	if r.aware {
		w.nAware[h]++
	} else {
		w.nPlain[h]++
	}
	return j
}

// markLWT takes in which of c's statements its node marked as lightweight
// transactions (SCYLLA_LWT_ADD_METADATA_MARK: a bit of the prepared
// metadata's flags). Those go to the primary replica, and on it to the
// shard owning the token, even with token_aware=false: LWTs that contend
// on a key then queue on one replica instead of competing (the
// extension's purpose, protocol-extensions.md).
func (w *pworker) markLWT(c *cqlwire.Conn, sup *scylla.Supported) {
	if !sup.LWTMark {
		return
	}
	for k, f := range c.Flags {
		if k < len(w.lwt) && f&sup.LWTMask != 0 {
			w.lwt[k], w.anyLWT = true, true
		}
	}
}

// lwtOp reports whether a profile request starts with a statement marked
// as a lightweight transaction.
func (w *pworker) lwtOp(req *workload.Request) bool {
	if !w.anyLWT {
		return false
	}
	i := w.prof.stmtIdx(req)
	return i >= 0 && i < len(w.lwt) && w.lwt[i]
}
