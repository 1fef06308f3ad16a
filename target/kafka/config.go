package kafka

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/sasl"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/platbench/platbench/target"
)

// Defaults. Each Config field's doc names its default; these are the values.
const (
	DefaultPartitions   = 16
	DefaultTopicPrefix  = "platbench-"
	DefaultMsgSize      = 1000 // bytes, as the Redpanda report's rdkafka_performance -s 1000
	DefaultTimeout      = 30 * time.Second
	DefaultDialTimeout  = 5 * time.Second
	DefaultDrainTimeout = 10 * time.Second
	HeaderLen           = 24 // payload header: send ns, run id, producer id, sequence
)

// Config is every setting of the Kafka target. It comes from the URL
// (kafka://user:pass@host1:9092,host2:9092?acks=1&partitions=64) and from
// --target-opt key=value pairs, which win over the URL query.
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
	Partitions  int32  // option partitions; default 16
	Replication int16  // option replication; default min(3, brokers)

	// Produce.
	MsgSize    int           // option msg_size; bytes per message, default the workload's record size (its values), else 1000
	MsgSizeMax int           // option msg_size=MIN-MAX draws sizes uniformly; 0 = fixed
	Key        string        // option key: none (default) | request (the workload's key, whose --distribution is uniform, zipfian...)
	Acks       string        // option acks: 0, 1, all; default all
	Idempotent bool          // option idempotent; default true when acks=all (franz-go's default), false otherwise
	Codec      string        // option compression: none (default), gzip, snappy, lz4, zstd
	BatchBytes int32         // option batch_bytes; default franz-go's 1 MB
	Linger     time.Duration // option linger; default 0 (franz-go; batches still form from concurrent produces)
	Inflight   int           // option inflight; produce requests in flight per broker without idempotence; default franz-go's 1
	Producers  int           // option producers; independent producer clients, worker i uses client i%N; default 1
	Timeout    time.Duration // option timeout; produce delivery timeout, default 30s
	SyncInsert bool          // option sync_insert; INSERTs (the load phase) wait for their ack like PRODUCE; default false: asynchronous, up to 256 in flight per worker

	// Consume.
	Consumers    int           // option consumers; background group members during produce runs (streaming); default 0, or 1 with consume=true
	Group        string        // option group; default "platbench-" + topic
	Offset       string        // option offset: earliest (default) | latest
	DrainTimeout time.Duration // option drain_timeout; after the run, how long to wait for consumers to catch up before counting lost messages; default 10s
	PollTimeout  time.Duration // option poll_timeout; a CONSUME op that gets no message in this time fails as not_found (topic drained); default 1s

	// Connection.
	DialTimeout time.Duration // option dial_timeout; default 5s
	SASL        string        // option sasl: plain, scram-sha-256, scram-sha-512; default none
	User        string        // URL user or option user
	Password    string        // URL password or option password
	TLS         bool          // option tls; default false (also set by tls_ca, tls_cert)
	TLSCA       string        // option tls_ca: PEM file of CAs to trust
	TLSCert     string        // option tls_cert and tls_key: client certificate
	TLSKey      string
	TLSInsecure bool // option tls_insecure: skip server certificate verification
}

var knownOpts = []string{"topic", "topic_prefix", "create", "keep", "partitions", "replication",
	"msg_size", "key", "acks", "idempotent", "compression", "batch_bytes", "linger", "inflight",
	"producers", "timeout", "sync_insert", "consume", "consumers", "group", "offset", "drain_timeout", "poll_timeout",
	"dial_timeout", "sasl", "user", "password", "tls", "tls_ca", "tls_cert", "tls_key", "tls_insecure"}

// ParseConfig builds a Config from the URL and options and validates it,
// reporting every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	return parseConfig(u, opts, nil)
}

// parseConfig also takes the workload's options (Spec.Options), which count
// only for the keys this target knows and lose to the URL and to opts.
func parseConfig(u *url.URL, opts, workloadOpts map[string]string) (*Config, error) {
	c := &Config{TopicPrefix: DefaultTopicPrefix, Create: true, Partitions: DefaultPartitions,
		Acks: "all", Codec: "none", Producers: 1, Timeout: DefaultTimeout, Offset: "earliest",
		DrainTimeout: DefaultDrainTimeout, PollTimeout: time.Second, DialTimeout: DefaultDialTimeout, Key: "none"}
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }

	all := map[string]string{}
	for k, v := range workloadOpts {
		if contains(knownOpts, k) && k != "password" {
			all[k] = v
		}
	}
	for k, v := range u.Query() {
		if len(v) > 0 {
			all[k] = v[len(v)-1]
		}
	}
	for k, v := range opts {
		all[k] = v
	}
	var unknown []string
	for k := range all {
		if !contains(knownOpts, k) {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		bad("unknown option %q (known: %s)", k, strings.Join(knownOpts, ", "))
	}

	for _, h := range strings.Split(u.Host, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if !strings.Contains(h, ":") {
			h += ":9092"
		}
		c.Brokers = append(c.Brokers, h)
	}
	if len(c.Brokers) == 0 {
		bad("no broker in the URL (fix: kafka://host:9092 or kafka://host1:9092,host2:9092)")
	}
	if u.User != nil {
		c.User = u.User.Username()
		c.Password, _ = u.User.Password()
	}

	str := func(k string, dst *string) {
		if v, ok := all[k]; ok {
			*dst = v
		}
	}
	boolean := func(k string, dst *bool) {
		if v, ok := all[k]; ok {
			b, err := strconv.ParseBool(v)
			if err != nil {
				bad("%s=%q is not true or false", k, v)
				return
			}
			*dst = b
		}
	}
	integer := func(k string, min, max int64, dst func(int64)) {
		if v, ok := all[k]; ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < min || n > max {
				bad("%s=%q must be an integer in [%d, %d]", k, v, min, max)
				return
			}
			dst(n)
		}
	}
	duration := func(k string, dst *time.Duration) {
		if v, ok := all[k]; ok {
			d, err := time.ParseDuration(v)
			if err != nil || d < 0 {
				bad("%s=%q is not a duration (fix: e.g. %s=5ms)", k, v, k)
				return
			}
			*dst = d
		}
	}
	str("topic", &c.Topic)
	str("topic_prefix", &c.TopicPrefix)
	boolean("create", &c.Create)
	boolean("keep", &c.Keep)
	integer("partitions", 1, 1<<20, func(n int64) { c.Partitions = int32(n) })
	integer("replication", 1, 32767, func(n int64) { c.Replication = int16(n) })
	if v, ok := all["msg_size"]; ok {
		lo, hi, found := strings.Cut(v, "-")
		a, err1 := strconv.Atoi(lo)
		b := a
		var err2 error
		if found {
			b, err2 = strconv.Atoi(hi)
		}
		switch {
		case err1 != nil || err2 != nil:
			bad("msg_size=%q is not a size in bytes or a MIN-MAX range (fix: msg_size=1000 or msg_size=100-10000)", v)
		case a < HeaderLen || b < a || b > 64<<20:
			bad("msg_size=%q out of range: messages carry a %d-byte header, so sizes go from %d to 64 MiB with MIN <= MAX", v, HeaderLen, HeaderLen)
		default:
			c.MsgSize = a
			if b > a {
				c.MsgSizeMax = b
			}
		}
	}
	str("key", &c.Key)
	switch c.Key {
	case "none", "request", "uniform", "zipfian":
	default:
		bad("key=%q is not none or request (fix: key=request uses the workload's key, drawn from its --distribution)", c.Key)
	}
	str("acks", &c.Acks)
	switch c.Acks {
	case "0", "1", "all", "-1":
	default:
		bad("acks=%q is not 0, 1 or all", c.Acks)
	}
	if c.Acks == "-1" {
		c.Acks = "all"
	}
	c.Idempotent = c.Acks == "all"
	boolean("idempotent", &c.Idempotent)
	if c.Idempotent && c.Acks != "all" {
		bad("idempotent=true needs acks=all (fix: drop idempotent or set acks=all)")
	}
	str("compression", &c.Codec)
	if _, ok := codecs[c.Codec]; !ok {
		bad("compression=%q is not none, gzip, snappy, lz4 or zstd", c.Codec)
	}
	integer("batch_bytes", 1024, 1<<30, func(n int64) { c.BatchBytes = int32(n) })
	duration("linger", &c.Linger)
	integer("inflight", 1, 1000, func(n int64) { c.Inflight = int(n) })
	if c.Inflight > 0 && c.Idempotent {
		bad("inflight=%d needs idempotent=false: with idempotence franz-go keeps Kafka's limit itself (fix: drop inflight, or idempotent=false)", c.Inflight)
	}
	integer("producers", 1, 4096, func(n int64) { c.Producers = int(n) })
	duration("timeout", &c.Timeout)
	boolean("sync_insert", &c.SyncInsert)
	consume := false
	boolean("consume", &consume)
	if consume {
		c.Consumers = 1
	}
	integer("consumers", 0, 4096, func(n int64) { c.Consumers = int(n) })
	str("group", &c.Group)
	str("offset", &c.Offset)
	if c.Offset != "earliest" && c.Offset != "latest" {
		bad("offset=%q is not earliest or latest", c.Offset)
	}
	duration("drain_timeout", &c.DrainTimeout)
	duration("dial_timeout", &c.DialTimeout)
	duration("poll_timeout", &c.PollTimeout)
	if c.PollTimeout == 0 {
		bad("poll_timeout=0 would fail every CONSUME (fix: e.g. poll_timeout=1s)")
	}
	str("sasl", &c.SASL)
	c.SASL = strings.ToLower(c.SASL)
	str("user", &c.User)
	str("password", &c.Password)
	switch c.SASL {
	case "", "none":
		c.SASL = ""
	case "plain", "scram-sha-256", "scram-sha-512":
		if c.User == "" {
			bad("sasl=%s needs a user (fix: kafka://USER:PASSWORD@host:9092 or --target-opt user=... --target-opt password=...)", c.SASL)
		}
	default:
		bad("sasl=%q is not plain, scram-sha-256 or scram-sha-512", c.SASL)
	}
	boolean("tls", &c.TLS)
	str("tls_ca", &c.TLSCA)
	str("tls_cert", &c.TLSCert)
	str("tls_key", &c.TLSKey)
	boolean("tls_insecure", &c.TLSInsecure)
	if c.TLSCA != "" || c.TLSCert != "" || c.TLSInsecure {
		c.TLS = true
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		bad("tls_cert and tls_key go together (fix: give both or neither)")
	}
	if c.Topic == "" && c.TopicPrefix == "" {
		bad("topic_prefix is empty (fix: give topic=NAME or a prefix)")
	}
	if len(errs) > 0 {
		return nil, target.Configf("kafka: %s", strings.Join(errs, "; "))
	}
	return c, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
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
			pem, err := os.ReadFile(c.TLSCA)
			if err != nil {
				return nil, target.Configf("kafka: cannot read tls_ca: %v (fix: give a readable PEM file)", err)
			}
			tc.RootCAs = x509.NewCertPool()
			if !tc.RootCAs.AppendCertsFromPEM(pem) {
				return nil, target.Configf("kafka: tls_ca %s holds no PEM certificate (fix: give a PEM file)", c.TLSCA)
			}
		}
		if c.TLSCert != "" {
			cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
			if err != nil {
				return nil, target.Configf("kafka: cannot load tls_cert/tls_key: %v (fix: give a PEM certificate and its key)", err)
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
		o = append(o, kgo.ProducerBatchMaxBytes(c.BatchBytes))
	}
	if c.Inflight > 0 {
		o = append(o, kgo.MaxProduceRequestsInflightPerBroker(c.Inflight))
	}
	if c.Timeout > 0 {
		o = append(o, kgo.RecordDeliveryTimeout(c.Timeout))
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
