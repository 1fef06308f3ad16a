package cql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/target"
)

// Schema shapes.
const (
	SchemaYCSB   = "ycsb"   // usertable (y_id varchar PRIMARY KEY, field0..fieldN-1 blob)
	SchemaStress = "stress" // standard1 (key blob PRIMARY KEY, "C0".."CN-1" blob)
)

// Drivers.
const (
	DriverNative = "native" // platbench's own CQL protocol v4 client (native.go)
	DriverGocql  = "gocql"  // github.com/apache/cassandra-gocql-driver/v2
)

// Config is everything the CQL target was asked for, from the URL and from
// --target-opt pairs (the two share one namespace; --target-opt wins).
type Config struct {
	// Hosts are the contact points as host:port. From the URL host part,
	// comma separated, or the hosts option (which may give each host its own
	// port); the port defaults to 9042.
	Hosts []string
	// Keyspace is created by Setup unless Create is false. Default "platbench".
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
	// Username and Password enable PasswordAuthenticator. From the URL user
	// info or the user/password options. Default none.
	Username, Password string
	// TLS turns on TLS (default off); CAFile, CertFile, KeyFile are PEM
	// files; TLSVerifyHost checks the server's certificate and name
	// (default true; false accepts any certificate, e.g. a self-signed one).
	TLS                       bool
	CAFile, CertFile, KeyFile string
	TLSVerifyHost             bool
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

// defaults returns a Config with every default set.
func defaults() Config {
	return Config{
		Keyspace:          "platbench",
		Schema:            SchemaYCSB,
		ReadCL:            gocql.LocalOne,
		WriteCL:           gocql.LocalOne,
		TokenAware:        true,
		TLSVerifyHost:     true,
		Conns:             2,
		Timeout:           5 * time.Second,
		ConnectTimeout:    5 * time.Second,
		ReconnectInterval: 2 * time.Second,
		Strategy:          "simple",
		RF:                1,
		Compression:       "none",
		Create:            true,
		PageSize:          5000,
		Coalesce:          200 * time.Microsecond,
	}
}

// optionKeys lists every option the target understands, for error messages.
var optionKeys = []string{
	"hosts", "keyspace", "table", "schema", "consistency", "read_consistency", "write_consistency",
	"dc", "token_aware", "user", "password", "tls", "tls_ca", "tls_cert", "tls_key", "tls_verify_host",
	"conns", "timeout", "connect_timeout", "reconnect_interval", "replication", "rf", "dcs",
	"compaction", "compression", "create", "keep", "page_size", "coalesce", "driver",
}

// ParseConfig builds a Config from a cql:// URL and options. It reports every
// problem at once, each naming the fix.
func ParseConfig(u *url.URL, opts map[string]string) (Config, error) {
	c := defaults()
	var errs []string
	bad := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }

	all := map[string]string{}
	for k, v := range u.Query() {
		if len(v) > 0 {
			all[k] = v[len(v)-1]
		}
	}
	for k, v := range opts {
		all[k] = v
	}

	hostList := u.Host
	if v, ok := all["hosts"]; ok {
		hostList = v
	}
	if hostList == "" {
		bad("no contact point in %q (fix: cql://host1,host2:9042)", redact(u))
	}
	for _, h := range strings.Split(hostList, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(strings.Trim(h, "[]"), "9042")
		}
		c.Hosts = append(c.Hosts, h)
	}
	// url.Parse puts the port of "h1,h2:9142" on the last host only: give it
	// to every host that had none.
	if n := len(c.Hosts); n > 1 {
		if _, port, err := net.SplitHostPort(c.Hosts[n-1]); err == nil && port != "9042" {
			parts := strings.Split(hostList, ",")
			for i := range c.Hosts[:n-1] {
				if _, _, err := net.SplitHostPort(strings.TrimSpace(parts[i])); err != nil {
					host, _, _ := net.SplitHostPort(c.Hosts[i])
					c.Hosts[i] = net.JoinHostPort(host, port)
				}
			}
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		c.Keyspace = p
	}
	if u.User != nil {
		c.Username = u.User.Username()
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
				bad("option %s=%q is not a boolean (fix: %s=true or %s=false)", k, v, k, k)
				return
			}
			*dst = b
		}
	}
	integer := func(k string, dst *int, min int) {
		if v, ok := all[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < min {
				bad("option %s=%q must be an integer >= %d (fix: e.g. %s=%d)", k, v, min, k, *dst)
				return
			}
			*dst = n
		}
	}
	duration := func(k string, dst *time.Duration) {
		if v, ok := all[k]; ok {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				bad("option %s=%q is not a positive duration (fix: e.g. %s=%s)", k, v, k, *dst)
				return
			}
			*dst = d
		}
	}
	consistency := func(k string, dst *gocql.Consistency) {
		if v, ok := all[k]; ok {
			cl, err := gocql.ParseConsistencyWrapper(strings.ToUpper(v))
			if err != nil {
				bad("option %s=%q is not a consistency level (fix: ONE, TWO, THREE, QUORUM, ALL, LOCAL_QUORUM, EACH_QUORUM, LOCAL_ONE or ANY)", k, v)
				return
			}
			*dst = cl
		}
	}

	str("keyspace", &c.Keyspace)
	str("table", &c.Table)
	str("schema", &c.Schema)
	consistency("consistency", &c.ReadCL)
	consistency("consistency", &c.WriteCL)
	consistency("read_consistency", &c.ReadCL)
	consistency("write_consistency", &c.WriteCL)
	str("dc", &c.LocalDC)
	boolean("token_aware", &c.TokenAware)
	str("user", &c.Username)
	str("password", &c.Password)
	boolean("tls", &c.TLS)
	str("tls_ca", &c.CAFile)
	str("tls_cert", &c.CertFile)
	str("tls_key", &c.KeyFile)
	boolean("tls_verify_host", &c.TLSVerifyHost)
	integer("conns", &c.Conns, 1)
	duration("timeout", &c.Timeout)
	duration("connect_timeout", &c.ConnectTimeout)
	duration("reconnect_interval", &c.ReconnectInterval)
	str("replication", &c.Strategy)
	integer("rf", &c.RF, 1)
	str("compaction", &c.Compaction)
	str("compression", &c.Compression)
	boolean("create", &c.Create)
	boolean("keep", &c.Keep)
	integer("page_size", &c.PageSize, 1)
	if v, ok := all["coalesce"]; ok {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			bad("option coalesce=%q is not a duration >= 0 (fix: e.g. coalesce=200us, or 0 to write each request at once)", v)
		} else {
			c.Coalesce = d
		}
	}
	if v, ok := all["dcs"]; ok {
		c.DCs = map[string]int{}
		for _, part := range strings.Split(v, ",") {
			name, n, ok := strings.Cut(strings.TrimSpace(part), ":")
			rf, err := strconv.Atoi(n)
			if !ok || name == "" || err != nil || rf < 1 {
				bad("option dcs=%q: %q is not dc:rf (fix: dcs=dc1:3,dc2:3)", v, part)
				continue
			}
			c.DCs[name] = rf
		}
	}
	if c.CAFile != "" || c.CertFile != "" || c.KeyFile != "" {
		c.TLS = true
	}
	str("driver", &c.Driver)

	for k := range all {
		if !contains(optionKeys, k) {
			bad("unknown CQL option %q (fix: use one of %s)", k, strings.Join(optionKeys, ", "))
		}
	}
	c.Schema = strings.ToLower(c.Schema)
	if c.Schema != SchemaYCSB && c.Schema != SchemaStress {
		bad("option schema=%q is unknown (fix: schema=ycsb or schema=stress)", c.Schema)
	}
	if c.Table == "" {
		c.Table = "usertable"
		if c.Schema == SchemaStress {
			c.Table = "standard1"
		}
	}
	if !validIdent(c.Keyspace) {
		bad("keyspace %q is not a valid CQL name (fix: letters, digits and _, at most 48 characters)", c.Keyspace)
	}
	if !validIdent(c.Table) {
		bad("table %q is not a valid CQL name (fix: letters, digits and _, at most 48 characters)", c.Table)
	}
	switch strings.ToLower(c.Strategy) {
	case "simple", "simplestrategy":
		c.Strategy = "simple"
	case "network", "networktopologystrategy", "nts":
		c.Strategy = "network"
	default:
		bad("option replication=%q is unknown (fix: replication=simple or replication=network)", c.Strategy)
	}
	if c.DCs != nil && c.Strategy != "network" {
		bad("option dcs needs NetworkTopologyStrategy (fix: add replication=network)")
	}
	if _, err := compactionClass(c.Compaction); err != nil {
		bad("%v", err)
	}
	switch strings.ToLower(c.Compression) {
	case "", "none", "snappy", "lz4":
		c.Compression = strings.ToLower(c.Compression)
	default:
		bad("option compression=%q is unknown (fix: compression=none, snappy or lz4)", c.Compression)
	}
	if c.Password != "" && c.Username == "" {
		bad("a password without a user name (fix: cql://user:password@host:9042 or user=NAME)")
	}
	switch c.Driver = strings.ToLower(c.Driver); c.Driver {
	case "":
		c.Driver = DriverNative
		if c.TLS || (c.Compression != "" && c.Compression != "none") {
			c.Driver = DriverGocql
		}
	case DriverNative:
		if c.TLS {
			bad("driver=native does not do TLS (fix: driver=gocql, or drop tls)")
		}
		if c.Compression != "" && c.Compression != "none" {
			bad("driver=native does not compress (fix: driver=gocql, or compression=none)")
		}
	case DriverGocql:
	default:
		bad("option driver=%q is unknown (fix: driver=native or driver=gocql)", c.Driver)
	}
	if (c.CertFile == "") != (c.KeyFile == "") {
		bad("tls_cert and tls_key go together (fix: give both or neither)")
	}
	if len(errs) > 0 {
		return c, target.Configf("cql: %s", strings.Join(errs, "; "))
	}
	return c, nil
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
	return "", errors.New("option compaction=" + strconv.Quote(s) + " is unknown (fix: compaction=STCS, LCS, UCS, TWCS or a full class name)")
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

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// redact returns the URL without its password.
func redact(u *url.URL) string {
	v := *u
	if v.User != nil {
		v.User = url.User(v.User.Username())
	}
	q := v.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		v.RawQuery = q.Encode()
	}
	return v.String()
}
