package cql

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqltest"
	"github.com/platbench/platbench/adapter/cql/murmur3"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The native worker against cqltest's ring (3 nodes of 4 shards on
// loopback): end-to-end tests of shard awareness that need no ScyllaDB
// (none can be installed from this project's registries). The worker is
// made as NewWorker makes it, from the cluster's hosts and tokens, without
// the gocql session (which cqltest does not serve: it would need the
// system tables).

func shardTarget(t *testing.T, opts map[string]string) *Target {
	t.Helper()
	u, _ := url.Parse("cql://127.0.0.1")
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		t.Fatal(err)
	}
	st, err := newStatements(cfg, 5)
	if err != nil {
		t.Fatal(err)
	}
	return &Target{cfg: *cfg, stmts: st, events: &hostEvents{}}
}

// drive runs n requests of op through w, depth in flight, as the runner
// does; it returns the errors by class.
func drive(t *testing.T, w *pworker, op vocab.Op, n, depth int) map[vocab.Class]int {
	t.Helper()
	errs := map[vocab.Class]int{}
	req := workload.Request{Op: op, Fields: 5, FieldLen: 4}
	if op != vocab.OpRead {
		req.Value = []byte("abcdefghijklmnopqrst")
	}
	sent, done := 0, 0
	submit := func(tag int) {
		req.Key = fmt.Appendf(req.Key[:0], "user%d", sent)
		sent++
		if err := w.Submit(context.Background(), &req, tag); err != nil {
			t.Fatalf("Submit: %v", err)
		}
	}
	for tag := 0; tag < depth && sent < n; tag++ {
		submit(tag)
	}
	w.Flush(context.Background())
	for done < n {
		w.Poll(context.Background(), -1, func(tag int, err error) {
			done++
			if err != nil {
				errs[adapter.Classify(err)]++
			}
			if sent < n {
				submit(tag)
			}
		})
		w.Flush(context.Background())
	}
	return errs
}

// TestShardAwareEndToEnd: with and without the shard-aware port, a worker
// holds one connection per shard of each node, each on the shard its slot
// stands for; every request lands on the node and the shard owning its
// token; every shard serves some; reads find the writes.
func TestShardAwareEndToEnd(t *testing.T) {
	for _, port := range []bool{true, false} {
		t.Run(fmt.Sprintf("shard_aware_port=%v", port), func(t *testing.T) {
			cl, err := cqltest.Start(cqltest.Config{Scylla: true, ShardAwarePort: port, Nodes: 3, Shards: 4, Seed: 35, RandomPlainShard: !port})
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close()
			tg := shardTarget(t, nil)
			w, err := newNativeWorker(tg, tg.stmts, cl.Hosts(), newRing(cl.Tokens()), 0)
			if err != nil {
				t.Fatal(err)
			}
			if w.lay.slots() != 12 {
				t.Fatalf("%d slots, want 3 nodes x 4 shards", w.lay.slots())
			}
			for i, c := range w.conns {
				if c == nil {
					t.Fatalf("slot %d (node %d shard %d) has no connection", i, w.lay.node[i], w.lay.shard[i])
				}
				if w.sups[i].Shard != w.lay.shard[i] {
					t.Errorf("slot %d: the connection is served by shard %d, want %d", i, w.sups[i].Shard, w.lay.shard[i])
				}
			}
			if e := drive(t, w, vocab.OpInsert, 4000, 64); len(e) > 0 {
				t.Fatalf("inserts failed: %v", e)
			}
			if e := drive(t, w, vocab.OpRead, 4000, 64); len(e) > 0 {
				t.Fatalf("reads failed (a read that misses its write is not_found): %v", e)
			}
			w.Close()
			s := cl.Stats()
			t.Logf("requests per node and shard %v; plain connections %v, shard-aware %v", s.Requests, s.PlainConns, s.AwareConns)
			if s.WrongNode != 0 || s.WrongShard != 0 || s.Unrouted != 0 {
				t.Errorf("%d requests on the wrong node, %d on the wrong shard, %d unrouted; want none", s.WrongNode, s.WrongShard, s.Unrouted)
			}
			total := int64(0)
			for n, per := range s.Requests {
				for sh, r := range per {
					total += r
					if r == 0 {
						t.Errorf("node %d shard %d served nothing of 8,000 requests", n, sh)
					}
				}
			}
			if total != 8000 {
				t.Errorf("%d requests served, want 8,000", total)
			}
			for n := range 3 {
				aware, plain := sum(s.AwareConns[n]), sum(s.PlainConns[n])
				if port && (aware != 3 || plain != 1) {
					t.Errorf("node %d: %d connections through the shard-aware port, %d plain; want 3 and 1 (the first, which learns the shards)", n, aware, plain)
				}
				if !port && (aware != 0 || plain < 4) {
					t.Errorf("node %d without the port: %d shard-aware, %d plain connections", n, aware, plain)
				}
			}
			m := map[string]string{}
			tg.stats.shards.summary(m, "")
			t.Logf("summary: %q", m)
			if !strings.HasPrefix(m["cql_shard_aware"], "yes") || strings.Count(m["cql_requests_per_shard"], "/") != 9 {
				t.Errorf("summary %q", m)
			}
		})
	}
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

// TestCassandraUnchanged: nodes that advertise no sharding (cqltest's
// Cassandra mode) get one connection each, requests still go to the owner
// node, and the result says why it was not shard-aware.
func TestCassandraUnchanged(t *testing.T) {
	cl, err := cqltest.Start(cqltest.Config{Nodes: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tg := shardTarget(t, nil)
	w, err := newNativeWorker(tg, tg.stmts, cl.Hosts(), newRing(cl.Tokens()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if w.lay.slots() != 3 {
		t.Fatalf("%d slots, want one per node", w.lay.slots())
	}
	if e := drive(t, w, vocab.OpInsert, 1000, 16); len(e) > 0 {
		t.Fatalf("inserts failed: %v", e)
	}
	w.Close()
	if s := cl.Stats(); s.WrongNode != 0 || sum(s.PlainConns[0])+sum(s.PlainConns[1])+sum(s.PlainConns[2]) != 3 {
		t.Errorf("stats %+v", s)
	}
	m := tg.Summary(context.Background())
	if !strings.HasPrefix(m["cql_shard_aware"], "no: the nodes advertise no ScyllaDB sharding") {
		t.Errorf("cql_shard_aware %q", m["cql_shard_aware"])
	}
	// The gocql driver says it is not shard-aware.
	tg.cfg.Driver = DriverGocql
	if got := tg.Summary(context.Background())["cql_shard_aware"]; !strings.Contains(got, "driver=gocql") {
		t.Errorf("driver=gocql: cql_shard_aware %q", got)
	}
	if got := tg.Describe(context.Background()).Details["shard_aware"]; !strings.HasPrefix(got, "false (driver=gocql") {
		t.Errorf("driver=gocql: shard_aware %q", got)
	}
}

// TestRateLimitIsOverloaded: ScyllaDB's rate-limit error (its code
// advertised in SUPPORTED) is classified overloaded.
func TestRateLimitIsOverloaded(t *testing.T) {
	cl, err := cqltest.Start(cqltest.Config{Scylla: true, ShardAwarePort: true, Nodes: 1, Shards: 2, RateLimitEvery: 10})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tg := shardTarget(t, nil)
	w, err := newNativeWorker(tg, tg.stmts, cl.Hosts(), newRing(cl.Tokens()), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := drive(t, w, vocab.OpInsert, 1000, 8)
	if e[vocab.ClassOverloaded] != 100 || len(e) != 1 {
		t.Errorf("errors by class %v, want 100 overloaded", e)
	}
}

// TestLWTToPrimary: a statement the nodes mark as a lightweight
// transaction (cqltest sets SCYLLA_LWT_ADD_METADATA_MARK's bit on a
// conditional statement) is recognised from its prepared metadata, and
// routed to its token's owner node and shard even with token_aware=false;
// other requests then go round robin.
func TestLWTToPrimary(t *testing.T) {
	cl, err := cqltest.Start(cqltest.Config{Scylla: true, ShardAwarePort: true, Nodes: 3, Shards: 4, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tg := shardTarget(t, map[string]string{"token_aware": "false"})
	cqls := append(tg.stmts.all(), "UPDATE ks.usertable SET field0 = ? WHERE y_id = ? IF field0 = ?")
	w, err := newNativeConns(tg, &tg.cfg, tg.stmts, cqls, nil, cl.Hosts(), newRing(cl.Tokens()), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for k, lwt := range w.lwt {
		if lwt != (k == len(cqls)-1) {
			t.Errorf("statement %d %q: marked LWT %v", k, cqls[k], lwt)
		}
	}
	elsewhere := 0
	for i := range 1000 {
		tok := murmur3.Token(fmt.Appendf(nil, "user%d", i))
		slot, err := w.routeTo(tok, true, w.lwt[len(cqls)-1])
		if err != nil {
			t.Fatal(err)
		}
		owner := cl.Owner(tok)
		if w.lay.node[slot] != owner || w.lay.shard[slot] != w.lay.sharder[owner].ShardOf(tok) {
			t.Fatalf("LWT of token %d on node %d shard %d, want node %d shard %d", tok, w.lay.node[slot], w.lay.shard[slot], owner, w.lay.sharder[owner].ShardOf(tok))
		}
		if slot, _ = w.routeToken(tok, true); w.lay.node[slot] != owner {
			elsewhere++
		}
	}
	if elsewhere < 300 {
		t.Errorf("token_aware=false sent only %d of 1,000 other requests off their owner node: the LWT check cannot tell", elsewhere)
	}
}

// TestShardReconnect: when a node drops every connection, requests fail
// or go to the nodes that are up meanwhile, and the worker redials each
// shard through the shard-aware port; once back, every request again
// lands on its owning node and shard.
func TestShardReconnect(t *testing.T) {
	cl, err := cqltest.Start(cqltest.Config{Scylla: true, ShardAwarePort: true, Nodes: 3, Shards: 4, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	tg := shardTarget(t, map[string]string{"reconnect_interval": "50ms"})
	w, err := newNativeWorker(tg, tg.stmts, cl.Hosts(), newRing(cl.Tokens()), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	drive(t, w, vocab.OpInsert, 500, 16)
	cl.Node(1).DropConnections()
	// Requests until every slot is connected again (each redial waits the
	// reconnect interval after its slot failed).
	deadline := time.Now().Add(20 * time.Second)
	for {
		drive(t, w, vocab.OpInsert, 200, 16)
		up := 0
		for _, c := range w.conns {
			if c != nil {
				up++
			}
		}
		if up == len(w.conns) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d slots connected 20 s after the node dropped its connections", up, len(w.conns))
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i := range w.conns {
		if w.sups[i].Shard != w.lay.shard[i] {
			t.Errorf("slot %d: reconnected to shard %d, want %d", i, w.sups[i].Shard, w.lay.shard[i])
		}
	}
	for i := range 3 {
		cl.Node(i).ResetStats()
	}
	if e := drive(t, w, vocab.OpInsert, 2000, 32); len(e) > 0 {
		t.Errorf("after the reconnection: errors %v", e)
	}
	if s := cl.Stats(); s.WrongNode != 0 || s.WrongShard != 0 {
		t.Errorf("after the reconnection: %d requests on the wrong node, %d on the wrong shard", s.WrongNode, s.WrongShard)
	}
	if s := cl.Stats(); sum(s.AwareConns[1]) < 3+3 {
		t.Errorf("node 1's shard-aware connections %v: the redials did not go through the port", s.AwareConns[1])
	}
}
