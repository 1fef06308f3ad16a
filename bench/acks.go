package bench

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Acknowledged writes (--verify, docs/workloads.md, "Acknowledged writes, read back").
//
// An ackLog is the per-run record of what the target acknowledged: two bits
// per key number (written: a write of the key completed without error;
// deleted: a DELETE of the key ran, so its absence proves nothing). It is
// allocated once, before the load phase, for the dataset's records and
// grows by whole chunks (one allocation per 65,536 new keys) as run-phase
// inserts take new key numbers, up to ackInsertRoom of them; inserts beyond
// are counted as untracked. Workers set bits with atomic ORs: many workers
// acknowledge at once, and none waits for another.
//
// "Acknowledged" is per key, not per write: a key is verified if any write
// of it was acknowledged and it was never deleted, and the check is that
// the target holds a value platbench wrote for that key (every value is a
// function of key, field and generation: workload/value.go). A value of an
// older generation (a later acknowledged update lost, the earlier value
// left) checks as correct: see docs/workloads.md, "Acknowledged writes, read back".
type ackLog struct {
	chunks    []atomic.Pointer[ackChunk]
	untracked atomic.Uint64
}

const (
	ackChunkKeys = 1 << 16
	ackPerWord   = 16 // two bits per key in a uint32
	ackWritten   = 1
	ackDeleted   = 2
	// ackInsertRoom is how many key numbers past the dataset's records the
	// log can hold (run-phase inserts): 64 Mi keys, 1,024 chunk pointers.
	ackInsertRoom = 1 << 26
)

type ackChunk [ackChunkKeys / ackPerWord]atomic.Uint32

// newAckLog returns a log for a dataset of records keys (allocated now) and
// room for run-phase inserts (allocated as they come).
func newAckLog(records uint64) *ackLog {
	loaded := (records + ackChunkKeys - 1) / ackChunkKeys
	l := &ackLog{chunks: make([]atomic.Pointer[ackChunk], loaded+ackInsertRoom/ackChunkKeys)}
	for i := range loaded {
		l.chunks[i].Store(new(ackChunk))
	}
	return l
}

// chunk returns the chunk of key k, made if need be; nil past the log's room.
func (l *ackLog) chunk(k uint64) *ackChunk {
	i := k / ackChunkKeys
	if i >= uint64(len(l.chunks)) {
		return nil
	}
	c := l.chunks[i].Load()
	if c == nil {
		c = new(ackChunk)
		if !l.chunks[i].CompareAndSwap(nil, c) {
			c = l.chunks[i].Load()
		}
	}
	return c
}

func (l *ackLog) mark(k uint64, bit uint32) {
	c := l.chunk(k)
	if c == nil {
		l.untracked.Add(1)
		return
	}
	w := k % ackChunkKeys
	c[w/ackPerWord].Or(bit << (2 * (w % ackPerWord)))
}

// record notes the completion of one operation: a write that succeeded
// marks its key written; a DELETE, whatever its outcome (one that timed out
// may still have removed the key), marks it deleted.
func (l *ackLog) record(op vocab.Op, k uint64, err error) {
	switch op {
	case vocab.OpInsert, vocab.OpUpdate, vocab.OpWrite, vocab.OpRMW:
		if err == nil {
			l.mark(k, ackWritten)
		}
	case vocab.OpDelete:
		l.mark(k, ackDeleted)
	}
}

// ranges returns the keys written and not deleted as [from, to) ranges,
// their number, and the number of keys deleted.
func (l *ackLog) ranges() (rs [][2]uint64, n, deleted uint64) {
	open := false
	var from uint64
	for i := range l.chunks {
		c := l.chunks[i].Load()
		base := uint64(i) * ackChunkKeys
		if c == nil {
			if open {
				rs, open = append(rs, [2]uint64{from, base}), false
			}
			continue
		}
		for w := range c {
			bits := c[w].Load()
			for j := uint64(0); j < ackPerWord; j++ {
				k := base + uint64(w)*ackPerWord + j
				b := bits >> (2 * j) & 3
				if b&ackDeleted != 0 {
					deleted++
				}
				if ok := b == ackWritten; ok != open {
					if ok {
						from = k
					} else {
						rs = append(rs, [2]uint64{from, k})
					}
					open = ok
				}
				if b == ackWritten {
					n++
				}
			}
		}
	}
	if open {
		rs = append(rs, [2]uint64{from, uint64(len(l.chunks)) * ackChunkKeys})
	}
	return rs, n, deleted
}

// ackTarget is the target the runner drives when a run is verified: the
// same target, whose workers report each completion to the log. Only
// NewWorker differs; the runner asks a target for nothing else but
// Pipelined (ackPipelinedTarget) and Background (no target that verifies
// has it). The wrapper is the narrowest place that sees both an
// operation's key and its outcome without touching the runner.
type ackTarget struct {
	adapter.Target
	log *ackLog
}

type ackPipelinedTarget struct {
	*ackTarget
	p adapter.Pipelined
}

func (t *ackPipelinedTarget) PipelineShape(c int) (int, int) { return t.p.PipelineShape(c) }

// withAcks wraps t so that its workers record into log.
func withAcks(t adapter.Target, log *ackLog) adapter.Target {
	a := &ackTarget{Target: t, log: log}
	if p, ok := t.(adapter.Pipelined); ok {
		return &ackPipelinedTarget{ackTarget: a, p: p}
	}
	return a
}

func (t *ackTarget) NewWorker(id int) (adapter.Worker, error) {
	w, err := t.Target.NewWorker(id)
	if err != nil {
		return nil, err
	}
	if p, ok := w.(adapter.Pipeliner); ok {
		d := max(p.Depth(), 1)
		ap := &ackPipeliner{Pipeliner: p, log: t.log, ops: make([]vocab.Op, d), keys: make([]uint64, d)}
		ap.cb = ap.complete
		if tp, ok := w.(adapter.TimedPoller); ok {
			ap.timed = tp.PollsOnTime()
		}
		return ap, nil
	}
	return &ackWorker{Worker: w, log: t.log}, nil
}

type ackWorker struct {
	adapter.Worker
	log *ackLog
}

func (w *ackWorker) Do(ctx context.Context, req *workload.Request) error {
	err := w.Worker.Do(ctx, req)
	w.log.record(req.Op, req.KeyNum, err)
	return err
}

// ackPipeliner remembers each tag's op and key at Submit and records the
// outcome when Poll reports it. Its buffers are made once, at NewWorker.
type ackPipeliner struct {
	adapter.Pipeliner
	log   *ackLog
	ops   []vocab.Op
	keys  []uint64
	done  func(int, error)
	cb    func(int, error)
	timed bool
}

func (p *ackPipeliner) Do(ctx context.Context, req *workload.Request) error {
	err := p.Pipeliner.Do(ctx, req)
	p.log.record(req.Op, req.KeyNum, err)
	return err
}

func (p *ackPipeliner) Submit(ctx context.Context, req *workload.Request, tag int) error {
	err := p.Pipeliner.Submit(ctx, req, tag)
	if err == nil && tag >= 0 && tag < len(p.keys) {
		p.ops[tag], p.keys[tag] = req.Op, req.KeyNum
	}
	return err
}

func (p *ackPipeliner) Poll(ctx context.Context, wait time.Duration, done func(tag int, err error)) int {
	p.done = done
	return p.Pipeliner.Poll(ctx, wait, p.cb)
}

func (p *ackPipeliner) complete(tag int, err error) {
	if tag >= 0 && tag < len(p.keys) {
		p.log.record(p.ops[tag], p.keys[tag], err)
	}
	p.done(tag, err)
}

// PollsOnTime forwards the wrapped worker's answer (adapter.TimedPoller).
func (p *ackPipeliner) PollsOnTime() bool { return p.timed }
