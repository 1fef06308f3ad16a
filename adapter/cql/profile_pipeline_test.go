package cql

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// ppipe drives a profile's pipelined native worker as the runner does:
// each completion is replaced by a new request of the same op.
type ppipe struct {
	w      *pworker
	req    workload.Request
	keys   []uint64
	i      int
	done   int
	errs   int
	lastEr error
	refill bool
	doneFn func(int, error)
}

func newPPipe(t testing.TB, tg *Target) *ppipe {
	t.Helper()
	wk, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = wk.Close() })
	w, ok := wk.(*pworker)
	if !ok || w.prof == nil {
		t.Fatalf("driver=native: the profile's worker is a %T, not the pipelined native worker", wk)
	}
	p := &ppipe{w: w}
	p.doneFn = p.complete
	return p
}

func (p *ppipe) complete(tag int, err error) {
	p.done++
	if err != nil {
		p.errs++
		p.lastEr = err
	}
	if p.refill {
		p.submit(tag)
	}
}

func (p *ppipe) submit(tag int) {
	p.req.KeyNum = p.keys[p.i%len(p.keys)]
	p.i++
	if err := p.w.Submit(context.Background(), &p.req, tag); err != nil {
		p.errs++
		p.lastEr = err
	}
}

// start submits depth requests of op and sends them.
func (p *ppipe) start(op vocab.Op, depth int) {
	p.req = workload.Request{Op: op}
	for tag := range depth {
		p.submit(tag)
	}
	p.w.Flush(context.Background())
}

func (p *ppipe) step() {
	p.w.Poll(context.Background(), -1, p.doneFn)
	p.w.Flush(context.Background())
}

func (p *ppipe) drain() {
	p.refill = false
	for p.w.live > 0 {
		p.w.Poll(context.Background(), -1, p.doneFn)
	}
}

// TestProfileNativeAllocs: on platbench's pipelined client, single-row
// inserts of fixed-size columns and one-row reads by primary key, many in
// flight, do not allocate.
func TestProfileNativeAllocs(t *testing.T) {
	for _, c := range []struct{ file, op string }{
		{"profile-ttl.yaml", "insert"},
		{"profile-events.yaml", "insert"},
		{"profile-events.yaml", "byrow"},
	} {
		tg, spec := openProfile(t, c.file, 100, DriverNative)
		p := newPPipe(t, tg)
		for k := range uint64(100) {
			p.keys = append(p.keys, k)
		}
		p.refill = true
		p.start(named(spec, c.op), 16)
		for range 300 { // warm up: buffers reach their size
			p.step()
		}
		allocs := testing.AllocsPerRun(500, p.step)
		for try := 0; try < 2 && allocs != 0; try++ { // the driver's background work counts too
			time.Sleep(time.Second)
			allocs = min(allocs, testing.AllocsPerRun(500, p.step))
		}
		p.drain()
		if p.errs > 0 {
			t.Errorf("%s %s: %d errors, last %v", c.file, c.op, p.errs, p.lastEr)
		}
		if allocs != 0 {
			t.Errorf("%s %s: %.2f allocations per Poll+Flush, want 0", c.file, c.op, allocs)
		}
	}
}

// TestProfilePipelinedOneConnection: concurrency 32 with conns=1 is one
// worker with 32 requests in flight on one connection (keys owned by one
// node); loads (a batch per partition), single-row inserts, one-row reads,
// multi-page reads and LWT all complete, and separate queries find the rows.
func TestProfilePipelinedOneConnection(t *testing.T) {
	tg, spec := openProfile(t, "profile-events.yaml", 300, DriverNative)
	tg.cfg.Conns = 1
	if w, total := tg.PipelineShape(32); w != 1 || total != 32 {
		t.Fatalf("PipelineShape(32) with conns=1 = %d workers, %d in flight; want 1, 32", w, total)
	}
	p := newPPipe(t, tg)
	// 32 partitions owned by one node (all of them on a one-node cluster).
	byNode := map[int][]uint64{}
	best := 0
	for k := range uint64(300) {
		tok, _ := p.w.prof.token(&workload.Request{Op: vocab.OpInsert, KeyNum: k})
		n := max(p.w.ring.owner(tok), 0)
		byNode[n] = append(byNode[n], k)
		if len(byNode[n]) > len(byNode[best]) {
			best = n
		}
	}
	if len(byNode[best]) < 32 {
		t.Fatalf("no node owns 32 of 300 partitions: %v", byNode)
	}
	p.keys = byNode[best][:32]
	ks := tg.prof.Def.Keyspace
	inFlight := func(what string) {
		t.Helper()
		most := 0
		for _, n := range p.w.inflight {
			most = max(most, n)
		}
		if p.w.live != 32 || most != 32 {
			t.Errorf("%s: %d in flight, at most %d on one connection; want 32 on one", what, p.w.live, most)
		}
		p.drain()
		if p.done != 32 || p.errs != 0 {
			t.Fatalf("%s: %d of 32 completed, %d errors (last %v)", what, p.done, p.errs, p.lastEr)
		}
		p.done, p.i = 0, 0
	}

	p.start(vocab.OpInsert, 32) // the load: every row of each partition
	inFlight("load")
	for _, k := range p.keys {
		if n := count(t, tg, "SELECT ts FROM "+ks+".events WHERE user_id = ?", &blob{b: pkOf(tg, k)}); n != 10 {
			t.Errorf("partition %d holds %d rows after its load, want 10", k, n)
		}
	}

	before := tg.prof.Rows.Load()
	p.start(named(spec, "insert"), 32)
	inFlight("insert")
	if n := tg.prof.Rows.Load() - before; n != 32 {
		t.Errorf("inserts wrote %d rows, want 32", n)
	}

	before = tg.prof.Returned.Load()
	p.start(named(spec, "byrow"), 32)
	inFlight("byrow")
	if n := tg.prof.Returned.Load() - before; n != 32 {
		t.Errorf("one-row reads of loaded partitions returned %d rows, want 32", n)
	}

	// Pages of 3 rows: each read takes 4 pages, on its own stream.
	for i := range tg.prof.Ops {
		if tg.prof.Ops[i].Name == "whole" {
			tg.prof.Ops[i].PageSize = 3
		}
	}
	before = tg.prof.Returned.Load()
	p.start(named(spec, "whole"), 32)
	inFlight("whole (paged)")
	if n := tg.prof.Returned.Load() - before; n != 320 {
		t.Errorf("whole-partition reads in pages of 3 returned %d rows, want 32 x 10", n)
	}
}

// TestProfilePipelinedLWT: conditional inserts and updates, 10 in flight,
// count "not applied" from each response.
func TestProfilePipelinedLWT(t *testing.T) {
	tg, spec := openProfile(t, "profile-lwt.yaml", 10, DriverNative)
	p := newPPipe(t, tg)
	for k := range uint64(10) {
		p.keys = append(p.keys, k)
	}
	for i, c := range []struct {
		op   string
		want uint64
	}{{"insert", 0}, {"insert", 10}, {"transfer", 10}} {
		p.start(named(spec, c.op), 10)
		p.drain()
		if p.errs != 0 || p.done != 10 {
			t.Fatalf("round %d (%s): %d of 10 done, %d errors (last %v)", i, c.op, p.done, p.errs, p.lastEr)
		}
		p.done, p.i = 0, 0
		if n := tg.prof.NotApplied.Load(); n != c.want {
			t.Errorf("after round %d (%s): %d not applied, want %d", i, c.op, n, c.want)
		}
	}
}

// TestProfilePipelinedUnknownOp: an op outside the profile is refused at
// Submit with the fix, and nothing is left in flight.
func TestProfilePipelinedUnknownOp(t *testing.T) {
	tg, _ := openProfile(t, "profile-ttl.yaml", 10, DriverNative)
	p := newPPipe(t, tg)
	err := p.w.Submit(context.Background(), &workload.Request{Op: vocab.OpScan}, 0)
	var ue *usererr.Error
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "fix:") || p.w.live != 0 || len(p.w.free) != cqlwire.MaxStreams {
		t.Errorf("Submit(scan) = %v (live %d, %d free streams), want a user error with the fix", err, p.w.live, len(p.w.free))
	}
}

// TestProfilePipelinedBatchSplit: 6 inserts in flight, each a LOGGED visit
// of 3 partitions x 100 rows of 2 KB sent as about 15 batches one after the
// other on its own stream; every row arrives.
func TestProfilePipelinedBatchSplit(t *testing.T) {
	tg, spec := openProfile(t, "profile-bigrows.yaml", 6, DriverNative)
	p := newPPipe(t, tg)
	p.keys = []uint64{0, 1, 2, 3, 4, 5}
	p.start(named(spec, "insert"), 6)
	if p.w.live != 6 {
		t.Fatalf("%d in flight, want 6", p.w.live)
	}
	p.drain()
	if p.done != 6 || p.errs != 0 {
		t.Fatalf("%d of 6 completed, %d errors (last %v)", p.done, p.errs, p.lastEr)
	}
	if n := count(t, tg, "SELECT k FROM "+tg.prof.Def.Keyspace+".big"); n != 600 {
		t.Errorf("%d rows, want all 6 partitions x 100 (each visit writes 3 of them)", n)
	}
	if r := tg.prof.Rows.Load(); r != 1800 {
		t.Errorf("the visits wrote %d rows, want 6 x 3 x 100", r)
	}
}

// TestProfilePipelinedOneNode: a worker with a single connection (the
// blocking wait of a one-node cluster) sends each operation's next frame
// before it waits: 32 loads and 32 reads of 4 pages each complete with
// every row.
func TestProfilePipelinedOneNode(t *testing.T) {
	tg, spec := openProfile(t, "profile-events.yaml", 32, DriverNative)
	hosts, _ := tg.nodes()
	pr := tg.prof
	w, err := newNativeConns(tg, &pr.cfg, nil, pr.CQLs(), &profPipe{gen: pr.NewGen(0)}, hosts[:1], ring{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = w.Close() })
	p := &ppipe{w: w}
	p.doneFn = p.complete
	for k := range uint64(32) {
		p.keys = append(p.keys, k)
	}
	for i := range pr.Ops {
		pr.Ops[i].PageSize = 3
	}
	p.start(vocab.OpInsert, 32)
	p.drain()
	p.done, p.i = 0, 0
	p.start(named(spec, "whole"), 32)
	p.drain()
	if p.done != 32 || p.errs != 0 {
		t.Fatalf("%d of 32 reads completed, %d errors (last %v)", p.done, p.errs, p.lastEr)
	}
	if n := pr.Returned.Load(); n != 320 {
		t.Errorf("paged reads returned %d rows, want 32 x 10", n)
	}
}
