package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/adapter/cql/scylla"
	"github.com/platbench/platbench/vocab"
)

// dialTarget is what a dial opens: a connection to the node's CQL port
// (aware ""), or one to shard of shards through the shard-aware port at
// aware (shards.go).
type dialTarget struct {
	aware         string
	shard, shards int
}

// dialNative opens a connection of the native worker to host (protocol v4,
// adapter/cql/cqlwire), reads what the node supports (ScyllaDB's sharding
// and extensions, with shard_aware), authenticates and prepares stmts.
// Failures are explained in one line with the fix.
func dialNative(ctx context.Context, cfg *Config, host string, stmts []string, to dialTarget) dialResult {
	nc, aware, err := dialSocket(ctx, cfg, host, to)
	if err != nil {
		return dialResult{err: &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("cql: cannot reach %s: %v (fix: check that the node runs and listens on native_transport_port)", host, err)}}
	}
	c, err := cqlwire.NewConn(host, nc)
	if err != nil {
		return dialResult{err: err}
	}
	r := dialResult{c: c, aware: aware}
	// The handshake and the preparations run one request at a time, under
	// the connect timeout.
	deadline := time.Now().Add(cfg.ConnectTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if cfg.ShardAware {
		opts, err := c.Options(deadline)
		if err != nil {
			c.Close()
			return dialResult{err: startupErr(cfg, host, err)}
		}
		// A node whose ScyllaDB options cannot be read is served as one
		// that has none; the worker reports it (supErr).
		r.sup, r.supErr = scylla.Parse(opts)
	}
	if err := c.Startup(cfg.Username, cfg.Password, deadline, r.sup.Startup()...); err != nil {
		c.Close()
		return dialResult{err: startupErr(cfg, host, err)}
	}
	if cfg.sessionKeyspace != "" {
		if err := c.Use(cfg.sessionKeyspace, deadline); err != nil {
			c.Close()
			return dialResult{err: requestErr(fmt.Sprintf("USE %s on %s: ", cfg.sessionKeyspace, host), err)}
		}
	}
	for _, s := range stmts {
		if err := c.Prepare(s, deadline); err != nil {
			c.Close()
			return dialResult{err: requestErr(fmt.Sprintf("preparing %q on %s: ", s, host), err)}
		}
	}
	c.ClearDeadlines()
	return r
}

// dialSocket connects to host, or to the shard to.shard through the
// shard-aware port when there is one; when that fails (a firewall, a NAT
// that rewrites source ports), to host: the node then picks the shard.
// aware says which it was.
func dialSocket(ctx context.Context, cfg *Config, host string, to dialTarget) (nc net.Conn, aware bool, err error) {
	d := net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if to.aware != "" {
		lo, hi := scylla.PortRange()
		if nc, err = scylla.DialShard(ctx, d, to.aware, to.shard, to.shards, lo, hi); err == nil {
			return nc, true, nil
		}
	}
	nc, err = d.DialContext(ctx, "tcp", host)
	return nc, false, err
}

// startupErr explains a failed handshake with host.
func startupErr(cfg *Config, host string, err error) error {
	var se *cqlwire.ServerError
	switch {
	case errors.Is(err, cqlwire.ErrAuthRequired):
		return adapter.Configf("cql: %s requires authentication (fix: cql://user:password@%s, or the options user=NAME and password=SECRET)", host, host)
	case !errors.As(err, &se):
		return wireErr(err)
	case se.Req == "AUTH_RESPONSE" && se.Code == cqlwire.CodeBadCredential:
		return adapter.Configf("cql: authentication failed for user %q on %s: %s (fix: check user and password, e.g. cql://user:password@%s)", cfg.Username, host, firstLine(se.Msg), host)
	case se.Req == "AUTH_RESPONSE":
		return fmt.Errorf("cql: authenticating on %s: %s (%w)", host, se.Msg, serverError(se.Code))
	case se.Code == cqlwire.CodeProtocol:
		return adapter.Configf("cql: %s does not speak CQL protocol v4: %s (fix: the option driver=gocql)", host, firstLine(se.Msg))
	}
	return fmt.Errorf("cql: %s on %s: %s (%w)", se.Req, host, se.Msg, serverError(se.Code))
}

// requestErr explains a failed USE or PREPARE; what names the request.
func requestErr(what string, err error) error {
	var se *cqlwire.ServerError
	if errors.As(err, &se) {
		return fmt.Errorf("cql: %s%s: %w", what, se.Msg, serverError(se.Code))
	}
	return wireErr(err)
}

// wireErr classifies a network failure of cqlwire's requests and adds the
// fix to a protocol version the native worker does not speak.
func wireErr(err error) error {
	var ne *cqlwire.NetError
	if errors.As(err, &ne) {
		return &adapter.Error{Class: netClass(ne.Err), Err: ne}
	}
	var ve *cqlwire.VersionError
	if errors.As(err, &ve) {
		return fmt.Errorf("%w (fix: use driver=gocql for servers without protocol v4)", err)
	}
	return err
}

// netErr classifies a network failure.
func netErr(host string, err error) error {
	var te *adapter.Error
	if errors.As(err, &te) {
		return err
	}
	return &adapter.Error{Class: netClass(err), Err: fmt.Errorf("cql: %s: %w", host, err)}
}

func netClass(err error) vocab.Class {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return vocab.ClassTimeout
	}
	return vocab.ClassUnavailable
}
