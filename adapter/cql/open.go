// Package cql drives Apache Cassandra, ScyllaDB and DataStax Enterprise over
// CQL, with platbench's own protocol v4 client (driver=native, the default:
// pipeline.go, one goroutine per worker keeping many requests in flight, no
// allocation per request) or the Apache Cassandra Go driver
// (github.com/apache/cassandra-gocql-driver/v2, driver=gocql, for TLS and
// compression). The driver's session also does the schema work and tracks
// the cluster's nodes for both.
//
// The types that matter: Open (the registry's entry point, cql://host1,host2:9042),
// Config (every option, its default and what it fixes), pworker (Submit,
// Flush, Poll) and the gocql worker's Do, which binds each request into
// prepared statements it reuses for the whole run. Setup creates the keyspace
// and a YCSB usertable or a cassandra-stress standard1 table; Close drops
// what Setup created unless keep=true.
//
// On ScyllaDB the native client is shard-aware (shards.go): a connection
// per shard of each node, and each request to the shard owning its token.
//
// What it does not do: shard awareness with driver=gocql (the Apache
// driver has none), ScyllaDB tablets, and server-side metrics (it measures
// what the client sees).
package cql

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/apache/cassandra-gocql-driver/v2/lz4"
	"github.com/apache/cassandra-gocql-driver/v2/snappy"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/redact"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Name is the registry name and URL scheme.
const Name = "cql"

var (
	_ adapter.Target     = (*Target)(nil)
	_ adapter.Describer  = (*Target)(nil)
	_ adapter.Summarizer = (*Target)(nil)
	_ adapter.Sizer      = (*Target)(nil)
	_ adapter.Worker     = (*worker)(nil)
	_ adapter.Pipelined  = (*Target)(nil)
)

// Target is one CQL cluster opened for a run.
type Target struct {
	cfg     Config
	url     string
	session *gocql.Session
	events  *hostEvents

	mu           sync.Mutex
	stmts        *statements
	createdKS    bool   // Setup created the keyspace: Close drops it
	createdTbl   bool   // Setup created the table: Close drops it
	tableID      string // the id of the table Setup created (dataset.go: clean drops it only while its id is this)
	createdExtra bool   // Setup ran a profile's extra_definitions (types, functions): Close's keyspace drop takes them
	existing     bool   // UseExisting: Setup creates nothing (dataset.go)
	manTable     bool   // the keyspace has the manifests' table (dataset.go)
	releaseVers  string

	prof               *profile    // a cassandra-stress profile's model, when the workload is one
	stats              nativeStats // the native workers' rare events
	shapeN, shapeDepth int         // the native workers' shape (PipelineShape)
	diskPerNode        string      // each node's share of DiskBytes

	check    bool // checked workload (validate): native workers check reads
	fieldLen int
}

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target         = (*Target)(nil)
	_ adapter.Describer      = (*Target)(nil)
	_ adapter.Sizer          = (*Target)(nil)
	_ adapter.RecordSizer    = (*Target)(nil)
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.ReadChecker    = (*Target)(nil)
	_ adapter.Manifester     = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
	_ adapter.Pipelined      = (*Target)(nil)
	_ adapter.Summarizer     = (*Target)(nil)
)

// ChecksReads: the native client checks the reads and scans of the ycsb
// and stress schemas; the gocql driver and profile workloads do not.
func (t *Target) ChecksReads(w *workload.Spec) error {
	if t.cfg.Driver != DriverNative {
		return usererr.Field("validate", "is not supported by cql with driver=%s (fix: drop validate, or use driver=native)", t.cfg.Driver)
	}
	if w.CQL != nil {
		return usererr.Field("validate", "is not supported by cql for a cassandra-stress profile (fix: drop validate, or use the ycsb or stress schema)")
	}
	return nil
}

// Open opens a session to the cluster named by u (cql://host1,host2:9042/keyspace?opt=value)
// with opts from --target-opt. Unreachable contact points and failed
// authentication are reported here, as one line with the fix.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	return OpenConfig(ctx, cfg, redact.String(u))
}

// OpenConfig opens a session with an already parsed Config (the Target
// keeps a copy of it).
func OpenConfig(ctx context.Context, c *Config, displayURL string) (*Target, error) {
	cfg := *c
	ev := &hostEvents{start: time.Now()}
	s, err := connect(ctx, &cfg, cfg.Timeout, ev)
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, url: displayURL, session: s, events: ev}
	var v string
	if err := s.Query("SELECT release_version FROM system.local").Consistency(gocql.One).ScanContext(ctx, &v); err == nil {
		t.releaseVers = v
	}
	return t, nil
}

// ddlTimeout bounds schema changes, which take seconds where requests take
// milliseconds; they run on a session of their own so that a short request
// timeout does not fail Setup.
const ddlTimeout = time.Minute

// connect opens a session with the given request timeout.
func connect(ctx context.Context, cfg *Config, timeout time.Duration, ev *hostEvents) (*gocql.Session, error) {
	cc := gocql.NewCluster(cfg.Hosts...)
	cc.Consistency = cfg.WriteCL
	cc.Keyspace = cfg.sessionKeyspace
	cc.Timeout = timeout
	cc.ConnectTimeout = max(cfg.ConnectTimeout, min(timeout, ddlTimeout))
	cc.WriteTimeout = timeout
	cc.NumConns = cfg.Conns
	cc.PageSize = cfg.PageSize
	cc.WriteCoalesceWaitTime = cfg.Coalesce
	cc.ReconnectInterval = cfg.ReconnectInterval
	// Retry a failed host every reconnect interval without giving up, so a
	// node that comes back mid-run serves requests again.
	cc.ReconnectionPolicy = &gocql.ConstantReconnectionPolicy{MaxRetries: 1 << 30, Interval: cfg.ReconnectInterval}
	// Timeouts and unavailable errors are counted, not retried: a retry would
	// hide them inside a longer latency.
	cc.RetryPolicy = nil
	var fallback gocql.HostSelectionPolicy = gocql.RoundRobinHostPolicy()
	if cfg.LocalDC != "" {
		fallback = gocql.DCAwareRoundRobinPolicy(cfg.LocalDC)
	}
	if cfg.TokenAware {
		cc.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(fallback)
	} else {
		cc.PoolConfig.HostSelectionPolicy = fallback
	}
	if cfg.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: cfg.Username, Password: cfg.Password}
	}
	if cfg.TLS {
		cc.SslOpts = &gocql.SslOptions{
			// With a Config the driver verifies the server's certificate
			// and name unless InsecureSkipVerify is set.
			Config:                 &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.TLSInsecure},
			CaPath:                 cfg.CAFile,
			CertPath:               cfg.CertFile,
			KeyPath:                cfg.KeyFile,
			EnableHostVerification: !cfg.TLSInsecure,
		}
	}
	switch cfg.Compression {
	case "snappy":
		cc.Compressor = snappy.SnappyCompressor{}
	case "lz4":
		cc.Compressor = lz4.LZ4Compressor{}
	}
	if ev != nil {
		cc.Metadata.HostListener.HostStateChangeListener = ev
	}

	type result struct {
		s   *gocql.Session
		err error
	}
	ch := make(chan result, 1)
	go func() {
		s, err := cc.CreateSession()
		ch <- result{s, err}
	}()
	var r result
	select {
	case r = <-ch:
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.s != nil {
				r.s.Close()
			}
		}()
		return nil, fmt.Errorf("cql: connecting to %s: %w", strings.Join(cfg.Hosts, ","), ctx.Err())
	}
	if r.err != nil {
		return nil, explainConnect(cfg, r.err)
	}
	return r.s, nil
}

// Config returns the parsed configuration.
func (t *Target) Config() Config { return t.cfg }

// Setup creates the keyspace and table (unless create=false, when it checks
// that they exist) and prepares every statement the workers use.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if w.CQL != nil {
		return t.setupProfile(ctx, w)
	}
	t.check, t.fieldLen = w.CheckValues, w.FieldLength
	fields := w.FieldCount
	if fields <= 0 {
		fields = 10
	}
	c := &t.cfg
	admin, err := t.adminSession(ctx)
	if err != nil {
		return err
	}
	defer admin.Close()
	ks, err := admin.KeyspaceMetadata(c.Keyspace)
	ksExists := err == nil
	if err != nil && !errors.Is(err, gocql.ErrKeyspaceDoesNotExist) {
		return fmt.Errorf("cql: reading the schema of keyspace %s: %w", c.Keyspace, classify(err))
	}
	if !c.Create {
		if !ksExists {
			return t.missing("keyspace "+c.Keyspace, adapter.Configf("cql: keyspace %q does not exist (fix: drop create=false so that platbench creates it, or create it yourself)", c.Keyspace))
		}
		if _, ok := ks.Tables[c.Table]; !ok {
			return t.missing("table "+c.Keyspace+"."+c.Table, adapter.Configf("cql: table %s.%s does not exist (fix: drop create=false so that platbench creates it, or create it with schema=%s's shape)", c.Keyspace, c.Table, c.Schema))
		}
	} else {
		if !ksExists {
			q := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = %s", c.Keyspace, c.replicationCQL())
			if err := ddl(ctx, admin, q); err != nil {
				return err
			}
			t.createdKS = true
		}
		tableExists := ksExists && ks.Tables[c.Table] != nil
		if !tableExists {
			if err := ddl(ctx, admin, createTableCQL(c, fields)); err != nil {
				return err
			}
			if t.tableID, err = tableIDOf(ctx, admin, c.Keyspace, c.Table); err != nil {
				return err
			}
			t.createdTbl = true
		}
	}
	st, err := newStatements(c, fields)
	if err != nil {
		return err
	}
	// Prepare once, here, so that a broken statement fails Setup rather than
	// the first op, and the driver's cache holds them before the clock starts.
	for _, s := range st.all() {
		if _, err := t.session.StatementMetadata(ctx, s, c.Keyspace); err != nil {
			return fmt.Errorf("cql: preparing %q: %w", s, classify(err))
		}
	}
	t.stmts = st
	return nil
}

// adminSession opens a short-lived session with a DDL-sized timeout.
func (t *Target) adminSession(ctx context.Context) (*gocql.Session, error) {
	return connect(ctx, &t.cfg, ddlTimeout, nil)
}

func ddl(ctx context.Context, s *gocql.Session, q string) error {
	ctx, cancel := context.WithTimeout(ctx, ddlTimeout)
	defer cancel()
	if err := s.Query(q).Consistency(gocql.One).ExecContext(ctx); err != nil {
		class := classOf(err)
		if class == vocab.ClassRejected {
			return adapter.Configf("cql: %s: %v (fix: check the keyspace/table options; with auth on, the user needs CREATE permission)", q, err)
		}
		return fmt.Errorf("cql: %s: %w", q, classify(err))
	}
	return nil
}

// Close drops the table and keyspace Setup created (unless keep=true) and
// closes the session.
func (t *Target) Close() error {
	if t.session == nil {
		return nil
	}
	var errs []error
	if !t.cfg.Keep && (t.createdKS || t.createdTbl) {
		ctx, cancel := context.WithTimeout(context.Background(), ddlTimeout)
		defer cancel()
		admin, err := t.adminSession(ctx)
		if err == nil {
			err = t.dropCreated(ctx, admin)
			admin.Close()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("cql: dropping what Setup created: %w", err))
		}
	}
	if t.prof != nil {
		t.prof.session.Close()
	}
	t.session.Close()
	t.session = nil
	return errors.Join(errs...)
}

// Describe says what was measured.
func (t *Target) Describe(ctx context.Context) vocab.Info {
	info := vocab.Info{Kind: Name, URL: t.url, Version: t.releaseVers}
	if t.session != nil {
		for _, h := range t.session.GetHosts() {
			info.Nodes = append(info.Nodes, fmt.Sprintf("%s (dc %s, %s)", h.ConnectAddressAndPort(), h.DataCenter(), h.State()))
		}
	}
	c := t.cfg
	driver := "github.com/apache/cassandra-gocql-driver/v2"
	if c.Driver == DriverNative {
		driver = "native (platbench's CQL protocol v4 client; schema through github.com/apache/cassandra-gocql-driver/v2)"
	}
	info.Details = map[string]string{
		"driver":            driver,
		"keyspace":          c.Keyspace,
		"table":             c.Table,
		"schema":            c.Schema,
		"replication":       c.replicationCQL(),
		"read_consistency":  c.ReadCL.String(),
		"write_consistency": c.WriteCL.String(),
		"routing":           routing(c),
		"conns_per_host":    fmt.Sprint(c.Conns),
		"timeout":           c.Timeout.String(),
		"compression":       c.Compression,
		"shard_aware":       shardAware(c),
	}
	if c.Compaction != "" {
		info.Details["compaction"], _ = compactionClass(c.Compaction)
	}
	if c.TLS {
		info.Details["tls"] = "true"
	}
	return info
}

// shardAware is what the client does about ScyllaDB's shards; what it did
// (cql_shard_aware and the figures beside it) is in the Summary.
func shardAware(c Config) string {
	switch {
	case c.Driver != DriverNative:
		return "false (driver=gocql: the Apache driver is not ScyllaDB shard-aware)"
	case !c.ShardAware:
		return "false (shard_aware=false)"
	}
	return "true on nodes that advertise ScyllaDB's sharding (see cql_shard_aware)"
}

func routing(c Config) string {
	r := "round-robin"
	if c.LocalDC != "" {
		r = "dc-aware(" + c.LocalDC + ")"
	}
	if c.TokenAware {
		r = "token-aware+" + r
	}
	return r
}

// DiskBytes is the table's size on disk over the whole cluster, replicas
// included: the sum of what each node reports in system_views.disk_usage
// (Cassandra 4.1+; a node-local table, so each node is asked on its own).
// The per-node figures go to the result's target details.
func (t *Target) DiskBytes(ctx context.Context) (int64, error) {
	var total int64
	var per []string
	for _, h := range t.session.GetHosts() {
		if !h.IsUp() {
			return 0, fmt.Errorf("cql: disk usage of %s.%s: node %s is down, the cluster total would be short", t.cfg.Keyspace, t.cfg.Table, h.ConnectAddressAndPort())
		}
		var mib int64
		err := t.session.Query("SELECT mebibytes FROM system_views.disk_usage WHERE keyspace_name = ? AND table_name = ?",
			t.cfg.Keyspace, t.cfg.Table).Consistency(gocql.One).SetHostID(h.HostID()).ScanContext(ctx, &mib)
		if err != nil {
			return 0, fmt.Errorf("cql: disk usage of %s.%s on %s: %w", t.cfg.Keyspace, t.cfg.Table, h.ConnectAddressAndPort(), classify(err))
		}
		total += mib << 20
		per = append(per, fmt.Sprintf("%s %d MiB", h.ConnectAddressAndPort(), mib))
	}
	if len(per) == 0 {
		return 0, fmt.Errorf("cql: disk usage of %s.%s: the driver knows no node", t.cfg.Keyspace, t.cfg.Table)
	}
	t.mu.Lock()
	t.diskPerNode = strings.Join(per, "; ")
	t.mu.Unlock()
	return total, nil
}
