package main

import (
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// Three loader processes with --rendezvous and the run's secret: loader 0
// is started first and waits; strangers then come to its port (a platbench
// loader with the wrong secret, a connection speaking the old protocol with
// no secret, one sending an endless line, one sending a byte a second) and
// are refused and named in loader 0's log; then the two real loaders come,
// the run phases start together, and loader 0 writes one merged result
// holding all three loaders to its stdout (--out -, as the Kubernetes Job
// does), with no file shared between them.
func TestRendezvousThreeProcesses(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	secret, wrong := filepath.Join(dir, "secret"), filepath.Join(dir, "wrong")
	os.WriteFile(secret, []byte("c2VjcmV0IG9mIHRoaXMgcnVuLCAzMiBieXRlcw==\n"), 0o600)
	os.WriteFile(wrong, []byte("bm90IHRoZSBzZWNyZXQgb2YgdGhpcyBydW4uLi4=\n"), 0o600)
	run := func(shard int, secretFile string) *exec.Cmd {
		d := filepath.Join(dir, "loader"+strconv.Itoa(shard))
		os.MkdirAll(d, 0o755)
		// Different dataset sizes make the load phases end at different
		// times (the fake target keeps no data: every loader reads its keys).
		out := filepath.Join(d, "r.json")
		if shard == 0 {
			out = "-" // as in the Kubernetes Job: the merged result is loader 0's stdout
		}
		return exec.Command(bin, "run", "--quiet", "--target", "fake://?latency=200us",
			"--records", strconv.Itoa(2000*(shard+1)), "--duration", "2s", "--shard", strconv.Itoa(shard)+"/3",
			"--rendezvous", "127.0.0.1:"+port, "--rendezvous-timeout", "2m", "--rendezvous-secret-file", secretFile, "--out", out)
	}
	var wg sync.WaitGroup
	outs := make([]string, 3)
	errs := make([]error, 3)
	start := func(shard int, cmd *exec.Cmd) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := cmd.CombinedOutput()
			outs[shard], errs[shard] = string(b), err
		}()
	}
	var log0 strings.Builder
	l0 := run(0, secret)
	l0.Stderr = &log0
	// Loader 0's --out - journal and the seconds the others send it go to
	// a temporary directory, removed at the end.
	tmp0 := filepath.Join(dir, "tmp0")
	os.MkdirAll(tmp0, 0o755)
	l0.Env = append(os.Environ(), "TMPDIR="+tmp0)
	wg.Add(1)
	go func() {
		defer wg.Done()
		b, err := l0.Output()
		outs[0], errs[0] = string(b), err
	}()
	// Loader 0 listens before it loads: wait for its port.
	addr := "127.0.0.1:" + port
	for end := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(end) {
			t.Fatal("loader 0 never listened")
		}
	}
	// A platbench loader with the wrong secret is refused and says why.
	if b, err := run(2, wrong).CombinedOutput(); err == nil || !strings.Contains(string(b), "did not prove the run's secret") {
		t.Errorf("a loader with the wrong secret: %v\n%s", err, b)
	}
	stranger := func(send []byte) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Error(err)
			return
		}
		defer c.Close()
		c.Write(send)
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		io.Copy(io.Discard, c) // until loader 0 hangs up
	}
	stranger([]byte(`{"type":"ready","shard":1,"shards":3,"version":"` + "x" + `"}` + "\n"))
	stranger([]byte(strings.Repeat("{", 1<<20)))
	slow, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	go func() {
		for range 30 {
			if _, err := slow.Write([]byte("{")); err != nil {
				return
			}
			time.Sleep(time.Second)
		}
	}()
	start(1, run(1, secret))
	start(2, run(2, secret))
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("loader %d: %v\n%s\n%s", i, err, outs[i], log0.String())
		}
	}
	for _, want := range []string{"(says it is loader 2): it does not prove the run's secret", "(says it is loader 1): it does not prove the run's secret", "message over the size limit"} {
		if !strings.Contains(log0.String(), want) {
			t.Errorf("loader 0's log lacks %q:\n%s", want, log0.String())
		}
	}
	r, err := result.Decode(strings.NewReader(outs[0]))
	if err != nil {
		t.Fatalf("loader 0's output is not a result: %v\n%.300s", err, outs[0])
	}
	if len(r.Loaders) != 3 {
		t.Fatalf("merged result has %d loaders, want 3", len(r.Loaders))
	}
	// The rendezvous, causally: no run phase started before every load
	// phase had ended (the merged load phase ends with the last loader's).
	load, runp := r.Phase("load"), r.Phase("run")
	if load == nil || runp == nil {
		t.Fatal("merged result lacks its load or run phase")
	}
	if loadEnd := load.StartedAt.Add(time.Duration(load.DurationNs)); runp.StartedAt.Before(loadEnd) {
		t.Errorf("a run phase started at %v, before the last load phase ended at %v", runp.StartedAt, loadEnd)
	}
	t.Logf("run phases started within %v", time.Duration(r.LoaderStartSpreadNs))
	p := r.Phase("run")
	if p == nil {
		t.Fatal("no run phase in the merged result")
	}
	var ops uint64
	for _, o := range p.Ops {
		ops += o.Count
	}
	if ops == 0 {
		t.Fatalf("merged run phase %+v", p)
	}
	if left, _ := os.ReadDir(tmp0); len(left) != 0 {
		t.Errorf("loader 0 left its temporary files: %v", left)
	}
	if strings.Contains(log0.String(), "seconds") {
		t.Errorf("loader 0's log speaks of the seconds:\n%s", log0.String())
	}
	for i := 1; i <= 2; i++ {
		own, err := result.Read(filepath.Join(dir, "loader"+strconv.Itoa(i), "r.json"))
		if err != nil || len(own.Loaders) != 0 || own.Config.Shard != strconv.Itoa(i)+"/3" {
			t.Errorf("loader %d keeps its own result: %v %+v", i, err, own)
		}
	}
}

// Two loader processes with --rendezvous, loader 0 writing a file: the
// other loader's seconds come over the connection and are kept beside the
// merged result with loader 0's own (RESULT.loader-N.seconds.jsonl.zst), and
// the merged result's own seconds file holds both loaders' seconds added
// (result.MergedSeconds): a reader of the merged result finds every
// operation of the run phase in it.
func TestRendezvousKeepsEveryLoadersSeconds(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	secret := filepath.Join(dir, "secret")
	os.WriteFile(secret, []byte("c2VjcmV0IG9mIHRoaXMgcnVuLCAzMiBieXRlcw==\n"), 0o600)
	merged := filepath.Join(dir, "merged.json")
	var wg sync.WaitGroup
	outs := make([]string, 2)
	errs := make([]error, 2)
	for shard, out := range []string{merged, filepath.Join(dir, "r1.json")} {
		cmd := exec.Command(bin, "run", "--quiet", "--target", "fake://?latency=200us", "--records", "1000",
			"--duration", "2s", "--shard", strconv.Itoa(shard)+"/2", "--rendezvous", addr, "--rendezvous-timeout", "2m",
			"--rendezvous-secret-file", secret, "--out", out)
		wg.Add(1)
		go func() {
			defer wg.Done()
			b, err := cmd.CombinedOutput()
			outs[shard], errs[shard] = string(b), err
		}()
		if shard == 0 {
			time.Sleep(300 * time.Millisecond) // loader 0 listens first (the other retries anyway)
		}
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("loader %d: %v\n%s", i, err, outs[i])
		}
	}
	for shard := 0; shard < 2; shard++ {
		p := filepath.Join(dir, "merged.loader-"+strconv.Itoa(shard)+".seconds.jsonl.zst")
		b, err := os.ReadFile(p)
		if err == nil {
			b = readPlain(p)
		}
		if err != nil || !strings.Contains(string(b), `"phase":"run","interval"`) || !strings.HasSuffix(string(b), `{"end":true}`+"\n") {
			t.Errorf("loader %d's seconds beside the merged result: %v (%d bytes)", shard, err, len(b))
		}
	}
	r, err := result.Read(merged)
	if err != nil || len(r.Loaders) != 2 {
		t.Fatalf("merged result: %v", err)
	}
	p := r.Phase("run")
	if p == nil || !p.HasSeconds() {
		t.Fatal("the merged run phase has no seconds file")
	}
	var total uint64
	for _, o := range p.Ops {
		total += o.Count
	}
	h, err := p.MergedHist(0, len(p.Intervals)-1, result.HistLatency) // not the whole phase: read from the seconds
	last := p.Intervals[len(p.Intervals)-1].Ops
	var lastN uint64
	for _, o := range last {
		lastN += o.Count
	}
	if err != nil || total == 0 || uint64(h.TotalCount())+lastN != total {
		t.Errorf("the merged seconds hold %d+%d ops, the merged totals %d (%v)", h.TotalCount(), lastN, total, err)
	}
	if b, err := exec.Command(bin, "report", merged).CombinedOutput(); err != nil {
		t.Errorf("report of the merged result: %v\n%s", err, b)
	}
	// platbench merge of the same loaders' files (loader 0's kept seconds,
	// which read as its result, and loader 1's own result) makes the
	// result the rendezvous made: totals, and a series whose every stored
	// interval has its latency over both loaders' ops.
	again := filepath.Join(dir, "again.json")
	if b, err := exec.Command(bin, "merge", filepath.Join(dir, "merged.loader-0.seconds.jsonl.zst"), filepath.Join(dir, "r1.json"), "--out", again).CombinedOutput(); err != nil {
		t.Fatalf("platbench merge: %v\n%s", err, b)
	}
	r2, err := result.Read(again)
	if err != nil {
		t.Fatal(err)
	}
	q := r2.Phase("run")
	if q == nil || !reflect.DeepEqual(q.Ops, p.Ops) {
		t.Errorf("platbench merge's run totals differ from the rendezvous's:\n%+v\n%+v", q, p.Ops)
	} else if !reflect.DeepEqual(q.Intervals, p.Intervals) {
		t.Errorf("platbench merge's series differs from the rendezvous's:\n%+v\n%+v", q.Intervals, p.Intervals)
	}
	for _, iv := range p.Intervals {
		for _, o := range iv.Ops {
			if o.Latency.Count != int64(o.Count) {
				t.Errorf("merged interval at %d ns: %d %s ops, latency summary of %d", iv.StartNs, o.Count, o.Op, o.Latency.Count)
			}
		}
	}
}
