package main

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// Three loader processes with --rendezvous: loader 0 is started last (the
// others wait for it), the run phases start together, and loader 0 writes
// one merged result holding all three loaders to its stdout (--out -, as
// the Kubernetes Job does), with no file shared between them.
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
	run := func(shard int) *exec.Cmd {
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
			"--rendezvous", "127.0.0.1:"+port, "--rendezvous-timeout", "2m", "--out", out)
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
	start(1, run(1))
	start(2, run(2))
	time.Sleep(time.Second) // loader 0 comes last: the others retry
	start(0, run(0))
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("loader %d: %v\n%s", i, err, outs[i])
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
	for i := 1; i <= 2; i++ {
		own, err := result.Read(filepath.Join(dir, "loader"+strconv.Itoa(i), "r.json"))
		if err != nil || len(own.Loaders) != 0 || own.Config.Shard != strconv.Itoa(i)+"/3" {
			t.Errorf("loader %d keeps its own result: %v %+v", i, err, own)
		}
	}
}
