package kafka

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// txnProducer is one transactional producer client and its open
// transaction, shared by the workers that use the client (worker i uses
// client i mod producers). Workers produce holding gate shared; the worker
// whose produce makes the transaction due (txn_messages, txn_duration) ends
// it holding gate alone: no produce is in flight, Flush waits for the
// asynchronous ones, then EndTransaction commits (or aborts, every
// txn_abort_every-th) and a new transaction begins. A message is
// acknowledged, for the ledger, only when its transaction commits.
type txnProducer struct {
	cl      *kgo.Client
	gate    sync.RWMutex
	n       atomic.Int64 // produces started in the open transaction
	began   atomic.Int64 // when the open transaction began, Unix ns
	ending  atomic.Bool  // a worker is waiting to end the transaction
	num     int64        // transactions ended (under gate)
	workers []*worker    // the workers producing through cl (under gate)
}

// txnStats counts the transactions of every producer client.
type txnStats struct {
	committed, aborted, failed atomic.Uint64
	abortedMsgs                atomic.Uint64 // messages of aborted (or failed) transactions
	commitNs, commitMaxNs      atomic.Int64  // time to end the committed transactions (Flush + EndTransaction)
	// waitNs, waitMaxNs: time from a transaction being due until the worker
	// ending it holds the gate, i.e. until every synchronous produce of the
	// transaction was acknowledged (or failed). A partition whose produces
	// the client is retrying holds every worker of the client here.
	waitNs, waitMaxNs atomic.Int64
	waits             atomic.Int64
}

// noteMax raises m to v if v is larger.
func noteMax(m *atomic.Int64, v int64) {
	for old := m.Load(); v > old && !m.CompareAndSwap(old, v); old = m.Load() {
	}
}

// newTxnProducer starts the first transaction of cl.
func newTxnProducer(cl *kgo.Client) (*txnProducer, error) {
	p := &txnProducer{cl: cl}
	if err := cl.BeginTransaction(); err != nil {
		return nil, err
	}
	p.began.Store(time.Now().UnixNano())
	return p, nil
}

// join adds w to the workers whose messages the transactions settle.
func (p *txnProducer) join(w *worker) {
	p.gate.Lock()
	p.workers = append(p.workers, w)
	p.gate.Unlock()
}

// due says whether the open transaction has reached its size or duration.
func (c *Config) due(p *txnProducer, now int64) bool {
	n := p.n.Load()
	if n == 0 {
		return false
	}
	return (c.TxnMessages > 0 && n >= int64(c.TxnMessages)) ||
		(c.TxnDuration > 0 && now-p.began.Load() >= int64(c.TxnDuration))
}

// maybeEnd ends the open transaction if it is due and no other worker is
// already ending it. It returns the error of a failed commit.
func (w *worker) maybeEnd() error {
	p, cfg := w.tx, w.t.cfg
	if !cfg.due(p, time.Now().UnixNano()) || !p.ending.CompareAndSwap(false, true) {
		return nil
	}
	defer p.ending.Store(false)
	start := time.Now()
	p.gate.Lock()
	defer p.gate.Unlock()
	wait := time.Since(start).Nanoseconds()
	st := &w.t.txn
	st.waits.Add(1)
	st.waitNs.Add(wait)
	noteMax(&st.waitMaxNs, wait)
	if !cfg.due(p, time.Now().UnixNano()) { // another worker ended it meanwhile
		return nil
	}
	return w.t.endTxn(p)
}

// flushTxn ends the open transaction, if it holds a message, and begins
// the next one.
func (t *Target) flushTxn(p *txnProducer) error {
	p.gate.Lock()
	defer p.gate.Unlock()
	if p.n.Load() == 0 {
		return nil
	}
	return t.endTxn(p)
}

// endTxn ends p's open transaction (the caller holds p.gate alone): commit,
// or abort every txn_abort_every-th; a commit that fails is aborted. The
// messages of the transaction become acknowledged when it commits, and are
// counted as aborted otherwise. Then the next transaction begins.
func (t *Target) endTxn(p *txnProducer) error {
	p.n.Store(0)
	p.num++
	abort := t.cfg.TxnAbortEvery > 0 && p.num%int64(t.cfg.TxnAbortEvery) == 0
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.Timeout+10*time.Second)
	defer cancel()
	start := time.Now()
	err := p.cl.Flush(ctx)
	how := kgo.TryCommit
	if abort {
		how = kgo.TryAbort
	}
	if err == nil {
		err = p.cl.EndTransaction(ctx, how)
	}
	took := time.Since(start).Nanoseconds()
	committed := err == nil && !abort
	switch {
	case committed:
		t.txn.committed.Add(1)
		t.txn.commitNs.Add(took)
		noteMax(&t.txn.commitMaxNs, took)
	case err == nil:
		t.txn.aborted.Add(1)
	default:
		// franz-go: after a failed commit, abort (which also fences what
		// the broker may still hold open).
		t.txn.failed.Add(1)
		_ = p.cl.AbortBufferedRecords(ctx)
		_ = p.cl.EndTransaction(ctx, kgo.TryAbort)
		err = fmt.Errorf("kafka: ending transaction: %w", err)
	}
	for _, w := range p.workers {
		w.settle(committed)
	}
	if berr := p.cl.BeginTransaction(); berr != nil && err == nil {
		err = fmt.Errorf("kafka: beginning a transaction: %w", berr)
	}
	p.began.Store(time.Now().UnixNano())
	return err
}

// settle moves the worker's messages of the ended transaction into acked
// (committed) or counts them as aborted.
func (w *worker) settle(committed bool) {
	w.ackMu.Lock()
	defer w.ackMu.Unlock()
	if committed {
		for _, s := range w.pend {
			w.acked.set(s)
		}
		w.bytes += w.pendBytes
	} else {
		w.t.txn.abortedMsgs.Add(uint64(len(w.pend)))
	}
	w.pend, w.pendBytes = w.pend[:0], 0
}

// noteAck records an acknowledged message: acked at once, or, in a
// transaction, pending until the transaction ends. The caller holds ackMu.
func (w *worker) noteAck(seq uint64, n int) {
	if w.tx != nil {
		w.pend = append(w.pend, seq)
		w.pendBytes += uint64(n)
		return
	}
	w.acked.set(seq)
	w.bytes += uint64(n)
}

// txnSummary adds the transaction counts to out.
func (t *Target) txnSummary(out map[string]string) {
	if !t.cfg.Transactional {
		return
	}
	c := t.txn.committed.Load()
	out["kafka.txn_committed"] = fmt.Sprint(c)
	out["kafka.txn_aborted"] = fmt.Sprint(t.txn.aborted.Load())
	out["kafka.txn_failed"] = fmt.Sprint(t.txn.failed.Load())
	out["kafka.txn_aborted_messages"] = fmt.Sprint(t.txn.abortedMsgs.Load())
	if c > 0 {
		out["kafka.txn_commit_mean_us"] = fmt.Sprint(t.txn.commitNs.Load() / int64(c) / 1000)
		out["kafka.txn_commit_max_us"] = fmt.Sprint(t.txn.commitMaxNs.Load() / 1000)
	}
	if n := t.txn.waits.Load(); n > 0 {
		out["kafka.txn_wait_mean_us"] = fmt.Sprint(t.txn.waitNs.Load() / n / 1000)
		out["kafka.txn_wait_max_us"] = fmt.Sprint(t.txn.waitMaxNs.Load() / 1000)
	}
}

// endOpenTxns commits the transactions left open (workers that produced and
// were never closed), so that Summary counts their messages.
func (t *Target) endOpenTxns() {
	t.mu.Lock()
	txs := append([]*txnProducer(nil), t.txns...)
	t.mu.Unlock()
	for _, p := range txs {
		_ = t.flushTxn(p)
	}
}
