package kafka

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// What the target reports beside the figures (adapter.Summarizer): the
// consumer lag at the end, and what the producers had acknowledged against
// what the consumers received (lost, duplicated, foreign messages).

// Summary reports consumer lag at the end of the run, and compares what the
// producers had acknowledged with what the consumers received: lost (acked,
// never consumed after the drain) and duplicated messages. It is called after
// the run, when every worker has returned.
func (t *Target) Summary(ctx context.Context) map[string]string {
	out := map[string]string{"kafka.topic": t.topic, "kafka.run_id": strconv.FormatUint(uint64(t.run), 16)}
	t.endOpenTxns()
	t.txnSummary(out)
	t.topicSummary(out)
	t.groupSummary(out)
	t.mu.Lock()
	var pbytes uint64
	var insFailed uint64
	for _, w := range t.workers {
		w.ackMu.Lock()
		pbytes += w.bytes
		w.ackMu.Unlock()
		insFailed += w.asyncFailed.Load()
	}
	t.mu.Unlock()
	out["kafka.produced_bytes"] = strconv.FormatUint(pbytes, 10)
	if insFailed > 0 {
		out["kafka.insert_failed"] = strconv.FormatUint(insFailed, 10)
	}
	consuming := t.pull || t.cfg.Consumers > 0
	if !consuming {
		_, n := t.expected()
		out["kafka.produced_acked"] = strconv.FormatUint(n, 10)
		return out
	}
	t.mu.Lock()
	needLag := t.pull && !t.lagKnown
	t.mu.Unlock()
	if needLag {
		var cls []*kgo.Client
		t.mu.Lock()
		for _, w := range t.workers {
			if w.cons != nil && !w.closed {
				cls = append(cls, w.cons)
			}
		}
		t.mu.Unlock()
		t.noteLag(cls)
	}
	want, n := t.expected()
	drained := t.waitDrained(ctx, want, n)
	t.stopBackground()

	lost := t.deliverySummary(out, want, n)
	if drained || !t.pull {
		out["kafka.lost"] = strconv.FormatUint(lost, 10)
		if !drained {
			out["kafka.lost_note"] = fmt.Sprintf("consumers had not caught up after drain_timeout=%s: some 'lost' messages may only be late", t.cfg.DrainTimeout)
		}
	} else {
		out["kafka.not_consumed"] = strconv.FormatUint(lost, 10)
	}
	t.mu.Lock()
	if t.lagKnown {
		out["kafka.consumer_lag_end"] = strconv.FormatInt(t.lagAtEnd, 10)
	} else if t.lagErr != nil {
		out["kafka.consumer_lag_end"] = "unknown: " + t.lagErr.Error()
	}
	t.mu.Unlock()
	return out
}

// deliverySummary compares what the consumers received (the ledger) with
// what the producers had acknowledged (want, n in all) into out, and returns
// how many acknowledged messages were never consumed.
func (t *Target) deliverySummary(out map[string]string, want map[uint32]*bitmap, n uint64) (lost uint64) {
	t.ledger.mu.Lock()
	var unacked uint64
	for pid, w := range want {
		s := t.ledger.seen[pid]
		if s == nil {
			s = &bitmap{}
		}
		lost += s.missing(w)
	}
	for pid, s := range t.ledger.seen {
		if w, ok := want[pid]; ok {
			unacked += s.extra(w)
		} else {
			unacked += s.count
		}
	}
	out["kafka.produced_acked"] = strconv.FormatUint(n, 10)
	out["kafka.consumed"] = strconv.FormatUint(t.ledger.records, 10)
	out["kafka.consumed_bytes"] = strconv.FormatUint(t.ledger.bytes, 10)
	out["kafka.duplicated"] = strconv.FormatUint(t.ledger.dups, 10)
	out["kafka.consumed_unacked"] = strconv.FormatUint(unacked, 10)
	out["kafka.foreign"] = strconv.FormatUint(t.ledger.foreign, 10)
	out["kafka.redelivered"] = strconv.FormatUint(t.ledger.redeliv, 10)
	t.ledger.mu.Unlock()
	return lost
}

// noteLag commits what the consumers have consumed and records the lag at
// this moment: for every partition, its end offset (high watermark) minus the
// next offset the consumers would read (after the highest they consumed; the
// log start for untouched partitions with offset=earliest, the end with
// latest). Taken from what was consumed rather than from committed offsets, it
// stays right when a commit failed (a broker restart at the end of the run).
func (t *Target) noteLag(cls []*kgo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, cl := range cls {
		_ = cl.CommitUncommittedOffsets(ctx)
	}
	// After a broker restart the admin client's first request may meet a
	// dead connection: try a few times.
	var ends, starts kadm.ListedOffsets
	var err error
	for try := 0; try < 3; try++ {
		if ends, err = t.admin.ListEndOffsets(ctx, t.topics...); err == nil {
			err = ends.Error()
		}
		if err == nil {
			if starts, err = t.admin.ListStartOffsets(ctx, t.topics...); err == nil {
				err = starts.Error()
			}
		}
		if err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	var lag int64
	if err == nil {
		t.ledger.mu.Lock()
		ends.Each(func(o kadm.ListedOffset) {
			next := o.Offset // offset=latest
			if t.cfg.Offset == "earliest" {
				if so, ok := starts.Lookup(o.Topic, o.Partition); ok {
					next = so.Offset
				}
			}
			if n, ok := t.ledger.next(o.Topic, o.Partition); ok {
				next = n
			}
			lag += max(0, o.Offset-next)
		})
		t.ledger.mu.Unlock()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lagKnown {
		return
	}
	t.lagAtEnd, t.lagKnown, t.lagErr = lag, err == nil, err
}

// expected merges the acknowledged sequence numbers of every producer.
func (t *Target) expected() (map[uint32]*bitmap, uint64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	want := map[uint32]*bitmap{}
	var n uint64
	// Consumers that start at the end (offset=latest) never see the backlog:
	// do not expect it.
	skip := func(pid uint32) bool { return t.cfg.Offset == "latest" && t.backlog[pid] }
	for _, w := range t.workers {
		if skip(w.pid) {
			continue
		}
		w.ackMu.Lock()
		if w.acked.count > 0 {
			want[w.pid] = &w.acked
			n += w.acked.count
		}
		w.ackMu.Unlock()
	}
	return want, n
}

// waitDrained lets the background consumers catch up with the n messages
// acknowledged (want: by producer), for up to drain_timeout. It reports
// whether they did. Consume-only runs (pull) do not wait.
func (t *Target) waitDrained(ctx context.Context, want map[uint32]*bitmap, n uint64) bool {
	deadline := time.Now().Add(t.cfg.DrainTimeout)
	for {
		t.ledger.mu.Lock()
		var got uint64
		for pid, w := range want {
			if s := t.ledger.seen[pid]; s != nil {
				got += w.count - s.missing(w)
			}
		}
		t.ledger.mu.Unlock()
		if got >= n {
			return true
		}
		if t.pull || time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}
