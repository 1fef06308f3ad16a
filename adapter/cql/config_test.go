package cql

import (
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/vocab"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatalf("url.Parse(%q): %v", s, err)
	}
	return u
}

func TestParseConfig(t *testing.T) {
	cases := []struct {
		name  string
		url   string
		opts  map[string]string
		check func(t *testing.T, c Config)
	}{
		{"defaults", "cql://127.0.0.1", nil, func(t *testing.T, c Config) {
			if got := strings.Join(c.Hosts, ","); got != "127.0.0.1:9042" {
				t.Errorf("hosts %q", got)
			}
			if c.Keyspace != "platbench" || c.Table != "usertable" || c.Schema != SchemaYCSB {
				t.Errorf("keyspace/table/schema %s/%s/%s", c.Keyspace, c.Table, c.Schema)
			}
			if c.ReadCL != gocql.LocalOne || c.WriteCL != gocql.LocalOne || !c.TokenAware || c.Keep || !c.Create {
				t.Errorf("defaults wrong: %+v", c)
			}
			if c.Driver != DriverNative {
				t.Errorf("driver %q, want native", c.Driver)
			}
		}},
		// TLS and compression need gocql: asking for them selects it.
		{"tls picks gocql", "cql://h1?tls=true", nil, func(t *testing.T, c Config) {
			if c.Driver != DriverGocql {
				t.Errorf("driver %q with tls, want gocql", c.Driver)
			}
		}},
		{"compression picks gocql", "cql://h1", map[string]string{"compression": "lz4"}, func(t *testing.T, c Config) {
			if c.Driver != DriverGocql {
				t.Errorf("driver %q with lz4, want gocql", c.Driver)
			}
		}},
		// url.Parse gives the port only to the last host; every host without
		// a port of its own gets it.
		{"multi-host shared port", "cql://h1,h2,h3:9142/ks1", nil, func(t *testing.T, c Config) {
			if got := strings.Join(c.Hosts, ","); got != "h1:9142,h2:9142,h3:9142" {
				t.Errorf("hosts %q", got)
			}
			if c.Keyspace != "ks1" {
				t.Errorf("keyspace %q", c.Keyspace)
			}
		}},
		// Per-host ports other than the last one do not survive url.Parse:
		// the hosts option carries them.
		{"multi-host own ports", "cql://ignored", map[string]string{"hosts": "h1:9043,h2"}, func(t *testing.T, c Config) {
			if got := strings.Join(c.Hosts, ","); got != "h1:9043,h2:9042" {
				t.Errorf("hosts %q", got)
			}
		}},
		{"query and opts, opts win", "cql://u:p@h1?consistency=quorum&write_consistency=all&conns=4&timeout=250ms&dc=dc2",
			map[string]string{"conns": "8", "schema": "stress", "compaction": "lcs", "keep": "true"}, func(t *testing.T, c Config) {
				if c.ReadCL != gocql.Quorum || c.WriteCL != gocql.All {
					t.Errorf("CL read %v write %v", c.ReadCL, c.WriteCL)
				}
				if c.Conns != 8 || c.Timeout != 250*time.Millisecond || c.LocalDC != "dc2" {
					t.Errorf("conns %d timeout %v dc %q", c.Conns, c.Timeout, c.LocalDC)
				}
				if c.Username != "u" || c.Password != "p" || c.Table != "standard1" || !c.Keep {
					t.Errorf("user %q pass %q table %q keep %v", c.Username, c.Password, c.Table, c.Keep)
				}
			}},
		{"network topology", "cql://h1?replication=network&dcs=dc1:3,dc2:2", nil, func(t *testing.T, c Config) {
			want := "{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}"
			if got := c.replicationCQL(); got != want {
				t.Errorf("replication %s, want %s", got, want)
			}
		}},
		// Older names are aliases: rf, tls_verify_host (negated), NTS.
		{"aliases", "cql://h1?rf=3&replication=NTS&tls_verify_host=false", nil, func(t *testing.T, c Config) {
			if c.RF != 3 || c.Strategy != "network" || !c.TLSInsecure {
				t.Errorf("rf %d strategy %s insecure %v", c.RF, c.Strategy, c.TLSInsecure)
			}
		}},
		// The options win over the URL's path and user info; consistency
		// sets both levels unless one is given on its own.
		{"options over URL parts", "cql://u:p@h1/ks1?consistency=quorum&read_consistency=one",
			map[string]string{"keyspace": "ks2", "password": "p2"}, func(t *testing.T, c Config) {
				if c.Keyspace != "ks2" || c.Username != "u" || c.Password != "p2" || c.ReadCL != gocql.One || c.WriteCL != gocql.Quorum {
					t.Errorf("keyspace %s user %s password %s CL %v/%v", c.Keyspace, c.Username, c.Password, c.ReadCL, c.WriteCL)
				}
			}},
		// Units: counts take suffixes, durations a bare number of seconds.
		{"units", "cql://h1?page_size=10k&timeout=2&coalesce=0", nil, func(t *testing.T, c Config) {
			if c.PageSize != 10000 || c.Timeout != 2*time.Second || c.Coalesce != 0 {
				t.Errorf("page_size %d timeout %v coalesce %v", c.PageSize, c.Timeout, c.Coalesce)
			}
		}},
		{"simple rf", "cql://h1?rf=3", nil, func(t *testing.T, c Config) {
			want := "{'class': 'SimpleStrategy', 'replication_factor': 3}"
			if got := c.replicationCQL(); got != want {
				t.Errorf("replication %s, want %s", got, want)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := ParseConfig(mustURL(t, tc.url), tc.opts)
			if err != nil {
				t.Fatalf("ParseConfig: %v", err)
			}
			tc.check(t, *c)
		})
	}
}

// Bad input: every problem is reported at once, as a ConfigError naming the fix.
func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		url  string
		opts map[string]string
		want []string
	}{
		{"cql://h1?consistency=most", nil, []string{"consistency=\"most\"", "fix: consistency=ANY, ONE"}},
		{"cql://h1", map[string]string{"schema": "tpcc", "conns": "0"}, []string{"schema=\"tpcc\"", "conns=\"0\""}},
		{"cql://h1", map[string]string{"bogus": "1"}, []string{"unknown option \"bogus\""}},
		{"cql://h1?dcs=dc1", nil, []string{"dcs=\"dc1\" is not a list of dc:rf", "fix: e.g. dcs=dc1:3,dc2:3"}},
		{"cql://h1?dcs=dc1:3", nil, []string{"dcs needs NetworkTopologyStrategy", "replication=network"}},
		{"cql://h1/bad-name", nil, []string{"keyspace \"bad-name\""}},
		{"cql://h1?compaction=fast&timeout=-1s", nil, []string{"compaction=\"fast\"", "timeout=\"-1s\""}},
		{"cql://", nil, []string{"no contact point"}},
		{"cql://h1?driver=datastax", nil, []string{"driver=\"datastax\"", "fix: driver=native or driver=gocql"}},
		{"cql://h1?driver=native&tls=true", nil, []string{"driver=native does not do TLS", "fix: driver=gocql"}},
		{"cql://h1?driver=native&compression=snappy", nil, []string{"driver=native does not compress"}},
	}
	for _, tc := range cases {
		_, err := ParseConfig(mustURL(t, tc.url), tc.opts)
		var ce *adapter.ConfigError
		if !errors.As(err, &ce) {
			t.Errorf("%s %v: got %v, want a ConfigError", tc.url, tc.opts, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s %v: error %q does not mention %q", tc.url, tc.opts, err, w)
			}
		}
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("error is not one line: %q", err)
		}
	}
}

func TestRedact(t *testing.T) {
	got := redact.String(mustURL(t, "cql://bob:secret@h1:9042/ks?password=x2"))
	if strings.Contains(got, "secret") || strings.Contains(got, "x2") {
		t.Errorf("redact left a password in %q", got)
	}
}

// defaults is the Config of a URL with only a host.
func defaults(t *testing.T) Config {
	c, err := ParseConfig(mustURL(t, "cql://h"), nil)
	if err != nil {
		t.Fatal(err)
	}
	return *c
}

func TestCreateTableCQL(t *testing.T) {
	c := defaults(t)
	c.Table = "usertable"
	c.Compaction = "UCS"
	got := createTableCQL(&c, 2)
	want := "CREATE TABLE IF NOT EXISTS platbench.usertable (y_id varchar PRIMARY KEY, field0 blob, field1 blob) WITH compaction = {'class': 'UnifiedCompactionStrategy'}"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	c.Schema, c.Table, c.Compaction = SchemaStress, "standard1", ""
	got = createTableCQL(&c, 5)
	want = `CREATE TABLE IF NOT EXISTS platbench.standard1 (key blob PRIMARY KEY, "C0" blob, "C1" blob, "C2" blob, "C3" blob, "C4" blob)`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestClassOf(t *testing.T) {
	cases := []struct {
		err  error
		want vocab.Class
	}{
		{gocql.ErrTimeoutNoResponse, vocab.ClassTimeout},
		{gocql.ErrNoConnections, vocab.ClassUnavailable},
		{errors.New("boom"), vocab.ClassOther},
		{nil, vocab.ClassNone},
	}
	for _, tc := range cases {
		if got := classOf(tc.err); got != tc.want {
			t.Errorf("classOf(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
