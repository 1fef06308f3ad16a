// Package redis is the Redis/Valkey target: redis://[user:pass@]host:port[/db]
// and rediss:// (TLS). Standalone servers are driven by a small RESP2 client
// of its own (resp.go) that does not allocate per command; Redis Cluster is
// driven by go-redis's ClusterClient, which does.
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
// SCAN (YCSB E) and CAS are not supported: Setup rejects workloads with them.
//
// Pipelining (option pipeline=D, and/or conns=N): the runner drives pipelined
// workers (async.go, target.Pipeliner): one goroutine per connection keeps D
// commands in flight, so --concurrency is the total number of ops in flight
// (ceil(concurrency/D) connections); with both pipeline=D and conns=N there
// are N connections with D each, N*D in flight, as redis-benchmark -c N -P D.
// Each op is timed from its own submit to its own reply.
//
// A caller that drives plain Workers through Do (without PipelineShape) gets
// the older shared path: D workers share one connection, their commands are
// written back to back without waiting for replies, and one reader goroutine
// per connection matches replies to workers in order. Either way an op's
// latency includes the time queued behind the other commands of the pipeline
// (redis-benchmark -P measures the same way: from the write of the pipeline
// to each reply). With pipeline=1 (the default) each worker owns its
// connection and Do is a plain write then read, with no goroutine hop.
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
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/target"
	"github.com/platbench/platbench/workload"
)

// Config is the redis target's configuration, from the URL and --target-opt.
type Config struct {
	// Addrs are the servers (host:port); several only in cluster mode. Default 127.0.0.1:6379.
	Addrs []string
	// TLS is set for rediss:// URLs.
	TLS bool
	// Insecure skips TLS certificate verification (option tls_insecure=true). Default false.
	Insecure bool
	// User and Password authenticate (AUTH); from the URL's userinfo.
	User, Password string
	// DB is the database number (URL path /N). Default 0.
	DB int
	// Mode is "kv" (GET/SET of the record) or "hash" (HSET/HGETALL of its fields). Default kv.
	Mode string
	// Pipeline is how many workers share one connection, i.e. the maximum
	// number of commands in flight on it (option pipeline). Default 1.
	Pipeline int
	// Conns, when set, fixes the number of connections (option conns).
	// Default 0: one connection per Pipeline ops in flight. With both conns
	// and pipeline, Conns*Pipeline ops are in flight (see PipelineShape).
	Conns int
	// Cluster is "auto" (ask the server: INFO cluster), "true" or "false". Default auto.
	Cluster string
	// Timeout bounds connecting and each command (option timeout). Default 5s.
	Timeout time.Duration
}

// options a user may set, for the error message on a typo.
var knownOpts = []string{"mode", "pipeline", "conns", "cluster", "timeout", "tls_insecure"}

// ParseConfig builds a Config from the URL and options (options win over the
// URL's query). It reports every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	cfg := &Config{Mode: "kv", Pipeline: 1, Cluster: "auto", Timeout: 5 * time.Second}
	var probs []string
	switch u.Scheme {
	case "redis", "valkey":
	case "rediss", "valkeys":
		cfg.TLS = true
	default:
		probs = append(probs, fmt.Sprintf("scheme %q is not redis:// or rediss://", u.Scheme))
	}
	host := u.Host
	if host == "" {
		host = "127.0.0.1:6379"
	}
	for _, h := range strings.Split(host, ",") {
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "6379")
		}
		cfg.Addrs = append(cfg.Addrs, h)
	}
	if u.User != nil {
		cfg.Password, _ = u.User.Password()
		cfg.User = u.User.Username()
		if _, set := u.User.Password(); !set {
			// redis://:pass@ or redis://pass@ : a lone name is taken as the password, as redis-cli -u does.
			cfg.Password, cfg.User = cfg.User, ""
		}
	}
	if p := strings.Trim(u.Path, "/"); p != "" {
		db, err := strconv.Atoi(p)
		if err != nil || db < 0 {
			probs = append(probs, fmt.Sprintf("database %q is not a number (use /0../15)", p))
		}
		cfg.DB = db
	}
	all := map[string]string{}
	for k, v := range u.Query() {
		if len(v) > 0 {
			all[k] = v[len(v)-1]
		}
	}
	for k, v := range opts {
		all[k] = v
	}
	for k, v := range all {
		switch k {
		case "mode":
			if v != "kv" && v != "hash" {
				probs = append(probs, fmt.Sprintf("mode=%q is not kv or hash", v))
			}
			cfg.Mode = v
		case "pipeline", "conns":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 10000 {
				probs = append(probs, fmt.Sprintf("%s=%q is not a number in [1, 10000]", k, v))
			}
			if k == "pipeline" {
				cfg.Pipeline = n
			} else {
				cfg.Conns = n
			}
		case "cluster":
			if v != "auto" && v != "true" && v != "false" {
				probs = append(probs, fmt.Sprintf("cluster=%q is not auto, true or false", v))
			}
			cfg.Cluster = v
		case "timeout":
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				probs = append(probs, fmt.Sprintf("timeout=%q is not a positive duration such as 5s", v))
			}
			cfg.Timeout = d
		case "tls_insecure":
			b, err := strconv.ParseBool(v)
			if err != nil {
				probs = append(probs, fmt.Sprintf("tls_insecure=%q is not true or false", v))
			}
			cfg.Insecure = b
		default:
			probs = append(probs, fmt.Sprintf("unknown option %q (known: %s)", k, strings.Join(knownOpts, ", ")))
		}
	}
	if len(cfg.Addrs) > 1 && cfg.Cluster == "false" {
		probs = append(probs, "several addresses need cluster mode (drop cluster=false)")
	}
	if len(probs) > 0 {
		return nil, target.Configf("redis target: %s (fix: e.g. redis://user:pass@127.0.0.1:6379/0?mode=hash&pipeline=16)", strings.Join(probs, "; "))
	}
	return cfg, nil
}

// Target is an open Redis server or cluster.
type Target struct {
	cfg     *Config
	dial    dialOpts
	cluster *goredis.ClusterClient // non-nil in cluster mode
	version string
	server  string // "redis" or "valkey"

	spec       *workload.Spec
	fieldNames []string
	writeAll   bool

	mu     sync.Mutex
	shared map[int]*shared // connection index -> pipelined connection

	// Set by PipelineShape (async.go): workers are pworkers, each with its
	// own connection and depth commands in flight.
	async                   bool
	depth, inFlight, nconns int
}

var (
	_ target.Target    = (*Target)(nil)
	_ target.Describer = (*Target)(nil)
)

// Open connects to the first address, checks credentials and database, and
// decides between standalone and cluster mode.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (target.Target, error) {
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	t := &Target{cfg: cfg, shared: map[int]*shared{}}
	t.dial = dialOpts{addr: cfg.Addrs[0], user: cfg.User, password: cfg.Password, db: cfg.DB, timeout: cfg.Timeout}
	if cfg.TLS {
		host, _, _ := net.SplitHostPort(cfg.Addrs[0])
		t.dial.tls = &tls.Config{ServerName: host, InsecureSkipVerify: cfg.Insecure}
	}
	c, err := dial(ctx, &t.dial)
	if err != nil {
		var cve *tls.CertificateVerificationError
		if errors.As(err, &cve) {
			return nil, target.Configf("redis target: %s: the server's TLS certificate is not trusted: %v (fix: add its CA to the system's trust store, or --target-opt tls_insecure=true for a test server)", cfg.Addrs[0], cve)
		}
		if target.Classify(err) == target.ClassUnavailable || target.Classify(err) == target.ClassTimeout {
			return nil, fmt.Errorf("redis target: cannot reach %s: %w (fix: start the server or correct host:port in the URL)", cfg.Addrs[0], err)
		}
		return nil, err
	}
	defer c.Close()
	info, err := c.text("INFO", "server")
	if err != nil {
		var ce *target.ConfigError
		if errors.As(err, &ce) {
			return nil, err
		}
		if target.Classify(err) == target.ClassRejected {
			return nil, target.Configf("redis target: %s needs a password: %v (fix: put it in the URL, redis://user:pass@host:port)", cfg.Addrs[0], err)
		}
		return nil, fmt.Errorf("redis target: INFO on %s: %w", cfg.Addrs[0], err)
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
			return nil, target.Configf("redis target: a cluster has only database 0, got /%d (fix: drop the /N from the URL)", cfg.DB)
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
			return nil, fmt.Errorf("redis target: cluster at %s: %w", strings.Join(cfg.Addrs, ","), classifyNet(err))
		}
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
	for _, m := range w.Mix {
		if m.Weight <= 0 {
			continue
		}
		switch m.Op {
		case workload.OpScan:
			return target.Configf("redis target: SCAN (YCSB workload E) is not supported: Redis has no ordered key range (YCSB's redis binding keeps a sorted-set index, which this target does not) (fix: choose a workload without SCAN)")
		case workload.OpCAS, workload.OpProduce, workload.OpConsume:
			return target.Configf("redis target: op %s is not supported (fix: use READ, UPDATE, INSERT, WRITE, READ-MODIFY-WRITE, DELETE, SET, GET or INCR)", m.Op)
		}
	}
	t.spec = w
	t.writeAll = w.WriteAllFields
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

// NewWorker returns worker id. Its connection is dialled now, so an
// unreachable server shows up before the run starts.
func (t *Target) NewWorker(id int) (target.Worker, error) {
	if t.fieldNames == nil {
		if err := t.Setup(context.Background(), &workload.Spec{FieldCount: 1}); err != nil {
			return nil, err
		}
	}
	w := &worker{t: t, rng: uint64(id)*0x9E3779B97F4A7C15 + 1, fieldNames: t.fieldNames, writeAll: t.writeAll}
	if t.cluster != nil {
		w.cc = t.cluster
		return w, nil
	}
	t.mu.Lock()
	async := t.async
	t.mu.Unlock()
	if async {
		return t.newPWorker(w)
	}
	if t.cfg.Pipeline == 1 && t.cfg.Conns == 0 {
		c, err := dial(context.Background(), &t.dial)
		if err != nil {
			return nil, err
		}
		w.c = c
		return w, nil
	}
	idx := id / t.cfg.Pipeline
	if t.cfg.Conns > 0 {
		idx = id % t.cfg.Conns
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.shared[idx]
	if s == nil {
		s = &shared{dial: &t.dial}
		if err := s.connect(); err != nil {
			return nil, err
		}
		t.shared[idx] = s
	}
	s.users++
	s.nusers.Add(1)
	w.s = s
	w.wt = &waiter{done: make(chan struct{}, 1)}
	return w, nil
}

// Close closes every connection.
func (t *Target) Close() error {
	t.mu.Lock()
	for _, s := range t.shared {
		s.close()
	}
	t.shared = map[int]*shared{}
	t.mu.Unlock()
	if t.cluster != nil {
		return t.cluster.Close()
	}
	return nil
}

// Describe reports the server, its version and how it is driven.
func (t *Target) Describe(ctx context.Context) target.Info {
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
		mode = "cluster (go-redis ClusterClient)"
		nodes = nil
		_ = t.cluster.ForEachShard(ctx, func(ctx context.Context, c *goredis.Client) error {
			t.mu.Lock()
			nodes = append(nodes, c.Options().Addr)
			t.mu.Unlock()
			return nil
		})
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
		d["in_flight"] = fmt.Sprintf("%d ops over %d connections (up to %d per connection, one goroutine each)", t.inFlight, t.nconns, t.depth)
	}
	t.mu.Unlock()
	return target.Info{Kind: "redis", URL: u, Version: t.version, Nodes: nodes, Details: d}
}
