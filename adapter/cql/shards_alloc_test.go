package cql

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqltest"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The shard-aware hot path's allocation test needs its server in another
// process: testing.AllocsPerRun counts every goroutine's allocations, and
// cqltest allocates per frame. This test binary, run again with
// PLATBENCH_CQLTEST_SERVE set, is that process.

const serveEnv = "PLATBENCH_CQLTEST_SERVE"

type served struct {
	Hosts  []string
	Tokens [][]string
}

// TestCQLTestServerProcess is the helper process: it serves a cqltest
// cluster until its stdin closes.
func TestCQLTestServerProcess(t *testing.T) {
	if os.Getenv(serveEnv) == "" {
		testenv.Skip(t, testenv.Subprocess, "the server process of TestShardHotPathDoesNotAllocate (run by it)")
	}
	cl, err := cqltest.Start(cqltest.Config{Scylla: true, ShardAwarePort: true, Nodes: 3, Shards: 4, Seed: 11})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := json.NewEncoder(os.Stdout).Encode(served{cl.Hosts(), cl.Tokens()}); err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
}

// TestShardHotPathDoesNotAllocate: a pipelined native worker holding a
// connection per shard of three 4-shard nodes (cqltest, in a process of
// its own) routes, sends and completes requests of every op without an
// allocation, in a closed loop and with a fixed-rate run's timed wait.
func TestShardHotPathDoesNotAllocate(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCQLTestServerProcess$")
	cmd.Env = append(os.Environ(), serveEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	var sv served
	if err := json.NewDecoder(bufio.NewReader(stdout)).Decode(&sv); err != nil {
		t.Fatalf("reading the server process's addresses: %v", err)
	}
	tg := shardTarget(t, nil)
	w, err := newNativeWorker(tg, tg.stmts, sv.Hosts, newRing(sv.Tokens), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if w.lay.slots() != 12 {
		t.Fatalf("%d slots, want 12", w.lay.slots())
	}
	for i, op := range []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpScan, vocab.OpRMW, vocab.OpDelete, vocab.OpInsert} {
		p := &pipeline{w: w, wait: -1}
		if i == 6 {
			p.wait = 300 * time.Microsecond
		}
		p.doneFn = p.done
		for k := range 1000 {
			p.keys = append(p.keys, key(k))
		}
		p.req = workload.Request{Op: op, Fields: 5, FieldLen: 4, ScanLen: 10}
		if op != vocab.OpRead && op != vocab.OpScan {
			p.req.Value = value(0, 5, 4)
		}
		for tag := range 16 {
			p.req.Key = p.keys[tag]
			if err := w.Submit(context.Background(), &p.req, tag); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush(context.Background())
		for range 200 {
			p.step()
		}
		allocs := testing.AllocsPerRun(500, p.step)
		p.drain()
		if p.errs > 0 && !errors.Is(p.lastEr, adapter.ErrNotFound) {
			t.Errorf("%v: %d errors, last %v", op, p.errs, p.lastEr)
		}
		if allocs != 0 {
			t.Errorf("%v (Poll wait %v): %.2f allocations per Poll+Flush, want 0", op, p.wait, allocs)
		}
	}
}
