package redis

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func TestKeySlot(t *testing.T) {
	if c := crc16(0, []byte("123456789")); c != 0x31C3 {
		t.Errorf("crc16(123456789) = %#x, want 0x31c3 (XMODEM)", c)
	}
	for key, want := range map[string]int{"foo": 12182, "bar": 5061, "{user1000}.following": keySlot([]byte("user1000")),
		"foo{}{bar}": int(crc16(0, []byte("foo{}{bar}")) & 16383), "{}": int(crc16(0, []byte("{}")) & 16383), "a{b": int(crc16(0, []byte("a{b")) & 16383)} {
		if got := keySlot([]byte(key)); got != want {
			t.Errorf("keySlot(%q) = %d, want %d", key, got, want)
		}
	}
}

// direct is a plain client of one node of a cluster.
func direct(t *testing.T, addr string) *goredis.Client {
	c := goredis.NewClient(&goredis.Options{Addr: addr})
	t.Cleanup(func() { c.Close() })
	return c
}

// On a real 3-master cluster every record lands on the master that owns
// its slot (each node's keys, listed on the node itself, are in its own
// slots; all are there), one op at a time and pipelined, records and
// templates alike; a cluster op allocates nothing.
func TestCluster3(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_CLUSTER3_URL")
	ctx := context.Background()
	for _, opts := range []map[string]string{{}, {"pipeline": "8"}} {
		prefix := "c3" + opts["pipeline"] + uniq + "-"
		s := &workload.Spec{Name: "c3", Records: 300, FieldCount: 1, FieldLength: 8, KeyPrefix: prefix,
			Commands: []workload.Command{{Name: "push", Command: "LPUSH list{__key__} __data__"}}, Mix: workload.MixList{{Op: vocab.OpInsert, Weight: 1}}}
		s.EnsureDefaults()
		tg := open(t, raw, opts)
		if err := tg.Setup(ctx, s); err != nil {
			t.Fatal(err)
		}
		if d := tg.Describe(ctx); len(d.Nodes) != 3 || !strings.Contains(d.Details["client"], "3 masters") {
			t.Fatalf("Describe: %+v", d)
		}
		ks := workload.NewKeyspace(s, 0, 1)
		if _, err := runner.Load(ctx, tg, s, ks, runner.Config{Concurrency: 8}); err != nil {
			t.Fatal(err)
		}
		s.Mix = workload.MixList{{Op: vocab.OpNamed0, Weight: 1}}
		p, _, err := runner.Run(ctx, tg, s, ks, runner.Config{Ops: 900, Concurrency: 8})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range p.Ops {
			if len(o.Errors) > 0 || o.Count != 900 {
				t.Errorf("%v: %s: %d ok, errors %v; want 900 ok", opts, o.Op, o.Count, o.Errors)
			}
		}
		topo := tg.cs.topo.Load()
		records, pushes := 0, int64(0)
		for i, addr := range topo.addrs {
			c := direct(t, addr)
			for _, pattern := range []string{prefix + "*", "list{" + prefix + "*"} {
				for _, k := range c.Keys(ctx, pattern).Val() {
					slot, err := c.ClusterKeySlot(ctx, k).Result()
					if err != nil || int(slot) != keySlot([]byte(k)) || topo.slot[slot] != int16(i) {
						t.Errorf("%v: key %q on %s: server slot %d (%v), ours %d, owned by node %d", opts, k, addr, slot, err, keySlot([]byte(k)), topo.slot[slot])
					}
					if pattern == prefix+"*" {
						records++
					} else {
						pushes += c.LLen(ctx, k).Val()
					}
					c.Del(ctx, k)
				}
			}
		}
		if records != 300 || pushes != 900 {
			t.Errorf("%v: the masters hold %d records and %d pushed entries, want 300 and 900", opts, records, pushes)
		}
	}

	tg := open(t, raw, nil)
	if err := tg.Setup(ctx, spec(1, 100, vocab.OpRead)); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	r := req(vocab.OpSet, "c3alloc"+uniq, bytes.Repeat([]byte("v"), 100), 1, 100)
	keys := make([][]byte, 16)
	for i := range keys {
		keys[i] = []byte(fmt.Sprintf("c3alloc%d-%s", i, uniq)) // over the 3 masters
	}
	i := 0
	do := func() {
		r.Key = keys[i%len(keys)]
		r.Op = []vocab.Op{vocab.OpSet, vocab.OpGet, vocab.OpIncr}[i%3]
		i++
		if err := w.Do(ctx, r); err != nil && err != adapter.ErrNotFound {
			t.Fatal(err)
		}
	}
	for range 48 {
		do() // every master connected
	}
	if n := testing.AllocsPerRun(300, do); n != 0 {
		t.Errorf("%.1f allocations per cluster op, want 0", n)
	}

	_, pw := clusterPipelined(t, raw)
	got := 0
	done := func(_ int, err error) {
		if err != nil {
			t.Error(err)
		}
		got++
	}
	round := func() {
		for j := range 16 {
			r.Key, r.Op = keys[j], vocab.OpSet
			if err := pw.Submit(ctx, r, j); err != nil {
				t.Fatal(err)
			}
		}
		pw.Flush(ctx)
		for got < 16 {
			pw.Poll(ctx, -1, done)
		}
		got = 0
	}
	round()
	if n := testing.AllocsPerRun(100, round); n != 0 {
		t.Errorf("%.1f allocations per pipelined round of 16 cluster ops, want 0", n)
	}
	v := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: tg.cs.topo.Load().addrs})
	defer v.Close()
	for _, k := range keys {
		v.Del(ctx, string(k), "ctr:"+string(k))
	}
}

func clusterPipelined(t *testing.T, raw string) (*Target, *cpworker) {
	tg := open(t, raw, map[string]string{"pipeline": "16"})
	if err := tg.Setup(context.Background(), spec(1, 100, vocab.OpRead)); err != nil {
		t.Fatal(err)
	}
	if n, _ := tg.PipelineShape(16); n == 0 {
		t.Fatal("not pipelined")
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return tg, w.(*cpworker)
}

// privateCluster starts a 3-master cluster of the test's own (it kills a
// node) that keeps serving the slots of the masters left; with replica, a
// fourth server replicates the third master (its addrs[3], cmds[3]).
func privateCluster(t *testing.T, replica ...bool) ([]string, []*exec.Cmd) {
	bin, err := exec.LookPath(cmp.Or(os.Getenv("PLATBENCH_REDIS_SERVER_BIN"), "redis-server"))
	if err != nil {
		t.Fatal("the server binary is not on PATH: ", err)
	}
	var addrs []string
	var cmds []*exec.Cmd
	n := 3
	if len(replica) > 0 && replica[0] {
		n = 4
	}
	// Distinct free ports, held open until all are chosen (a port closed
	// at once can come back from the next Listen: two nodes on one port
	// made "Can't replicate myself" in CI), each with room for its cluster
	// bus port (port + 10000 <= 65535).
	var ports []string
	var held []net.Listener
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil || len(held) > 1000 {
			t.Fatalf("no free port for a private cluster node: %v", err)
		}
		held = append(held, l)
		if p := l.Addr().(*net.TCPAddr).Port; p+10000 <= 65535 {
			ports = append(ports, strconv.Itoa(p))
		}
	}
	for _, l := range held {
		l.Close()
	}
	for _, port := range ports {
		cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", port, "--save", "", "--appendonly", "no", "--dir", t.TempDir(),
			"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "1000", "--cluster-require-full-coverage", "no")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		addrs, cmds = append(addrs, "127.0.0.1:"+port), append(cmds, cmd)
	}
	ctx := context.Background()
	for i, a := range addrs {
		c := direct(t, a)
		for range 100 {
			if c.Ping(ctx).Err() == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		hi := (i + 1) * 5462
		if i == 2 {
			hi = 16384
		}
		if i < 3 {
			if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", i*5462, hi-1).Err(); err != nil {
				t.Fatal(err)
			}
		}
		if i > 0 {
			host, port, _ := net.SplitHostPort(addrs[0])
			if err := c.ClusterMeet(ctx, host, port).Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n == 4 {
		for i := 0; ; i++ {
			err := direct(t, addrs[3]).ClusterReplicate(ctx, direct(t, addrs[2]).ClusterMyID(ctx).Val()).Err()
			if err == nil {
				break
			}
			if i == 200 {
				t.Fatalf("private cluster: CLUSTER REPLICATE: %v", err)
			}
			time.Sleep(50 * time.Millisecond) // until the fourth node knows the third
		}
	}
	for _, a := range addrs {
		c := direct(t, a)
		for i := 0; ; i++ {
			info := c.ClusterInfo(ctx).Val()
			nodes := c.ClusterNodes(ctx).Val()
			if strings.Contains(info, "cluster_state:ok") && strings.Count(nodes, "master") == 3 && !strings.Contains(nodes, "handshake") &&
				(n == 3 || (strings.Contains(nodes, "slave") && strings.Contains(direct(t, addrs[3]).Info(ctx, "replication").Val(), "master_link_status:up"))) {
				break
			}
			if i == 200 {
				t.Fatalf("private cluster: %s not ok after 10 s: %s", a, info)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return addrs, cmds
}

// killer wraps a target: its workers kill a cluster node after the
// kill-th op of the run.
type killer struct {
	*Target
	ops  atomic.Int64
	kill int64
	node *exec.Cmd
}

type killWorker struct {
	adapter.Worker
	k *killer
}

type killPWorker struct {
	adapter.Pipeliner
	k *killer
}

func (k *killer) NewWorker(id int) (adapter.Worker, error) {
	w, err := k.Target.NewWorker(id)
	if p, ok := w.(adapter.Pipeliner); ok {
		return &killPWorker{p, k}, err
	}
	return &killWorker{w, k}, err
}

func (k *killer) count() {
	if k.ops.Add(1) == k.kill {
		k.node.Process.Kill()
		k.node.Wait()
	}
}

func (w *killWorker) Do(ctx context.Context, r *workload.Request) error {
	w.k.count()
	return w.Worker.Do(ctx, r)
}

func (w *killPWorker) Submit(ctx context.Context, r *workload.Request, tag int) error {
	w.k.count()
	return w.Pipeliner.Submit(ctx, r, tag)
}

// A master killed mid-run, one op at a time and pipelined: the run goes on
// to its last op, the ops of the dead master's slots fail as unavailable
// (counted), the others succeed.
func TestClusterNodeKilled(t *testing.T) {
	serverURL(t, "PLATBENCH_REDIS_URL") // only where redis is installed
	for _, opts := range []map[string]string{{"timeout": "2s"}, {"timeout": "2s", "pipeline": "4"}} {
		addrs, cmds := privateCluster(t)
		ctx := context.Background()
		tg := open(t, "redis://"+strings.Join(addrs, ","), opts)
		s := spec(1, 16, vocab.OpSet)
		s.EnsureDefaults()
		if err := tg.Setup(ctx, s); err != nil {
			t.Fatal(err)
		}
		k := &killer{Target: tg, kill: 300, node: cmds[2]}
		p, _, err := runner.Run(ctx, k, s, workload.NewKeyspace(s, 0, 1), runner.Config{Ops: 900, Concurrency: 8})
		if err != nil {
			t.Fatal(err)
		}
		var ok, unavailable, other uint64
		for _, o := range p.Ops {
			ok += o.Count
			for class, n := range o.Errors {
				if class == "unavailable" {
					unavailable += n
				} else {
					other += n
				}
			}
		}
		t.Logf("%v: %d ok, %d unavailable, %d other errors", opts, ok, unavailable, other)
		if ok+unavailable+other != 900 || unavailable == 0 || ok < 300+300 {
			t.Errorf("%v: %d ok, %d unavailable, %d other: want 900 ops, unavailable errors, and the other masters' ops after the kill ok", opts, ok, unavailable, other)
		}
	}
}

// A slot moved to another master: the worker's map is stale, the old owner
// answers MOVED, the worker reads the map again and sends the command to
// the new owner.
func TestClusterMoved(t *testing.T) {
	serverURL(t, "PLATBENCH_REDIS_URL")
	addrs, _ := privateCluster(t)
	ctx := context.Background()
	tg := open(t, "redis://"+addrs[0], nil)
	if err := tg.Setup(ctx, spec(1, 16, vocab.OpSet)); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	key := "moved" + uniq
	slot := keySlot([]byte(key))
	r := req(vocab.OpSet, key, []byte("v"), 1, 1)
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	from := tg.cs.topo.Load().addrs[tg.cs.topo.Load().slot[slot]]
	to := addrs[0]
	if to == from {
		to = addrs[1]
	}
	direct(t, from).Del(ctx, key)
	toID := direct(t, to).ClusterMyID(ctx).Val()
	for _, a := range append([]string{to, from}, addrs...) {
		if err := direct(t, a).Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", toID).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Do(ctx, r); err != nil {
		t.Fatalf("SET after the slot moved: %v", err)
	}
	if n := direct(t, to).Exists(ctx, key).Val(); n != 1 {
		t.Errorf("the key is not on the slot's new master %s", to)
	}
	if got := tg.cs.topo.Load().addrs[tg.cs.topo.Load().slot[slot]]; got != to {
		t.Errorf("the slot map says %s owns slot %d, want %s", got, slot, to)
	}
}

// A master killed, its replica takes over its slots: the workers find the
// new master through the slot map (read again after the errors), and the
// keys of those slots are served again.
func TestClusterFailover(t *testing.T) {
	serverURL(t, "PLATBENCH_REDIS_URL")
	addrs, cmds := privateCluster(t, true)
	ctx := context.Background()
	tg := open(t, "redis://"+strings.Join(addrs[:3], ","), map[string]string{"timeout": "1s"})
	if err := tg.Setup(ctx, spec(1, 16, vocab.OpSet)); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var key string
	for i := 0; key == ""; i++ { // a key of the third master
		if k := fmt.Sprintf("fo%d-%s", i, uniq); keySlot([]byte(k)) >= 2*5462 {
			key = k
		}
	}
	r := req(vocab.OpSet, key, []byte("v"), 1, 1)
	if err := w.Do(ctx, r); err != nil {
		t.Fatal(err)
	}
	cmds[2].Process.Kill()
	cmds[2].Wait()
	var errs int
	for i := 0; ; i++ { // the replica's election takes a few node timeouts (1 s)
		err := w.Do(ctx, r)
		if err == nil {
			break
		}
		errs++
		if adapter.Classify(err) != vocab.ClassUnavailable && adapter.Classify(err) != vocab.ClassTimeout {
			t.Fatalf("SET while the master is gone: %v, want unavailable or timeout", err)
		}
		if i == 600 {
			t.Fatalf("no failover after %d attempts: %v", i, err)
		}
	}
	slot := keySlot([]byte(key))
	if got := tg.cs.topo.Load().addrs[tg.cs.topo.Load().slot[slot]]; got != addrs[3] {
		t.Errorf("after the failover the slot map gives slot %d to %s, want the replica %s", slot, got, addrs[3])
	}
	if n := direct(t, addrs[3]).Exists(ctx, key).Val(); n != 1 {
		t.Errorf("the key is not on the new master")
	}
	t.Logf("%d errors until the replica served the slot", errs)
}

// A slot being migrated: its old master answers ASK for a key it no longer
// has, and the worker sends ASKING and the command to the importing node.
func TestClusterAsk(t *testing.T) {
	serverURL(t, "PLATBENCH_REDIS_URL")
	addrs, _ := privateCluster(t)
	ctx := context.Background()
	tg := open(t, "redis://"+addrs[0], nil)
	if err := tg.Setup(ctx, spec(1, 16, vocab.OpSet)); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	key := "ask" + uniq
	slot := keySlot([]byte(key))
	from := tg.cs.topo.Load().addrs[tg.cs.topo.Load().slot[slot]]
	to := addrs[0]
	if to == from {
		to = addrs[1]
	}
	src, dst := direct(t, from), direct(t, to)
	if err := dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", src.ClusterMyID(ctx).Val()).Err(); err != nil {
		t.Fatal(err)
	}
	if err := src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dst.ClusterMyID(ctx).Val()).Err(); err != nil {
		t.Fatal(err)
	}
	if err := w.Do(ctx, req(vocab.OpSet, key, []byte("v"), 1, 1)); err != nil {
		t.Fatalf("SET of a key of a migrating slot: %v", err)
	}
	// The importing node holds the key (read with ASKING on one connection).
	pipe := dst.Pipeline()
	pipe.Do(ctx, "ASKING")
	ex := pipe.Exists(ctx, key)
	if _, err := pipe.Exec(ctx); err != nil || ex.Val() != 1 {
		t.Errorf("the key is not on the importing node %s: %v", to, err)
	}
	if n := src.Exists(ctx, key).Val(); n != 0 {
		t.Errorf("the key is on the migrating node %s too", from)
	}
}
