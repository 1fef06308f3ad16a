package kafka

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// setupTopics finds or creates the topics of topics=N (N > 1): NAME-0 to
// NAME-(N-1), NAME being the topic option or the random name. Those that
// exist are used as they are and never deleted; the others are created in
// one request, and the time until every new partition has a leader is
// reported as the creation time.
func (t *Target) setupTopics(ctx context.Context, brokers int) error {
	n := t.cfg.Topics
	base := t.topic
	t.topics = make([]string, n)
	for i := range t.topics {
		t.topics[i] = base + "-" + strconv.Itoa(i)
	}
	t.topic = t.topics[0]
	// Creating and electing leaders for thousands of partitions takes a
	// while on one broker.
	limit := 10*time.Second + time.Duration(n*t.cfg.Partitions)*5*time.Millisecond
	cctx, cancel := context.WithTimeout(ctx, t.cfg.DialTimeout+limit)
	defer cancel()
	tds, err := t.admin.ListTopics(cctx, t.topics...)
	if err != nil && !errors.Is(err, kerr.TopicAuthorizationFailed) {
		return t.reachErr(err)
	}
	var missing []string
	for _, name := range t.topics {
		if td, ok := tds[name]; !ok || td.Err != nil {
			missing = append(missing, name)
		}
	}
	if len(missing) == 0 {
		return nil // all exist: use them as they are
	}
	if t.existing {
		return adapter.MissingDataset("kafka: the dataset is not there: %d of the topics %s-0..%d do not exist (fix: load them first: platbench load with the same target, topic=%s and topics=%d; then run without the load phase)",
			len(missing), base, n-1, base, n)
	}
	if !t.cfg.Create {
		return adapter.Configf("kafka: %d of the topics %s-0..%d do not exist and create=false (fix: create them, or drop create=false)", len(missing), base, n-1)
	}
	rf, err := t.replicas(brokers)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := t.admin.CreateTopics(cctx, int32(t.cfg.Partitions), int16(rf), nil, missing...)
	if err != nil {
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("kafka: creating %d topics %s-*: %w", len(missing), base, err)}
	}
	var first error
	for _, name := range missing {
		r, ok := resp[name]
		switch {
		case ok && r.Err == nil:
			t.made = append(t.made, name)
		case ok && errors.Is(r.Err, kerr.TopicAlreadyExists):
		case first == nil && ok:
			first = fmt.Errorf("topic %q: %w", name, r.Err)
		case first == nil:
			first = fmt.Errorf("topic %q: no answer", name)
		}
	}
	t.created = len(t.made) > 0 // Close deletes those made, also after a failure
	if first != nil {
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("kafka: creating %d topics %s-* (partitions=%d, replication=%d): %w (fix: fewer topics or partitions, or a user allowed to create topics)", len(missing), base, t.cfg.Partitions, rf, first)}
	}
	t.waitLeaders(cctx, t.made, limit)
	t.madeIn = time.Since(start)
	return nil
}

// replicas is the replication factor of a created topic.
func (t *Target) replicas(brokers int) (int, error) {
	rf := t.cfg.Replication
	if rf == 0 {
		rf = min(3, brokers)
	}
	if rf > brokers {
		return 0, adapter.Configf("kafka: replication_factor=%d but the cluster has %d broker(s) (fix: replication_factor<=%d)", rf, brokers, brokers)
	}
	return rf, nil
}

// waitLeaders waits, up to limit, until every partition of the new topics
// has a leader known to the cluster, so that the first produces do not count
// as errors.
func (t *Target) waitLeaders(ctx context.Context, topics []string, limit time.Duration) {
	for deadline := time.Now().Add(limit); time.Now().Before(deadline) && ctx.Err() == nil; {
		tds, err := t.admin.ListTopics(ctx, topics...)
		ready := err == nil
		for _, name := range topics {
			td, ok := tds[name]
			if !ready || !ok || td.Err != nil || len(td.Partitions) != t.cfg.Partitions || !allLeaders(td) {
				ready = false
				break
			}
		}
		if ready {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// topicFor is the topic of a worker's message seq: with topics=N, each
// worker sends to the topics in turn, starting at its own.
func (t *Target) topicFor(pid uint32, seq uint64) string {
	if len(t.topics) <= 1 {
		return t.topic
	}
	return t.topics[(uint64(pid)+seq)%uint64(len(t.topics))]
}

// topicSummary adds the topics in use and the creation time to out.
func (t *Target) topicSummary(out map[string]string) {
	if len(t.topics) > 1 {
		out["kafka.topics"] = strconv.Itoa(len(t.topics))
	}
	if len(t.made) > 0 {
		out["kafka.topics_created"] = strconv.Itoa(len(t.made))
		out["kafka.topic_create_ms"] = strconv.FormatInt(t.madeIn.Milliseconds(), 10)
	}
}
