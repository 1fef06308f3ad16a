package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/units"
)

// Defaults that code outside the option declarations needs; the others are
// in the declarations (options).
const (
	DefaultPartitions  = 16
	DefaultTopicPrefix = "platbench-"
	DefaultMsgSize     = 1000 // bytes, as the Redpanda report's rdkafka_performance -s 1000
	HeaderLen          = 24   // payload header: send ns, run id, producer id, sequence
)

// Config is every setting of the Kafka target. It comes from the URL
// (kafka://user:pass@host1:9092,host2:9092?acks=1&partitions=64), from the
// target options, which win over the URL query, and from a workload's
// options, which lose to both (the stream preset's consumers=1). The options
// are declared in options; `platbench targets kafka` prints them.
type Config struct {
	Brokers []string // from the URL host list; port 9092 when omitted

	// Topic is the topic to use. Default: a new topic named TopicPrefix plus a
	// random suffix, created by Setup and deleted by Close. A named topic that
	// exists is used as it is and never deleted; one that does not exist is
	// created (and deleted by Close unless Keep).
	Topic       string // option topic
	TopicPrefix string // option topic_prefix; default "platbench-"
	Create      bool   // option create; default true: create the topic when missing
	Keep        bool   // option keep; default false: delete the topics Setup created
	Partitions  int    // option partitions; default 16
	Topics      int    // option topics; default 1: with N > 1, the topics TOPIC-0 .. TOPIC-(N-1), TOPIC being the topic option or the random name
	Replication int    // option replication_factor (or replication); default 0: min(3, brokers)

	// Produce.
	MsgSize    int           // option msg_size; bytes per message, default the workload's record size (its values), else 1000
	MsgSizeMax int           // option msg_size=MIN-MAX draws sizes uniformly; 0 = fixed
	Key        string        // option key: none (default) | request (the workload's key, whose distribution is uniform, zipfian...)
	Acks       string        // option acks: 0, 1, all; default all
	Idempotent bool          // option idempotent; default true when acks=all (franz-go's default), false otherwise
	Codec      string        // option compression: none (default), gzip, snappy, lz4, zstd
	BatchBytes int64         // option batch_bytes; default 0: franz-go's 1 MiB
	Linger     time.Duration // option linger; default 0 (franz-go's own is 10ms, the Java client's 5ms since Kafka 4.0; batches still form from concurrent produces)
	Inflight   int           // option inflight; produce requests in flight per broker without idempotence; default 0: franz-go's 1
	Producers  int           // option producers; independent producer clients, worker i uses client i%N; default 1
	Timeout    time.Duration // option timeout; produce delivery timeout, default 30s
	Async      bool          // option async; default true: a worker per producer client keeps many records in flight (see pipeline.go)
	SyncInsert bool          // option sync_insert; INSERTs (the load phase) wait for their ack like PRODUCE; default false: asynchronous, up to 256 in flight per worker

	// Transactions (ProducerPerformance's --transactional-id and
	// --transaction-duration-ms). On when any of TxnID, TxnMessages,
	// TxnDuration is given; then consumers read committed messages only.
	TxnID         string        // option transactional_id: prefix; producer client i has id PREFIX-i; default platbench-<run id>
	TxnMessages   int           // option txn_messages: a transaction ends after this many messages (of its client)
	TxnDuration   time.Duration // option txn_duration: a transaction ends at the first produce this long after it began; default 3s when txn_messages is not given
	TxnAbortEvery int           // option txn_abort_every: abort every Nth transaction of a client instead of committing it (testing); default 0: never
	Transactional bool          // computed: transactions are on

	// Consume.
	Consumers    int           // option consumers; background group members during produce runs (streaming); default 0, or 1 with consume=true
	Group        string        // option group; default "platbench-" + topic
	GroupProto   string        // option group_protocol: classic (default) | consumer (KIP-848, the broker assigns)
	JoinAfter    time.Duration // option join_after: a background consumer joins this long into the run; 0: none
	LeaveAfter   time.Duration // option leave_after: a background consumer leaves this long into the run; 0: none
	Offset       string        // option offset: earliest (default) | latest
	DrainTimeout time.Duration // option drain_timeout; after the run, how long to wait for consumers to catch up before counting lost messages; default 10s
	PollTimeout  time.Duration // option poll_timeout; a CONSUME op that gets no message in this time fails as not_found (topic drained); default 1s

	// Connection.
	DialTimeout time.Duration // option connect_timeout (or dial_timeout); default 5s
	SASL        string        // option sasl: none (default), plain, scram-sha-256, scram-sha-512
	User        string        // URL user or option user
	Password    string        // URL password or option password
	TLS         bool          // option tls; default false (also set by tls_ca, tls_cert, tls_insecure)
	TLSCA       string        // option tls_ca: PEM file of CAs to trust
	TLSCert     string        // option tls_cert and tls_key: client certificate
	TLSKey      string
	TLSInsecure bool // option tls_insecure: skip server certificate verification
}

// options declares the options. Those of the topic, produce and consume
// may come from a workload; the connection's and the credentials may not
// (they are fixed when the target opens, before it sees the workload).
func (c *Config) options(consume *bool) *adapter.OptionSet {
	s := adapter.NewOptionSet("kafka")
	s.String(&c.Topic, "topic", "", "topic to use. A named topic that exists is used as it is and never deleted; one that does not exist is created (create=true)").
		Computed("random platbench-xxxxxxxx").FromWorkload()
	s.String(&c.TopicPrefix, "topic_prefix", DefaultTopicPrefix, "prefix of the random topic name").FromWorkload()
	s.Bool(&c.Create, "create", "true", "create the topic when missing; false makes a missing topic an error").FromWorkload()
	s.Bool(&c.Keep, "keep", "false", "keep the topic that Setup created (by default Close deletes it and its consumer group)").FromWorkload()
	s.Count(&c.Topics, "topics", "1", "topics in use: with N > 1, NAME-0 to NAME-(N-1), NAME being topic= or the random name; each worker sends its messages to them in turn, and consumers read them all").Range(1, 100000).FromWorkload()
	s.Count(&c.Partitions, "partitions", strconv.Itoa(DefaultPartitions), "partitions of a created topic").Range(1, 1<<20).FromWorkload()
	s.Count(&c.Replication, "replication_factor", "", "replication factor of a created topic").Range(1, 32767).
		Computed("min(3, brokers)").Alias("replication").FromWorkload()
	s.Func(adapter.KindSize, "msg_size", "", "bytes per message, or MIN-MAX for sizes drawn uniformly per message; at least 24 (the header)", c.setMsgSize, func() { c.MsgSize, c.MsgSizeMax = 0, 0 }).
		WithUnit("bytes").Computed("the workload's value size (1000 B in the presets)").Example("1000 or msg_size=100-10KiB").FromWorkload()
	s.Enum(&c.Key, "key", "none", "none: no key (sticky partitioning, as librdkafka and the Java client do); request: the workload's key, drawn from its distribution; uniform or zipfian check that the workload's distribution is that one",
		"none", "request", "uniform", "zipfian").FromWorkload()
	s.Enum(&c.Acks, "acks", "all", "acknowledgements a produce waits for", "0", "1", "all").Synonyms("-1", "all").FromWorkload()
	s.Bool(&c.Idempotent, "idempotent", "", "idempotent producer (needs acks=all)").Computed("true with acks=all").FromWorkload()
	s.Enum(&c.Codec, "compression", "none", "record batch compression", "none", "gzip", "snappy", "lz4", "zstd").FromWorkload()
	s.Size(&c.BatchBytes, "batch_bytes", "", "largest record batch").Range(1<<10, 1<<30).Computed("1MiB (franz-go)").FromWorkload()
	s.Duration(&c.Linger, "linger", "0", "how long a partition's batch waits for more records; 0 still batches: records produced while a request is in flight wait for the next one").FromWorkload()
	s.Count(&c.Inflight, "inflight", "", "produce requests in flight per broker; only with idempotent=false").Range(1, 1000).Computed("1 (franz-go)").FromWorkload()
	s.Count(&c.Producers, "producers", "1", "independent producer clients (connections, buffers); worker i uses client i mod N").Range(1, 4096).FromWorkload()
	s.Duration(&c.Timeout, "timeout", "30s", "delivery timeout of a produce: past it the produce fails as timeout").FromWorkload()
	s.Bool(&c.Async, "async", "true", "one worker per producer client keeps --concurrency records in flight, as an application producing with callbacks does; false: one goroutine per record in flight, each waiting for its acknowledgement. Workloads that consume, and transactions, always use the latter").FromWorkload()
	s.Bool(&c.SyncInsert, "sync_insert", "false", "INSERTs wait for their acknowledgement like PRODUCE").FromWorkload()
	s.String(&c.TxnID, "transactional_id", "", "transactional producers: producer client i has the transactional id PREFIX-i. Turns transactions on; consumers then read committed messages only").
		Computed("platbench-<run id> when txn_messages or txn_duration is given").FromWorkload()
	s.Count(&c.TxnMessages, "txn_messages", "", "a transaction ends (commits) once its producer client has sent this many messages; turns transactions on").Range(1, 1<<30).FromWorkload()
	s.Duration(&c.TxnDuration, "txn_duration", "", "a transaction ends at its client's first produce this long after it began (ProducerPerformance's --transaction-duration-ms); turns transactions on").
		Range(int64(time.Millisecond), int64(5*time.Minute)).Computed("3s when transactions are on without txn_messages").FromWorkload()
	s.Count(&c.TxnAbortEvery, "txn_abort_every", "0", "abort every Nth transaction of a producer client instead of committing it (to test read_committed consumers); its messages are counted as aborted, not lost").Range(0, 1<<30).FromWorkload()
	s.Count(&c.Consumers, "consumers", "0", "background consumer group members during the run phase (streaming)").Range(0, 4096).FromWorkload()
	s.Bool(consume, "consume", "false", "shorthand for consumers=1").FromWorkload()
	s.String(&c.Group, "group", "", "consumer group").Computed("platbench-<topic>").FromWorkload()
	s.Enum(&c.GroupProto, "group_protocol", "classic", "consumer group protocol: classic (the client-side cooperative-sticky assignor) or consumer (KIP-848, Kafka 4.0+: the broker's uniform assignor)", "classic", "consumer").FromWorkload()
	s.Duration(&c.JoinAfter, "join_after", "0", "one more background consumer joins the group this long into the run phase; kafka.rebalance_join_ms is the time until it is assigned partitions").FromWorkload()
	s.Duration(&c.LeaveAfter, "leave_after", "0", "one background consumer leaves the group this long into the run phase (or, if the group is still rebalancing then, once a member owns partitions); kafka.rebalance_leave_ms is the time until the others own its partitions").FromWorkload()
	s.Enum(&c.Offset, "offset", "earliest", "where a group without committed offsets starts (keep earliest when counting loss)", "earliest", "latest").FromWorkload()
	s.Duration(&c.PollTimeout, "poll_timeout", "1s", "a CONSUME that gets no message in this time fails as not_found").Positive().FromWorkload()
	s.Duration(&c.DrainTimeout, "drain_timeout", "10s", "after the run, how long background consumers may take to catch up before lost messages are counted").FromWorkload()
	s.Duration(&c.DialTimeout, "connect_timeout", "5s", "connection timeout").Alias("dial_timeout")
	s.Enum(&c.SASL, "sasl", "none", "SASL mechanism; user and password from the URL (kafka://user:pass@host) or user= and password=", "none", "plain", "scram-sha-256", "scram-sha-512")
	s.String(&c.User, "user", "", "SASL user").Computed("the URL's user info")
	s.String(&c.Password, "password", "", "SASL password (never written to the result)").Computed("the URL's user info").Hidden()
	s.Bool(&c.TLS, "tls", "false", "TLS; also turned on by tls_ca, tls_cert, tls_insecure")
	s.String(&c.TLSCA, "tls_ca", "", "PEM file of CAs to trust").Computed("the system's roots")
	s.String(&c.TLSCert, "tls_cert", "", "client certificate (PEM); goes with tls_key")
	s.String(&c.TLSKey, "tls_key", "", "client key (PEM); goes with tls_cert")
	s.Bool(&c.TLSInsecure, "tls_insecure", "false", "skip server certificate verification")
	return s
}

// Options declares the Kafka target's options.
func Options() *adapter.OptionSet { return new(Config).options(new(bool)) }

// setMsgSize parses msg_size: a size, or MIN-MAX.
func (c *Config) setMsgSize(v string) error {
	lo, hi, ranged := strings.Cut(v, "-")
	a, err1 := units.ParseSize(lo)
	b, err2 := a, error(nil)
	if ranged {
		b, err2 = units.ParseSize(hi)
	}
	switch {
	case err1 != nil || err2 != nil:
		return errors.New("is not a size in bytes or a MIN-MAX range")
	case a < HeaderLen || b < a || b > 64<<20:
		return fmt.Errorf("is out of range: messages carry a %d-byte header, so sizes go from %d B to 64 MiB with MIN <= MAX", HeaderLen, HeaderLen)
	}
	c.MsgSize, c.MsgSizeMax = int(a), 0
	if b > a {
		c.MsgSizeMax = int(b)
	}
	return nil
}

// ParseConfig builds a Config from the URL and options and validates it,
// reporting every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	return parseConfig(u, opts, nil)
}

// parseConfig also takes the workload's options (Spec.Options), which count
// only for the options declared FromWorkload and lose to the URL and to opts.
func parseConfig(u *url.URL, opts, workloadOpts map[string]string) (*Config, error) {
	c := &Config{}
	var consume bool
	s := c.options(&consume)
	s.Parse(adapter.Sources{Workload: workloadOpts, Query: u.Query(), Opts: opts})
	for _, h := range strings.Split(u.Host, ",") {
		if h = strings.TrimSpace(h); h != "" {
			if !strings.Contains(h, ":") {
				h += ":9092"
			}
			c.Brokers = append(c.Brokers, h)
		}
	}
	if len(c.Brokers) == 0 {
		s.Problem("no broker in the URL (fix: kafka://host:9092 or kafka://host1:9092,host2:9092)")
	}
	if u.User != nil && !s.IsSet("user") {
		c.User = u.User.Username()
	}
	if pw, ok := u.User.Password(); ok && !s.IsSet("password") {
		c.Password = pw
	}
	if consume && !s.IsSet("consumers") {
		c.Consumers = 1
	}
	c.check(s)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return c, nil
}

// check records the problems of options that do not go together, and
// settles what depends on several options.
func (c *Config) check(s *adapter.OptionSet) {
	if !s.IsSet("idempotent") {
		c.Idempotent = c.Acks == "all"
	}
	if c.Idempotent && c.Acks != "all" {
		s.Problem("idempotent=true needs acks=all (fix: drop idempotent or set acks=all)")
	}
	if c.Inflight > 0 && c.Idempotent {
		s.Problem("inflight=%d needs idempotent=false: with idempotence franz-go keeps Kafka's limit itself (fix: drop inflight, or idempotent=false)", c.Inflight)
	}
	if c.SASL != "none" && c.User == "" {
		s.Problem("sasl=%s needs a user (fix: kafka://USER@host:9092, or the option user; the password in $PLATBENCH_TARGET_PASSWORD or a password file)", c.SASL)
	}
	if c.TLSCA != "" || c.TLSCert != "" || c.TLSInsecure {
		c.TLS = true
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		s.Problem("tls_cert and tls_key go together (fix: give both or neither)")
	}
	c.checkTxn(s)
	if c.JoinAfter > 0 && c.Consumers == 0 {
		s.Problem("join_after needs background consumers (fix: add consumers=N)")
	}
	if c.LeaveAfter > 0 && c.Consumers < 2 && (c.JoinAfter == 0 || c.JoinAfter >= c.LeaveAfter) {
		s.Problem("leave_after needs another consumer to take over the partitions (fix: consumers=2 or more, or a join_after before it)")
	}
	if c.Topic == "" && c.TopicPrefix == "" {
		s.Problem("topic_prefix is empty (fix: give topic=NAME or a prefix)")
	}
}

// checkTxn settles the transaction options.
func (c *Config) checkTxn(s *adapter.OptionSet) {
	c.Transactional = c.TxnID != "" || c.TxnMessages > 0 || c.TxnDuration > 0
	if !c.Transactional {
		if c.TxnAbortEvery > 0 {
			s.Problem("txn_abort_every=%d needs transactions (fix: add txn_messages=N, txn_duration=D or transactional_id=PREFIX)", c.TxnAbortEvery)
		}
		return
	}
	if c.TxnMessages == 0 && c.TxnDuration == 0 {
		c.TxnDuration = 3 * time.Second
	}
	if c.Acks != "all" || !c.Idempotent {
		s.Problem("transactions need acks=all and the idempotent producer (fix: drop acks and idempotent, or drop the transaction options)")
	}
}

var codecs = map[string]kgo.CompressionCodec{
	"none": kgo.NoCompression(), "gzip": kgo.GzipCompression(), "snappy": kgo.SnappyCompression(),
	"lz4": kgo.Lz4Compression(), "zstd": kgo.ZstdCompression(),
}

// connOpts are the client options shared by producers, consumers and the admin client.
func (c *Config) connOpts() ([]kgo.Opt, error) {
	opts := []kgo.Opt{kgo.SeedBrokers(c.Brokers...), kgo.DialTimeout(c.DialTimeout), kgo.ClientID("platbench")}
	if c.TLS {
		tc := &tls.Config{InsecureSkipVerify: c.TLSInsecure} //nolint:gosec // the user asked for it
		if c.TLSCA != "" {
			pem, err := bounded.ReadFile(c.TLSCA, adapter.MaxTLSFile)
			if err != nil {
				return nil, adapter.Configf("kafka: tls_ca: %v (fix: give a readable PEM file)", err)
			}
			tc.RootCAs = x509.NewCertPool()
			if !tc.RootCAs.AppendCertsFromPEM(pem) {
				return nil, adapter.Configf("kafka: tls_ca %s holds no PEM certificate (fix: give a PEM file)", c.TLSCA)
			}
		}
		if c.TLSCert != "" {
			for _, f := range []string{c.TLSCert, c.TLSKey} {
				if err := bounded.Check(f, adapter.MaxTLSFile); err != nil {
					return nil, adapter.Configf("kafka: tls_cert/tls_key: %v (fix: give a PEM certificate and its key)", err)
				}
			}
			cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
			if err != nil {
				return nil, adapter.Configf("kafka: cannot load tls_cert/tls_key: %v (fix: give a PEM certificate and its key)", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		opts = append(opts, kgo.DialTLSConfig(tc))
	}
	var m sasl.Mechanism
	switch c.SASL {
	case "plain":
		m = plain.Auth{User: c.User, Pass: c.Password}.AsMechanism()
	case "scram-sha-256":
		m = scram.Auth{User: c.User, Pass: c.Password}.AsSha256Mechanism()
	case "scram-sha-512":
		m = scram.Auth{User: c.User, Pass: c.Password}.AsSha512Mechanism()
	}
	if m != nil {
		opts = append(opts, kgo.SASL(m))
	}
	return opts, nil
}

// txnMetadataMinAge is the shortest time between two metadata refreshes of
// a transactional producer (see producerOpts).
const txnMetadataMinAge = 100 * time.Millisecond

// producerOpts are the options of one producer client.
func (c *Config) producerOpts() []kgo.Opt {
	var o []kgo.Opt
	switch c.Acks {
	case "0":
		o = append(o, kgo.RequiredAcks(kgo.NoAck()))
	case "1":
		o = append(o, kgo.RequiredAcks(kgo.LeaderAck()))
	default:
		o = append(o, kgo.RequiredAcks(kgo.AllISRAcks()))
	}
	if !c.Idempotent {
		o = append(o, kgo.DisableIdempotentWrite())
	}
	o = append(o, kgo.ProducerBatchCompression(codecs[c.Codec]), kgo.ProducerLinger(c.Linger))
	if c.BatchBytes > 0 {
		o = append(o, kgo.ProducerBatchMaxBytes(int32(c.BatchBytes)))
	}
	if c.Inflight > 0 {
		o = append(o, kgo.MaxProduceRequestsInflightPerBroker(c.Inflight))
	}
	if c.Timeout > 0 {
		o = append(o, kgo.RecordDeliveryTimeout(c.Timeout))
	}
	if c.Transactional {
		// The broker aborts a transaction open longer than this; franz-go's
		// default is 40s. The broker's transaction.max.timeout.ms (15 min by
		// default) bounds it.
		o = append(o, kgo.TransactionTimeout(max(time.Minute, 2*c.TxnDuration+c.Timeout)))
		// With transactions V2 (KIP-890, Kafka 4.x) a produce that reaches
		// the broker while it still writes the previous transaction's
		// markers fails with CONCURRENT_TRANSACTIONS; franz-go retries that
		// partition only after a metadata refresh, and refreshes at most
		// every MetadataMinAge (5 s by default). The commit then waits for
		// that partition, and every worker of the client waits for the
		// commit: the run stalled for up to 5 s. 100 ms is the Java client's
		// retry.backoff.ms, which paces its metadata refreshes.
		o = append(o, kgo.MetadataMinAge(txnMetadataMinAge))
	}
	if c.Key == "none" {
		// Records without a key go to one partition per batch, switching when
		// a batch is full (Kafka's sticky partitioner, as rdkafka and the Java
		// client do by default).
		o = append(o, kgo.RecordPartitioner(kgo.UniformBytesPartitioner(64<<10, true, true, nil)))
	}
	return o
}

// redactedURL is the target URL without a password.
func (c *Config) redactedURL() string {
	u := url.URL{Scheme: "kafka", Host: strings.Join(c.Brokers, ",")}
	if c.User != "" {
		u.User = url.User(c.User)
	}
	return u.String()
}
