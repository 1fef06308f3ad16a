// Package redis is the Redis/Valkey target: redis://[user:pass@]host:port[/db]
// and rediss:// (TLS). Standalone servers are driven by a small RESP2 client
// of its own (conn.go, speaking package resp) that does not allocate per
// command; Redis Cluster is driven by the same client, one connection per
// master (cluster.go).
//
// Two record layouts (option mode):
//   - kv (default): the record is one string value; READ=GET, UPDATE/INSERT/
//     WRITE/SET=SET, DELETE=DEL, RMW=GET then SET, GET=GET, INCR=INCR of a
//     counter key "ctr:"+key.
//   - hash: the record is a hash of FieldCount fields "field0".."fieldN-1"
//     as YCSB's redis binding stores it; READ=HGETALL, UPDATE=HSET of one
//     random field (all fields when the workload's write_all_fields is set),
//     INSERT/WRITE=HSET of every field, DELETE=DEL, RMW=HGETALL then HSET.
//
// SCAN (YCSB E) keeps a sorted-set index of the keys, as YCSB's redis
// binding does (scan.go). CAS is not supported: Setup rejects it. Command
// templates (workload.Command, memtier's --command) run as operations of
// their own (template.go).
//
// Pipelining (option pipeline=D, and/or conns=N): the runner drives pipelined
// workers (pipeline.go, adapter.Pipeliner): one goroutine per connection keeps D
// commands in flight, so the run's concurrency is the total number of ops in
// flight (ceil(concurrency/D) connections); with both pipeline=D and conns=N
// there are N connections with D each, N*D in flight, as redis-benchmark
// -c N -P D. Each op is timed from its own submit to its own reply, so its
// latency includes the time queued behind the other commands of the pipeline
// (redis-benchmark -P measures the same way).
//
// Without pipelining (pipeline=1, the default), or for a caller that drives
// plain Workers without asking PipelineShape, each worker owns its connection
// and Do is a plain write then read, with no goroutine hop.
package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Target is an open Redis server or cluster.
type Target struct {
	cfg     *Config
	dial    dialOpts
	cluster *goredis.ClusterClient // non-nil in cluster mode: dataset checks and clean, the masters INFO is read from
	cs      clusterState           // cluster mode: the slot map (cluster.go)
	version string
	server  string // "redis" or "valkey"

	spec       *workload.Spec
	fieldNames []string
	writeAll   bool
	check      bool // checked workload: reads check values (worker.checkedRead)
	fieldLen   int
	tmpls      []*tmpl // the workload's command templates (template.go), by named op slot
	index      string  // the sorted set indexing the keys when the workload scans (scan.go); "" otherwise
	indexB     []byte  // index, for slot routing

	mu sync.Mutex

	// Set by PipelineShape (pipeline.go): workers are pworkers, each with its
	// own connection and depth commands in flight.
	async                   bool
	depth, inFlight, nconns int

	// status are the connections INFO is read over (status.go), by node.
	status map[string]*conn
}

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target         = (*Target)(nil)
	_ adapter.Describer      = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.ReadChecker    = (*Target)(nil)
	_ adapter.Manifester     = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
	_ adapter.Pipelined      = (*Target)(nil)
	_ adapter.Summarizer     = (*Target)(nil)
	_ adapter.StatusReader   = (*Target)(nil)
)

var (
	_ adapter.Target    = (*Target)(nil)
	_ adapter.Describer = (*Target)(nil)
)

// Open connects to the first address, checks credentials and database, and
// decides between standalone and cluster mode.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg}
	t.dial = dialOpts{addr: cfg.Addrs[0], user: cfg.User, password: cfg.Password, db: cfg.DB, timeout: cfg.Timeout}
	if cfg.TLS {
		host, _, _ := net.SplitHostPort(cfg.Addrs[0])
		t.dial.tls = &tls.Config{ServerName: host, InsecureSkipVerify: cfg.Insecure}
	}
	c, err := dial(ctx, &t.dial)
	if err != nil {
		var cve *tls.CertificateVerificationError
		if errors.As(err, &cve) {
			return nil, adapter.Configf("redis: %s: the server's TLS certificate is not trusted: %v (fix: add its CA to the system's trust store, or the option tls_insecure=true for a test server)", cfg.Addrs[0], cve)
		}
		if adapter.Classify(err) == vocab.ClassUnavailable || adapter.Classify(err) == vocab.ClassTimeout {
			return nil, fmt.Errorf("redis: cannot reach %s: %w (fix: start the server or correct host:port in the URL)", cfg.Addrs[0], err)
		}
		return nil, err
	}
	defer c.Close()
	info, err := c.text("INFO", "server")
	if err != nil {
		var ce *adapter.ConfigError
		if errors.As(err, &ce) {
			return nil, err
		}
		if adapter.Classify(err) == vocab.ClassRejected {
			return nil, adapter.Configf("redis: %s needs a password: %v (fix: give it in $PLATBENCH_TARGET_PASSWORD or a password file, and the user, if any, as redis://USER@host:port; a password in the URL shows in ps)", cfg.Addrs[0], err)
		}
		return nil, fmt.Errorf("redis: INFO on %s: %w", cfg.Addrs[0], err)
	}
	t.server, t.version = "redis", infoField(info, "redis_version")
	if v := infoField(info, "valkey_version"); v != "" {
		t.server, t.version = "valkey", v
	}
	clusterOn := cfg.Cluster == "true" || len(cfg.Addrs) > 1
	if cfg.Cluster == "auto" {
		ci, err := c.text("INFO", "cluster")
		if err == nil && infoField(ci, "cluster_enabled") == "1" {
			clusterOn = true
		}
	}
	if clusterOn {
		if cfg.DB != 0 {
			return nil, adapter.Configf("redis: a cluster has only database 0, got /%d (fix: drop the /N from the URL)", cfg.DB)
		}
		o := &goredis.ClusterOptions{
			Addrs: cfg.Addrs, Username: cfg.User, Password: cfg.Password,
			DialTimeout: cfg.Timeout, ReadTimeout: cfg.Timeout, WriteTimeout: cfg.Timeout,
			PoolSize: 1024, MaxRetries: -1, // the benchmark counts errors; it does not hide them behind retries
		}
		if t.dial.tls != nil {
			o.TLSConfig = t.dial.tls
		}
		t.cluster = goredis.NewClusterClient(o)
		if err := t.cluster.Ping(ctx).Err(); err != nil {
			t.cluster.Close()
			return nil, fmt.Errorf("redis: cluster at %s: %w", strings.Join(cfg.Addrs, ","), classify(err))
		}
		topo, err := readTopology(ctx, t.dial, cfg.Addrs)
		if err != nil {
			t.cluster.Close()
			return nil, err
		}
		t.cs.topo.Store(topo)
	}
	return t, nil
}

func infoField(info, name string) string {
	for _, l := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), name+":"); ok {
			return v
		}
	}
	return ""
}

// Setup checks that the workload uses only ops this target maps.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error {
	t.index, t.indexB = "", nil
	for _, m := range w.Mix {
		if m.Weight <= 0 {
			continue
		}
		switch m.Op {
		case vocab.OpScan:
			if t.cfg.Pipeline > 1 || t.cfg.Conns > 0 {
				return adapter.Configf("redis: SCAN (YCSB workload E) runs one request at a time: a scan reads the index, then the records it names (fix: drop the pipeline and conns options for a workload with SCAN)")
			}
			t.index = indexKey(w.KeyPrefix)
			t.indexB = []byte(t.index)
		case vocab.OpCAS, vocab.OpProduce, vocab.OpConsume:
			return adapter.Configf("redis: op %s is not supported (fix: use READ, UPDATE, INSERT, WRITE, READ-MODIFY-WRITE, DELETE, SET, GET or INCR)", m.Op)
		}
		if m.Op.Named() && int(m.Op-vocab.OpNamed0) >= len(w.Commands) {
			return adapter.Configf("redis: op %s is not a command template of the workload (fix: give the workload that command template, or one made for redis)", w.OpName(m.Op))
		}
	}
	tmpls, err := compileTemplates(w.Commands)
	if err != nil {
		return err
	}
	t.tmpls = tmpls
	t.spec = w
	t.writeAll = w.WriteAllFields
	t.check, t.fieldLen = w.CheckValues, w.FieldLength
	n := w.FieldCount
	if n <= 0 {
		n = 1
	}
	t.fieldNames = make([]string, n)
	for i := range t.fieldNames {
		t.fieldNames[i] = "field" + strconv.Itoa(i)
	}
	return nil
}

// ChecksReads: the standalone, unpipelined client checks reads; the
// cluster and pipelined paths do not.
func (t *Target) ChecksReads(*workload.Spec) error {
	if t.cluster != nil {
		return usererr.Field("validate", "is not supported by redis in cluster mode (fix: drop validate, or use a standalone server)")
	}
	if t.cfg.Pipeline > 1 || t.cfg.Conns > 0 {
		return usererr.Field("validate", "is not supported by redis with the pipeline or conns option (fix: drop validate, or those options)")
	}
	return nil
}

// Close closes the cluster client; workers close their own connections.
func (t *Target) Close() error {
	t.closeStatus()
	if t.cluster != nil {
		return t.cluster.Close()
	}
	return nil
}

// Describe reports the server, its version and how it is driven.
func (t *Target) Describe(ctx context.Context) vocab.Info {
	scheme := "redis"
	if t.cfg.TLS {
		scheme = "rediss"
	}
	u := scheme + "://" + strings.Join(t.cfg.Addrs, ",")
	if t.cfg.DB != 0 {
		u += "/" + strconv.Itoa(t.cfg.DB)
	}
	mode := "standalone (platbench RESP client)"
	nodes := t.cfg.Addrs
	if t.cluster != nil {
		nodes = t.cs.topo.Load().addrs
		mode = fmt.Sprintf("cluster of %d masters (platbench RESP client, one connection per master)", len(nodes))
	}
	d := map[string]string{
		"server":   t.server,
		"mode":     t.cfg.Mode,
		"client":   mode,
		"pipeline": strconv.Itoa(t.cfg.Pipeline),
		"timeout":  t.cfg.Timeout.String(),
	}
	if t.cfg.Conns > 0 {
		d["conns"] = strconv.Itoa(t.cfg.Conns)
	}
	t.mu.Lock()
	if t.async {
		d["in_flight"] = t.inFlightText()
	}
	t.mu.Unlock()
	return vocab.Info{Kind: "redis", URL: u, Version: t.version, Nodes: nodes, Details: d}
}
