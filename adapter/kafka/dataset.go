package kafka

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker,
// adapter.Cleaner): `platbench load` keeps the topic it created (name it with
// topic=NAME to find it again); a run without a load creates no topic and
// checks that the topic has messages when the workload consumes. A load
// keeps its manifest in the compacted topic platbench_datasets; clean
// deletes the topics it names as created by the load, and their consumer
// groups, never a topic by its prefix.

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// Retain makes Close keep the topic Setup created.
func (t *Target) Retain() { t.cfg.Keep = true }

// Retained reports whether Close keeps what Setup created.
func (t *Target) Retained() bool { return t.cfg.Keep }

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

// manifestTarget is the manifest's target.
const manifestTarget = "kafka"

// registryTopic keeps the manifests (adapter.Manifest, JSON) of the
// datasets of a cluster: a compacted topic of one partition, keyed by the
// dataset's topic; clean writes a tombstone. Its name is outside the
// default topic_prefix ("platbench-"). A topic has no free-form config to
// hold a manifest; a group's offset metadata expires with the group.
const registryTopic = "platbench_datasets"

// NewManifest: the workload's topic (or topics), those Setup created, and
// the created topic's id (a topic deleted and made again by someone else
// has another: clean leaves it).
func (t *Target) NewManifest(ctx context.Context, w *workload.Spec, version, loadID string) *adapter.Manifest {
	m := adapter.NewManifest(manifestTarget, version, loadID, w, time.Now())
	m.Dataset = "topic " + t.topic
	if len(t.topics) > 1 {
		m.Dataset = fmt.Sprintf("topics %s-0..%d", t.topic, len(t.topics)-1)
	}
	for _, name := range t.made {
		m.Created = append(m.Created, "topic "+name)
	}
	if len(t.made) == 1 {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if tds, err := t.admin.ListTopics(cctx, t.made[0]); err == nil {
			if td, ok := tds[t.made[0]]; ok && td.Err == nil && td.ID != (kadm.TopicID{}) {
				m.ObjectID = td.ID.String()
			}
		}
	}
	return m
}

// WriteManifest keeps m in registryTopic (created, compacted, when
// missing) under the dataset's topic.
func (t *Target) WriteManifest(ctx context.Context, _ *workload.Spec, m *adapter.Manifest) error {
	if err := t.ensureRegistry(ctx); err != nil {
		return err
	}
	return t.putRegistry(ctx, t.topic, m.Marshal())
}

// ensureRegistry creates registryTopic when it is not there.
func (t *Target) ensureRegistry(ctx context.Context) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	md, err := t.admin.BrokerMetadata(cctx)
	if err != nil {
		return t.reachErr(err)
	}
	compact := "compact"
	resp, err := t.admin.CreateTopic(cctx, 1, int16(min(3, len(md.Brokers))), map[string]*string{"cleanup.policy": &compact}, registryTopic)
	if err == nil {
		err = resp.Err
	}
	if err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
		return fmt.Errorf("kafka: creating the manifests' topic %s: %w", registryTopic, err)
	}
	return nil
}

// putRegistry writes one record of registryTopic (a nil value: a tombstone).
func (t *Target) putRegistry(ctx context.Context, key string, value []byte) error {
	cl, err := kgo.NewClient(t.conn...)
	if err != nil {
		return adapter.Configf("kafka: %v", err)
	}
	defer cl.Close()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := cl.ProduceSync(cctx, &kgo.Record{Topic: registryTopic, Partition: 0, Key: []byte(key), Value: value}).FirstErr(); err != nil {
		return fmt.Errorf("kafka: writing the manifest of topic %s to %s: %w", key, registryTopic, err)
	}
	return nil
}

// readRegistry reads registryTopic whole: the last manifest of each
// dataset's topic (a tombstone removes it). No topic: none.
func (t *Target) readRegistry(ctx context.Context) (map[string][]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out := map[string][]byte{}
	ends, err := t.admin.ListEndOffsets(cctx, registryTopic)
	if err != nil {
		return nil, t.reachErr(err)
	}
	end, ok := ends.Lookup(registryTopic, 0)
	if !ok || errors.Is(end.Err, kerr.UnknownTopicOrPartition) {
		return out, nil
	}
	if end.Err != nil {
		return nil, fmt.Errorf("kafka: reading %s: %w", registryTopic, end.Err)
	}
	starts, err := t.admin.ListStartOffsets(cctx, registryTopic)
	if err != nil {
		return nil, t.reachErr(err)
	}
	if start, ok := starts.Lookup(registryTopic, 0); ok && start.Err == nil && start.Offset >= end.Offset {
		return out, nil
	}
	if end.Offset == 0 {
		return out, nil
	}
	opts := append(slices.Clone(t.conn), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{registryTopic: {0: kgo.NewOffset().AtStart()}}))
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		return nil, adapter.Configf("kafka: %v", err)
	}
	defer cl.Close()
	for {
		fs := cl.PollFetches(cctx)
		if err := cctx.Err(); err != nil {
			return nil, fmt.Errorf("kafka: reading %s: %w", registryTopic, err)
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return nil, fmt.Errorf("kafka: reading %s: %w", registryTopic, ferr)
		}
		done := false
		fs.EachRecord(func(r *kgo.Record) {
			if r.Value == nil {
				delete(out, string(r.Key))
			} else {
				out[string(r.Key)] = r.Value
			}
			done = done || r.Offset >= end.Offset-1
		})
		if done {
			return out, nil
		}
	}
}

// ReadManifest reads the manifest of the named topic (or the one Setup
// chose); for a clean without topic=NAME, the one dataset the registry
// names with the topic prefix (several: name one).
func (t *Target) ReadManifest(ctx context.Context, _ *workload.Spec) (*adapter.Manifest, error) {
	reg, err := t.readRegistry(ctx)
	if err != nil {
		return nil, err
	}
	name := t.cfg.Topic
	if name != "" && t.cfg.Topics > 1 {
		name += "-0" // a load of several topics keeps its manifest under the first (t.topic)
	}
	if name == "" && !t.existing {
		name = t.topic // the topic Setup made or found for this run
	}
	if name == "" {
		var names []string
		for n := range reg {
			if strings.HasPrefix(n, t.cfg.TopicPrefix) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		switch len(names) {
		case 0:
			return nil, nil
		case 1:
			name = names[0]
		default:
			return nil, adapter.Configf("kafka: %d datasets of platbench's have topics that start with %q: %s (fix: name one with the option topic=NAME)", len(names), t.cfg.TopicPrefix, strings.Join(names, ", "))
		}
	}
	b, ok := reg[name]
	if !ok {
		return nil, nil
	}
	m, err := adapter.ParseManifest(b)
	if err == nil && (m.Target != manifestTarget || !strings.HasPrefix(m.Dataset, "topic "+name) && !strings.HasPrefix(m.Dataset, "topics "+name+"-")) {
		err = fmt.Errorf("it names the %s dataset %q", m.Target, m.Dataset)
	}
	if err == nil {
		err = createdTopics(m, name)
	}
	if err != nil {
		return nil, adapter.MissingDataset("kafka: the record %q of %s is not a dataset manifest of platbench's for topic %s (%v): nothing removed (fix: write a tombstone for it if it is a stale one)", name, registryTopic, name, err)
	}
	t.topic = name
	return m, nil
}

// createdTopics checks that every object m says its load created is a topic
// of the dataset kept under the registry's key topic: topic itself, or one
// of several, BASE-N, where topic is BASE or the first of them, BASE-0.
// Clean deletes them by name, and the registry's records are anyone's to
// write.
func createdTopics(m *adapter.Manifest, topic string) error {
	numbered := func(name, base string) bool {
		n, ok := strings.CutPrefix(name, base+"-")
		return ok && n != "" && strings.Trim(n, "0123456789") == ""
	}
	base := topic
	if i := strings.LastIndexByte(topic, '-'); i > 0 && numbered(topic, topic[:i]) {
		base = topic[:i]
	}
	for _, c := range m.Created {
		name, ok := strings.CutPrefix(c, "topic ")
		if !ok {
			return fmt.Errorf("it names %q as created, not a topic", c)
		}
		if name != topic && !numbered(name, topic) && !numbered(name, base) {
			return fmt.Errorf("it names topic %s as created, not a topic of the dataset's (%s, or %s-N of several)", name, topic, base)
		}
	}
	return nil
}

// Unmarked names the named topic when it is there; without topic=NAME,
// the topics whose names start with the topic prefix, as anyone's can.
func (t *Target) Unmarked(ctx context.Context, _ *workload.Spec) error {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	tds, err := t.admin.ListTopics(cctx)
	if err != nil {
		return t.reachErr(err)
	}
	var names []string
	for name := range tds {
		named := name == t.cfg.Topic || (t.cfg.Topics > 1 && strings.HasPrefix(name, t.cfg.Topic+"-"))
		if (t.cfg.Topic != "" && named) || (t.cfg.Topic == "" && strings.HasPrefix(name, t.cfg.TopicPrefix)) {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	sort.Strings(names)
	what := "topic " + names[0]
	if len(names) > 1 {
		what = "topics " + strings.Join(names, ", ")
	}
	if t.cfg.Topic == "" {
		what += fmt.Sprintf(" (their names start with the topic prefix %q, as anyone's can)", t.cfg.TopicPrefix)
	}
	at := fmt.Sprintf("no record %q in topic %s", t.cfg.Topic, registryTopic)
	if t.cfg.Topic == "" {
		at = fmt.Sprintf("no record in topic %s for a topic that starts with %q", registryTopic, t.cfg.TopicPrefix)
	}
	return adapter.Unmarked("kafka "+strings.Join(t.cfg.Brokers, ","), at, []string{what})
}

// Clean deletes the topics the load created (and their consumer groups),
// each only while it is the one the load made (its id, where the broker
// gives ids); a topic that was there before the load stays (a message
// cannot be removed alone), and is named. Then the manifest's tombstone.
func (t *Target) Clean(ctx context.Context, _ *workload.Spec, m *adapter.Manifest, dryRun bool) ([]string, error) {
	cctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var made []string
	for _, c := range m.Created {
		if name, ok := strings.CutPrefix(c, "topic "); ok {
			made = append(made, name)
		}
	}
	var out, gone []string
	if len(made) > 0 {
		tds, err := t.admin.ListTopics(cctx, made...)
		if err != nil {
			return nil, t.reachErr(err)
		}
		for _, name := range made {
			td, ok := tds[name]
			if !ok || td.Err != nil {
				continue // deleted since
			}
			if m.ObjectID != "" && len(made) == 1 && td.ID != (kadm.TopicID{}) && td.ID.String() != m.ObjectID {
				return nil, adapter.MissingDataset("kafka: topic %s is not the one load %s created (its id is %s, the load's was %s): someone made it again since; nothing removed (fix: if it is yours to remove, delete it by hand, and the manifest with a tombstone for %q in %s)", name, m.LoadID, td.ID, m.ObjectID, name, registryTopic)
			}
			gone = append(gone, name)
		}
	}
	if !dryRun && len(gone) > 0 {
		resp, err := t.admin.DeleteTopics(cctx, gone...)
		if err == nil {
			err = resp.Error()
		}
		if err != nil {
			return nil, fmt.Errorf("kafka: deleting topics %s: %w", strings.Join(gone, ", "), err)
		}
		for _, n := range gone {
			_, _ = t.admin.DeleteGroups(cctx, "platbench-"+n)
		}
		t.created = false // nothing left for Close to delete
	}
	for _, n := range gone {
		out = append(out, fmt.Sprintf("topic %s and its consumer group (load %s created it)", n, m.LoadID))
	}
	if len(made) == 0 {
		out = append(out, fmt.Sprintf("nothing of %s, which was there before load %s (a message cannot be removed alone)", strings.TrimPrefix(m.Dataset, "topic "), m.LoadID))
	}
	if !dryRun {
		if err := t.putRegistry(ctx, t.topic, nil); err != nil {
			return out, err
		}
	}
	out = append(out, fmt.Sprintf("the manifest of topic %s (a tombstone in %s)", t.topic, registryTopic))
	return out, nil
}
