package bench

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// pipeTarget is a pipelined target in memory: every 5th operation a worker
// completes fails; it remembers the keys of the writes it completed
// without error, for the test to compare with the record.
type pipeTarget struct {
	mu    sync.Mutex
	acked map[uint64]bool
}

func (t *pipeTarget) Setup(context.Context, *workload.Spec) error { return nil }
func (t *pipeTarget) Close() error                                { return nil }
func (t *pipeTarget) PipelineShape(c int) (int, int)              { return 2, c }
func (t *pipeTarget) NewWorker(int) (adapter.Worker, error) {
	return &pipeWorker{t: t, ops: make([]vocab.Op, 8), keys: make([]uint64, 8), q: make([]int, 0, 8)}, nil
}

type pipeWorker struct {
	t    *pipeTarget
	ops  []vocab.Op
	keys []uint64
	q    []int
	n    int
	sync adapter.Syncer
}

var errPipe = errors.New("every 5th fails")

func (w *pipeWorker) Depth() int { return 8 }
func (w *pipeWorker) Submit(_ context.Context, req *workload.Request, tag int) error {
	w.ops[tag], w.keys[tag] = req.Op, req.KeyNum
	w.q = append(w.q, tag)
	return nil
}
func (w *pipeWorker) Flush(context.Context) {}
func (w *pipeWorker) Poll(_ context.Context, _ time.Duration, done func(int, error)) int {
	n := len(w.q)
	for _, tag := range w.q {
		w.n++
		var err error
		if w.n%5 == 0 {
			err = errPipe
		} else if w.t != nil && (w.ops[tag] == vocab.OpInsert || w.ops[tag] == vocab.OpUpdate) {
			w.t.mu.Lock()
			w.t.acked[w.keys[tag]] = true
			w.t.mu.Unlock()
		}
		done(tag, err)
	}
	w.q = w.q[:0]
	return n
}
func (w *pipeWorker) Do(ctx context.Context, req *workload.Request) error {
	return w.sync.Do(ctx, w, req)
}
func (w *pipeWorker) Close() error { return nil }

// Through the runner, pipelined: the record holds exactly the keys whose
// writes the target completed without error (load and run phase), and the
// wrapper's Submit and Poll do not allocate.
func TestAckPipelined(t *testing.T) {
	spec := workload.Spec{Records: 500, FieldCount: 2, FieldLength: 16, CheckValues: true,
		Mix: workload.MixList{{Op: vocab.OpRead, Weight: 1}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpInsert, Weight: 1}}}
	spec.EnsureDefaults()
	pt := &pipeTarget{acked: map[uint64]bool{}}
	log := newAckLog(spec.Records)
	tg := withAcks(pt, log)
	if _, ok := tg.(adapter.Pipelined); !ok {
		t.Fatal("the wrapper of a pipelined target is not pipelined")
	}
	ks := workload.NewKeyspace(&spec, 0, 1)
	ctx := context.Background()
	rc := runner.Config{Ops: 3000, Concurrency: 8, Seed: 1}
	if _, err := runner.Load(ctx, tg, &spec, ks, rc); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runner.Run(ctx, tg, &spec, ks, rc); err != nil {
		t.Fatal(err)
	}
	rs, n, _ := log.ranges()
	var got []uint64
	for _, r := range rs {
		for k := r[0]; k < r[1]; k++ {
			got = append(got, k)
		}
	}
	var want []uint64
	for k := range pt.acked {
		want = append(want, k)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) || n != uint64(len(want)) || len(want) < 500 {
		t.Fatalf("record holds %d keys, the target completed writes of %d", len(got), len(want))
	}

	w, _ := tg.NewWorker(0)
	p := w.(*ackPipeliner)
	p.Pipeliner.(*pipeWorker).t = nil // the fake's own map is not the wrapper's budget
	g := workload.NewGenerator(&spec, ks, 1, 0)
	var req workload.Request
	done := func(int, error) {}
	if a := testing.AllocsPerRun(1000, func() {
		g.Next(&req)
		_ = p.Submit(ctx, &req, 3)
		p.Flush(ctx)
		p.Poll(ctx, 0, done)
	}); a > 0.01 {
		t.Fatalf("%v allocations per pipelined operation", a)
	}
}
