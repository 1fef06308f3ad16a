// Package registry is the explicit list of targets: no init() magic, one line
// per adapter. It is the only package that imports every adapter.
package registry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql"
	"github.com/platbench/platbench/adapter/embedded"
	"github.com/platbench/platbench/adapter/fake"
	"github.com/platbench/platbench/adapter/hazelcast"
	"github.com/platbench/platbench/adapter/kafka"
	"github.com/platbench/platbench/adapter/null"
	"github.com/platbench/platbench/adapter/redis"
	"github.com/platbench/platbench/internal/redact"
)

// Entries lists every target, in the order `platbench targets` prints them.
var Entries = []adapter.Entry{
	{Name: "embedded", Summary: "pebble LSM storage engine in a local directory (the default; no server needed)", Example: "embedded:///var/tmp/pb?sync=true", Open: embedded.Open, Options: embedded.Options},
	{Name: "null", Summary: "does nothing: measures platbench's own overhead", Example: "null", Open: null.Open, Options: null.Options},
	{Name: "fake", Summary: "scripted latency, stalls and errors, for testing the runner", Example: "fake://?latency=1ms&stall_at=5s&stall_for=500ms", Open: fake.Open, Options: fake.Options},
	{Name: "redis", Summary: "Redis or Valkey server or cluster: GET/SET or YCSB hashes, pipelining (redis://host:6379[/db], rediss://; credentials: --target-user, --target-password-file)", Example: "redis://127.0.0.1:6379?mode=hash&pipeline=1", Open: redis.Open, Options: redis.Options},
	{Name: "rediss", Summary: "Redis or Valkey over TLS (same options as redis)", Example: "rediss://host:6380?tls_insecure=true", Open: redis.Open, Options: redis.Options},
	{Name: "hazelcast", Summary: "Hazelcast cluster: IMap for YCSB ops, CP subsystem IAtomicReference/IAtomicLong for SET/GET/CAS/INCR", Example: "hazelcast://127.0.0.1:5701,127.0.0.1:5702?cluster=dev", Open: hazelcast.Open, Options: hazelcast.Options},
	{Name: "cql", Summary: "Apache Cassandra, ScyllaDB, DataStax Enterprise over CQL: YCSB usertable or cassandra-stress standard1, token/DC-aware, per-op consistency", Example: "cql://host1,host2:9042/platbench?read_consistency=LOCAL_QUORUM&dc=dc1&schema=stress", Open: cql.Open, Options: cql.Options},
	{Name: "kafka", Summary: "Kafka-protocol broker (Apache Kafka, Redpanda): produce, consume, streaming, backlog drain; SASL/TLS options", Example: "kafka://127.0.0.1:9092?acks=all&partitions=16&producers=4", Open: kafka.Open, Options: kafka.Options},
}

// Open opens the target named by rawURL ("embedded", "null",
// "redis://127.0.0.1:6379", ...). A bare name is a URL with only a scheme.
func Open(ctx context.Context, rawURL string, opts map[string]string) (adapter.Target, error) {
	name := rawURL
	u := &url.URL{Scheme: rawURL}
	// A bare name may carry options as a query ("embedded?sync=true"), as a
	// URL with a host does.
	if n, q, ok := strings.Cut(rawURL, "?"); ok && !strings.Contains(n, "://") {
		rawURL = n + "://?" + q
	}
	if strings.Contains(rawURL, "://") {
		var err error
		u, err = redact.Check(rawURL)
		if err != nil {
			return nil, adapter.Configf("bad target URL %s: %v (fix: a URL such as redis://127.0.0.1:6379; a password with special characters is best kept out of it, in a password file or $PLATBENCH_TARGET_PASSWORD)", redact.URL(rawURL), err)
		}
		if err := checkPorts(u); err != nil {
			return nil, adapter.Configf("bad target URL %s: %v (fix: a port from 1 to 65535, e.g. redis://127.0.0.1:6379)", redact.URL(rawURL), err)
		}
		name = u.Scheme
	} else if strings.ContainsAny(name, "@:") {
		// Not a name: a URL without its "//" (cql:user:pass@host) or its
		// scheme. Not quoted: it may hold a password.
		return nil, adapter.Configf("the target is neither a target name nor a URL with scheme:// (fix: a URL such as cql://HOST:9042, or a name 'platbench targets' lists)")
	}
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Open(ctx, u, opts)
}

// checkPorts refuses a port that is not a number from 1 to 65535 in any of
// the URL's hosts ("h1,h2:9042" lists several).
func checkPorts(u *url.URL) error {
	for _, h := range strings.Split(u.Host, ",") {
		if i := strings.LastIndex(h, "]"); i >= 0 {
			h = h[i+1:] // an IPv6 literal: its port follows the ']'
		}
		_, port, ok := strings.Cut(h, ":")
		if !ok {
			continue
		}
		if port == "" {
			return errors.New("an empty port after the host")
		}
		n, err := strconv.Atoi(port)
		switch {
		case err != nil && len(port) <= 10 && strings.Trim(port, "0123456789") == "":
			return fmt.Errorf("the port %s is out of range", port)
		case err != nil:
			return errors.New("a port that is not a number") // not quoted: it may be a password
		case n < 1 || n > 65535:
			return fmt.Errorf("the port %d is out of range", n)
		}
	}
	return nil
}

// Lookup returns the entry named name.
func Lookup(name string) (adapter.Entry, error) {
	names := make([]string, len(Entries))
	for i, e := range Entries {
		if e.Name == name {
			return e, nil
		}
		names[i] = e.Name
	}
	return adapter.Entry{}, adapter.Configf("unknown target %q (fix: one of %s; 'platbench targets' lists them)", name, strings.Join(names, ", "))
}
