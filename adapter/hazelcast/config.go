package hazelcast

import (
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/platbench/platbench/adapter"
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
