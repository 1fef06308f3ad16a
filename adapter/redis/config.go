package redis

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/adapter"
)

// Config is the redis target's configuration, from the URL and the target
// options (declared in options; `platbench targets redis` prints them).
type Config struct {
	// Addrs are the servers (host:port); several only in cluster mode. Default 127.0.0.1:6379.
	Addrs []string
	// TLS is set for rediss:// URLs.
	TLS bool
	// Insecure skips TLS certificate verification (option tls_insecure). Default false.
	Insecure bool
	// User and Password authenticate (AUTH); from the URL's userinfo.
	User, Password string
	// DB is the database number (URL path /N). Default 0.
	DB int
	// Mode is "kv" (GET/SET of the record) or "hash" (HSET/HGETALL of its fields). Default kv.
	Mode string
	// Pipeline is the most commands in flight on one connection (option
	// pipeline). Default 1.
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

func (c *Config) options() *adapter.OptionSet {
	s := adapter.NewOptionSet("redis")
	s.Enum(&c.Mode, "mode", "kv", "kv: the record is one string (GET/SET); hash: a hash of field0..fieldN-1 (HSET/HGETALL), as YCSB's redis binding stores it", "kv", "hash")
	s.Count(&c.Pipeline, "pipeline", "1", "commands in flight per connection (redis-benchmark -P)").Range(1, 10000).WithUnit("commands")
	s.Count(&c.Conns, "conns", "", "fixed number of connections the ops in flight are spread over; with pipeline, conns x pipeline in flight").
		Range(1, 10000).Computed("one per pipeline ops in flight")
	s.Enum(&c.Cluster, "cluster", "auto", "auto asks the server (INFO cluster); true or false force cluster mode", "auto", "true", "false")
	s.Duration(&c.Timeout, "timeout", "5s", "bound of connecting and of each command").Positive()
	s.Bool(&c.Insecure, "tls_insecure", "false", "rediss://: skip the check of the server's certificate")
	return s
}

// Options declares the redis target's options.
func Options() *adapter.OptionSet { return new(Config).options() }

// ParseConfig builds a Config from the URL and options (options win over the
// URL's query). It reports every problem at once.
func ParseConfig(u *url.URL, opts map[string]string) (*Config, error) {
	cfg := &Config{}
	s := cfg.options()
	s.ParseURL(u, opts)
	switch u.Scheme {
	case "redis", "valkey":
	case "rediss", "valkeys":
		cfg.TLS = true
	default:
		s.Problem("scheme %q is not redis:// or rediss:// (fix: redis://host:6379)", u.Scheme)
	}
	cfg.Addrs = addrs(u.Host)
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
			s.Problem("database %q is not a number (fix: /0 to /15 at the end of the URL)", p)
		}
		cfg.DB = db
	}
	if len(cfg.Addrs) > 1 && cfg.Cluster == "false" {
		s.Problem("several addresses need cluster mode (fix: drop cluster=false)")
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// addrs splits the URL's host list; a host without a port gets 6379.
func addrs(host string) []string {
	if host == "" {
		host = "127.0.0.1:6379"
	}
	var out []string
	for _, h := range strings.Split(host, ",") {
		if h == "" {
			continue
		}
		if _, _, err := net.SplitHostPort(h); err != nil {
			h = net.JoinHostPort(h, "6379")
		}
		out = append(out, h)
	}
	return out
}
