package cql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/units"
)

// Schema shapes.
const (
	SchemaYCSB   = "ycsb"   // usertable (y_id varchar PRIMARY KEY, field0..fieldN-1 blob)
	SchemaStress = "stress" // standard1 (key blob PRIMARY KEY, "C0".."CN-1" blob)
)

// Drivers.
const (
	DriverNative = "native" // platbench's own CQL protocol v4 client (pipeline.go)
	DriverGocql  = "gocql"  // github.com/apache/cassandra-gocql-driver/v2
)

// Config is everything the CQL target was asked for, from the URL and from
// the target options (declared in options; `platbench targets cql` prints
// them with their defaults).
type Config struct {
	// Hosts are the contact points as host:port. From the URL host part,
	// comma separated, or the hosts option (which may give each host its own
	// port); the port defaults to 9042.
	Hosts []string
	// Keyspace is created by Setup unless Create is false. Default
	// "platbench", or the URL's path.
	Keyspace string
	// Table defaults to "usertable" (ycsb) or "standard1" (stress).
	Table string
	// Schema is SchemaYCSB or SchemaStress. Default ycsb.
	Schema string
	// ReadCL and WriteCL are the consistency levels of reads (READ, SCAN and
	// the read of RMW) and of writes. Default LOCAL_ONE for both.
	ReadCL, WriteCL gocql.Consistency
	// LocalDC makes routing DC-aware: only hosts of this data centre serve
	// requests. Default none (round robin over every host).
	LocalDC string
	// TokenAware routes each request to a replica of its key. Default true.
	TokenAware bool
	// ShardAware (native client): on nodes that advertise ScyllaDB's
	// sharding, one connection per shard of each node, and each request to
	// the shard owning its token (shards.go). Default true; without the
	// advertisement (Cassandra) it changes nothing.
	ShardAware bool
	// Username and Password enable PasswordAuthenticator. From the URL user
	// info or the user/password options. Default none.
	Username, Password string
	// TLS turns on TLS (default off); CAFile, CertFile, KeyFile are PEM
	// files; TLSInsecure accepts any server certificate, e.g. a self-signed
	// one (default false: the certificate and the name are checked).
	TLS                       bool
	CAFile, CertFile, KeyFile string
	TLSInsecure               bool
	// Conns is the number of connections per host. Default 2 (the driver's).
	Conns int
	// Timeout is the client-side request timeout. Default 5s.
	Timeout time.Duration
	// ConnectTimeout bounds dialling and the initial handshake. Default 5s.
	ConnectTimeout time.Duration
	// ReconnectInterval is how often a host marked down is retried. Default 2s.
	ReconnectInterval time.Duration
	// Strategy is the keyspace replication: "simple" (SimpleStrategy) or
	// "network" (NetworkTopologyStrategy). Default simple.
	Strategy string
	// RF is the replication factor. Default 1.
	RF int
	// DCs is the NetworkTopologyStrategy replication per DC ("dc1:3,dc2:3").
	// Default LocalDC (or "datacenter1") with RF.
	DCs map[string]int
	// Compaction is the table's compaction class: STCS, LCS, UCS, TWCS or a
	// full class name. Default: the server's default.
	Compaction string
	// Compression is the protocol compression: none, snappy or lz4. Default none.
	Compression string
	// Create makes Setup create the keyspace and table (IF NOT EXISTS).
	// Default true; with false the keyspace and table must exist.
	Create bool
	// Keep leaves the table (and a keyspace Setup created) in place after the
	// run. Default false: Close drops what Setup created.
	Keep bool
	// PageSize is the page size of scans. Default 5000.
	PageSize int

	// sessionKeyspace is the keyspace a session is opened in (a profile's
	// queries name their table without it); not an option.
	sessionKeyspace string
	// Coalesce is how long the driver waits to gather requests into one
	// write on a connection (fewer syscalls per request, at most that much
	// added latency). Default 200µs (the driver's); 0 writes each request at once.
	Coalesce time.Duration
	// Driver is the client: "native" (platbench's own protocol v4 client,
	// pipelined, no allocation per request) or "gocql" (the Apache driver,
	// needed for TLS and compression). Default native, or gocql when TLS or
	// compression is asked for.
	Driver string
}

// consistencies are the levels gocql knows, as CQL spells them.
var consistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE", "SERIAL", "LOCAL_SERIAL"}

// parsed holds what the options give before ParseConfig settles it into a
// Config (the hosts option and consistency, which sets both levels).
type parsed struct {
	hosts []string
	both  gocql.Consistency
}

func (c *Config) options(p *parsed) *adapter.OptionSet {
	s := adapter.NewOptionSet("cql")
	s.List(&p.hosts, "hosts", "", "contact points, comma separated, host[:port]; each host may have its own port").Computed("the URL's hosts")
	s.String(&c.Keyspace, "keyspace", "platbench", "keyspace to create or use").Computed("platbench, or the URL's path")
	s.Enum(&c.Schema, "schema", SchemaYCSB, `ycsb: usertable (y_id varchar PRIMARY KEY, field0..fieldN-1 blob); stress: cassandra-stress's standard1 (key blob PRIMARY KEY, "C0".."CN-1" blob); N is the workload's field count`, SchemaYCSB, SchemaStress)
	s.String(&c.Table, "table", "", "table name").Computed("usertable (ycsb) or standard1 (stress)")
	s.Var(setCL(&p.both), func() { p.both = 0 }, "consistency", "", "both levels at once", consistencies...).Computed("see read_ and write_consistency")
	s.Var(setCL(&c.ReadCL), func() {}, "read_consistency", "LOCAL_ONE", "level of READ, SCAN and the read of READ-MODIFY-WRITE", consistencies...)
	s.Var(setCL(&c.WriteCL), func() {}, "write_consistency", "LOCAL_ONE", "level of INSERT, WRITE, UPDATE, DELETE", consistencies...)
	s.String(&c.LocalDC, "dc", "", "local data centre: DC-aware routing (only that DC's nodes coordinate)")
	s.Bool(&c.TokenAware, "token_aware", "true", "send each request to a replica of its key")
	s.Bool(&c.ShardAware, "shard_aware", "true", "native: on ScyllaDB, a connection per shard of each node (through the shard-aware port when the node has one) and each request to the shard owning its token; no effect on nodes that advertise no sharding (Cassandra)")
	s.String(&c.Username, "user", "", "PasswordAuthenticator user name").Computed("the URL's user info")
	s.String(&c.Password, "password", "", "PasswordAuthenticator password (never written to the result)").Computed("the URL's user info").Hidden()
	s.Enum(&c.Driver, "driver", "", "the client: native (platbench's protocol v4 client) or gocql (the Apache driver)", DriverNative, DriverGocql).
		Computed("native, or gocql with TLS or compression")
	s.Bool(&c.TLS, "tls", "false", "TLS (gocql only); any of tls_ca, tls_cert, tls_key turns it on")
	s.String(&c.CAFile, "tls_ca", "", "PEM file of the CAs to trust").Computed("the system's roots")
	s.String(&c.CertFile, "tls_cert", "", "client certificate (PEM); goes with tls_key")
	s.String(&c.KeyFile, "tls_key", "", "client key (PEM); goes with tls_cert")
	s.Bool(&c.TLSInsecure, "tls_insecure", "false", "accept any server certificate and name (a self-signed test server)").NegatedAlias("tls_verify_host")
	s.Count(&c.Conns, "conns", "2", "connections per host. Native: the number of workers (goroutines), each with one connection per node, sharing the requests in flight").Positive()
	s.Duration(&c.Timeout, "timeout", "5s", "client-side request timeout").Positive()
	s.Duration(&c.ConnectTimeout, "connect_timeout", "5s", "dial and handshake timeout").Positive()
	s.Duration(&c.ReconnectInterval, "reconnect_interval", "2s", "how often a host marked down is retried (forever)").Positive()
	s.Enum(&c.Strategy, "replication", "simple", "simple (SimpleStrategy) or network (NetworkTopologyStrategy)", "simple", "network").
		Synonyms("simplestrategy", "simple", "networktopologystrategy", "network", "nts", "network")
	s.Count(&c.RF, "replication_factor", "1", "replication factor of a created keyspace").Positive().Alias("rf")
	s.Func(adapter.KindList, "dcs", "", "NetworkTopologyStrategy replication per DC, e.g. dcs=dc1:3,dc2:3", c.setDCs, func() { c.DCs = nil }).
		Computed("dc (or datacenter1) with replication_factor").Example("dc1:3,dc2:3")
	s.Func(adapter.KindString, "compaction", "", "the table's compaction: STCS, LCS, UCS, TWCS or a full class name", c.setCompaction, func() { c.Compaction = "" }).
		Computed("the server's default").Example("LCS")
	s.Enum(&c.Compression, "compression", "none", "protocol compression (gocql only)", "none", "lz4", "snappy")
	s.Bool(&c.Create, "create", "true", "create keyspace and table if missing; false requires them to exist")
	s.Bool(&c.Keep, "keep", "false", "keep what Setup created; by default Close drops the keyspace if Setup created it, else the table if Setup created it. A keyspace or table that existed before is never dropped")
	s.Count(&c.PageSize, "page_size", "5000", "page size of scans (gocql; the native client asks for one page of the scan's LIMIT rows)").Positive().WithUnit("rows")
	s.Duration(&c.Coalesce, "coalesce", "200us", "gocql: how long the driver gathers requests into one write per connection; 0 writes each at once (the native client writes each refill of the pipeline at once)")
	return s
}

// Options declares the CQL target's options.
func Options() *adapter.OptionSet { return new(Config).options(&parsed{}) }

func setCL(dst *gocql.Consistency) func(string) error {
	return func(v string) error {
		cl, err := gocql.ParseConsistencyWrapper(v)
		*dst = cl
		return err
	}
}

func (c *Config) setDCs(v string) error {
	c.DCs = map[string]int{}
	for _, part := range strings.Split(v, ",") {
		name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
		rf, err := units.ParseCount(n)
		if !ok || name == "" || err != nil || rf < 1 {
			return fmt.Errorf("is not a list of dc:rf (%q is not)", part)
		}
		c.DCs[name] = int(rf)
	}
	return nil
}

func (c *Config) setCompaction(v string) error {
	if _, err := compactionClass(v); err != nil {
		return err
	}
	c.Compaction = v
	return nil
}

// ParseConfig builds a Config from a cql:// URL and options. It reports every
// problem at once, each naming the fix.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	var c Config
	var p parsed
	s := c.options(&p)
	s.ParseURL(u, opts)
	c.Hosts = contactPoints(s, u.Host, p.hosts)
	if path := strings.Trim(u.Path, "/"); path != "" && !s.IsSet("keyspace") {
		c.Keyspace = path
	}
	if u.User != nil && !s.IsSet("user") {
		c.Username = u.User.Username()
	}
	if pw, ok := u.User.Password(); ok && !s.IsSet("password") {
		c.Password = pw
	}
	if s.IsSet("consistency") {
		if !s.IsSet("read_consistency") {
			c.ReadCL = p.both
		}
		if !s.IsSet("write_consistency") {
			c.WriteCL = p.both
		}
	}
	if c.Table == "" {
		c.Table = map[string]string{SchemaYCSB: "usertable", SchemaStress: "standard1"}[c.Schema]
	}
	c.check(s)
	if err := s.Err(); err != nil {
		return nil, err
	}
	return &c, nil
}

// contactPoints are the hosts option's, or else the URL's hosts, each with
// a port.
func contactPoints(s *adapter.OptionSet, urlHosts string, opt []string) []string {
	list := strings.Split(urlHosts, ",")
	if s.IsSet("hosts") {
		list = opt
	}
	var hosts []string
	for _, h := range list {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "9042")
		}
		hosts = append(hosts, h)
	}
	if len(hosts) == 0 {
		s.Problem("no contact point in the URL (fix: cql://host1,host2:9042)")
	}
	// url.Parse puts the port of "h1,h2:9142" on the last host only: give it
	// to every host that had none.
	if n := len(hosts); n > 1 {
		if _, port, err := net.SplitHostPort(hosts[n-1]); err == nil && port != "9042" {
			for i := range hosts[:n-1] {
				if _, _, err := net.SplitHostPort(strings.TrimSpace(list[i])); err != nil {
					host, _, _ := net.SplitHostPort(hosts[i])
					hosts[i] = net.JoinHostPort(host, port)
				}
			}
		}
	}
	return hosts
}

// check records the problems of options that do not go together, and
// settles what depends on several options (TLS, the driver).
func (c *Config) check(s *adapter.OptionSet) {
	for _, n := range []struct{ what, name string }{{"keyspace", c.Keyspace}, {"table", c.Table}} {
		if !validIdent(n.name) {
			s.Problem("%s %q is not a valid CQL name (fix: letters, digits and _, at most 48 characters)", n.what, n.name)
		}
	}
	if c.DCs != nil && c.Strategy != "network" {
		s.Problem("dcs needs NetworkTopologyStrategy (fix: add replication=network)")
	}
	if c.Password != "" && c.Username == "" {
		s.Problem("a password without a user name (fix: cql://USER@host:9042 or user=NAME)")
	}
	if c.CAFile != "" || c.CertFile != "" || c.KeyFile != "" {
		c.TLS = true
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		s.Problem("tls_cert and tls_key go together (fix: give both or neither)")
	}
	for _, f := range [][2]string{{"tls_ca", c.CAFile}, {"tls_cert", c.CertFile}, {"tls_key", c.KeyFile}} {
		if f[1] == "" {
			continue
		}
		if err := bounded.Check(f[1], adapter.MaxTLSFile); err != nil { // the driver reads it, unbounded
			s.Problem("%s: %v (fix: a readable PEM file)", f[0], err)
		}
	}
	compressed := c.Compression != "none"
	switch c.Driver {
	case "":
		c.Driver = DriverNative
		if c.TLS || compressed {
			c.Driver = DriverGocql
		}
	case DriverNative:
		if c.TLS {
			s.Problem("driver=native does not do TLS (fix: driver=gocql, or drop tls)")
		}
		if compressed {
			s.Problem("driver=native does not compress (fix: driver=gocql, or compression=none)")
		}
	}
}

// compactionClass maps the short names to Cassandra's classes.
func compactionClass(s string) (string, error) {
	switch strings.ToUpper(s) {
	case "":
		return "", nil
	case "STCS", "SIZETIEREDCOMPACTIONSTRATEGY":
		return "SizeTieredCompactionStrategy", nil
	case "LCS", "LEVELEDCOMPACTIONSTRATEGY":
		return "LeveledCompactionStrategy", nil
	case "UCS", "UNIFIEDCOMPACTIONSTRATEGY":
		return "UnifiedCompactionStrategy", nil
	case "TWCS", "TIMEWINDOWCOMPACTIONSTRATEGY":
		return "TimeWindowCompactionStrategy", nil
	}
	if strings.Contains(s, ".") && !strings.ContainsAny(s, "'\" ;") {
		return s, nil // a full class name, e.g. a ScyllaDB or DSE one
	}
	return "", errors.New("is not STCS, LCS, UCS, TWCS or a full class name")
}

// replicationCQL is the keyspace's replication map.
func (c *Config) replicationCQL() string {
	if c.Strategy == "simple" {
		return fmt.Sprintf("{'class': 'SimpleStrategy', 'replication_factor': %d}", c.RF)
	}
	dcs := c.DCs
	if len(dcs) == 0 {
		dc := c.LocalDC
		if dc == "" {
			dc = "datacenter1"
		}
		dcs = map[string]int{dc: c.RF}
	}
	names := make([]string, 0, len(dcs))
	for n := range dcs {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("{'class': 'NetworkTopologyStrategy'")
	for _, n := range names {
		fmt.Fprintf(&b, ", '%s': %d", strings.ReplaceAll(n, "'", "''"), dcs[n])
	}
	b.WriteString("}")
	return b.String()
}

func validIdent(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}
