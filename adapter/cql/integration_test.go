package cql

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// These tests run against a real Cassandra: scripts/servers/cassandra.sh
// starts one on 127.0.0.1 and `env` prints PLATBENCH_CQL_URL
// (cql://cassandra:cassandra@127.0.0.1:9042). Without it they skip locally and
// fail in CI.

func serverURL(t testing.TB) *url.URL {
	t.Helper()
	raw := testenv.URL(t, "PLATBENCH_CQL_URL")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatalf("PLATBENCH_CQL_URL %q: %v", raw, err)
	}
	return u
}

// openTest opens the server with opts plus a keyspace of the test's own.
func openTest(t testing.TB, opts map[string]string) *Target {
	t.Helper()
	u := serverURL(t)
	o := map[string]string{"keyspace": fmt.Sprintf("pbtest_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)}
	for k, v := range opts {
		o[k] = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg, err := Open(ctx, u, o)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return tg.(*Target)
}

func key(i int) []byte { return []byte(fmt.Sprintf("user%019d", i*7919)) }

func value(i, fields, fieldLen int) []byte {
	v := make([]byte, fields*fieldLen)
	for j := range v {
		v[j] = byte('a' + (i+j)%26)
	}
	return v
}

// TestOps runs every YCSB op against both table shapes and checks what the
// server holds afterwards through a separate query.
func TestOps(t *testing.T) {
	for _, driver := range []string{DriverNative, DriverGocql} {
		for _, schema := range []string{SchemaYCSB, SchemaStress} {
			t.Run(driver+"/"+schema, func(t *testing.T) { testOps(t, driver, schema) })
		}
	}
}

// nextField is the field a worker's next single-field update writes.
func nextField(w adapter.Worker) int {
	if nw, ok := w.(*pworker); ok {
		return nw.next
	}
	return w.(*worker).next
}

// readOK checks what the last read or scan returned: rows for the native
// worker (it does not decode values), bytes for the gocql one.
func readOK(t *testing.T, w adapter.Worker, before, wantRows, wantBytes int) {
	t.Helper()
	if nw, ok := w.(*pworker); ok {
		if nw.lastRows != wantRows {
			t.Errorf("read returned %d rows, want %d", nw.lastRows, wantRows)
		}
		return
	}
	if got := w.(*worker).sink.n - before; got != wantBytes {
		t.Errorf("read returned %d bytes, want %d", got, wantBytes)
	}
}

func sinkBytes(w adapter.Worker) int {
	if gw, ok := w.(*worker); ok {
		return gw.sink.n
	}
	return 0
}

func testOps(t *testing.T, driver, schema string) {
	{
		{
			ctx := context.Background()
			tg := openTest(t, map[string]string{"schema": schema, "compaction": "LCS", "driver": driver})
			spec := &workload.Spec{Records: 100, FieldCount: 5, FieldLength: 20}
			if err := tg.Setup(ctx, spec); err != nil {
				t.Fatalf("Setup: %v", err)
			}
			ks, tbl := tg.cfg.Keyspace, tg.cfg.Table
			defer func() {
				if err := tg.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			}()
			wk, err := tg.NewWorker(0)
			if err != nil {
				t.Fatalf("NewWorker: %v", err)
			}
			w := wk
			if _, native := w.(*pworker); native != (driver == DriverNative) {
				t.Fatalf("driver=%s gave a %T", driver, w)
			}
			req := &workload.Request{Fields: 5, FieldLen: 20}

			// INSERT 100 records.
			for i := 0; i < 100; i++ {
				req.Op, req.Key, req.Value = vocab.OpInsert, key(i), value(i, 5, 20)
				if err := w.Do(ctx, req); err != nil {
					t.Fatalf("insert %d: %v", i, err)
				}
			}
			var n int
			if err := tg.session.Query("SELECT count(*) FROM " + ks + "." + tbl).Scan(&n); err != nil || n != 100 {
				t.Fatalf("count after inserts = %d, %v; want 100", n, err)
			}
			// The table has the compaction strategy asked for.
			var comp map[string]string
			if err := tg.session.Query("SELECT compaction FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, tbl).Scan(&comp); err != nil {
				t.Fatalf("reading compaction: %v", err)
			}
			if !strings.Contains(comp["class"], "LeveledCompactionStrategy") {
				t.Errorf("compaction %v, want LeveledCompactionStrategy", comp)
			}

			// READ: every field comes back (the sink counts the bytes).
			req.Op, req.Value = vocab.OpRead, nil
			before := sinkBytes(w)
			req.Key = key(3)
			if err := w.Do(ctx, req); err != nil {
				t.Fatalf("read: %v", err)
			}
			readOK(t, w, before, 1, 100)
			req.Key = []byte("user-missing")
			if err := w.Do(ctx, req); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("read of a missing key: %v, want ErrNotFound", err)
			}

			// UPDATE one field: the next field in rotation gets the new bytes.
			req.Op, req.Key, req.Value = vocab.OpUpdate, key(5), bytes.Repeat([]byte("Z"), 20)
			field := nextField(w)
			if err := w.Do(ctx, req); err != nil {
				t.Fatalf("update: %v", err)
			}
			_, cols := columnNames(&tg.cfg, 5)
			keyCol, _ := columnNames(&tg.cfg, 0)
			var got []byte
			q := fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", cols[field], ks, tbl, keyCol)
			if err := tg.session.Query(q, key(5)).Scan(&got); err != nil || string(got) != strings.Repeat("Z", 20) {
				t.Errorf("after update %s = %q, %v; want 20 Z", cols[field], got, err)
			}
			// UPDATE with the whole record writes every field.
			req.Value = bytes.Repeat([]byte("Y"), 100)
			if err := w.Do(ctx, req); err != nil {
				t.Fatalf("update all: %v", err)
			}
			q = fmt.Sprintf("SELECT %s FROM %s.%s WHERE %s = ?", cols[4], ks, tbl, keyCol)
			if err := tg.session.Query(q, key(5)).Scan(&got); err != nil || string(got) != strings.Repeat("Y", 20) {
				t.Errorf("after update-all %s = %q, %v; want 20 Y", cols[4], got, err)
			}

			// READ-MODIFY-WRITE of an existing key succeeds; of a missing key
			// it stops at the read.
			req.Op, req.Key, req.Value = vocab.OpRMW, key(6), bytes.Repeat([]byte("R"), 20)
			if err := w.Do(ctx, req); err != nil {
				t.Errorf("rmw: %v", err)
			}
			req.Key = []byte("user-missing")
			if err := w.Do(ctx, req); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("rmw of a missing key: %v, want ErrNotFound", err)
			}

			// SCAN 10 records from a key by token order: 10 rows of key + 100 bytes.
			req.Op, req.Key, req.Value, req.ScanLen = vocab.OpScan, key(0), nil, 10
			before = sinkBytes(w)
			if err := w.Do(ctx, req); err != nil {
				t.Fatalf("scan: %v", err)
			}
			// Rows come in token order from key(0)'s token; fewer than 10 only
			// if key(0) sorts among the last tokens: count what the server has.
			var want int
			iter := tg.session.Query(fmt.Sprintf("SELECT %s FROM %s.%s WHERE token(%s) >= token(?) LIMIT 10", keyCol, ks, tbl, keyCol), key(0)).Iter()
			var k []byte
			rows := 0
			for iter.Scan(&k) {
				want += len(k) + 100
				rows++
			}
			if err := iter.Close(); err != nil {
				t.Fatal(err)
			}
			if rows == 0 {
				t.Errorf("the server has no rows from key(0)'s token on")
			}
			readOK(t, w, before, rows, want)

			// DELETE, then the key is gone.
			req.Op, req.Key = vocab.OpDelete, key(7)
			if err := w.Do(ctx, req); err != nil {
				t.Fatalf("delete: %v", err)
			}
			req.Op = vocab.OpRead
			if err := w.Do(ctx, req); !errors.Is(err, adapter.ErrNotFound) {
				t.Errorf("read after delete: %v, want ErrNotFound", err)
			}

			// Ops the target does not speak are refused, not faked.
			req.Op = vocab.OpProduce
			if err := w.Do(ctx, req); !errors.Is(err, adapter.ErrUnsupported) {
				t.Errorf("produce: %v, want ErrUnsupported", err)
			}

			// The table's size on disk is readable (0 until a memtable flush).
			if n, err := tg.DiskBytes(ctx); err != nil || n < 0 {
				t.Errorf("DiskBytes = %d, %v", n, err)
			}

			info := tg.Describe(ctx)
			if info.Version == "" || len(info.Nodes) == 0 || strings.Contains(info.URL, "cassandra:cassandra") {
				t.Errorf("Describe: %+v", info)
			}
		}
	}
}

// TestCloseDropsOrKeeps: Close drops the keyspace Setup created; keep=true keeps it.
func TestCloseDropsOrKeeps(t *testing.T) {
	ctx := context.Background()
	for _, keep := range []bool{false, true} {
		tg := openTest(t, map[string]string{"keep": fmt.Sprint(keep)})
		ks := tg.cfg.Keyspace
		if err := tg.Setup(ctx, &workload.Spec{FieldCount: 2, FieldLength: 10}); err != nil {
			t.Fatalf("Setup: %v", err)
		}
		if err := tg.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		probe := openTest(t, map[string]string{"keyspace": ks, "create": "false"})
		err := probe.Setup(ctx, &workload.Spec{FieldCount: 2, FieldLength: 10})
		if keep && err != nil {
			t.Errorf("keep=true: keyspace %s gone after Close: %v", ks, err)
		}
		if !keep && err == nil {
			t.Errorf("keep=false: keyspace %s still there after Close", ks)
		}
		if keep {
			probe.cfg.Keep = false
			probe.createdKS = true // drop it now: the table is the one tg made
			admin, err := probe.adminSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			probe.tableID, err = tableIDOf(ctx, admin, ks, probe.cfg.Table)
			admin.Close()
			if err != nil {
				t.Fatal(err)
			}
		}
		if err := probe.Close(); err != nil {
			t.Errorf("Close of the probe: %v", err)
		}
	}
}

// TestConsistencyLevels: the levels asked for are the ones sent. With more
// replicas required than nodes alive the server answers Unavailable, which
// is classified and does not end anything: the next request succeeds.
func TestConsistencyLevels(t *testing.T) {
	for _, driver := range []string{DriverNative, DriverGocql} {
		t.Run(driver, func(t *testing.T) { testConsistencyLevels(t, driver) })
	}
}

func testConsistencyLevels(t *testing.T, driver string) {
	ctx := context.Background()
	tg := openTest(t, nil)
	nodes := len(tg.session.GetHosts())
	tg.Close()

	// QUORUM of 2n+1 replicas is n+1: one more than the nodes there are.
	rf := 2*nodes + 1
	tg = openTest(t, map[string]string{"rf": fmt.Sprint(rf), "read_consistency": "ALL", "write_consistency": "QUORUM", "driver": driver})
	defer tg.Close()
	if err := tg.Setup(ctx, &workload.Spec{FieldCount: 1, FieldLength: 8}); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	wk, _ := tg.NewWorker(0)
	if w, ok := wk.(*worker); ok {
		if w.read.GetConsistency() != gocql.All || w.insert.GetConsistency() != gocql.Quorum {
			t.Fatalf("read CL %v, write CL %v", w.read.GetConsistency(), w.insert.GetConsistency())
		}
	}
	// The level sent is the one the server's Unavailable names: the gocql
	// error carries it, the native worker keeps the server's message.
	sentLevel := func(err error, want gocql.Consistency) {
		t.Helper()
		if driver == DriverNative {
			msg := tg.Summary(ctx)["cql_server_error_0x1000"]
			if !errors.Is(err, serverErrors[cqlwire.CodeUnavailable]) || !strings.Contains(msg, "consistency level "+want.String()) {
				t.Errorf("want a server Unavailable at %v, got %v (server said %q)", want, err, msg)
			}
			return
		}
		var re *gocql.RequestErrUnavailable
		if !errors.As(err, &re) || re.Consistency != want {
			t.Errorf("want a server Unavailable at %v, got %v", want, err)
		}
	}
	req := &workload.Request{Op: vocab.OpInsert, Key: key(1), Value: []byte("12345678"), Fields: 1, FieldLen: 8}
	for i := 0; i < 3; i++ {
		err := wk.Do(ctx, req)
		if adapter.Classify(err) != vocab.ClassUnavailable {
			t.Fatalf("insert at QUORUM with RF=%d on %d node(s): %v, want class unavailable", rf, nodes, err)
		}
		sentLevel(err, gocql.Quorum)
	}
	req.Op = vocab.OpRead
	err := wk.Do(ctx, req)
	if adapter.Classify(err) != vocab.ClassUnavailable {
		t.Errorf("read at ALL: %v, want class unavailable", err)
	}
	sentLevel(err, gocql.All)
	// Level ONE on the same keyspace works: the session is fine.
	tg.cfg.WriteCL, tg.cfg.ReadCL = gocql.One, gocql.One
	wk, _ = tg.NewWorker(1)
	req.Op = vocab.OpInsert
	if err := wk.Do(ctx, req); err != nil {
		t.Errorf("insert at ONE after unavailable errors: %v", err)
	}
}

// TestUnknownKeyspace: with create=false a missing keyspace is one clear line.
func TestUnknownKeyspace(t *testing.T) {
	tg := openTest(t, map[string]string{"keyspace": "pb_no_such_keyspace", "create": "false"})
	defer tg.Close()
	err := tg.Setup(context.Background(), &workload.Spec{FieldCount: 1, FieldLength: 8})
	var ce *adapter.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), `keyspace "pb_no_such_keyspace" does not exist`) || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Setup: %v; want a ConfigError naming the keyspace and the fix", err)
	}
}

// TestAuthFailure: the test server runs PasswordAuthenticator; a wrong
// password and a missing user each give one line with the fix.
func TestAuthFailure(t *testing.T) {
	u := serverURL(t)
	if u.User == nil {
		testenv.Skip(t, testenv.Server, "PLATBENCH_CQL_URL has no user: the test server must run PasswordAuthenticator")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bad := *u
	bad.User = url.UserPassword(u.User.Username(), "wrong-password")
	_, err := Open(ctx, &bad, nil)
	var ce *adapter.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "authentication failed") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("wrong password: %v; want a ConfigError 'authentication failed ... (fix: ...)'", err)
	}
	if strings.Contains(err.Error(), "wrong-password") {
		t.Errorf("the error shows the password: %v", err)
	}
	anon := *u
	anon.User = nil
	_, err = Open(ctx, &anon, nil)
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "requires authentication") {
		t.Errorf("no user: %v; want a ConfigError 'requires authentication'", err)
	}
}

// TestUnreachable: nothing listens on the port: one line, class unavailable.
func TestUnreachable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Open(ctx, mustURL(t, "cql://127.0.0.1:1"), map[string]string{"connect_timeout": "2s"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach any contact point 127.0.0.1:1") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Open: %v; want 'cannot reach any contact point ... (fix: ...)'", err)
	}
	if adapter.Classify(err) != vocab.ClassUnavailable {
		t.Errorf("class %v, want unavailable", adapter.Classify(err))
	}
}

// TestTimeoutClassified freezes the node (SIGSTOP, like a long GC pause)
// under a worker with timeout=300ms: requests time out on the client, are
// classified as timeouts, and succeed again once the node resumes. An
// expired context is a timeout too.
func TestTimeoutClassified(t *testing.T) {
	testenv.Exclusive(t, "PLATBENCH_CQL_URL") // other packages' tests load the node
	for _, driver := range []string{DriverNative, DriverGocql} {
		t.Run(driver, func(t *testing.T) { testTimeoutClassified(t, driver) })
	}
}

func testTimeoutClassified(t *testing.T, driver string) {
	ctx := context.Background()
	tg := openTest(t, map[string]string{"timeout": "300ms", "driver": driver})
	defer tg.Close()
	if err := tg.Setup(ctx, &workload.Spec{FieldCount: 10, FieldLength: 100}); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	wk, _ := tg.NewWorker(0)
	req := &workload.Request{Op: vocab.OpInsert, Key: key(1), Value: value(1, 10, 100), Fields: 10, FieldLen: 100}
	if err := wk.Do(ctx, req); err != nil {
		t.Fatalf("insert before the pause: %v", err)
	}

	dctx, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	if err := wk.Do(dctx, req); adapter.Classify(err) != vocab.ClassTimeout {
		t.Errorf("expired context: %v, want class timeout", err)
	}

	ctl := nodeCtl(t)
	nodes := len(tg.session.GetHosts())
	for n := 1; n <= nodes; n++ {
		if out, err := exec.Command(ctl, "pause-node", fmt.Sprint(n)).CombinedOutput(); err != nil {
			t.Fatalf("pause-node %d: %v\n%s", n, err, out)
		}
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			for n := 1; n <= nodes; n++ {
				if out, err := exec.Command(ctl, "resume-node", fmt.Sprint(n)).CombinedOutput(); err != nil {
					t.Errorf("resume-node %d: %v\n%s", n, err, out)
				}
			}
		}
	}
	defer resume()
	var classes [vocab.NumClasses]int
	for i := 0; i < 5; i++ {
		req.Key = key(i)
		classes[adapter.Classify(wk.Do(ctx, req))]++
	}
	resume()
	if classes[vocab.ClassTimeout] == 0 {
		t.Errorf("no timeout while the node was frozen: %v", classes)
	}
	if classes[vocab.ClassOther] > 0 {
		t.Errorf("unclassified errors while frozen: %v", classes)
	}
	// The worker goes on: requests succeed again within a few seconds.
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := wk.Do(ctx, req)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("requests still fail 30s after the node resumed: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("while frozen: %v (by class none, timeout, unavailable, ...)", classes)
}

func nodeCtl(t *testing.T) string {
	t.Helper()
	return testenv.URL(t, "PLATBENCH_CQL_NODECTL")
}

// TestNodeDownMidRun stops the node under a running worker and starts it
// again: requests fail with counted classes while it is down, the worker
// goes on, and requests succeed again once it is back. It needs the server
// script (PLATBENCH_CQL_NODECTL) to stop and start the node.
func TestNodeDownMidRun(t *testing.T) {
	testenv.Exclusive(t, "PLATBENCH_CQL_URL") // other packages' tests load the node
	for _, driver := range []string{DriverNative, DriverGocql} {
		t.Run(driver, func(t *testing.T) { testNodeDownMidRun(t, driver) })
	}
}

func testNodeDownMidRun(t *testing.T, driver string) {
	ctl := nodeCtl(t)
	ctx := context.Background()
	probe := openTest(t, nil)
	nodes := len(probe.session.GetHosts())
	probe.Close()
	opts := map[string]string{"timeout": "1s", "reconnect_interval": "1s", "driver": driver}
	if nodes >= 3 {
		// RF=3 at QUORUM survives one node: requests must keep succeeding.
		opts["rf"], opts["consistency"] = "3", "QUORUM"
	}
	tg := openTest(t, opts)
	defer tg.Close()
	if err := tg.Setup(ctx, &workload.Spec{FieldCount: 2, FieldLength: 10}); err != nil {
		t.Fatalf("Setup: %v", err)
	}
	victim := fmt.Sprint(nodes) // the last node; on one node, the only one
	wk, _ := tg.NewWorker(0)
	req := &workload.Request{Op: vocab.OpInsert, Value: []byte("01234567890123456789"), Fields: 2, FieldLen: 10}

	var classes [vocab.NumClasses]int
	okWhileDown := 0
	stopped, restarted := false, false
	okAfter := 0
	start := time.Now()
	deadline := start.Add(3 * time.Minute)
	done := make(chan error, 1)
	for i := 0; time.Now().Before(deadline); i++ {
		req.Key = key(i)
		class := adapter.Classify(wk.Do(ctx, req))
		classes[class]++
		if stopped && !restarted && class == vocab.ClassNone {
			okWhileDown++
		}
		switch {
		case !stopped && time.Since(start) > time.Second:
			stopped = true
			if out, err := exec.Command(ctl, "stop-node", victim).CombinedOutput(); err != nil {
				t.Fatalf("stop-node %s: %v\n%s", victim, err, out)
			}
			go func() {
				out, err := exec.Command(ctl, "start-node", victim).CombinedOutput()
				if err != nil {
					err = fmt.Errorf("%v: %s", err, out)
				}
				done <- err
			}()
		case stopped && !restarted:
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("start-node %s: %v", victim, err)
				}
				restarted = true
			default:
			}
		}
		if restarted && classes[vocab.ClassNone] > 0 {
			if adapter.Classify(wk.Do(ctx, req)) == vocab.ClassNone {
				okAfter++
			}
			if okAfter >= 10 {
				break
			}
		}
		if stopped && !restarted {
			time.Sleep(10 * time.Millisecond) // do not spin on instant failures
		}
	}
	failed := 0
	for c, n := range classes {
		if vocab.Class(c) != vocab.ClassNone {
			failed += n
		}
	}
	t.Logf("node %s of %d down and up: %d ok (%d while down), %d failed by class %v, %d ok after restart, events: %v",
		victim, nodes, classes[vocab.ClassNone], okWhileDown, failed, classes, okAfter, tg.Summary(ctx))
	if nodes == 1 && failed == 0 {
		t.Errorf("no request failed while the only node was down")
	}
	if nodes >= 3 && okWhileDown == 0 {
		t.Errorf("no request succeeded at QUORUM with RF=3 while one of %d nodes was down", nodes)
	}
	if classes[vocab.ClassOther] > 0 {
		t.Errorf("%d errors left unclassified", classes[vocab.ClassOther])
	}
	if okAfter < 10 {
		t.Errorf("requests did not succeed again after the node came back (%d ok)", okAfter)
	}
	if got := tg.Summary(ctx)["cql_native_reconnected"]; driver == DriverNative && nodes == 1 && got == "" {
		t.Errorf("the native worker succeeded after the restart without counting a reconnection")
	}
	if got := tg.Summary(ctx)["cql_host_down_events"]; got != "1" {
		t.Errorf("cql_host_down_events = %q, want 1 (one node went down once)", got)
	}
}
