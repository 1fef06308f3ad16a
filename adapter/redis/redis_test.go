package redis

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// serverURL returns the URL in env var name. Locally a missing server skips
// the test; under CI it fails it, so CI never silently skips.
func serverURL(t testing.TB, name string) string {
	t.Helper()
	return testenv.URL(t, name)
}

func open(t testing.TB, raw string, opts map[string]string) *Target {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	tg, err := Open(context.Background(), u, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", raw, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg.(*Target)
}

// verifier is an independent client (go-redis) to check what the target wrote.
func verifier(t testing.TB, raw string) goredis.UniversalClient {
	t.Helper()
	o, err := goredis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	return c
}

var uniq = strconv.FormatInt(time.Now().UnixNano(), 36)

func req(op vocab.Op, key string, value []byte, fields, fieldLen int) *workload.Request {
	return &workload.Request{Op: op, Key: []byte(key), Value: value, Fields: fields, FieldLen: fieldLen}
}

func spec(fields, fieldLen int, mix ...vocab.Op) *workload.Spec {
	s := &workload.Spec{Name: "test", Records: 100, FieldCount: fields, FieldLength: fieldLen}
	for _, op := range mix {
		s.Mix = append(s.Mix, vocab.Mix{Op: op, Weight: 1})
	}
	return s
}

func TestParseConfig(t *testing.T) {
	cases := []struct {
		url     string
		opts    map[string]string
		wantErr string // substring of the error; "" for success
		check   func(*Config) bool
	}{
		// defaults
		{"redis://127.0.0.1:6379", nil, "", func(c *Config) bool {
			return c.Mode == "kv" && c.Pipeline == 1 && c.Conns == 0 && c.Cluster == "auto" && c.Timeout == 5*time.Second && !c.TLS
		}},
		// user, password, database, TLS, query options
		{"rediss://alice:pw@h:7000/3?mode=hash&pipeline=16", nil, "", func(c *Config) bool {
			return c.TLS && c.User == "alice" && c.Password == "pw" && c.DB == 3 && c.Mode == "hash" && c.Pipeline == 16 && c.Addrs[0] == "h:7000"
		}},
		// a lone userinfo is the password (redis-cli -u does the same); --target-opt wins over the query
		{"redis://:secret@h?mode=hash", map[string]string{"mode": "kv"}, "", func(c *Config) bool {
			return c.Password == "secret" && c.User == "" && c.Mode == "kv" && c.Addrs[0] == "h:6379"
		}},
		// several seeds are a cluster
		{"redis://a:1,b:2", nil, "", func(c *Config) bool { return len(c.Addrs) == 2 }},
		{"redis://h?mode=json", nil, "mode=\"json\" is not kv or hash", nil},
		{"redis://h?pipeline=0", nil, "pipeline=\"0\"", nil},
		{"redis://h?pipeline=2&conns=3", nil, "", func(c *Config) bool { return c.Pipeline == 2 && c.Conns == 3 }},
		{"redis://h/x", nil, "database \"x\"", nil},
		{"redis://h?pipelin=2", nil, "unknown option \"pipelin\"", nil},
		{"redis://a:1,b:2?cluster=false", nil, "several addresses need cluster mode", nil},
		{"http://h", nil, "is not redis://", nil},
	}
	for _, c := range cases {
		u, err := url.Parse(c.url)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig(u, c.opts)
		if c.wantErr != "" {
			var ce *adapter.ConfigError
			if err == nil || !strings.Contains(err.Error(), c.wantErr) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "fix:") {
				t.Errorf("%s: got error %v, want a config error containing %q and a fix", c.url, err, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if !c.check(cfg) {
			t.Errorf("%s: unexpected config %+v", c.url, cfg)
		}
	}
}

func TestKV(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	tg := open(t, raw, nil)
	if err := tg.Setup(context.Background(), spec(1, 100, vocab.OpRead, vocab.OpUpdate)); err != nil {
		t.Fatal(err)
	}
	if info := tg.Describe(context.Background()); info.Version == "" || info.Kind != "redis" || !strings.Contains(info.Details["client"], "standalone") {
		t.Errorf("Describe: %+v", info)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	v := verifier(t, raw)
	ctx := context.Background()
	key := "kv-" + uniq
	val := bytes.Repeat([]byte("a"), 100)

	if err := w.Do(ctx, req(vocab.OpRead, key, nil, 1, 100)); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("READ of a missing key: %v, want not found", err)
	}
	if err := w.Do(ctx, req(vocab.OpInsert, key, val, 1, 100)); err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get(ctx, key).Bytes(); !bytes.Equal(got, val) {
		t.Fatalf("after INSERT the server holds %q", got)
	}
	if err := w.Do(ctx, req(vocab.OpRead, key, nil, 1, 100)); err != nil {
		t.Fatalf("READ: %v", err)
	}
	val2 := bytes.Repeat([]byte("b"), 100)
	if err := w.Do(ctx, req(vocab.OpRMW, key, val2, 1, 100)); err != nil {
		t.Fatal(err)
	}
	if got, _ := v.Get(ctx, key).Bytes(); !bytes.Equal(got, val2) {
		t.Fatalf("after RMW the server holds %q", got)
	}
	for i := 0; i < 3; i++ {
		if err := w.Do(ctx, req(vocab.OpIncr, key, nil, 1, 100)); err != nil {
			t.Fatal(err)
		}
	}
	if n, _ := v.Get(ctx, "ctr:"+key).Int(); n != 3 {
		t.Fatalf("after 3 INCR the counter is %d", n)
	}
	if err := w.Do(ctx, req(vocab.OpDelete, key, nil, 1, 100)); err != nil {
		t.Fatal(err)
	}
	if n := v.Exists(ctx, key).Val(); n != 0 {
		t.Fatal("DELETE left the key")
	}
	// A 128 KB value: bigger than the read buffer, streamed through.
	big := bytes.Repeat([]byte("z"), 131072)
	if err := w.Do(ctx, req(vocab.OpSet, key, big, 1, len(big))); err != nil {
		t.Fatal(err)
	}
	if err := w.Do(ctx, req(vocab.OpGet, key, nil, 1, len(big))); err != nil {
		t.Fatal(err)
	}
	if n := v.StrLen(ctx, key).Val(); n != 131072 {
		t.Fatalf("STRLEN after a 128 KB SET = %d", n)
	}
	v.Del(ctx, key, "ctr:"+key)
}

func TestHash(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	tg := open(t, raw, map[string]string{"mode": "hash"})
	if err := tg.Setup(context.Background(), spec(10, 100, vocab.OpRead, vocab.OpUpdate)); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	v := verifier(t, raw)
	ctx := context.Background()
	key := "hash-" + uniq
	val := make([]byte, 1000)
	for i := range val {
		val[i] = byte('0' + i/100) // field i is ten... "iii..."
	}
	if err := w.Do(ctx, req(vocab.OpInsert, key, val, 10, 100)); err != nil {
		t.Fatal(err)
	}
	m := v.HGetAll(ctx, key).Val()
	if len(m) != 10 {
		t.Fatalf("after INSERT the hash has %d fields, want 10", len(m))
	}
	for i := 0; i < 10; i++ {
		if f := m["field"+strconv.Itoa(i)]; f != strings.Repeat(string(rune('0'+i)), 100) {
			t.Fatalf("field%d = %q", i, f)
		}
	}
	if err := w.Do(ctx, req(vocab.OpRead, key, nil, 10, 100)); err != nil {
		t.Fatal(err)
	}
	// An UPDATE writes exactly one field, as YCSB's redis binding does.
	upd := bytes.Repeat([]byte("U"), 1000)
	if err := w.Do(ctx, req(vocab.OpUpdate, key, upd, 10, 100)); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, f := range v.HGetAll(ctx, key).Val() {
		if f == strings.Repeat("U", 100) {
			changed++
		}
	}
	if changed != 1 {
		t.Fatalf("UPDATE changed %d fields, want 1", changed)
	}
	if err := w.Do(ctx, req(vocab.OpRead, "hash-missing-"+uniq, nil, 10, 100)); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("READ of a missing hash: %v", err)
	}
	// A key of the wrong type is a classified server error, and the connection stays usable.
	v.Set(ctx, "str-"+uniq, "x", 0)
	if err := w.Do(ctx, req(vocab.OpRead, "str-"+uniq, nil, 10, 100)); adapter.Classify(err) != vocab.ClassRejected || !strings.Contains(err.Error(), "WRONGTYPE") {
		t.Fatalf("HGETALL of a string: %v, want rejected WRONGTYPE", err)
	}
	if err := w.Do(ctx, req(vocab.OpRead, key, nil, 10, 100)); err != nil {
		t.Fatalf("after a server error: %v", err)
	}
	v.Del(ctx, key, "str-"+uniq)
}

func TestScanRejectedWithPipeline(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	tg := open(t, raw, map[string]string{"pipeline": "4"})
	err := tg.Setup(context.Background(), spec(10, 100, vocab.OpScan, vocab.OpInsert))
	var ce *adapter.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "SCAN") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Setup with SCAN and pipeline=4: %v, want a config error naming SCAN", err)
	}
}

// clientCount counts the server's client connections named by their address prefix.
func clientCount(t *testing.T, v goredis.UniversalClient) int {
	list := v.ClientList(context.Background()).Val()
	return strings.Count(list, "cmd=") - 1 // minus the verifier's own
}

// TestPlainWorkersWithPipelineOption: a caller that drives plain workers
// (without PipelineShape) gets one connection per worker whatever pipeline
// and conns say, and every reply reaches the worker that sent the command.
// Pipelined workers are tested in async_test.go.
func TestPlainWorkersWithPipelineOption(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	for _, opts := range []map[string]string{{"pipeline": "8"}, {"conns": "3"}} {
		t.Run(fmt.Sprint(opts), func(t *testing.T) {
			const workers = 6
			v := verifier(t, raw)
			before := clientCount(t, v)
			tg := open(t, raw, opts)
			if err := tg.Setup(context.Background(), spec(1, 64, vocab.OpRead, vocab.OpUpdate)); err != nil {
				t.Fatal(err)
			}
			ws := make([]adapter.Worker, workers)
			for i := range ws {
				w, err := tg.NewWorker(i)
				if err != nil {
					t.Fatal(err)
				}
				ws[i] = w
				defer w.Close()
			}
			if got := clientCount(t, v) - before; got != workers {
				t.Errorf("%d workers opened %d connections, want one each", workers, got)
			}
			var wg sync.WaitGroup
			errs := make(chan error, workers)
			for i, w := range ws {
				wg.Add(1)
				go func() {
					defer wg.Done()
					ctx := context.Background()
					for j := 0; j < 100; j++ {
						key := fmt.Sprintf("plain-%s-%d-%d", uniq, i, j%7)
						if err := w.Do(ctx, req(vocab.OpSet, key, bytes.Repeat([]byte{byte(i)}, 64), 1, 64)); err != nil {
							errs <- err
							return
						}
						if err := w.Do(ctx, req(vocab.OpGet, key+"-none", nil, 1, 64)); !errors.Is(err, adapter.ErrNotFound) {
							errs <- fmt.Errorf("GET of a missing key: %v", err)
							return
						}
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			for i := range ws {
				key := fmt.Sprintf("plain-%s-%d-0", uniq, i)
				if got, _ := v.Get(context.Background(), key).Bytes(); !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, 64)) {
					t.Fatalf("worker %d's key holds %v", i, got)
				}
			}
		})
	}
}

func TestAuth(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_AUTH_URL")
	u, _ := url.Parse(raw)
	good := open(t, raw, nil)
	if err := good.Setup(context.Background(), spec(1, 10, vocab.OpRead)); err != nil {
		t.Fatal(err)
	}
	w, err := good.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Do(context.Background(), req(vocab.OpSet, "auth-"+uniq, []byte("x"), 1, 1)); err != nil {
		t.Fatal(err)
	}
	w.Close()

	for _, c := range []struct{ name, url, want string }{
		{"wrong password", "redis://:wrong@" + u.Host, "refused the credentials"},
		{"no password", "redis://" + u.Host, "needs a password"},
	} {
		uu, _ := url.Parse(c.url)
		_, err := Open(context.Background(), uu, nil)
		var ce *adapter.ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line config error containing %q and a fix", c.name, err, c.want)
		}
		// The fix names the variable, never a password in the URL (ps shows it).
		if err != nil && (!strings.Contains(err.Error(), "$PLATBENCH_TARGET_PASSWORD") || strings.Contains(err.Error(), ":pass@") || strings.Contains(err.Error(), "wrong")) {
			t.Errorf("%s: %v: want a fix naming $PLATBENCH_TARGET_PASSWORD, without a password in a URL", c.name, err)
		}
	}
}

func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	u, _ := url.Parse("redis://" + addr)
	_, err = Open(context.Background(), u, map[string]string{"timeout": "1s"})
	if err == nil || adapter.Classify(err) != vocab.ClassUnavailable || !strings.Contains(err.Error(), "cannot reach") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("Open of a closed port: %v, want an unavailable error with a fix", err)
	}
}

func TestCluster(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_CLUSTER_URL")
	for _, mode := range []string{"kv", "hash"} {
		tg := open(t, raw, map[string]string{"mode": mode})
		if err := tg.Setup(context.Background(), spec(10, 10, vocab.OpRead)); err != nil {
			t.Fatal(err)
		}
		info := tg.Describe(context.Background())
		if !strings.Contains(info.Details["client"], "cluster") || len(info.Nodes) == 0 {
			t.Fatalf("a cluster server was not detected: %+v", info)
		}
		w, err := tg.NewWorker(0)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		key := "cl-" + mode + uniq
		if err := w.Do(ctx, req(vocab.OpRead, key, nil, 10, 10)); !errors.Is(err, adapter.ErrNotFound) {
			t.Fatalf("%s: READ of a missing key: %v", mode, err)
		}
		for _, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpRMW, vocab.OpIncr, vocab.OpDelete} {
			if err := w.Do(ctx, req(op, key, bytes.Repeat([]byte("c"), 100), 10, 10)); err != nil {
				t.Fatalf("%s: %s: %v", mode, op, err)
			}
		}
		if err := w.Do(ctx, req(vocab.OpRead, key, nil, 10, 10)); !errors.Is(err, adapter.ErrNotFound) {
			t.Fatalf("%s: READ after DELETE: %v", mode, err)
		}
		w.Close()
	}
}

// TestServerKilledMidRun kills a redis-server of its own while workers run:
// the workers return classified errors (not panics, not hangs), and recover
// by themselves when the server is back.
func TestServerKilledMidRun(t *testing.T) {
	serverURL(t, "PLATBENCH_REDIS_URL") // only where redis is installed
	// The server binary of the run (scripts/test.sh names valkey-server when
	// it runs these tests against Valkey).
	bin, err := exec.LookPath(cmp.Or(os.Getenv("PLATBENCH_REDIS_SERVER_BIN"), "redis-server"))
	if err != nil {
		t.Fatal("the server binary is not on PATH: ", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	start := func() *exec.Cmd {
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
				c.Close()
				return cmd
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatal("private redis-server did not start")
		return nil
	}
	srv := start()
	defer func() { srv.Process.Kill(); srv.Wait() }()

	for _, opts := range []map[string]string{{"timeout": "2s"}} {
		tg := open(t, "redis://127.0.0.1:"+port, opts)
		if err := tg.Setup(context.Background(), spec(1, 16, vocab.OpSet)); err != nil {
			t.Fatal(err)
		}
		var ws []adapter.Worker
		for i := 0; i < 4; i++ {
			w, err := tg.NewWorker(i)
			if err != nil {
				t.Fatal(err)
			}
			ws = append(ws, w)
		}
		var mu sync.Mutex
		classes := map[vocab.Class]int{}
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for i, w := range ws {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := req(vocab.OpSet, fmt.Sprintf("kill-%d", i), []byte("v"), 1, 1)
				for {
					select {
					case <-stop:
						return
					default:
					}
					c := adapter.Classify(w.Do(context.Background(), r))
					mu.Lock()
					classes[c]++
					mu.Unlock()
				}
			}()
		}
		time.Sleep(200 * time.Millisecond)
		srv.Process.Kill()
		srv.Wait()
		time.Sleep(500 * time.Millisecond)
		mu.Lock()
		okBefore, unavailable := classes[vocab.ClassNone], classes[vocab.ClassUnavailable]
		mu.Unlock()
		srv = start()
		time.Sleep(700 * time.Millisecond)
		close(stop)
		wg.Wait()
		if okBefore == 0 || unavailable == 0 || classes[vocab.ClassNone] <= okBefore {
			t.Fatalf("%v: ops by class %v (ok before the kill %d): want successes, then unavailable errors, then successes again", opts, classes, okBefore)
		}
		if n := classes[vocab.ClassOther] + classes[vocab.ClassTimeout]; n > 0 {
			t.Errorf("%v: %d errors were not classified unavailable: %v", opts, n, classes)
		}
		// Connection failures are paced: at most ~10 per worker-second while down.
		if unavailable > 4*20 {
			t.Errorf("%v: %d unavailable errors in ~1 s from 4 workers: reconnects are not paced", opts, unavailable)
		}
		for _, w := range ws {
			w.Close()
		}
	}
}

// TestDoDoesNotAllocate holds the standalone hot path to zero allocations.
func TestDoDoesNotAllocate(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	for _, opts := range []map[string]string{{"mode": "kv"}, {"mode": "hash"}} {
		tg := open(t, raw, opts)
		if err := tg.Setup(context.Background(), spec(10, 100, vocab.OpRead)); err != nil {
			t.Fatal(err)
		}
		w, err := tg.NewWorker(0)
		if err != nil {
			t.Fatal(err)
		}
		val := bytes.Repeat([]byte("v"), 1000)
		ctx := context.Background()
		for _, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpRMW} {
			r := req(op, "alloc-"+opts["mode"]+uniq, val, 10, 100)
			if op == vocab.OpRead {
				r.Value = nil
			}
			w.Do(ctx, r) // warm the buffers
			if n := testing.AllocsPerRun(200, func() {
				if err := w.Do(ctx, r); err != nil {
					t.Fatal(err)
				}
			}); n != 0 {
				t.Errorf("%v %s: %.1f allocations per Do, want 0", opts, op, n)
			}
		}
		w.Close()
	}
}

// BenchmarkDo measures one worker's Do against the real server (a round trip
// each), with allocations. Run: go test -bench Do -benchmem ./adapter/redis/
func BenchmarkDo(b *testing.B) {
	raw := serverURL(b, "PLATBENCH_REDIS_URL")
	for _, c := range []struct {
		name string
		opts map[string]string
		op   vocab.Op
	}{
		{"kv/GET", map[string]string{"mode": "kv"}, vocab.OpRead},
		{"kv/SET", map[string]string{"mode": "kv"}, vocab.OpUpdate},
		{"hash/HGETALL", map[string]string{"mode": "hash"}, vocab.OpRead},
		{"hash/HSET", map[string]string{"mode": "hash"}, vocab.OpUpdate},
	} {
		b.Run(c.name, func(b *testing.B) {
			tg := open(b, raw, c.opts)
			tg.Setup(context.Background(), spec(10, 100, vocab.OpRead))
			w, err := tg.NewWorker(0)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			val := bytes.Repeat([]byte("v"), 1000)
			w.Do(context.Background(), req(vocab.OpInsert, "bench-key-"+c.opts["mode"], val, 10, 100))
			r := req(c.op, "bench-key-"+c.opts["mode"], val, 10, 100)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Do(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkClusterDo measures the cluster path (a connection per master), which does not allocate.
func BenchmarkClusterDo(b *testing.B) {
	raw := serverURL(b, "PLATBENCH_REDIS_CLUSTER_URL")
	for _, op := range []vocab.Op{vocab.OpRead, vocab.OpUpdate} {
		b.Run("kv/"+op.String(), func(b *testing.B) {
			tg := open(b, raw, nil)
			tg.Setup(context.Background(), spec(1, 100, vocab.OpRead))
			w, err := tg.NewWorker(0)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			r := req(op, "bench-cluster", bytes.Repeat([]byte("v"), 100), 1, 100)
			w.Do(context.Background(), req(vocab.OpInsert, "bench-cluster", r.Value, 1, 100))
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := w.Do(context.Background(), r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A YCSB property file (scans excluded: Redis has none) runs against Redis:
// the records load, and a stream of its reads and inserts finds every key.
func TestYCSBPropertyFile(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	l, err := workload.Open("../../examples/workloads/ycsb/workloadd")
	if err != nil {
		t.Fatal(err)
	}
	s := l.Spec
	s.Records, s.KeyPrefix = 500, "ycsbprops-"+uniq+"-"
	tg := open(t, raw, nil)
	ctx := context.Background()
	if err := tg.Setup(ctx, &s); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	g := workload.NewGenerator(&s, workload.NewKeyspace(&s, 0, 1), 1, 0)
	var r workload.Request
	for i := range uint64(2500) {
		if i < s.Records {
			g.Load(&r, i)
		} else {
			g.Next(&r)
		}
		if err := w.Do(ctx, &r); err != nil {
			t.Fatalf("op %d %s %s: %v", i, r.Op, r.Key, err)
		}
	}
}
