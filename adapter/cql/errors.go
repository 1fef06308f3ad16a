package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/vocab"
)

// classOf maps a driver error to a platbench error class. Server exceptions
// carry a protocol error code; client-side failures are driver sentinels or
// network errors.
func classOf(err error) vocab.Class {
	if err == nil {
		return vocab.ClassNone
	}
	var re gocql.RequestError
	if errors.As(err, &re) {
		switch re.Code() {
		case gocql.ErrCodeWriteTimeout, gocql.ErrCodeReadTimeout:
			return vocab.ClassTimeout
		case gocql.ErrCodeUnavailable, gocql.ErrCodeBootstrapping,
			gocql.ErrCodeReadFailure, gocql.ErrCodeWriteFailure, gocql.ErrCodeTruncate:
			return vocab.ClassUnavailable
		case gocql.ErrCodeOverloaded:
			return vocab.ClassOverloaded
		case gocql.ErrCodeCredentials, gocql.ErrCodeUnauthorized, gocql.ErrCodeInvalid,
			gocql.ErrCodeSyntax, gocql.ErrCodeConfig, gocql.ErrCodeAlreadyExists, gocql.ErrCodeProtocol:
			return vocab.ClassRejected
		}
		return vocab.ClassOther
	}
	switch {
	case errors.Is(err, gocql.ErrTimeoutNoResponse), errors.Is(err, context.DeadlineExceeded):
		return vocab.ClassTimeout
	case errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed),
		errors.Is(err, gocql.ErrUnavailable), errors.Is(err, gocql.ErrSessionClosed):
		return vocab.ClassUnavailable
	case errors.Is(err, gocql.ErrNotFound):
		return vocab.ClassNotFound
	}
	var ne net.Error
	if errors.As(err, &ne) {
		if ne.Timeout() {
			return vocab.ClassTimeout
		}
		return vocab.ClassUnavailable
	}
	return vocab.ClassOther
}

// classify wraps err with its class. It allocates, but only on the error path.
func classify(err error) error { return adapter.WithClass(err, classOf) }

// explainConnect turns a failure to open a session into one line naming the
// problem and the fix.
func explainConnect(c *Config, err error) error {
	hosts := strings.Join(c.Hosts, ",")
	msg := err.Error()
	var re gocql.RequestError
	switch {
	case errors.As(err, &re) && re.Code() == gocql.ErrCodeCredentials,
		strings.Contains(msg, "Provided username") || strings.Contains(msg, "and/or password are incorrect"):
		return adapter.Configf("cql: authentication failed for user %q on %s: %s (fix: check the user and the password: cql://USER@%s, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", c.Username, hosts, firstLine(msg), hosts)
	case strings.Contains(msg, "authentication required"), strings.Contains(msg, "Authenticator"):
		return adapter.Configf("cql: %s requires authentication: %s (fix: cql://USER@%s, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", hosts, firstLine(msg), hosts)
	// Before the reachability cases: a failed handshake also reads
	// "unable to discover protocol version".
	case strings.Contains(msg, "tls:") || strings.Contains(msg, "x509"):
		return adapter.Configf("cql: TLS handshake with %s failed: %s (fix: check tls_ca/tls_cert/tls_key, or drop tls=true if the server has no TLS)", hosts, firstLine(msg))
	case strings.Contains(msg, "connection refused"), strings.Contains(msg, "no route to host"),
		strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "no such host"),
		strings.Contains(msg, "no connections were made"), strings.Contains(msg, "unable to discover protocol version"):
		return &adapter.Error{Class: vocab.ClassUnavailable, Err: adapter.Configf(
			"cql: cannot reach any contact point %s: %s (fix: check that Cassandra runs and listens on native_transport_port, and the host:port in the URL)", hosts, firstLine(msg))}
	}
	return &adapter.Error{Class: classOf(err), Err: adapter.Configf("cql: cannot open a session to %s: %s", hosts, firstLine(msg))}
}

// startupErr explains a failed handshake with host.
func startupErr(cfg *Config, host string, err error) error {
	var se *cqlwire.ServerError
	switch {
	case errors.Is(err, cqlwire.ErrAuthRequired):
		return adapter.Configf("cql: %s requires authentication (fix: cql://USER@%s, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", host, host)
	case !errors.As(err, &se):
		return wireErr(err)
	case se.Req == "AUTH_RESPONSE" && se.Code == cqlwire.CodeBadCredential:
		return adapter.Configf("cql: authentication failed for user %q on %s: %s (fix: check the user and the password: cql://USER@%s, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", cfg.Username, host, firstLine(se.Msg), host)
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// serverErrors are the error values the native worker returns for server
// exceptions: one per code, made once, so that a run full of timeouts does
// not allocate an error per op. The last message of each
// code is kept by the target for the result (see nativeStats).
var serverErrors = map[int32]*adapter.Error{}

func init() {
	for code, def := range map[int32]struct {
		class vocab.Class
		name  string
	}{
		cqlwire.CodeServer:        {vocab.ClassOther, "server error"},
		cqlwire.CodeProtocol:      {vocab.ClassRejected, "protocol error"},
		cqlwire.CodeBadCredential: {vocab.ClassRejected, "bad credentials"},
		cqlwire.CodeUnavailable:   {vocab.ClassUnavailable, "unavailable (not enough replicas alive)"},
		cqlwire.CodeOverloaded:    {vocab.ClassOverloaded, "overloaded"},
		cqlwire.CodeBootstrapping: {vocab.ClassUnavailable, "coordinator is bootstrapping"},
		cqlwire.CodeTruncate:      {vocab.ClassUnavailable, "truncate error"},
		cqlwire.CodeWriteTimeout:  {vocab.ClassTimeout, "write timeout (server side)"},
		cqlwire.CodeReadTimeout:   {vocab.ClassTimeout, "read timeout (server side)"},
		cqlwire.CodeReadFailure:   {vocab.ClassUnavailable, "read failure"},
		cqlwire.CodeFunction:      {vocab.ClassOther, "function failure"},
		cqlwire.CodeWriteFailure:  {vocab.ClassUnavailable, "write failure"},
		cqlwire.CodeSyntax:        {vocab.ClassRejected, "syntax error"},
		cqlwire.CodeUnauthorized:  {vocab.ClassRejected, "unauthorized"},
		cqlwire.CodeInvalid:       {vocab.ClassRejected, "invalid request"},
		cqlwire.CodeConfig:        {vocab.ClassRejected, "configuration error"},
		cqlwire.CodeAlreadyExists: {vocab.ClassRejected, "already exists"},
		cqlwire.CodeUnprepared:    {vocab.ClassOther, "statement not prepared on this node"},
	} {
		serverErrors[code] = &adapter.Error{Class: def.class, Err: fmt.Errorf("cql: %s (server code 0x%04X)", def.name, code)}
	}
}

// errRateLimited is ScyllaDB's per-partition rate-limit error
// (SCYLLA_RATE_LIMIT_ERROR; its code is the one the node advertised):
// overloaded, as the extension asks drivers not to retry it.
var errRateLimited = &adapter.Error{Class: vocab.ClassOverloaded, Err: errors.New("cql: rate limit reached (ScyllaDB's per-partition rate limit)")}

// serverError returns the error value of an exception code.
func serverError(code int32) *adapter.Error {
	if e, ok := serverErrors[code]; ok {
		return e
	}
	return &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("cql: server error code 0x%04X", code)}
}
