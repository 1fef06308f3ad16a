package kafka

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name    string
		url     string
		opts    map[string]string
		wantErr []string // substrings of the error; nil = no error
		check   func(*testing.T, *Config)
	}{
		{name: "defaults and port filled in", url: "kafka://h1,h2:9093", check: func(t *testing.T, c *Config) {
			if strings.Join(c.Brokers, ",") != "h1:9092,h2:9093" || c.Acks != "all" || !c.Idempotent ||
				c.Partitions != DefaultPartitions || c.Producers != 1 || c.Timeout != 30*time.Second || c.DialTimeout != 5*time.Second || c.Consumers != 0 {
				t.Fatalf("defaults: %+v", c)
			}
		}},
		{name: "options win over the query", url: "kafka://h?acks=1&partitions=4", opts: map[string]string{"partitions": "64"}, check: func(t *testing.T, c *Config) {
			if c.Acks != "1" || c.Idempotent || c.Partitions != 64 {
				t.Fatalf("got acks=%s idem=%v partitions=%d", c.Acks, c.Idempotent, c.Partitions)
			}
		}},
		{name: "size range, linger, consume", url: "kafka://h?msg_size=100-2000&linger=5ms&consume=true&compression=zstd", check: func(t *testing.T, c *Config) {
			if c.MsgSize != 100 || c.MsgSizeMax != 2000 || c.Linger != 5*time.Millisecond || c.Consumers != 1 || c.Codec != "zstd" {
				t.Fatalf("got %+v", c)
			}
		}},
		// Canonical names shared with the other targets; the old ones are aliases.
		{name: "aliases", url: "kafka://h?dial_timeout=2s&replication=3", check: func(t *testing.T, c *Config) {
			if c.DialTimeout != 2*time.Second || c.Replication != 3 {
				t.Fatalf("got dial %v replication %d", c.DialTimeout, c.Replication)
			}
		}},
		// Sizes through the units grammar, also in a MIN-MAX range.
		{name: "sizes", url: "kafka://h?msg_size=1KiB-64KiB&batch_bytes=4MiB", check: func(t *testing.T, c *Config) {
			if c.MsgSize != 1024 || c.MsgSizeMax != 64<<10 || c.BatchBytes != 4<<20 {
				t.Fatalf("got %d-%d batch %d", c.MsgSize, c.MsgSizeMax, c.BatchBytes)
			}
		}},
		{name: "consumers wins over consume", url: "kafka://h?consume=true&consumers=3", check: func(t *testing.T, c *Config) {
			if c.Consumers != 3 {
				t.Fatalf("consumers %d", c.Consumers)
			}
		}},
		{name: "sasl user from the URL", url: "kafka://bob:pw@h?sasl=SCRAM-SHA-512", check: func(t *testing.T, c *Config) {
			if c.SASL != "scram-sha-512" || c.User != "bob" || c.Password != "pw" || strings.Contains(c.redactedURL(), "pw") {
				t.Fatalf("got %+v, redacted %s", c, c.redactedURL())
			}
		}},
		// Every problem is reported at once.
		{name: "all problems at once", url: "kafka://h?acks=2&msg_size=10&compression=brotli&bogus=1&linger=soon",
			wantErr: []string{`acks="2"`, `msg_size="10"`, `compression="brotli"`, `unknown option "bogus"`, `linger="soon"`}},
		{name: "no broker", url: "kafka://", wantErr: []string{"no broker"}},
		{name: "transactions by size", url: "kafka://h?txn_messages=1k&txn_abort_every=10", check: func(t *testing.T, c *Config) {
			if !c.Transactional || c.TxnMessages != 1000 || c.TxnDuration != 0 || c.TxnAbortEvery != 10 || c.TxnID != "" {
				t.Fatalf("got %+v", c)
			}
		}},
		{name: "transactional_id alone commits every 3s", url: "kafka://h?transactional_id=bench", check: func(t *testing.T, c *Config) {
			if !c.Transactional || c.TxnDuration != 3*time.Second || c.TxnMessages != 0 || c.TxnID != "bench" {
				t.Fatalf("got %+v", c)
			}
		}},
		{name: "no transactions by default", url: "kafka://h", check: func(t *testing.T, c *Config) {
			if c.Transactional {
				t.Fatalf("got %+v", c)
			}
		}},
		{name: "transactions need acks=all", url: "kafka://h?acks=1&txn_duration=100ms", wantErr: []string{"transactions need acks=all"}},
		{name: "transactions need idempotence", url: "kafka://h?idempotent=false&txn_messages=5", wantErr: []string{"transactions need acks=all and the idempotent producer"}},
		{name: "abort needs transactions", url: "kafka://h?txn_abort_every=3", wantErr: []string{"txn_abort_every=3 needs transactions"}},
		{name: "txn_duration range", url: "kafka://h?txn_duration=1h", wantErr: []string{"txn_duration"}},
		{name: "idempotence needs acks=all", url: "kafka://h?acks=1&idempotent=true", wantErr: []string{"idempotent=true needs acks=all"}},
		{name: "sasl without user", url: "kafka://h?sasl=plain", wantErr: []string{"needs a user"}},
		{name: "cert without key", url: "kafka://h?tls_cert=/x.pem", wantErr: []string{"tls_cert and tls_key"}},
		{name: "partitions out of range", url: "kafka://h?partitions=0", wantErr: []string{"partitions"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			u, err := url.Parse(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			c, err := ParseConfig(u, tc.opts)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				tc.check(t, c)
				return
			}
			var ce *adapter.ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("want a ConfigError, got %v", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line: %q", err)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

// A workload's options count for the topic, produce and consume options,
// below the URL and the target options; not for the connection's.
func TestWorkloadOptions(t *testing.T) {
	u, _ := url.Parse("kafka://h?acks=1")
	c, err := parseConfig(u, map[string]string{"producers": "3"}, map[string]string{
		"consumers": "1", "acks": "0", "producers": "2", "tls": "true", "password": "x", "cp": "long"})
	if err != nil || c.Consumers != 1 || c.Acks != "1" || c.Producers != 3 || c.TLS || c.Password != "" {
		t.Fatalf("got %+v, %v", c, err)
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	b := make([]byte, HeaderLen+3)
	in := header{sendNs: 1_700_000_000_123_456_789, run: 0xdeadbeef, producer: 7, seq: 1 << 40}
	putHeader(b, in)
	out, ok := readHeader(b)
	if !ok || out != in {
		t.Fatalf("got %+v ok=%v, want %+v", out, ok, in)
	}
	if _, ok := readHeader(b[:HeaderLen-1]); ok {
		t.Fatal("a short payload must not parse")
	}
}

func TestLedgerCountsLostAndDuplicates(t *testing.T) {
	l := newLedger(42)
	var acked bitmap
	for s := uint64(0); s < 1000; s++ {
		acked.set(s)
	}
	// Consumers see 0..997 once, 10 and 500 twice, never 998 and 999, plus
	// one message of another run and one without a header.
	off := int64(0)
	for s := uint64(0); s < 998; s++ {
		l.note(header{run: 42, producer: 3, seq: s}, true, 100, "a", 0, off)
		off++
	}
	l.note(header{run: 42, producer: 3, seq: 10}, true, 100, "a", 0, off)
	l.note(header{run: 42, producer: 3, seq: 500}, true, 100, "a", 1, 0)
	l.note(header{run: 41, producer: 3, seq: 1}, true, 100, "a", 1, 1)
	l.note(header{}, false, 5, "a", 1, 2)
	// A consumer rewinding re-reads offsets 5..9 of partition 0: redeliveries.
	for o := int64(5); o < 10; o++ {
		if l.note(header{run: 42, producer: 3, seq: uint64(o)}, true, 100, "a", 0, o) != deliveredAgain {
			t.Fatal("a redelivered offset counted as a first delivery")
		}
	}
	// The same partition and offset of another topic (topics=N) is new.
	if l.note(header{run: 42, producer: 3, seq: 998}, true, 100, "b", 0, 5) != deliveredOurs {
		t.Fatal("an offset of another topic counted as a redelivery")
	}
	l.marker("b", 0, 6) // a transaction's marker moves the position, counts nothing
	if n, ok := l.next("b", 0); !ok || n != 7 {
		t.Errorf("next after a marker = %d, %v; want 7", n, ok)
	}
	seen := l.seen[3]
	if lost := seen.missing(&acked); lost != 1 {
		t.Errorf("lost = %d, want 1", lost)
	}
	if l.dups != 2 || l.foreign != 2 || l.redeliv != 5 || l.records != 1008 || l.bytes != 1007*100+5 {
		t.Errorf("dups=%d foreign=%d redelivered=%d records=%d bytes=%d", l.dups, l.foreign, l.redeliv, l.records, l.bytes)
	}
	if extra := seen.extra(&acked); extra != 0 {
		t.Errorf("extra = %d, want 0", extra)
	}
}

func TestClassOf(t *testing.T) {
	cases := []struct {
		err  error
		want vocab.Class
	}{
		{errors.New("boom"), vocab.ClassOther},
		{kgoTimeout(), vocab.ClassTimeout},
		{wrap(kerr.NotLeaderForPartition), vocab.ClassUnavailable},
		{wrap(kerr.TopicAuthorizationFailed), vocab.ClassRejected},
		{wrap(kerr.ThrottlingQuotaExceeded), vocab.ClassOverloaded},
	}
	for _, c := range cases {
		if got := adapter.Classify(classify(c.err)); got != c.want {
			t.Errorf("%v: class %s, want %s", c.err, got, c.want)
		}
	}
}

// The per-message work of platbench's own code (header, sequence bitmaps,
// the consumers' ledger) allocates nothing once the bitmaps have grown.
func TestPerMessagePathDoesNotAllocate(t *testing.T) {
	l := newLedger(1)
	var acked bitmap
	buf := make([]byte, 1000)
	seq := uint64(0)
	for ; seq < 100000; seq++ { // grow the bitmaps
		acked.set(seq)
		l.note(header{run: 1, producer: 2, seq: seq}, true, 1000, "a", 0, int64(seq))
	}
	seq = 0
	allocs := testing.AllocsPerRun(10000, func() {
		putHeader(buf, header{sendNs: 1, run: 1, producer: 2, seq: seq})
		h, ok := readHeader(buf)
		acked.set(seq)
		l.note(h, ok, len(buf), "a", 1, int64(seq))
		seq++
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per message, want 0", allocs)
	}
}
