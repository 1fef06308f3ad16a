package redis

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// pipelined opens the target with opts, asks for the pipelined shape and
// returns one pipelined worker.
func pipelined(t *testing.T, raw string, opts map[string]string, concurrency int, s *workload.Spec) (*Target, *pworker) {
	t.Helper()
	tg := open(t, raw, opts)
	if err := tg.Setup(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if n, _ := tg.PipelineShape(concurrency); n == 0 {
		t.Fatalf("%v: not pipelined", opts)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	pw, ok := w.(*pworker)
	if !ok {
		t.Fatalf("worker is %T, want *pworker", w)
	}
	return tg, pw
}

type completion struct {
	tag int
	err error
}

// pollAll polls until n ops completed and returns them in completion order.
func pollAll(t *testing.T, w *pworker, n int) []completion {
	t.Helper()
	var got []completion
	deadline := time.Now().Add(5 * time.Second)
	for len(got) < n && time.Now().Before(deadline) {
		w.Poll(context.Background(), -1, func(tag int, err error) { got = append(got, completion{tag, err}) })
	}
	if len(got) != n {
		t.Fatalf("%d completions, want %d", len(got), n)
	}
	return got
}

func TestPipelinedShape(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	for _, c := range []struct {
		opts                 map[string]string
		conc, workers, total int
	}{
		{map[string]string{"pipeline": "16"}, 800, 50, 800},
		{map[string]string{"pipeline": "16"}, 20, 2, 20},
		{map[string]string{"conns": "3"}, 10, 3, 10},
		{map[string]string{"conns": "50", "pipeline": "16"}, 16, 50, 800},
		{map[string]string{}, 16, 0, 0},
	} {
		tg := open(t, raw, c.opts)
		if w, n := tg.PipelineShape(c.conc); w != c.workers || n != c.total {
			t.Errorf("%v concurrency %d: %d workers with %d in flight, want %d with %d", c.opts, c.conc, w, n, c.workers, c.total)
		}
	}
}

// Each op's completion carries its own tag and its own result, in order.
func TestPipelinedWorkerResults(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	v := verifier(t, raw)
	ctx := context.Background()
	_, w := pipelined(t, raw, map[string]string{"pipeline": "8"}, 8, spec(1, 100, vocab.OpRead))
	k := "pipe-" + uniq
	v.Set(ctx, "ctr:"+k+"-notnum", "abc", 0)
	reqs := []*workload.Request{
		req(vocab.OpSet, k+"-a", []byte("va"), 1, 0),
		req(vocab.OpGet, k+"-missing", nil, 1, 0),
		req(vocab.OpRMW, k+"-b", []byte("vb"), 1, 0), // read finds nothing
		req(vocab.OpIncr, k+"-notnum", nil, 1, 0),    // server error: not an integer
		req(vocab.OpGet, k+"-a", nil, 1, 0),
		req(vocab.OpIncr, k+"-c", nil, 1, 0),
	}
	tags := []int{5, 3, 7, 0, 1, 2}
	for i, r := range reqs {
		if err := w.Submit(ctx, r, tags[i]); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush(ctx)
	got := pollAll(t, w, len(reqs))
	want := []error{nil, adapter.ErrNotFound, adapter.ErrNotFound, errors.New("server error"), nil, nil}
	for i, c := range got {
		if c.tag != tags[i] {
			t.Errorf("completion %d has tag %d, want %d (replies are in command order)", i, c.tag, tags[i])
		}
		switch {
		case i == 3:
			if c.err == nil || adapter.Classify(c.err) != vocab.ClassOther {
				t.Errorf("INCR of a non-number: err %v, want a server error", c.err)
			}
		case (c.err == nil) != (want[i] == nil) || (want[i] != nil && !errors.Is(c.err, want[i])):
			t.Errorf("op %d (%s): err %v, want %v", i, reqs[i].Op, c.err, want[i])
		}
	}
	if s := v.Get(ctx, k+"-b").Val(); s != "vb" {
		t.Errorf("RMW wrote %q, want vb", s)
	}
	if n, _ := v.Get(ctx, "ctr:"+k+"-c").Int(); n != 1 {
		t.Errorf("INCR counter is %d, want 1", n)
	}
	// Do still works on a pipelined worker.
	if err := w.Do(ctx, req(vocab.OpGet, k+"-a", nil, 1, 0)); err != nil {
		t.Errorf("Do: %v", err)
	}
}

// A connection the server drops fails every op in flight (each reported
// once), and the next Submit reconnects.
func TestPipelinedConnectionLoss(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	v := verifier(t, raw)
	ctx := context.Background()
	_, w := pipelined(t, raw, map[string]string{"pipeline": "4"}, 4, spec(1, 100, vocab.OpRead))
	if err := v.ClientKillByFilter(ctx, "ADDR", w.c.nc.LocalAddr().String()).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	for i := 0; i < 4; i++ {
		if err := w.Submit(ctx, req(vocab.OpSet, "lost-"+uniq, []byte("x"), 1, 0), i); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush(ctx)
	seen := map[int]bool{}
	for _, c := range pollAll(t, w, 4) {
		if seen[c.tag] {
			t.Errorf("tag %d completed twice", c.tag)
		}
		seen[c.tag] = true
		if adapter.Classify(c.err) != vocab.ClassUnavailable {
			t.Errorf("tag %d: err %v, want unavailable", c.tag, c.err)
		}
	}
	if n := w.Poll(ctx, 0, func(int, error) { t.Error("completion after all ops were reported") }); n != 0 {
		t.Errorf("Poll reported %d more", n)
	}
	if err := w.Do(ctx, req(vocab.OpSet, "lost-"+uniq, []byte("y"), 1, 0)); err != nil {
		t.Errorf("after the loss, Do: %v (want a reconnect)", err)
	}
}

// Submit, Flush and Poll allocate nothing on the steady path.
func TestPipelinedDoesNotAllocate(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	for _, mode := range []string{"kv", "hash"} {
		_, w := pipelined(t, raw, map[string]string{"pipeline": "16", "mode": mode}, 16, spec(10, 100, vocab.OpRead))
		val := bytes.Repeat([]byte("v"), 1000)
		ops := []vocab.Op{vocab.OpInsert, vocab.OpRead, vocab.OpUpdate, vocab.OpRMW}
		r := req(vocab.OpInsert, "palloc-"+mode+uniq, val, 10, 100)
		got := 0
		done := func(int, error) { got++ }
		round := func() {
			for i := 0; i < 16; i++ {
				r.Op = ops[i%len(ops)]
				if err := w.Submit(ctx, r, i); err != nil {
					t.Fatal(err)
				}
			}
			w.Flush(ctx)
			for got < 16 {
				w.Poll(ctx, -1, done)
			}
			got = 0
		}
		round()
		if n := testing.AllocsPerRun(100, round); n != 0 {
			t.Errorf("%s: %.1f allocations per round of 16 ops, want 0", mode, n)
		}
	}
}

// Through the runner: pipeline=8&conns=3 keeps 24 ops in flight over 3
// connections whatever --concurrency says, and the op bound is exact.
func TestPipelinedRun(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	v := verifier(t, raw)
	tg := open(t, raw, map[string]string{"pipeline": "8", "conns": "3"})
	s, err := workload.Preset("ycsb-a")
	if err != nil {
		t.Fatal(err)
	}
	s.Records, s.FieldCount, s.FieldLength = 1000, 1, 100
	s.EnsureDefaults()
	if err := tg.Setup(context.Background(), &s); err != nil {
		t.Fatal(err)
	}
	ks := workload.NewKeyspace(&s, 0, 1)
	before := clientCount(t, v)
	if _, err := runner.Load(context.Background(), tg, &s, ks, runner.Config{Concurrency: 16}); err != nil {
		t.Fatal(err)
	}
	conns := -1
	cfg := runner.Config{Ops: 20_011, Concurrency: 16, OnRecorder: func(*recorder.Recorder) {
		// The workers are connected by now.
		conns = clientCount(t, v) - before
	}}
	p, _, err := runner.Run(context.Background(), tg, &s, ks, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var n, errs uint64
	for _, o := range p.Ops {
		n += o.Count
		for _, e := range o.Errors {
			errs += e
		}
	}
	if n+errs != 20_011 || errs != 0 {
		t.Errorf("%d ops ok and %d errors, want exactly 20011 ok", n, errs)
	}
	if p.Concurrency != 24 {
		t.Errorf("phase concurrency %d, want 24 ops in flight", p.Concurrency)
	}
	if conns != 3 {
		t.Errorf("the run opened %d connections, want 3", conns)
	}
	if d := tg.Summary(context.Background())["in_flight"]; d != "24 ops over 3 connections (up to 8 per connection, one goroutine each)" {
		t.Errorf("Summary says %q in flight", d)
	} else {
		t.Logf("in_flight: %s", d)
	}
}
