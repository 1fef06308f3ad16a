package kafka

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The workers are pipelined unless async=false, the workload consumes or
// there are transactions; the concurrency is shared by one worker per
// producer client.
func TestPipelineShape(t *testing.T) {
	consume := &workload.Spec{Name: "consume", Mix: []vocab.Mix{{Op: vocab.OpConsume, Weight: 1}}}
	cases := []struct {
		name                 string
		opts                 map[string]string
		spec                 *workload.Spec
		conc, workers, depth int
	}{
		{"default", nil, produceSpec(), 64, 1, 64},
		{"producers", map[string]string{"producers": "3"}, produceSpec(), 64, 3, 22},
		{"more producers than concurrency", map[string]string{"producers": "8"}, produceSpec(), 4, 4, 1},
		{"async=false", map[string]string{"async": "false"}, produceSpec(), 64, 0, 0},
		{"consume", nil, consume, 64, 0, 0},
		{"transactions", map[string]string{"txn_messages": "10"}, produceSpec(), 64, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tg := open(t, "kafka://127.0.0.1:1", c.opts) // connects nothing
			if err := tg.fitWorkload(c.spec); err != nil {
				t.Fatal(err)
			}
			workers, total := tg.PipelineShape(c.conc)
			want := c.conc
			if c.workers == 0 {
				want = 0
			}
			if workers != c.workers || total != want || tg.depth != c.depth {
				t.Errorf("PipelineShape(%d) = %d workers, %d in flight, depth %d; want %d, %d, %d",
					c.conc, workers, total, tg.depth, c.workers, want, c.depth)
			}
			wantDesc := "async"
			if c.workers == 0 {
				wantDesc = "sync"
			}
			if d := tg.Describe(context.Background()).Details["produce"]; d != wantDesc {
				t.Errorf("Describe produce = %q, want %q", d, wantDesc)
			}
		})
	}
}

// unconnected is a pipelined worker of a Target that connects nothing: its
// promise and Poll are driven by hand (what franz-go's promise goroutine
// does when a produce response arrives).
func unconnected(t *testing.T, depth int) *pworker {
	t.Helper()
	tg := open(t, "kafka://127.0.0.1:1", nil)
	if err := tg.fitWorkload(produceSpec()); err != nil {
		t.Fatal(err)
	}
	return newPWorker(newWorker(tg, nil, nil, 7), depth)
}

// inFlight makes tag's record look submitted with sequence number seq.
func (w *pworker) inFlight(tag int, seq uint64) {
	w.recs[tag].Context = &w.ctxs[tag]
	w.recs[tag].Value = make([]byte, 100)
	putHeader(w.recs[tag].Value, header{seq: seq})
	w.nfly++
}

// Each completion is reported once, under its own tag, with its own error
// (classified), and only the acknowledged records are noted as acked.
func TestPipelinedCompletions(t *testing.T) {
	w := unconnected(t, 4)
	for tag := range 4 {
		w.inFlight(tag, uint64(10+tag))
	}
	w.promise(&w.recs[2], nil)
	w.promise(&w.recs[0], kerr.RequestTimedOut)
	w.promise(&w.recs[3], nil)
	got := map[int]error{}
	done := func(tag int, err error) {
		if _, twice := got[tag]; twice {
			t.Errorf("tag %d reported twice", tag)
		}
		got[tag] = err
	}
	if n := w.Poll(context.Background(), 0, done); n != 3 {
		t.Fatalf("Poll reported %d completions, want 3", n)
	}
	if got[2] != nil || got[3] != nil || adapter.Classify(got[0]) != vocab.ClassTimeout {
		t.Errorf("completions %v: want 2 and 3 ok, 0 a timeout", got)
	}
	if _, ok := got[1]; ok {
		t.Error("tag 1 reported before its promise ran")
	}
	if n := w.Poll(context.Background(), 0, done); n != 0 {
		t.Errorf("a second Poll reported %d completions, want 0", n)
	}
	if !w.acked.has(12) || !w.acked.has(13) || w.acked.has(10) || w.acked.has(11) {
		t.Error("acked holds the wrong sequence numbers: want 12 and 13 only")
	}
	if w.bytes != 200 {
		t.Errorf("acked bytes %d, want 200", w.bytes)
	}
	// A blocking Poll wakes for a promise run on another goroutine, also
	// when the doorbell was left rung by completions already reported.
	clear(got)
	w.promise(&w.recs[1], nil)
	if n := w.drain(done); n != 1 {
		t.Fatalf("drain reported %d, want 1", n)
	}
	w.inFlight(1, 20)
	go func() {
		time.Sleep(5 * time.Millisecond)
		w.promise(&w.recs[1], errors.New("broken"))
	}()
	clear(got)
	if n := w.Poll(context.Background(), -1, done); n != 1 || got[1] == nil {
		t.Errorf("blocking Poll reported %d completions (tag 1: %v), want its failure", n, got[1])
	}
	// A Poll with a wait returns empty-handed when nothing completes.
	w.inFlight(1, 21)
	if n := w.Poll(context.Background(), time.Millisecond, done); n != 0 {
		t.Errorf("Poll with nothing completing reported %d", n)
	}
	// Nothing in flight: a blocking Poll returns at once.
	clear(got)
	w.promise(&w.recs[1], nil)
	w.drain(done)
	if n := w.Poll(context.Background(), -1, done); n != 0 {
		t.Errorf("blocking Poll with nothing in flight reported %d", n)
	}
}

// The pipelined worker's own per-record work (promise, Poll's hand-off)
// allocates nothing.
func TestPipelinedBookkeepingDoesNotAllocate(t *testing.T) {
	w := unconnected(t, 64)
	for tag := range 64 {
		w.inFlight(tag, uint64(tag))
	}
	n := 0
	done := func(int, error) { n++ }
	for tag := range 64 { // grow the acked bitmap
		w.promise(&w.recs[tag], nil)
	}
	w.drain(done)
	seq := uint64(64)
	allocs := testing.AllocsPerRun(1000, func() {
		for tag := range 8 {
			putHeader(w.recs[tag].Value, header{seq: seq % 4096})
			seq++
			w.nfly++
			w.promise(&w.recs[tag], nil)
		}
		w.Poll(context.Background(), 0, done)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per Poll of 8 completions, want 0", allocs)
	}
	if n != 64+8*1001 {
		t.Errorf("%d completions reported, want %d", n, 64+8*1001)
	}
}

// Real runs through the runner's pipelined loops: the load phase's INSERTs
// and a fixed rate with background consumers (every record timed and
// acknowledged once, and read back), and a closed loop.
func TestPipelinedRun(t *testing.T) {
	raw := brokerURL(t, "PLATBENCH_KAFKA_URL")
	ctx := context.Background()
	spec := produceSpec()
	spec.Distribution = "uniform"
	spec.EnsureDefaults()
	run := func(t *testing.T, opts map[string]string, load bool, cfg runner.Config) (*Target, *result.Phase) {
		t.Helper()
		tg := open(t, raw, opts)
		if err := tg.Setup(ctx, spec); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tg.Close() })
		ks := workload.NewKeyspace(spec, 0, 1)
		if load {
			lp, err := runner.Load(ctx, tg, spec, ks, runner.Config{Concurrency: 8})
			if err != nil {
				t.Fatal(err)
			}
			if ok, failed := counts(lp, "INSERT"); ok != 1000 || failed != 0 {
				t.Fatalf("load: %d INSERTs ok and %d failed, want 1000 ok", ok, failed)
			}
		}
		p, _, err := runner.Run(ctx, tg, spec, ks, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if ok, failed := counts(p, "PRODUCE"); ok != cfg.Ops || failed != 0 || p.Concurrency != cfg.Concurrency {
			t.Errorf("%d PRODUCEs ok, %d failed, concurrency %d; want %d ok, concurrency %d", ok, failed, p.Concurrency, cfg.Ops, cfg.Concurrency)
		}
		if d := tg.Describe(ctx).Details["produce"]; d != "async" {
			t.Errorf("Describe produce = %q, want async", d)
		}
		return tg, p
	}
	t.Run("fixed rate", func(t *testing.T) {
		tg, p := run(t, map[string]string{"partitions": "3", "consumers": "1", "producers": "2", "key": "request"}, true,
			runner.Config{Ops: 3001, Rate: 3000, Concurrency: 32, Seed: 2})
		sum := tg.Summary(ctx)
		t.Logf("summary: %v", sum)
		want := map[string]string{"kafka.lost": "0", "kafka.duplicated": "0", "kafka.produced_acked": "4001",
			"kafka.consumed": strconv.Itoa(4001 + redeliveries(t, sum)), "kafka.consumed_unacked": "0"}
		for k, v := range want {
			if sum[k] != v {
				t.Errorf("summary %s = %q, want %q", k, sum[k], v)
			}
		}
		if ok, _ := counts(p, "CONSUME"); ok == 0 || ok > 3001 {
			t.Errorf("the background consumer recorded %d CONSUMEs in the run phase, want 1 to 3001", ok)
		}
	})
	t.Run("closed loop", func(t *testing.T) {
		tg, _ := run(t, nil, false, runner.Config{Ops: 4001, Concurrency: 64, Seed: 1})
		if got := tg.Summary(ctx)["kafka.produced_acked"]; got != "4001" {
			t.Errorf("summary kafka.produced_acked = %q, want 4001", got)
		}
	})
}

// counts is how many of a phase's op operations completed and failed.
func counts(p *result.Phase, op string) (ok, failed uint64) {
	for _, o := range p.Ops {
		if o.Op != op {
			continue
		}
		ok += o.Count
		for _, n := range o.Errors {
			failed += n
		}
	}
	return ok, failed
}

func (m *bitmap) has(seq uint64) bool {
	w := seq / 64
	return w < uint64(len(m.words)) && m.words[w]&(1<<(seq%64)) != 0
}
