package kafka

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker,
// adapter.Cleaner): `platbench load` keeps the topic it created (name it with
// topic=NAME to find it again); a run without a load creates no topic and
// checks that the topic has messages when the workload consumes; clean
// deletes the named topic, or every topic with platbench's prefix, and their
// consumer groups.

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// Retain makes Close keep the topic Setup created.
func (t *Target) Retain() { t.cfg.Keep = true }

// UseExisting makes Setup create no topic (see missingTopic).
func (t *Target) UseExisting() { t.existing = true }

// missingTopic is Setup's error for a topic that is not there when it may
// not create one.
func (t *Target) missingTopic() error {
	if t.cfg.Topic == "" {
		return adapter.MissingDataset("kafka: a run without a load needs the topic of an earlier load, and none was named (fix: the option topic=NAME, the topic 'platbench load' printed or was given)")
	}
	return adapter.MissingDataset("kafka: the dataset is not there: topic %q does not exist (fix: load it first: platbench load with the same target and topic=%s; then run without the load phase)", t.topic, t.topic)
}

// CheckDataset checks that a workload that consumes finds messages.
func (t *Target) CheckDataset(ctx context.Context, w *workload.Spec) error {
	consumes := false
	for _, m := range w.Mix {
		consumes = consumes || (m.Op == vocab.OpConsume && m.Weight > 0)
	}
	if !consumes {
		return nil
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	starts, err := t.admin.ListStartOffsets(cctx, t.topic)
	if err != nil {
		return t.reachErr(err)
	}
	ends, err := t.admin.ListEndOffsets(cctx, t.topic)
	if err != nil {
		return t.reachErr(err)
	}
	var n int64
	ends.Each(func(e kadm.ListedOffset) {
		if s, ok := starts.Lookup(e.Topic, e.Partition); ok {
			n += e.Offset - s.Offset
		}
	})
	if n == 0 {
		return adapter.MissingDataset("kafka: the dataset is not there: topic %q has no message to consume (fix: load it first: platbench load with the same target and topic=%s; then run without the load phase)", t.topic, t.topic)
	}
	return nil
}

// Clean deletes the topic named by topic=NAME, or else every topic whose
// name starts with platbench's prefix (topic_prefix), and their consumer
// groups (platbench-TOPIC).
func (t *Target) Clean(ctx context.Context, _ *workload.Spec) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tds, err := t.admin.ListTopics(cctx)
	if err != nil {
		return nil, t.reachErr(err)
	}
	var names []string
	for name := range tds {
		named := name == t.cfg.Topic || (t.cfg.Topics > 1 && strings.HasPrefix(name, t.cfg.Topic+"-"))
		if (t.cfg.Topic != "" && named) || (t.cfg.Topic == "" && strings.HasPrefix(name, t.cfg.TopicPrefix)) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, nil
	}
	resp, err := t.admin.DeleteTopics(cctx, names...)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		return nil, fmt.Errorf("kafka: deleting topics %s: %w", strings.Join(names, ", "), err)
	}
	var out []string
	for _, n := range names {
		_, _ = t.admin.DeleteGroups(cctx, "platbench-"+n)
		out = append(out, fmt.Sprintf("topic %s (and its consumer group)", n))
	}
	if t.cfg.Topic == "" {
		t.topic = "" // nothing left for Close to delete
	}
	return out, nil
}
