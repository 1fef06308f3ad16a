// Package kafka drives any Kafka-protocol broker (Apache Kafka, Redpanda and
// their peers) with franz-go (github.com/twmb/franz-go), a pure-Go client with
// no cgo: it batches the records of concurrent in-flight produces of one client
// into one request per partition, so many synchronous produces from the runner's
// workers still send large batches, and every produce's latency is the real
// time from its send to its acknowledgement.
//
// The types that matter: Config (every setting, from the URL query and
// --target-opt, with its default), Open, and the Target it returns. A Target
// implements adapter.Target, adapter.Background (consumer group members that
// record end-to-end latency), adapter.Summarizer (consumer lag at the end, lost and duplicated
// messages), adapter.Describer and adapter.Sizer.
//
// Operations:
//
//	PRODUCE, WRITE, UPDATE  produce one record and wait for its ack
//	INSERT                  produce without waiting (the load phase's fill;
//	                        sync_insert=true waits like PRODUCE)
//	CONSUME                 return the next record of this worker's consumer
//	                        group member (consume-only, drain)
//
// Every payload starts with a 24-byte header: the send time (Unix ns), a run
// id, the producer id and a per-producer sequence number. Consumers read it to
// measure end-to-end latency and to count lost and duplicated messages.
//
// The package does not time produces (the runner does) and does not create
// brokers: scripts/servers/kafka.sh starts one on 127.0.0.1 for the tests.
package kafka

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Target is a Kafka-protocol cluster with one topic.
type Target struct {
	u     *url.URL
	opts  map[string]string
	cfg   *Config
	conn  []kgo.Opt
	admin *kadm.Client
	adm   *kgo.Client
	run   uint32 // run id written into every payload

	topic   string
	created bool          // Setup created the topic: Close deletes it unless Keep
	topics  []string      // every topic in use (topics=N); topics[0] == topic
	made    []string      // the topics Setup created, which Close deletes unless Keep
	madeIn  time.Duration // how long creating them took, leaders known
	// existing: UseExisting was called, Setup creates no topic (dataset.go).
	existing bool
	group    string
	msgSize  int // bytes per message (the smallest when a range)
	msgMax   int // largest message; == msgSize when fixed
	// sizeFromReq: no msg_size given, so a produce sends as many bytes as the
	// request's value (what the runner counts as the op's bytes).
	sizeFromReq bool
	pull        bool

	mu        sync.Mutex
	producers []*kgo.Client
	txns      []*txnProducer // producers' transactions (transactional), by client
	txn       txnStats
	workers   []*worker
	depth     int // records in flight per pipelined worker; 0: synchronous workers (PipelineShape)
	nextProd  atomic.Uint32
	ledger    *ledger

	bg        []*kgo.Client   // background consumers (streaming)
	backlog   map[uint32]bool // producers done before RunBackground started (read-only after)
	bgStop    context.CancelFunc
	bgDone    chan struct{}
	lagAtEnd  int64
	lagKnown  bool
	lagErr    error
	watch     *groupWatch // background consumers' assignments, for rebalance times
	groupType string      // the group's protocol as the broker reports it
	closeOnce sync.Once
}

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target         = (*Target)(nil)
	_ adapter.Describer      = (*Target)(nil)
	_ adapter.Sizer          = (*Target)(nil)
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Manifester     = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
	_ adapter.Pipelined      = (*Target)(nil)
	_ adapter.Background     = (*Target)(nil)
	_ adapter.Summarizer     = (*Target)(nil)
)

var (
	_ adapter.Target     = (*Target)(nil)
	_ adapter.Background = (*Target)(nil)
	_ adapter.Summarizer = (*Target)(nil)
	_ adapter.Describer  = (*Target)(nil)
	_ adapter.Sizer      = (*Target)(nil)
)

// Open is the registry's opener: kafka://host1:9092,host2:9092?opt=value.
// It connects nothing; Setup does.
func Open(_ context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	t, err := New(cfg)
	if err != nil {
		return nil, err
	}
	t.u, t.opts = u, opts
	return t, nil
}

// New returns a Target for cfg (already validated by ParseConfig).
func New(cfg *Config) (*Target, error) {
	conn, err := cfg.connOpts()
	if err != nil {
		return nil, err
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	t := &Target{cfg: cfg, conn: conn, run: binary.LittleEndian.Uint32(b[:])}
	t.ledger = newLedger(t.run)
	return t, nil
}

// Topic is the topic in use (known after Setup).
func (t *Target) Topic() string { return t.topic }

// Setup reaches the cluster, then finds or creates the topic.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error {
	if w != nil && len(w.Options) > 0 && t.u != nil && t.topic == "" {
		// A preset's options (e.g. the stream preset's consumers=1) apply
		// unless the URL or --target-opt say otherwise.
		cfg, err := parseConfig(t.u, t.opts, w.Options)
		if err != nil {
			return err
		}
		t.cfg = cfg
	}
	if t.admin == nil {
		cl, err := kgo.NewClient(t.conn...)
		if err != nil {
			return adapter.Configf("kafka: %v", err)
		}
		t.adm, t.admin = cl, kadm.NewClient(cl)
	}
	if err := t.fitWorkload(w); err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, t.cfg.DialTimeout+5*time.Second)
	defer cancel()
	md, err := t.admin.BrokerMetadata(cctx)
	if err != nil {
		return t.reachErr(err)
	}
	if t.topic != "" { // Setup is called again before the run phase
		return nil
	}
	t.topic = t.cfg.Topic
	if t.topic == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		t.topic = t.cfg.TopicPrefix + hex.EncodeToString(b[:])
	}
	t.group = t.cfg.Group
	if t.group == "" {
		t.group = "platbench-" + t.topic
		if t.existing {
			// A run on an earlier load reads the topic from its start in a
			// group of its own (removed at Close), so every such run reads
			// the same messages: consuming does not use the dataset up.
			t.group += fmt.Sprintf("-%08x", t.run)
		}
	}
	if t.cfg.Topics > 1 {
		return t.setupTopics(ctx, len(md.Brokers))
	}
	t.topics = []string{t.topic}
	tds, err := t.admin.ListTopics(cctx, t.topic)
	hidden := errors.Is(err, kerr.TopicAuthorizationFailed) // absent, or present and not ours to see
	if err != nil && !hidden {
		return t.reachErr(err)
	}
	if td, ok := tds[t.topic]; ok && td.Err == nil {
		return nil // exists: use it as it is, never delete it
	} else if ok && errors.Is(td.Err, kerr.TopicAuthorizationFailed) {
		hidden = true
	}
	if t.existing {
		return t.missingTopic()
	}
	return t.createTopic(cctx, len(md.Brokers), hidden)
}

// fitWorkload settles what depends on the workload: the message size, and
// whether workers consume.
func (t *Target) fitWorkload(w *workload.Spec) error {
	t.msgSize, t.msgMax = t.cfg.MsgSize, t.cfg.MsgSizeMax
	t.sizeFromReq = t.msgSize == 0
	if t.msgSize == 0 {
		t.msgSize = DefaultMsgSize
		if w != nil && w.RecordBytes() >= HeaderLen {
			t.msgSize = w.RecordBytes()
		}
	}
	if t.msgMax == 0 {
		t.msgMax = t.msgSize
	}
	if w == nil {
		return nil
	}
	for _, m := range w.Mix {
		if m.Op == vocab.OpConsume && m.Weight > 0 {
			t.pull = true
		}
	}
	if (t.cfg.Key == "uniform" || t.cfg.Key == "zipfian") && string(w.Distribution) != t.cfg.Key {
		return adapter.Configf("kafka: key=%s but the workload's distribution is %q (fix: a workload with distribution %s, or key=request to use the workload's keys as they are)", t.cfg.Key, w.Distribution, t.cfg.Key)
	}
	return nil
}

// createTopic creates the topic that does not exist (hidden: or that this
// user may not see) and waits for its leaders.
func (t *Target) createTopic(cctx context.Context, brokers int, hidden bool) error {
	if !t.cfg.Create {
		return adapter.Configf("kafka: topic %q does not exist and create=false (fix: create it, or drop create=false)", t.topic)
	}
	rf, err := t.replicas(brokers)
	if err != nil {
		return err
	}
	start := time.Now()
	resp, err := t.admin.CreateTopic(cctx, int32(t.cfg.Partitions), int16(rf), nil, t.topic)
	if err == nil {
		err = resp.Err
	}
	switch {
	case err == nil:
		t.created, t.made = true, []string{t.topic}
	case errors.Is(err, kerr.TopicAlreadyExists):
	case errors.Is(err, kerr.TopicAuthorizationFailed), errors.Is(err, kerr.ClusterAuthorizationFailed):
		what := "does not exist"
		if hidden {
			what = "does not exist (or user may not describe it)"
		}
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("kafka: topic %q %s and user %q may not create it: %w (fix: create the topic first and name it with topic=NAME, or grant CREATE and DESCRIBE to this user)", t.topic, what, t.cfg.User, err)}
	default:
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("kafka: creating topic %q (partitions=%d, replication=%d): %w", t.topic, t.cfg.Partitions, rf, err)}
	}
	t.waitLeaders(cctx, t.topics, 10*time.Second)
	t.madeIn = time.Since(start)
	return nil
}

func allLeaders(td kadm.TopicDetail) bool {
	for _, p := range td.Partitions {
		if p.Leader < 0 || p.Err != nil {
			return false
		}
	}
	return true
}

// reachErr turns a failure to talk to the cluster into one line with the fix.
func (t *Target) reachErr(err error) error {
	var fix string
	switch {
	case errors.Is(err, kerr.SaslAuthenticationFailed):
		fix = "check the user and password, and the sasl= mechanism the broker enables"
		return &adapter.Error{Class: vocab.ClassRejected, Err: fmt.Errorf("kafka: authentication failed at %s: %w (fix: %s)", strings.Join(t.cfg.Brokers, ","), err, fix)}
	case errors.Is(err, context.DeadlineExceeded):
		fix = "is the broker up and the address right? with TLS or SASL listeners, set tls=true or sasl=..."
	default:
		fix = "start the broker (scripts/servers/kafka.sh start) or correct the address in the URL"
	}
	return &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("kafka: cannot reach a broker at %s: %w (fix: %s)", strings.Join(t.cfg.Brokers, ","), err, fix)}
}

// producer returns the producer client for a new worker, creating it, and
// its transactions (nil unless transactional).
func (t *Target) producer() (*kgo.Client, *txnProducer, uint32, error) {
	id := t.nextProd.Add(1) - 1
	t.mu.Lock()
	defer t.mu.Unlock()
	i := int(id) % t.cfg.Producers
	for len(t.producers) <= i {
		opts := append(append([]kgo.Opt{}, t.conn...), t.cfg.producerOpts()...)
		opts = append(opts, kgo.DefaultProduceTopic(t.topic))
		if t.cfg.Transactional {
			opts = append(opts, kgo.TransactionalID(fmt.Sprintf("%s-%d", t.txnPrefix(), len(t.producers))))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, nil, 0, adapter.Configf("kafka: producer: %v", err)
		}
		if t.cfg.Transactional {
			p, err := newTxnProducer(cl)
			if err != nil {
				cl.Close()
				return nil, nil, 0, fmt.Errorf("kafka: beginning a transaction: %w", err)
			}
			t.txns = append(t.txns, p)
		}
		t.producers = append(t.producers, cl)
	}
	var tx *txnProducer
	if t.cfg.Transactional {
		tx = t.txns[i]
	}
	return t.producers[i], tx, id, nil
}

// txnPrefix is the prefix of the producers' transactional ids.
func (t *Target) txnPrefix() string {
	if t.cfg.TxnID != "" {
		return t.cfg.TxnID
	}
	return fmt.Sprintf("platbench-%08x", t.run)
}

// consumer returns a new group member for the topic.
func (t *Target) consumer(extra ...kgo.Opt) (*kgo.Client, error) {
	start := kgo.NewOffset().AtStart()
	if t.cfg.Offset == "latest" {
		start = kgo.NewOffset().AtEnd()
	}
	opts := append(append([]kgo.Opt{}, t.conn...),
		kgo.ConsumeTopics(t.topics...), kgo.ConsumerGroup(t.group), kgo.ConsumeResetOffset(start),
		kgo.FetchMaxWait(100*time.Millisecond))
	if t.cfg.Transactional {
		// Committed messages only; the markers too, so that the consumed
		// position (and the lag) moves past them.
		opts = append(opts, kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.KeepControlRecords())
	}
	if t.cfg.GroupProto == "consumer" {
		// KIP-848: the broker's group coordinator assigns ("uniform").
		opts = append(opts, kgo.Balancers(kgo.StickyBalancer()), kgo.ServerSideBalancer())
	}
	cl, err := kgo.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, adapter.Configf("kafka: consumer: %v", err)
	}
	return cl, nil
}

// Describe says what was measured.
func (t *Target) Describe(ctx context.Context) vocab.Info {
	info := vocab.Info{Kind: "kafka", URL: t.cfg.redactedURL(), Details: map[string]string{
		"topic": t.topic, "acks": t.cfg.Acks, "idempotent": strconv.FormatBool(t.cfg.Idempotent),
		"compression": t.cfg.Codec, "producers": strconv.Itoa(t.cfg.Producers), "linger": t.cfg.Linger.String(),
		"msg_size": strconv.Itoa(t.msgSize), "partitions": strconv.Itoa(t.cfg.Partitions), "client": "franz-go v1.22.2",
	}}
	info.Details["produce"] = "sync"
	if t.pipelined() {
		info.Details["produce"] = "async"
	}
	if len(t.topics) > 1 {
		info.Details["topics"] = strconv.Itoa(len(t.topics))
	}
	if t.cfg.Transactional {
		info.Details["transactional_id"] = t.txnPrefix() + "-N"
		info.Details["isolation"] = "read_committed"
		if t.cfg.TxnMessages > 0 {
			info.Details["txn_messages"] = strconv.Itoa(t.cfg.TxnMessages)
		}
		if t.cfg.TxnDuration > 0 {
			info.Details["txn_duration"] = t.cfg.TxnDuration.String()
		}
		if t.cfg.TxnAbortEvery > 0 {
			info.Details["txn_abort_every"] = strconv.Itoa(t.cfg.TxnAbortEvery)
		}
	}
	if t.msgMax > t.msgSize {
		info.Details["msg_size"] = fmt.Sprintf("%d-%d", t.msgSize, t.msgMax)
	}
	if t.admin == nil {
		return info
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if md, err := t.admin.BrokerMetadata(cctx); err == nil {
		for _, b := range md.Brokers {
			info.Nodes = append(info.Nodes, fmt.Sprintf("%s:%d", b.Host, b.Port))
		}
	}
	if vs, err := t.admin.ApiVersions(cctx); err == nil {
		vs.Each(func(v kadm.BrokerApiVersions) {
			if info.Version == "" && v.Err == nil {
				info.Version = v.VersionGuess()
			}
		})
	}
	if tds, err := t.admin.ListTopics(cctx, t.topic); err == nil {
		if td, ok := tds[t.topic]; ok && len(td.Partitions) > 0 {
			info.Details["partitions"] = strconv.Itoa(len(td.Partitions))
			info.Details["replication"] = strconv.Itoa(td.Partitions.NumReplicas())
		}
	}
	return info
}

// DiskBytes is the topic's size in the brokers' log directories (all replicas).
func (t *Target) DiskBytes(ctx context.Context) (int64, error) {
	if t.admin == nil {
		return 0, errors.New("kafka: DiskBytes before Setup")
	}
	ds, err := t.admin.DescribeAllLogDirs(ctx, nil)
	if err != nil {
		return 0, err
	}
	var n int64
	ds.Each(func(d kadm.DescribedLogDir) {
		d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
			if slices.Contains(t.topics, p.Topic) {
				n += p.Size
			}
		})
	})
	return n, nil
}

// Close closes every client and deletes the topic Setup created unless Keep.
func (t *Target) Close() error {
	var err error
	t.closeOnce.Do(func() {
		t.stopBackground()
		t.mu.Lock()
		for _, w := range t.workers {
			w.closeConsumer()
		}
		for _, p := range t.producers {
			p.Close()
		}
		t.producers = nil
		t.mu.Unlock()
		if t.admin == nil {
			return
		}
		if t.existing && t.cfg.Group == "" && t.group != "" {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_, _ = t.admin.DeleteGroups(ctx, t.group)
			cancel()
		}
		if t.created && !t.cfg.Keep {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second+time.Duration(len(t.made))*10*time.Millisecond)
			defer cancel()
			resp, derr := t.admin.DeleteTopics(ctx, t.made...)
			if derr == nil {
				derr = resp.Error()
			}
			if derr != nil {
				err = fmt.Errorf("kafka: deleting topic %q: %w (fix: delete it by hand, or keep=true)", t.topic, derr)
				if len(t.made) > 1 {
					err = fmt.Errorf("kafka: deleting the %d topics %s..%s: %w (fix: delete them by hand, or keep=true)", len(t.made), t.made[0], t.made[len(t.made)-1], derr)
				}
			}
			if t.group != "" {
				_, _ = t.admin.DeleteGroups(ctx, t.group)
			}
		}
		t.adm.Close()
	})
	return err
}
