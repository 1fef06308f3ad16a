package cql

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"net"
	"os"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Tests of the native client. Error classes and the token ring need no
// server (frames and replies are tested in cqlwire); the rest run against
// the real one (PLATBENCH_CQL_URL), routing on a cluster of several nodes.

// TestServerErrorClasses: server exception codes (cqlwire) map to their
// error classes; an unknown code is other.
func TestServerErrorClasses(t *testing.T) {
	if adapter.Classify(serverError(cqlwire.CodeWriteTimeout)) != vocab.ClassTimeout ||
		adapter.Classify(serverError(cqlwire.CodeOverloaded)) != vocab.ClassOverloaded ||
		adapter.Classify(serverError(cqlwire.CodeUnavailable)) != vocab.ClassUnavailable ||
		adapter.Classify(serverError(cqlwire.CodeInvalid)) != vocab.ClassRejected ||
		adapter.Classify(serverError(0x7777)) != vocab.ClassOther {
		t.Errorf("server error classes wrong")
	}
}

// TestDialErrorsExplained: cqlwire's typed failures of the handshake and
// the preparations read as one line with the fix, of the right class.
func TestDialErrorsExplained(t *testing.T) {
	cfg := &Config{Username: "bob"}
	h := "10.0.0.1:9042"
	timeout := &cqlwire.NetError{Host: h, Err: os.ErrDeadlineExceeded}
	for _, c := range []struct {
		err   error
		want  string
		class vocab.Class
	}{
		{startupErr(cfg, h, cqlwire.ErrAuthRequired), "cql: 10.0.0.1:9042 requires authentication (fix: cql://USER@10.0.0.1:9042, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", vocab.ClassOther},
		{startupErr(cfg, h, &cqlwire.ServerError{Req: "AUTH_RESPONSE", Code: cqlwire.CodeBadCredential, Msg: "Provided username bob and/or password are incorrect\nmore"}),
			`cql: authentication failed for user "bob" on 10.0.0.1:9042: Provided username bob and/or password are incorrect (fix: check the user and the password: cql://USER@10.0.0.1:9042, the password in $PLATBENCH_TARGET_PASSWORD or a password file)`, vocab.ClassOther},
		{startupErr(cfg, h, &cqlwire.ServerError{Req: "AUTH_RESPONSE", Code: cqlwire.CodeServer, Msg: "boom"}), "cql: authenticating on 10.0.0.1:9042: boom (other: cql: server error (server code 0x0000))", vocab.ClassOther},
		{startupErr(cfg, h, &cqlwire.ServerError{Req: "STARTUP", Code: cqlwire.CodeProtocol, Msg: "Invalid or unsupported protocol version (4)"}),
			"cql: 10.0.0.1:9042 does not speak CQL protocol v4: Invalid or unsupported protocol version (4) (fix: the option driver=gocql)", vocab.ClassOther},
		{startupErr(cfg, h, &cqlwire.ServerError{Req: "STARTUP", Code: cqlwire.CodeOverloaded, Msg: "busy"}), "cql: STARTUP on 10.0.0.1:9042: busy (overloaded: cql: overloaded (server code 0x1001))", vocab.ClassOverloaded},
		{startupErr(cfg, h, &cqlwire.VersionError{Got: 3}), "cql: the server answered with protocol version 3, want 4 (fix: use driver=gocql for servers without protocol v4)", vocab.ClassOther},
		{startupErr(cfg, h, timeout), "timeout: cql: 10.0.0.1:9042: i/o timeout", vocab.ClassTimeout},
		{requestErr("USE ks on "+h+": ", &cqlwire.ServerError{Req: "USE", Code: cqlwire.CodeInvalid, Msg: "Keyspace 'ks' does not exist"}),
			"cql: USE ks on 10.0.0.1:9042: Keyspace 'ks' does not exist: rejected: cql: invalid request (server code 0x2200)", vocab.ClassRejected},
		{requestErr("preparing \"X\" on "+h+": ", &cqlwire.NetError{Host: h, Err: errors.New("cql: connection closed by the server")}),
			"unavailable: cql: 10.0.0.1:9042: cql: connection closed by the server", vocab.ClassUnavailable},
	} {
		if c.err.Error() != c.want || adapter.Classify(c.err) != c.class {
			t.Errorf("got  %q (%v)\nwant %q (%v)", c.err, adapter.Classify(c.err), c.want, c.class)
		}
	}
}

// TestRingOwner: a key belongs to the first token at or after its own,
// wrapping past the largest.
func TestRingOwner(t *testing.T) {
	rg := newRing([][]string{{"-100", "50"}, {"0", "1000"}})
	for _, c := range []struct {
		tok  int64
		want int
	}{{-200, 0}, {-100, 0}, {-99, 1}, {0, 1}, {1, 0}, {50, 0}, {51, 1}, {1000, 1}, {1001, 0}} {
		if got := rg.owner(c.tok); got != c.want {
			t.Errorf("owner(%d) = %d, want %d", c.tok, got, c.want)
		}
	}
	if bad := newRing([][]string{{"abc"}}); bad.owner(1) != -1 {
		t.Errorf("a ring of unparsable tokens routes")
	}
}

// TestMurmur3MatchesServer compares the token of random keys of every
// length from 1 to 40 bytes (every tail length, 0-2 blocks, bytes >= 0x80
// that Cassandra sign-extends) with the server's token().
func TestMurmur3MatchesServer(t *testing.T) {
	tg := setupBench(t, map[string]string{"schema": SchemaStress})
	defer tg.Close()
	tbl := tg.cfg.Keyspace + "." + tg.cfg.Table
	rng := rand.New(rand.NewSource(1))
	for n := 0; n <= 40; n++ {
		k := make([]byte, n)
		rng.Read(k)
		if n == 0 {
			continue // Cassandra refuses an empty partition key
		}
		if err := tg.session.Query("INSERT INTO "+tbl+" (key) VALUES (?)", k).Exec(); err != nil {
			t.Fatalf("insert: %v", err)
		}
		var want int64
		if err := tg.session.Query("SELECT token(key) FROM "+tbl+" WHERE key = ?", k).Scan(&want); err != nil {
			t.Fatalf("token(key): %v", err)
		}
		if got := murmur3Token(k); got != want {
			t.Errorf("token of %d bytes %x = %d, server %d", n, k, got, want)
		}
	}
}

// TestNativeConnectionOutlivesHandshakeDeadline: the handshake's deadline
// (connect_timeout) does not stay on the connection.
func TestNativeConnectionOutlivesHandshakeDeadline(t *testing.T) {
	ctx := context.Background()
	tg := openTest(t, map[string]string{"connect_timeout": "1s"})
	defer tg.Close()
	if err := tg.Setup(ctx, &workload.Spec{FieldCount: 1, FieldLength: 8}); err != nil {
		t.Fatal(err)
	}
	wk, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer wk.Close()
	req := &workload.Request{Op: vocab.OpInsert, Key: key(1), Value: []byte("12345678"), Fields: 1, FieldLen: 8}
	if err := wk.Do(ctx, req); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := wk.Do(ctx, req); err != nil {
		t.Errorf("a request 1.5 s after a 1 s connect timeout: %v", err)
	}
}

// pipeline drives a native worker as the runner does: depth requests in
// flight, each completion replaced by a new request.
type pipeline struct {
	w      *pworker
	req    workload.Request
	keys   [][]byte
	i      int
	wait   time.Duration // Poll's wait: -1 blocks (closed loop), > 0 is a fixed-rate run's timed wait
	errs   int
	lastEr error
	doneFn func(int, error)
}

func (p *pipeline) done(tag int, err error) {
	if err != nil {
		p.errs++
		p.lastEr = err
	}
	p.req.Key = p.keys[p.i%len(p.keys)]
	p.i++
	if err := p.w.Submit(context.Background(), &p.req, tag); err != nil {
		p.errs++
		p.lastEr = err
	}
}

func newPipeline(t testing.TB, tg *Target, op vocab.Op, depth int) *pipeline {
	wk, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	p := &pipeline{w: wk.(*pworker), wait: -1}
	p.doneFn = p.done
	for i := 0; i < 1000; i++ {
		p.keys = append(p.keys, key(i))
	}
	p.req = workload.Request{Op: op, Fields: 5, FieldLen: 34, ScanLen: 10}
	if op != vocab.OpRead && op != vocab.OpScan {
		p.req.Value = value(0, 5, 34)
	}
	for tag := 0; tag < depth; tag++ {
		p.req.Key = p.keys[tag]
		if err := p.w.Submit(context.Background(), &p.req, tag); err != nil {
			t.Fatal(err)
		}
	}
	p.w.Flush(context.Background())
	return p
}

// step collects at least one completion and sends the replacements.
func (p *pipeline) step() {
	p.w.Poll(context.Background(), p.wait, p.doneFn)
	p.w.Flush(context.Background())
}

func (p *pipeline) drain() {
	for p.w.live > 0 {
		p.w.Poll(context.Background(), -1, func(int, error) {})
	}
}

func setupBench(t testing.TB, opts map[string]string) *Target {
	tg := openTest(t, opts)
	if err := tg.Setup(context.Background(), &workload.Spec{FieldCount: 5, FieldLength: 34}); err != nil {
		tg.Close()
		t.Fatalf("Setup: %v", err)
	}
	return tg
}

// TestNativeHotPathDoesNotAllocate: against the real server, a pipelined
// native worker sends and completes requests of every op without a single
// allocation.
func TestNativeHotPathDoesNotAllocate(t *testing.T) {
	// Alone on the server: another package's CREATE TABLE pushes a schema
	// event to this process's driver session, whose refresh allocates in the
	// background (seen: 7-8 allocations per step while other packages ran).
	testenv.Exclusive(t, "PLATBENCH_CQL_URL")
	tg := setupBench(t, nil)
	defer tg.Close()
	for i, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpScan, vocab.OpRMW, vocab.OpDelete, vocab.OpInsert} {
		p := newPipeline(t, tg, op, 16)
		if i == 6 {
			// The timed wait of a fixed-rate run (the worker's waiter).
			p.wait = 300 * time.Microsecond
		}
		for i := 0; i < 200; i++ { // warm up: buffers reach their size
			p.step()
		}
		// AllocsPerRun counts every goroutine's allocations, the driver's
		// background ones too (it refreshes its schema view after Setup's
		// CREATE TABLE): the least of three runs is this path's own.
		allocs := testing.AllocsPerRun(500, p.step)
		for try := 0; try < 2 && allocs != 0; try++ {
			time.Sleep(time.Second)
			allocs = min(allocs, testing.AllocsPerRun(500, p.step))
		}
		p.drain()
		if p.errs > 0 && !errors.Is(p.lastEr, adapter.ErrNotFound) {
			t.Errorf("%v: %d errors, last %v", op, p.errs, p.lastEr)
		}
		if allocs != 0 {
			t.Errorf("%v (Poll wait %v): %.2f allocations per Poll+Flush, want 0", op, p.wait, allocs)
		}
		p.w.Close()
	}
}

// BenchmarkDo compares the two drivers on one worker, one request at a time
// (the latency-bound case), in the same run:
//
//	go test -run '^$' -bench 'Do|Pipelined' -benchmem ./adapter/cql/
func BenchmarkDo(b *testing.B) {
	ctx := context.Background()
	for _, driver := range []string{DriverNative, DriverGocql} {
		tg := setupBench(b, map[string]string{"driver": driver})
		wk, err := tg.NewWorker(0)
		if err != nil {
			b.Fatal(err)
		}
		keys := make([][]byte, 1000)
		for i := range keys {
			keys[i] = key(i)
		}
		req := &workload.Request{Fields: 5, FieldLen: 34, Value: value(0, 5, 34), ScanLen: 10}
		for _, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpScan} {
			b.Run(driver+"/"+op.String(), func(b *testing.B) {
				req.Op = op
				if op == vocab.OpRead || op == vocab.OpScan {
					req.Value = nil
				} else {
					req.Value = value(0, 5, 34)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					req.Key = keys[i%len(keys)]
					if err := wk.Do(ctx, req); err != nil {
						b.Fatalf("%v: %v", op, err)
					}
				}
			})
		}
		wk.Close()
		tg.Close()
	}
}

// BenchmarkPipelined: one native worker keeping 32 requests in flight, as
// the runner drives it; ns/op is per completed request.
func BenchmarkPipelined(b *testing.B) {
	tg := setupBench(b, nil)
	defer tg.Close()
	for _, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead} {
		b.Run(op.String(), func(b *testing.B) {
			p := newPipeline(b, tg, op, 32)
			defer p.w.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for p.i < b.N {
				p.step()
			}
			b.StopTimer()
			p.drain()
			if p.errs > 0 && !errors.Is(p.lastEr, adapter.ErrNotFound) {
				b.Fatalf("%d errors, last %v", p.errs, p.lastEr)
			}
		})
	}
}

// TestTokenAwareRouting (a cluster of two or more nodes): with RF=1 every
// insert the native worker sends is coordinated by the node that owns its
// key, so on every node the writes it coordinated for the table equal the
// writes it stored (system_views coordinator/local write latency counts,
// Cassandra 4.1+). With token_aware=false they differ, which shows the
// check can fail.
func TestTokenAwareRouting(t *testing.T) {
	probe := openTest(t, nil)
	hosts := probe.session.GetHosts()
	probe.Close()
	testenv.Nodes(t, len(hosts), 2) // one node: routing has one choice
	for _, aware := range []bool{true, false} {
		tg := setupBench(t, map[string]string{"token_aware": fmt.Sprint(aware), "schema": SchemaStress})
		wk, err := tg.NewWorker(0)
		if err != nil {
			t.Fatal(err)
		}
		req := &workload.Request{Op: vocab.OpInsert, Value: value(0, 5, 34), Fields: 5, FieldLen: 34}
		for i := 0; i < 300; i++ {
			req.Key = key(i)
			if err := wk.Do(context.Background(), req); err != nil {
				t.Fatal(err)
			}
		}
		wk.Close()
		mismatch := 0
		for _, h := range hosts {
			cc := gocql.NewCluster(h.ConnectAddress().String())
			cc.Port = h.Port()
			cc.Authenticator = gocql.PasswordAuthenticator{Username: tg.cfg.Username, Password: tg.cfg.Password}
			cc.HostFilter = gocql.WhiteListHostFilter(h.ConnectAddress().String())
			s, err := cc.CreateSession()
			if err != nil {
				t.Fatal(err)
			}
			var coord, local int64
			q := "SELECT count FROM system_views.%s WHERE keyspace_name = ? AND table_name = ?"
			if err := s.Query(fmt.Sprintf(q, "coordinator_write_latency"), tg.cfg.Keyspace, tg.cfg.Table).Scan(&coord); err != nil {
				t.Fatalf("coordinator_write_latency on %s: %v", h.ConnectAddress(), err)
			}
			if err := s.Query(fmt.Sprintf(q, "local_write_latency"), tg.cfg.Keyspace, tg.cfg.Table).Scan(&local); err != nil {
				t.Fatalf("local_write_latency on %s: %v", h.ConnectAddress(), err)
			}
			s.Close()
			t.Logf("token_aware=%v %s: coordinated %d, stored %d", aware, h.ConnectAddress(), coord, local)
			if coord != local {
				mismatch++
			}
		}
		tg.Close()
		if aware && mismatch > 0 {
			t.Errorf("token-aware: %d node(s) coordinated writes they do not own", mismatch)
		}
		if !aware && mismatch == 0 {
			t.Errorf("round robin: every node coordinated exactly its own writes; the check cannot tell")
		}
	}
}

// TestRedialInBackground: a node that accepts connections but never
// answers (a hung host) is redialled in the background: requests keep
// going to the node that is up while a redial waits for its connect
// timeout, instead of the worker stalling on it.
func TestRedialInBackground(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var held []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, c) // accept, never answer
		}
	}()
	tg := setupBench(t, map[string]string{"connect_timeout": "1s", "reconnect_interval": "100ms", "token_aware": "false"})
	defer tg.Close()
	hosts, _ := tg.nodes()
	w, err := newNativeWorker(tg, tg.stmts, append(hosts[:1:1], ln.Addr().String()), ring{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.conns[1] != nil {
		t.Fatal("the hung host gave a connection")
	}
	req := &workload.Request{Op: vocab.OpInsert, Value: value(0, 5, 34), Fields: 5, FieldLen: 34}
	servedWhileDialing := 0
	deadline := time.Now().Add(5 * time.Second)
	for i := 0; time.Now().Before(deadline) && servedWhileDialing < 100; i++ {
		req.Key = key(i)
		if err := w.Do(context.Background(), req); err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		if w.ndial > 0 {
			servedWhileDialing++
		}
	}
	if servedWhileDialing < 100 {
		t.Errorf("only %d requests were served while the hung host was being redialled", servedWhileDialing)
	}
	t.Logf("%d requests served during background redials; %v", servedWhileDialing, tg.Summary(context.Background()))
}
