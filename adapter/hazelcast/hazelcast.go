// Package hazelcast is the Hazelcast target, driven by the official Go client
// (github.com/hazelcast/hazelcast-go-client v1.6.0):
//
//	hazelcast://member1:5701,member2:5701?cluster=dev
//
// YCSB ops go to an IMap (option map, default "platbench"): READ=Get,
// UPDATE/INSERT/WRITE=Set (no old value returned, unlike Put), DELETE=Delete,
// RMW=Get then Set. The record is one byte array (FieldCount*FieldLength
// bytes). SCAN is not supported (an IMap has no key order).
//
// CP-subsystem ops (the seed's scenario) go to IAtomicReference and
// IAtomicLong objects, which need a CP subsystem of at least 3 members:
//   - SET, GET, CAS: IAtomicReference Set, Get, CompareAndSet on one of
//     refs references (option refs, default 1; reference KeyNum%refs),
//     holding the request's value as a byte array. CAS compares with the
//     last value this worker set or read and counts failed compares in the
//     summary (cas_failed); it is not an error.
//   - INCR: IAtomicLong IncrementAndGet on the counter (option long).
//   - with option cp=long, SET/GET/CAS act on the IAtomicLong instead
//     (Set(KeyNum), Get, CompareAndSet(last, last+1)).
//
// Not covered: the client's IAtomicReference Apply/Alter (need server-side
// functions), FencedLock, Semaphore, CountDownLatch and CPMap.
//
// The Go client allocates on every call (it builds a message per
// invocation and boxes keys and values in interfaces): Do is not zero-alloc.
package hazelcast

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hz "github.com/hazelcast/hazelcast-go-client"
	"github.com/hazelcast/hazelcast-go-client/cluster"
	"github.com/hazelcast/hazelcast-go-client/hzerrors"
	"github.com/hazelcast/hazelcast-go-client/logger"
	"github.com/hazelcast/hazelcast-go-client/types"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Config is the hazelcast target's configuration, from the URL and the
// target options (declared in options; `platbench targets hazelcast` prints
// them).
type Config struct {
	// Addrs are the members to connect to (host:port). Default 127.0.0.1:5701.
	Addrs []string
	// Cluster is the cluster name (option cluster). Default "dev".
	Cluster string
	// User and Password are sent as credentials (URL userinfo). The
	// community edition does not check them.
	User, Password string
	// Map is the IMap name for YCSB ops (option map). Default "platbench".
	Map string
	// Ref is the IAtomicReference name prefix (option ref). Default "platbench-ref".
	Ref string
	// Refs is the number of references SET/GET/CAS spread over (option refs). Default 1.
	Refs int
	// Long is the IAtomicLong name (option long). Default "platbench-long".
	Long string
	// Longs is the number of counters INCR and cp=long spread over (option
	// longs; counter KeyNum%longs, named long-0, long-1, ... when > 1). Default 1.
	Longs int
	// CPGroup puts the CP objects in a named CP group (option cp_group);
	// default "" is the DEFAULT group.
	CPGroup string
	// CP selects what SET/GET/CAS act on: "ref", "long", "lock" or
	// "semaphore" (option cp). Default ref.
	CP string
	// Lock and Semaphore are the name prefixes of the FencedLocks and
	// ISemaphores (options lock, semaphore): the object of an op is
	// PREFIX-KeyNum. Permits is each semaphore's permits (option permits).
	Lock, Semaphore string
	Permits         int
	// TryTimeout is how long a CAS (tryLock, tryAcquire) waits (option
	// try_timeout); Hold how long a lock or permit is held (option hold).
	TryTimeout, Hold time.Duration
	// Timeout bounds each invocation, retries included (option timeout). Default 5s.
	Timeout time.Duration
	// ConnectTimeout bounds connecting to the cluster at Open and
	// reconnecting to it later (option connect_timeout). Default 15s.
	ConnectTimeout time.Duration
}

func (c *Config) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("hazelcast")
	s.String(&c.Cluster, "cluster", "dev", "cluster name; must match the members' cluster-name")
	s.String(&c.Map, "map", "platbench", "IMap for the YCSB ops")
	s.String(&c.Ref, "ref", "platbench-ref", "IAtomicReference name (a prefix when refs > 1: ref-0, ref-1, ...)")
	s.Count(&c.Refs, "refs", "1", "number of references SET/GET/CAS spread over (reference KeyNum % refs)").
		Range(1, 100000).WithUnit("references").FromWorkload()
	s.String(&c.Long, "long", "platbench-long", "IAtomicLong name (a prefix when longs > 1: long-0, long-1, ...)")
	s.Count(&c.Longs, "longs", "1", "number of IAtomicLongs INCR and cp=long spread over (counter KeyNum % longs), so the key distribution sets the contention").
		Range(1, 100000).WithUnit("counters").FromWorkload()
	s.String(&c.CPGroup, "cp_group", "", "CP group of the CP objects (name@group); none is the DEFAULT group")
	s.Enum(&c.CP, "cp", "ref", "what SET/GET/CAS act on: the IAtomicReference, the IAtomicLong, FencedLocks or ISemaphores", "ref", "long", "lock", "semaphore").FromWorkload()
	s.String(&c.Lock, "lock", "platbench-lock", "FencedLock name prefix (cp=lock): an op locks PREFIX-KeyNum, so --records and the key distribution set the contention")
	s.String(&c.Semaphore, "semaphore", "platbench-sem", "ISemaphore name prefix (cp=semaphore): an op acquires a permit of PREFIX-KeyNum")
	s.Count(&c.Permits, "permits", "1", "permits of each ISemaphore (set when this client first uses it; a semaphore that exists keeps its own)").Range(1, 1<<30).FromWorkload()
	s.Duration(&c.TryTimeout, "try_timeout", "0", "how long a CAS (tryLock, tryAcquire) waits for the lock or a permit; not getting it counts in lock_busy").FromWorkload()
	s.Duration(&c.Hold, "hold", "0", "how long an op holds the lock or permit before it unlocks or releases (the critical section)").FromWorkload()
	s.Duration(&c.Timeout, "timeout", "5s", "bound of every call, the client's retries included").Positive()
	s.Duration(&c.ConnectTimeout, "connect_timeout", "15s", "bound of connecting at Open and of reconnecting later").Positive()
	return s
}

// Options declares the hazelcast target's options.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig builds a Config from the URL and options (options win). It
// reports every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	return parseConfig(u, opts, nil)
}

// parseConfig also takes a workload's options, which lose to the URL and
// to opts.
func parseConfig(u *url.URL, opts, workloadOpts map[string]string) (*Config, error) {
	cfg := &Config{}
	s := cfg.options()
	s.Parse(adapter.Sources{Workload: workloadOpts, Query: u.Query(), Opts: opts})
	if u.Scheme != "hazelcast" {
		s.Problem("scheme %q is not hazelcast:// (fix: hazelcast://127.0.0.1:5701)", u.Scheme)
	}
	host := u.Host
	if host == "" {
		host = "127.0.0.1:5701"
	}
	for _, h := range strings.Split(host, ",") {
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "5701")
		}
		cfg.Addrs = append(cfg.Addrs, h)
	}
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Password, _ = u.User.Password()
	}
	for _, n := range []struct{ opt, v string }{{"cluster", cfg.Cluster}, {"map", cfg.Map}, {"ref", cfg.Ref}, {"long", cfg.Long}, {"lock", cfg.Lock}, {"semaphore", cfg.Semaphore}} {
		if n.v == "" || strings.Contains(n.v, "@") {
			s.Problem("%s=%q must be a non-empty name without '@' (fix: another name; cp_group names the CP group)", n.opt, n.v)
		}
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// Target is a connected Hazelcast client.
type Target struct {
	cfg    *Config
	client *hz.Client
	u      *url.URL          // for Setup, which applies a workload's options
	opts   map[string]string // (they lose to the URL and the target options)

	m      *hz.Map
	refs   []*hz.AtomicRef
	long   *hz.AtomicLong   // longs[0]
	longs  []*hz.AtomicLong // longs=N
	locks  *cpLocks         // cp=lock, cp=semaphore
	setup  bool
	cpOnly bool // the workload has CP ops only: INSERT (load phase) sets CP objects
	// check: the workload is checked (workload.Spec.CheckValues): IMap
	// reads check the record they get (workload.CheckRecord).
	check                bool
	fieldLen, fieldCount int

	casFailed atomic.Int64
	mu        sync.Mutex
	members   map[string]string // address -> version, kept by a membership listener
	left      int               // members that left while the client ran
}

var (
	_ adapter.Target      = (*Target)(nil)
	_ adapter.Describer   = (*Target)(nil)
	_ adapter.Summarizer  = (*Target)(nil)
	_ adapter.ReadChecker = (*Target)(nil)
)

// ChecksReads: the IMap's reads check their record; the CP objects' do not.
func (t *Target) ChecksReads(w *workload.Spec) error {
	for _, m := range w.Mix {
		switch m.Op {
		case vocab.OpSet, vocab.OpGet, vocab.OpCAS, vocab.OpIncr:
			if m.Weight > 0 {
				return usererr.Field("validate", "is not supported by hazelcast for the CP subsystem's %s (fix: drop validate, or use IMap operations: READ, UPDATE, INSERT, WRITE, DELETE, READ-MODIFY-WRITE)", m.Op)
			}
		}
	}
	return nil
}

// Open connects to the cluster. An unreachable cluster or a wrong cluster
// name fails here, after connect_timeout.
func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error) {
	cfg, err := ParseConfig(u, opts)
	if err != nil {
		return nil, err
	}
	hc := hz.NewConfig()
	hc.Cluster.Name = cfg.Cluster
	hc.Cluster.Network.SetAddresses(cfg.Addrs...)
	hc.Cluster.Network.ConnectionTimeout = types.Duration(cfg.ConnectTimeout)
	hc.Cluster.Security.Credentials.Username = cfg.User
	hc.Cluster.Security.Credentials.Password = cfg.Password
	hc.Cluster.InvocationTimeout = types.Duration(cfg.Timeout)
	hc.Cluster.ConnectionStrategy.Timeout = types.Duration(cfg.ConnectTimeout)
	hc.Cluster.ConnectionStrategy.Retry.InitialBackoff = types.Duration(200 * time.Millisecond)
	hc.Cluster.ConnectionStrategy.Retry.MaxBackoff = types.Duration(2 * time.Second)
	hc.Cluster.ConnectionStrategy.ReconnectMode = cluster.ReconnectModeOn
	// The client's own log would interleave with the terminal report: keep
	// only its last error, to explain a failed Open.
	lastErr := &lastError{}
	hc.Logger.CustomLogger = lastErr
	hc.Stats.Enabled = false
	t := &Target{cfg: cfg, u: u, opts: opts, members: map[string]string{}}
	hc.AddMembershipListener(func(e cluster.MembershipStateChanged) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if e.State == cluster.MembershipStateAdded {
			t.members[e.Member.Address.String()] = e.Member.Version.String()
		} else {
			delete(t.members, e.Member.Address.String())
			t.left++
		}
	})
	cctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout+5*time.Second)
	defer cancel()
	client, err := hz.StartNewClientWithConfig(cctx, hc)
	if err != nil {
		return nil, openError(cfg, err, lastErr.get())
	}
	t.client = client
	return t, nil
}

// lastError is a logger for the client that keeps its last error message.
type lastError struct {
	mu  sync.Mutex
	msg string
}

func (l *lastError) Log(w logger.Weight, f func() string) {
	if w <= logger.WeightError {
		m := f()
		l.mu.Lock()
		l.msg = m
		l.mu.Unlock()
	}
}

func (l *lastError) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msg
}

// openError explains why the client could not start, with the fix. logged
// is the client's last logged error: it says why connections failed
// (the returned error only says that they did).
func openError(cfg *Config, err error, logged string) error {
	addrs := strings.Join(cfg.Addrs, ",")
	msg := err.Error()
	if logged != "" {
		msg += " (last: " + oneLine(logged) + ")"
	}
	switch {
	case errors.Is(err, hzerrors.ErrAuthentication) || strings.Contains(logged, "authentication") || strings.Contains(logged, "credentials"):
		return adapter.Configf("hazelcast: members at %s refused the client for cluster %q: %s (fix: ?cluster=NAME must match the members' cluster-name; check the user:password in the URL)", addrs, cfg.Cluster, oneLine(msg))
	case errors.Is(err, hzerrors.ErrIllegalState) || strings.Contains(msg, "unable to connect") || strings.Contains(msg, "connect"):
		return &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("hazelcast: cannot connect to cluster %q at %s within %s: %s (fix: start the members, check host:port, and that ?cluster=NAME matches the members' cluster-name)", cfg.Cluster, addrs, cfg.ConnectTimeout, oneLine(msg))}
	}
	return fmt.Errorf("hazelcast: connect to %s: %w", addrs, err)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (t *Target) cpName(n string) string {
	if t.cfg.CPGroup != "" {
		return n + "@" + t.cfg.CPGroup
	}
	return n
}

// Setup checks the ops and gets the proxies. CP objects are created only
// when the workload uses CP ops, so that IMap workloads run on a cluster
// without a CP subsystem. A workload's options "cp" and "refs" apply unless
// the user set them on the URL or with --target-opt. In a workload of CP ops
// only, the load phase's INSERTs set the references (or the counter), so
// that GET and CAS find a value.
func (t *Target) Setup(ctx context.Context, w *workload.Spec) error {
	t.check, t.fieldLen, t.fieldCount = w.CheckValues, w.FieldLength, w.FieldCount
	if len(w.Options) > 0 && t.u != nil {
		c, err := parseConfig(t.u, t.opts, w.Options)
		if err != nil {
			return err
		}
		t.cfg.Longs = c.Longs
		t.cfg.CP, t.cfg.Refs, t.cfg.Permits, t.cfg.TryTimeout, t.cfg.Hold = c.CP, c.Refs, c.Permits, c.TryTimeout, c.Hold
	}
	var needRef, needLong, needMap, needLock bool
	for _, m := range w.Mix {
		if m.Weight <= 0 {
			continue
		}
		switch m.Op {
		case vocab.OpRead, vocab.OpUpdate, vocab.OpInsert, vocab.OpWrite, vocab.OpDelete, vocab.OpRMW:
			needMap = true
		case vocab.OpSet, vocab.OpGet, vocab.OpCAS:
			switch t.cfg.CP {
			case "long":
				needLong = true
			case "lock", "semaphore":
				if m.Op == vocab.OpGet {
					return adapter.Configf("hazelcast: cp=%s has no GET (fix: SET locks and unlocks, or acquires and releases; CAS tries within try_timeout)", t.cfg.CP)
				}
				needLock = true
			default:
				needRef = true
			}
		case vocab.OpIncr:
			needLong = true
		case vocab.OpScan:
			return adapter.Configf("hazelcast: SCAN (YCSB workload E) is not supported: an IMap has no key order (fix: choose a workload without SCAN)")
		default:
			return adapter.Configf("hazelcast: op %s is not supported (fix: use READ, UPDATE, INSERT, WRITE, DELETE, READ-MODIFY-WRITE, SET, GET, CAS or INCR)", m.Op)
		}
	}
	if len(w.Mix) == 0 {
		needMap = true
	}
	t.cpOnly = !needMap
	if err := t.proxies(ctx, needMap, needRef, needLong); err != nil {
		return err
	}
	if needLock && t.locks == nil {
		return t.openLocks(ctx)
	}
	return nil
}

func (t *Target) proxies(ctx context.Context, needMap, needRef, needLong bool) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setup = true
	if needMap && t.m == nil {
		m, err := t.client.GetMap(ctx, t.cfg.Map)
		if err != nil {
			return fmt.Errorf("hazelcast: map %q: %w", t.cfg.Map, classify(err))
		}
		t.m = m
	}
	if needRef && t.refs == nil {
		for i := 0; i < t.cfg.Refs; i++ {
			name := t.cfg.Ref
			if t.cfg.Refs > 1 {
				name += "-" + strconv.Itoa(i)
			}
			r, err := t.client.CPSubsystem().GetAtomicRef(ctx, t.cpName(name))
			if err != nil {
				return cpError(t.cfg, "IAtomicReference", err)
			}
			t.refs = append(t.refs, r)
		}
	}
	if needLong && t.long == nil {
		for i := 0; i < t.cfg.Longs; i++ {
			name := t.cfg.Long
			if t.cfg.Longs > 1 {
				name += "-" + strconv.Itoa(i)
			}
			l, err := t.client.CPSubsystem().GetAtomicLong(ctx, t.cpName(name))
			if err != nil {
				return cpError(t.cfg, "IAtomicLong", err)
			}
			t.longs = append(t.longs, l)
		}
		t.long = t.longs[0]
	}
	// The first call on a fresh CP subsystem creates its CP group (a Raft
	// election): wait for it here, with connect_timeout, rather than let the
	// first timed operations of the load phase time out.
	wctx, cancel := context.WithTimeout(ctx, t.cfg.ConnectTimeout)
	defer cancel()
	for _, r := range t.refs {
		if _, err := r.Get(wctx); err != nil {
			return cpError(t.cfg, "IAtomicReference", err)
		}
	}
	for _, l := range t.longs {
		if _, err := l.Get(wctx); err != nil {
			return cpError(t.cfg, "IAtomicLong", err)
		}
	}
	return nil
}

// cpError explains a CP-subsystem failure at Setup (most often: the
// cluster has no CP subsystem, or too few members for it).
func cpError(cfg *Config, what string, err error) error {
	return fmt.Errorf("hazelcast: %s %q: %w (fix: the CP subsystem needs cp-subsystem.cp-member-count >= 3 on the members, Hazelcast 5.3/5.4 community or enterprise, and a majority of CP members up)", what, cfg.Ref, classify(err))
}

// NewWorker returns a worker; all workers share the client (it multiplexes
// invocations over one connection per member).
func (t *Target) NewWorker(id int) (adapter.Worker, error) {
	t.mu.Lock()
	setup := t.setup
	t.mu.Unlock()
	if !setup {
		if err := t.proxies(context.Background(), true, false, false); err != nil {
			return nil, err
		}
	}
	return &worker{t: t}, nil
}

// Close shuts the client down. It does not destroy the map or CP objects:
// a following run may read what this one loaded.
func (t *Target) Close() error {
	if t.locks != nil {
		t.locks.close() // its session: what it holds is released at once
	}
	return t.client.Shutdown(context.Background())
}

// Describe reports the cluster, the members the client sees and the objects used.
func (t *Target) Describe(ctx context.Context) vocab.Info {
	var nodes []string
	version := ""
	t.mu.Lock()
	for a, v := range t.members {
		nodes = append(nodes, a)
		version = v
	}
	t.mu.Unlock()
	sort.Strings(nodes)
	d := map[string]string{
		"cluster": t.cfg.Cluster,
		"map":     t.cfg.Map,
		"ref":     t.cpName(t.cfg.Ref),
		"refs":    strconv.Itoa(t.cfg.Refs),
		"long":    t.cpName(t.cfg.Long),
		"cp":      t.cfg.CP,
		"timeout": t.cfg.Timeout.String(),
		"client":  "hazelcast-go-client v1.6.0",
	}
	if t.cfg.Longs > 1 {
		d["longs"] = strconv.Itoa(t.cfg.Longs)
	}
	if t.locks != nil {
		d["object"] = t.cfg.Lock + "-N"
		if t.cfg.CP == "semaphore" {
			d["object"] = t.cfg.Semaphore + "-N"
			d["permits"] = strconv.Itoa(t.cfg.Permits)
		}
		d["cp_group"] = t.locks.group.name
		d["hold"], d["try_timeout"] = t.cfg.Hold.String(), t.cfg.TryTimeout.String()
		t.locks.mu.Lock()
		d["session_ttl"] = t.locks.ttl.String()
		t.locks.mu.Unlock()
	}
	return vocab.Info{Kind: "hazelcast", URL: "hazelcast://" + strings.Join(t.cfg.Addrs, ",") + "?cluster=" + url.QueryEscape(t.cfg.Cluster),
		Version: version, Nodes: nodes, Details: d}
}

// Summary adds the compare-and-set calls that did not apply and the members
// that left the cluster during the run.
func (t *Target) Summary(ctx context.Context) map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := map[string]string{
		"cas_failed":   strconv.FormatInt(t.casFailed.Load(), 10),
		"members_left": strconv.Itoa(t.left),
		"members_now":  strconv.Itoa(len(t.members)),
	}
	if t.locks != nil {
		out["lock_busy"] = strconv.FormatInt(t.locks.busy.Load(), 10)
		out["sessions_expired"] = strconv.FormatInt(t.locks.expired.Load(), 10)
	}
	return out
}

type worker struct {
	t        *Target
	thread   int64   // the worker's thread id in the CP session (cp=lock, semaphore)
	name     []byte  // the object name of the op
	last     []byte  // value this worker last set or read on a reference (for CAS)
	lastLong []int64 // per counter, the value this worker last set or read (for CAS)
}

var _ adapter.Worker = (*worker)(nil)

// Do executes one request. It bounds the call with the timeout option
// itself: with members gone the client can otherwise retry an invocation
// past its own InvocationTimeout (seen with IMap.Set after two of three
// members were killed).
func (w *worker) Do(ctx context.Context, req *workload.Request) error {
	ctx, cancel := context.WithTimeout(ctx, w.t.cfg.Timeout)
	defer cancel()
	t := w.t
	switch req.Op {
	case vocab.OpRead:
		return w.get(ctx, req)
	case vocab.OpInsert:
		if t.cpOnly {
			r := *req
			r.Op = vocab.OpSet
			if t.locks != nil {
				return w.doLock(ctx, &r)
			}
			if t.cfg.CP == "long" || t.refs == nil {
				return w.doLong(ctx, &r)
			}
			return w.doRef(ctx, &r)
		}
		return w.set(ctx, req)
	case vocab.OpUpdate, vocab.OpWrite:
		return w.set(ctx, req)
	case vocab.OpRMW:
		if err := w.get(ctx, req); err != nil {
			return err
		}
		return w.set(ctx, req)
	case vocab.OpDelete:
		if t.m == nil {
			return adapter.ErrUnsupported
		}
		return classify(t.m.Delete(ctx, string(req.Key)))
	case vocab.OpIncr:
		if t.long == nil {
			return adapter.ErrUnsupported
		}
		_, err := t.longs[req.KeyNum%uint64(len(t.longs))].IncrementAndGet(ctx)
		return classify(err)
	case vocab.OpSet, vocab.OpGet, vocab.OpCAS:
		switch t.cfg.CP {
		case "long":
			return w.doLong(ctx, req)
		case "lock", "semaphore":
			return w.doLock(ctx, req)
		}
		return w.doRef(ctx, req)
	}
	return adapter.ErrUnsupported
}

func (w *worker) get(ctx context.Context, req *workload.Request) error {
	if w.t.m == nil {
		return adapter.ErrUnsupported
	}
	v, err := w.t.m.Get(ctx, string(req.Key))
	if err != nil {
		return classify(err)
	}
	if w.t.check {
		b, _ := v.([]byte) // nil (absent) is missing; another type is corrupt
		if v != nil && b == nil {
			return adapter.ErrValidationCorrupt
		}
		return adapter.Verdict(workload.CheckRecord(b, req.Key, w.t.fieldLen, w.t.fieldCount))
	}
	if v == nil {
		return adapter.ErrNotFound
	}
	return nil
}

func (w *worker) set(ctx context.Context, req *workload.Request) error {
	if w.t.m == nil {
		return adapter.ErrUnsupported
	}
	// The client serializes the value before Set returns: req.Value is not kept.
	return classify(w.t.m.Set(ctx, string(req.Key), req.Value))
}

func (w *worker) doRef(ctx context.Context, req *workload.Request) error {
	refs := w.t.refs
	if refs == nil {
		return adapter.ErrUnsupported
	}
	r := refs[req.KeyNum%uint64(len(refs))]
	switch req.Op {
	case vocab.OpSet:
		if err := r.Set(ctx, req.Value); err != nil {
			return classify(err)
		}
		w.remember(req.Value)
	case vocab.OpGet:
		v, err := r.Get(ctx)
		if err != nil {
			return classify(err)
		}
		if v == nil {
			return adapter.ErrNotFound
		}
		if b, ok := v.([]byte); ok {
			w.last = b // the client made this slice for us
		}
	case vocab.OpCAS:
		var expect any
		if w.last != nil {
			expect = w.last
		}
		ok, err := r.CompareAndSet(ctx, expect, req.Value)
		if err != nil {
			return classify(err)
		}
		if ok {
			w.remember(req.Value)
		} else {
			w.t.casFailed.Add(1)
			w.last = nil
		}
	}
	return nil
}

// remember keeps a copy of v as the expected value of the next CAS.
func (w *worker) remember(v []byte) {
	if len(w.last) == len(v) && bytes.Equal(w.last, v) {
		return
	}
	if cap(w.last) < len(v) {
		w.last = make([]byte, len(v))
	}
	w.last = w.last[:len(v)]
	copy(w.last, v)
}

func (w *worker) doLong(ctx context.Context, req *workload.Request) error {
	longs := w.t.longs
	if longs == nil {
		return adapter.ErrUnsupported
	}
	if w.lastLong == nil {
		w.lastLong = make([]int64, len(longs))
	}
	i := req.KeyNum % uint64(len(longs))
	l, last := longs[i], &w.lastLong[i]
	var err error
	switch req.Op {
	case vocab.OpSet:
		err = l.Set(ctx, int64(req.KeyNum))
		if err == nil {
			*last = int64(req.KeyNum)
		}
	case vocab.OpGet:
		*last, err = l.Get(ctx)
	case vocab.OpCAS:
		var ok bool
		ok, err = l.CompareAndSet(ctx, *last, *last+1)
		if err == nil {
			if ok {
				*last++
			} else {
				w.t.casFailed.Add(1)
			}
		}
	}
	return classify(err)
}

func (w *worker) Close() error { return nil }

// classify maps the client's errors onto target error classes.
func classify(err error) error { return adapter.WithClass(err, classOf) }

func classOf(err error) vocab.Class {
	var ce *memberError
	if errors.As(err, &ce) {
		return cpClass(ce.className)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, hzerrors.ErrOperationTimeout), errors.Is(err, hzerrors.ErrTimeout):
		return vocab.ClassTimeout
	case errors.Is(err, hzerrors.ErrHazelcastOverLoad), errors.Is(err, hzerrors.ErrCannotReplicateException):
		return vocab.ClassOverloaded
	case errors.Is(err, hzerrors.ErrClientOffline), errors.Is(err, hzerrors.ErrClientNotActive),
		errors.Is(err, hzerrors.ErrTargetDisconnected), errors.Is(err, hzerrors.ErrMemberLeft),
		errors.Is(err, hzerrors.ErrTargetNotMember), errors.Is(err, hzerrors.ErrHazelcastInstanceNotActive),
		errors.Is(err, hzerrors.ErrIO), errors.Is(err, hzerrors.ErrRetryableIO),
		errors.Is(err, hzerrors.ErrPartitionMigrating), errors.Is(err, hzerrors.ErrNotLeaderException),
		errors.Is(err, hzerrors.ErrLeaderDemotedException), errors.Is(err, hzerrors.ErrCallerNotMember),
		errors.Is(err, hzerrors.ErrCPGroupDestroyedException), errors.Is(err, hzerrors.ErrIndeterminateOperationState):
		return vocab.ClassUnavailable
	case errors.Is(err, hzerrors.ErrAuthentication), errors.Is(err, hzerrors.ErrSecurity),
		errors.Is(err, hzerrors.ErrHazelcastSerialization), errors.Is(err, hzerrors.ErrIllegalArgument),
		errors.Is(err, hzerrors.ErrClassCast):
		return vocab.ClassRejected
	}
	return vocab.ClassOther
}
