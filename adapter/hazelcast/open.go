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
	"context"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	hz "github.com/hazelcast/hazelcast-go-client"
	"github.com/hazelcast/hazelcast-go-client/cluster"
	"github.com/hazelcast/hazelcast-go-client/types"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

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

// Target's abilities, checked at compile time (adapter/README.md).
var (
	_ adapter.Target         = (*Target)(nil)
	_ adapter.Describer      = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.ReadChecker    = (*Target)(nil)
	_ adapter.Manifester     = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
	_ adapter.Summarizer     = (*Target)(nil)
)

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
		d["cp_group"] = t.locks.group.Name
		d["hold"], d["try_timeout"] = t.cfg.Hold.String(), t.cfg.TryTimeout.String()
		t.locks.mu.Lock()
		d["session_ttl"] = t.locks.ttl.String()
		t.locks.mu.Unlock()
	}
	return vocab.Info{Kind: "hazelcast", URL: "hazelcast://" + strings.Join(t.cfg.Addrs, ",") + "?cluster=" + url.QueryEscape(t.cfg.Cluster),
		Version: version, Nodes: nodes, Details: d}
}
