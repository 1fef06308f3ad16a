package hazelcast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// clusterURL returns PLATBENCH_HAZELCAST_URL. Locally a missing cluster skips
// the test; under CI it fails it.
func clusterURL(t testing.TB) string {
	t.Helper()
	return testenv.URL(t, "PLATBENCH_HAZELCAST_URL")
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

var uniq = strconv.FormatInt(time.Now().UnixNano(), 36)

func spec(mix ...vocab.Op) *workload.Spec {
	s := &workload.Spec{Name: "test", Records: 100, FieldCount: 10, FieldLength: 100}
	for _, op := range mix {
		s.Mix = append(s.Mix, vocab.Mix{Op: op, Weight: 1})
	}
	return s
}

func TestParseConfig(t *testing.T) {
	cases := []struct {
		url     string
		opts    map[string]string
		wantErr string
		check   func(*Config) bool
	}{
		// defaults
		{"hazelcast://h", nil, "", func(c *Config) bool {
			return c.Addrs[0] == "h:5701" && c.Cluster == "dev" && c.Map == "platbench" && c.Refs == 1 && c.CP == "ref" && c.Timeout == 5*time.Second
		}},
		// several members, cluster name, options from --target-opt winning over the query
		{"hazelcast://a:5701,b:5702?cluster=prod&map=m1", map[string]string{"map": "m2", "refs": "4", "cp_group": "g"}, "", func(c *Config) bool {
			return len(c.Addrs) == 2 && c.Cluster == "prod" && c.Map == "m2" && c.Refs == 4 && c.CPGroup == "g"
		}},
		{"hazelcast://h?refs=0", nil, "refs=\"0\"", nil},
		{"hazelcast://h?cp=int", nil, "cp=\"int\"", nil},
		{"hazelcast://h?ref=a@b", nil, "without '@'", nil},
		{"hazelcast://h?timeout=soon", nil, "timeout=\"soon\"", nil},
		{"hazelcast://h?mapp=x", nil, "unknown option \"mapp\"", nil},
	}
	for _, c := range cases {
		u, _ := url.Parse(c.url)
		cfg, err := ParseConfig(u, c.opts)
		if c.wantErr != "" {
			var ce *adapter.ConfigError
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "fix:") {
				t.Errorf("%s: got %v, want a config error with %q and a fix", c.url, err, c.wantErr)
			}
			continue
		}
		if err != nil || !c.check(cfg) {
			t.Errorf("%s: %v %+v", c.url, err, cfg)
		}
	}
}

// A workload's options set cp and refs (the cp-atomic-long preset sets
// cp=long) but lose to the URL and the target options; other keys of a
// workload are not for this target and are ignored.
func TestWorkloadOptions(t *testing.T) {
	u, _ := url.Parse("hazelcast://h?refs=2")
	c, err := parseConfig(u, nil, map[string]string{"cp": "long", "refs": "4", "timeout": "1s", "consumers": "1"})
	if err != nil || c.CP != "long" || c.Refs != 2 || c.Timeout != 5*time.Second {
		t.Fatalf("got %+v, %v", c, err)
	}
	_, err = parseConfig(u, nil, map[string]string{"cp": "int"})
	if err == nil || !strings.Contains(err.Error(), `cp="int" (from the workload's options) is not ref, long, lock or semaphore`) {
		t.Fatalf("got %v", err)
	}
}

func TestIMap(t *testing.T) {
	tg := open(t, clusterURL(t), map[string]string{"map": "test-" + uniq})
	if err := tg.Setup(context.Background(), spec(vocab.OpRead, vocab.OpUpdate, vocab.OpInsert, vocab.OpDelete, vocab.OpRMW)); err != nil {
		t.Fatal(err)
	}
	info := tg.Describe(context.Background())
	if len(info.Nodes) != 3 || !strings.HasPrefix(info.Version, "5.") {
		t.Errorf("Describe: want 3 members of 5.x, got %+v", info)
	}
	w, _ := tg.NewWorker(0)
	ctx := context.Background()
	r := &workload.Request{Key: []byte("user-" + uniq), Fields: 10, FieldLen: 100}
	do := func(op vocab.Op, v []byte) error { r.Op, r.Value = op, v; return w.Do(ctx, r) }
	if err := do(vocab.OpRead, nil); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("READ of a missing key: %v", err)
	}
	val := bytes.Repeat([]byte("a"), 1000)
	if err := do(vocab.OpInsert, val); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.m.Get(ctx, string(r.Key)); err != nil || !bytes.Equal(got.([]byte), val) {
		t.Fatalf("after INSERT the map holds %v (%v)", got, err)
	}
	for _, op := range []vocab.Op{vocab.OpRead, vocab.OpUpdate, vocab.OpRMW} {
		if err := do(op, bytes.Repeat([]byte("b"), 1000)); err != nil {
			t.Fatalf("%s: %v", op, err)
		}
	}
	if got, _ := tg.m.Get(ctx, string(r.Key)); !bytes.Equal(got.([]byte), bytes.Repeat([]byte("b"), 1000)) {
		t.Fatal("UPDATE did not change the value")
	}
	if err := do(vocab.OpDelete, nil); err != nil {
		t.Fatal(err)
	}
	if err := do(vocab.OpRead, nil); !errors.Is(err, adapter.ErrNotFound) {
		t.Fatalf("READ after DELETE: %v", err)
	}
	if err := tg.Setup(ctx, spec(vocab.OpScan)); err == nil || !strings.Contains(err.Error(), "SCAN") {
		t.Fatalf("Setup with SCAN: %v", err)
	}
}

// TestCP runs the seed's operation (IAtomicReference.set of 128 KB values)
// and the other CP ops the client supports.
func TestCP(t *testing.T) {
	tg := open(t, clusterURL(t), map[string]string{"ref": "ref-" + uniq, "long": "long-" + uniq, "refs": "2"})
	if err := tg.Setup(context.Background(), spec(vocab.OpSet, vocab.OpGet, vocab.OpCAS, vocab.OpIncr)); err != nil {
		t.Fatal(err)
	}
	w, _ := tg.NewWorker(0)
	ctx := context.Background()
	r := &workload.Request{KeyNum: 1}
	if r.Op = vocab.OpGet; !errors.Is(w.Do(ctx, r), adapter.ErrNotFound) {
		t.Fatal("GET of a reference never set should be not found")
	}
	v1 := bytes.Repeat([]byte{1}, 131072)
	r.Op, r.Value = vocab.OpSet, v1
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got, err := tg.refs[1].Get(ctx); err != nil || !bytes.Equal(got.([]byte), v1) {
		t.Fatalf("after SET of 128 KB reference 1 holds %d bytes (%v)", len(got.([]byte)), err)
	}
	if got, _ := tg.refs[0].Get(ctx); got != nil {
		t.Fatal("KeyNum 1 must go to reference 1 of 2, not 0")
	}
	r.Op = vocab.OpGet
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	// CAS from the value this worker last saw: applies.
	v2 := bytes.Repeat([]byte{2}, 131072)
	r.Op, r.Value = vocab.OpCAS, v2
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	if got, _ := tg.refs[1].Get(ctx); !bytes.Equal(got.([]byte), v2) {
		t.Fatal("CAS from the current value did not apply")
	}
	// Someone else changes it: the next CAS does not apply, and is counted.
	tg.refs[1].Set(ctx, []byte("other"))
	r.Value = v1
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	if tg.Summary(ctx)["cas_failed"] != "1" {
		t.Fatalf("summary %v, want cas_failed=1", tg.Summary(ctx))
	}
	before, _ := tg.long.Get(ctx)
	r.Op = vocab.OpIncr
	for i := 0; i < 5; i++ {
		if err := w.Do(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := tg.long.Get(ctx); after != before+5 {
		t.Fatalf("5 INCR moved the counter from %d to %d", before, after)
	}
}

func TestOpenErrors(t *testing.T) {
	raw := clusterURL(t)
	u, _ := url.Parse(raw)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	closed := l.Addr().String()
	l.Close()
	for _, c := range []struct{ name, url, want string }{
		{"wrong cluster name", "hazelcast://" + u.Host + "?cluster=wrong-" + uniq, "refused the client for cluster"},
		{"nobody listening", "hazelcast://" + closed, "cannot connect"},
	} {
		uu, _ := url.Parse(c.url)
		start := time.Now()
		_, err := Open(context.Background(), uu, map[string]string{"connect_timeout": "3s"})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want a one-line error about %q with a fix", c.name, err, c.want)
		} else {
			t.Logf("%s: %v", c.name, err)
		}
		if d := time.Since(start); d > 15*time.Second {
			t.Errorf("%s: Open took %s with connect_timeout=3s", c.name, d)
		}
	}
}

// BenchmarkDo measures one worker's Do against the cluster, with the Go
// client's allocations (it is not zero-alloc: see the package doc).
func BenchmarkDo(b *testing.B) {
	raw := clusterURL(b)
	for _, c := range []struct {
		name string
		op   vocab.Op
		size int
	}{
		{"IMap.Get/1KB", vocab.OpRead, 1024},
		{"IMap.Set/1KB", vocab.OpUpdate, 1024},
		{"IAtomicReference.Set/128KB", vocab.OpSet, 131072},
		{"IAtomicLong.IncrementAndGet", vocab.OpIncr, 8},
	} {
		b.Run(c.name, func(b *testing.B) {
			tg := open(b, raw, map[string]string{"map": "bench-" + uniq, "ref": "bench-" + uniq, "long": "bench-" + uniq})
			if err := tg.Setup(context.Background(), spec(vocab.OpRead, vocab.OpUpdate, vocab.OpSet, vocab.OpIncr)); err != nil {
				b.Fatal(err)
			}
			w, _ := tg.NewWorker(0)
			r := &workload.Request{Op: c.op, Key: []byte("bench-key"), Value: make([]byte, c.size)}
			w.Do(context.Background(), &workload.Request{Op: vocab.OpInsert, Key: r.Key, Value: r.Value})
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

// TestZMemberKilledMidRun runs last (Z): it kills members of the shared
// cluster and restarts the cluster afterwards. Workers run IMap and CP ops;
// member 3 is killed mid-run: the run goes on, errors (if any) are classified,
// and the CP group keeps its 2-of-3 majority. Then member 2 is killed: the CP
// group has lost its majority and CP ops fail as timeout/unavailable. Two
// more workers, of a cp=lock client, tryLock and unlock FencedLocks (CAS)
// throughout, over their own connection and CP session.
func TestZMemberKilledMidRun(t *testing.T) {
	raw := clusterURL(t)
	ctl := testenv.URL(t, "PLATBENCH_HAZELCAST_CTL")
	testenv.SkipShort(t, "kills cluster members")
	run := func(args ...string) {
		out, err := exec.Command(ctl, args...).CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", ctl, args, err, out)
		}
	}
	t.Cleanup(func() { run("restart") }) // a fresh cluster with a whole CP group for whoever comes next

	tg := open(t, raw, map[string]string{"map": "kill-" + uniq, "ref": "kill-" + uniq, "timeout": "3s"})
	if err := tg.Setup(context.Background(), spec(vocab.OpSet, vocab.OpRead, vocab.OpUpdate)); err != nil {
		t.Fatal(err)
	}
	lk := open(t, raw, map[string]string{"cp": "lock", "lock": "kill-lk-" + uniq, "timeout": "3s"})
	if err := lk.Setup(context.Background(), lockSpec(4, vocab.OpCAS)); err != nil {
		t.Fatal(err)
	}
	type counts struct{ byClass [vocab.NumClasses]int }
	var mu sync.Mutex
	var phase int // 0 all up, 1 member 3 killed, 2 members 2 and 3 killed
	res := map[int]map[vocab.Op]*counts{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		ops := []vocab.Op{vocab.OpSet, vocab.OpUpdate, vocab.OpRead}
		w, _ := tg.NewWorker(i)
		if i >= 4 {
			ops = []vocab.Op{vocab.OpCAS}
			w, _ = lk.NewWorker(i)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			val := bytes.Repeat([]byte{byte(i)}, 1024)
			for j := 0; ; j++ {
				select {
				case <-stop:
					return
				default:
				}
				op := ops[j%len(ops)]
				r := &workload.Request{Op: op, KeyNum: uint64(j % 50), Key: []byte(fmt.Sprint("k", j%50)), Value: val}
				err := w.Do(context.Background(), r)
				c := adapter.Classify(err)
				if errors.Is(err, adapter.ErrNotFound) {
					c = vocab.ClassNone
				}
				mu.Lock()
				if res[phase] == nil {
					res[phase] = map[vocab.Op]*counts{}
				}
				if res[phase][op] == nil {
					res[phase][op] = &counts{}
				}
				res[phase][op].byClass[c]++
				mu.Unlock()
			}
		}()
	}
	setPhase := func(p int) { mu.Lock(); phase = p; mu.Unlock() }
	// The machine may be slow: each phase lasts until what it waits for has
	// happened (or a deadline passes), not a fixed time.
	waitFor := func(p int, what string, cond func(m map[vocab.Op]*counts) bool) {
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			mu.Lock()
			ok := res[p] != nil && cond(res[p])
			mu.Unlock()
			if ok {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Errorf("phase %d: %s did not happen within 60 s", p, what)
	}
	allSucceeded := func(m map[vocab.Op]*counts) bool {
		for _, op := range []vocab.Op{vocab.OpSet, vocab.OpUpdate, vocab.OpRead, vocab.OpCAS} {
			if m[op] == nil || m[op].byClass[vocab.ClassNone] < 3 {
				return false
			}
		}
		return true
	}
	waitFor(0, "3 successes of each op with all members up", allSucceeded)
	run("kill", "3")
	setPhase(1)
	waitFor(1, "3 successes of each op after one member of three was killed (the run must go on)", allSucceeded)
	run("kill", "2")
	setPhase(2)
	waitFor(2, "a CP SET and a tryLock error after the CP group lost its majority", func(m map[vocab.Op]*counts) bool {
		failed := func(op vocab.Op) bool {
			return m[op] != nil && m[op].byClass[vocab.ClassTimeout]+m[op].byClass[vocab.ClassUnavailable] > 0
		}
		return failed(vocab.OpSet) && failed(vocab.OpCAS)
	})
	close(stop)
	wg.Wait()

	for p := 0; p <= 2; p++ {
		for op, c := range res[p] {
			t.Logf("phase %d %s: %v", p, op, c.byClass)
		}
	}
	for p := 0; p <= 2; p++ {
		for op, c := range res[p] {
			if c.byClass[vocab.ClassOther] > 0 {
				t.Errorf("phase %d %s: %d errors left unclassified", p, op, c.byClass[vocab.ClassOther])
			}
		}
	}
	if s := tg.Summary(context.Background()); s["members_left"] != "2" {
		t.Errorf("summary %v, want members_left=2", s)
	}
}
