package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
	"unsafe"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// nconn is one connection of the native worker: a TCP socket speaking
// protocol v4, with the statements prepared on it. It is used by one
// goroutine. Reads go straight to the socket through syscall.RawConn, so
// that a worker holding connections to several nodes can also try a read
// without blocking (see pworker.Poll).
type nconn struct {
	host string // host:port
	nc   net.Conn
	rc   syscall.RawConn
	fd   int

	wbuf []byte // requests not yet written
	rbuf []byte // rbuf[r:w] is read but not yet consumed
	r, w int

	ids [][]byte // prepared statement ids, in statements.all() order

	rdl time.Time // read deadline currently set (zero: none)

	// State of the read callback, a method value made once (a closure per
	// read would allocate).
	readFn func(fd uintptr) bool
	block  bool
	rn     int
	rerr   error
}

const rbufSize = 64 << 10

// dialNative opens a connection to host, authenticates and prepares stmts.
// Failures are explained in one line with the fix.
func dialNative(ctx context.Context, cfg *Config, host string, stmts []string) (*nconn, error) {
	d := net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	nc, err := d.DialContext(ctx, "tcp", host)
	if err != nil {
		return nil, &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("cql: cannot reach %s: %v (fix: check that the node runs and listens on native_transport_port)", host, err)}
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		nc.Close()
		return nil, fmt.Errorf("cql: %s is not a TCP connection", host)
	}
	_ = tc.SetNoDelay(true)
	rc, err := tc.SyscallConn()
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("cql: %s: %w", host, err)
	}
	c := &nconn{host: host, nc: nc, rc: rc, rbuf: make([]byte, rbufSize), wbuf: make([]byte, 0, 16<<10)}
	c.readFn = c.readOnce
	_ = rc.Control(func(fd uintptr) { c.fd = int(fd) })
	// The handshake and the preparations run one request at a time, under
	// the connect timeout.
	deadline := time.Now().Add(cfg.ConnectTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if err := c.handshake(cfg, deadline); err != nil {
		nc.Close()
		return nil, err
	}
	if cfg.sessionKeyspace != "" {
		if err := c.use(cfg.sessionKeyspace, deadline); err != nil {
			nc.Close()
			return nil, err
		}
	}
	for _, s := range stmts {
		id, err := c.prepare(s, deadline)
		if err != nil {
			nc.Close()
			return nil, err
		}
		c.ids = append(c.ids, id)
	}
	// Clear the handshake's deadlines (the write one too: a write failing
	// five seconds into the run would break the connection).
	_ = nc.SetDeadline(time.Time{})
	c.rdl = time.Time{}
	return c, nil
}

// handshake sends STARTUP and answers a PasswordAuthenticator challenge.
func (c *nconn) handshake(cfg *Config, deadline time.Time) error {
	b := appendHeader(c.wbuf[:0], 0, opStartup)
	b = appendShort(b, 1)
	b = appendString(b, "CQL_VERSION")
	b = appendString(b, "3.0.0")
	finishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return err
	}
	switch h.op {
	case opReady:
		return nil
	case opAuthenticate:
		if cfg.Username == "" {
			return adapter.Configf("cql: %s requires authentication (fix: cql://user:password@%s, or the options user=NAME and password=SECRET)", c.host, c.host)
		}
		b = appendHeader(c.wbuf[:0], 0, opAuthResponse)
		token := make([]byte, 0, 2+len(cfg.Username)+len(cfg.Password))
		token = append(append(append(append(token, 0), cfg.Username...), 0), cfg.Password...)
		b = appendBytes(b, token)
		finishFrame(b, 0)
		h, body, err = c.roundTrip(b, deadline)
		if err != nil {
			return err
		}
		if h.op == opAuthSuccess {
			return nil
		}
		if h.op == opError {
			r := reader{b: body}
			code, msg := errorBody(&r)
			if code == codeBadCredential {
				return adapter.Configf("cql: authentication failed for user %q on %s: %s (fix: check user and password, e.g. cql://user:password@%s)", cfg.Username, c.host, firstLine(msg), c.host)
			}
			return fmt.Errorf("cql: authenticating on %s: %s (%w)", c.host, msg, serverError(code))
		}
		return fmt.Errorf("cql: unexpected answer 0x%02X to AUTH_RESPONSE from %s", h.op, c.host)
	case opError:
		r := reader{b: body}
		code, msg := errorBody(&r)
		if code == codeProtocol {
			return adapter.Configf("cql: %s does not speak CQL protocol v4: %s (fix: the option driver=gocql)", c.host, firstLine(msg))
		}
		return fmt.Errorf("cql: STARTUP on %s: %s (%w)", c.host, msg, serverError(code))
	}
	return fmt.Errorf("cql: unexpected answer 0x%02X to STARTUP from %s", h.op, c.host)
}

// use makes ks the connection's keyspace (a profile's statements name
// their table without it).
func (c *nconn) use(ks string, deadline time.Time) error {
	b := appendHeader(c.wbuf[:0], 0, opQuery)
	b = appendLongString(b, `USE "`+strings.ReplaceAll(ks, `"`, `""`)+`"`)
	b = appendShort(b, int(gocql.One))
	b = append(b, 0)
	finishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return err
	}
	if h.op == opError {
		r := reader{b: body}
		code, msg := errorBody(&r)
		return fmt.Errorf("cql: USE %s on %s: %s: %w", ks, c.host, msg, serverError(code))
	}
	return nil
}

// prepare prepares one statement and returns its id.
func (c *nconn) prepare(stmt string, deadline time.Time) ([]byte, error) {
	b := appendHeader(c.wbuf[:0], 0, opPrepare)
	b = appendLongString(b, stmt)
	finishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return nil, err
	}
	r := reader{b: body}
	if h.op == opError {
		code, msg := errorBody(&r)
		return nil, fmt.Errorf("cql: preparing %q on %s: %s: %w", stmt, c.host, msg, serverError(code))
	}
	if h.op != opResult || r.int() != resultPrepared {
		return nil, fmt.Errorf("cql: preparing %q on %s: unexpected answer", stmt, c.host)
	}
	id := r.shortBytes()
	if r.err != nil {
		return nil, r.err
	}
	return append([]byte(nil), id...), nil
}

// roundTrip writes one request and reads the response on stream 0 (only
// while nothing else is in flight). The body is valid until the next read.
func (c *nconn) roundTrip(frame []byte, deadline time.Time) (frameHeader, []byte, error) {
	_ = c.nc.SetDeadline(deadline)
	c.rdl = deadline
	if _, err := c.nc.Write(frame); err != nil {
		return frameHeader{}, nil, netErr(c.host, err)
	}
	for {
		h, body, ok, err := c.next()
		if err != nil {
			return h, nil, err
		}
		if ok {
			if h.stream != 0 {
				continue // an event or a stray response
			}
			var r reader
			r.b = body
			r.skipEnvelope(h.flags)
			return h, r.b, r.err
		}
		if err := c.fill(true); err != nil {
			return h, nil, netErr(c.host, err)
		}
	}
}

// next returns the next whole frame in the read buffer, if there is one.
// The body aliases the buffer: it is valid until the next fill.
func (c *nconn) next() (h frameHeader, body []byte, ok bool, err error) {
	if c.w-c.r < headerLen {
		return h, nil, false, nil
	}
	h, err = parseHeader(c.rbuf[c.r:])
	if err != nil {
		return h, nil, false, err
	}
	if h.flags&flagCompressed != 0 {
		return h, nil, false, errCompressed
	}
	end := c.r + headerLen + h.length
	if end > c.w {
		if need := headerLen + h.length; need > len(c.rbuf) {
			// A frame larger than the buffer (a big scan page): grow once.
			nb := make([]byte, max(need, 2*len(c.rbuf)))
			c.w = copy(nb, c.rbuf[c.r:c.w])
			c.r = 0
			c.rbuf = nb
		}
		return h, nil, false, nil
	}
	body = c.rbuf[c.r+headerLen : end]
	c.r = end
	return h, body, true, nil
}

// fill reads what the socket has into the buffer. With block it waits (up
// to the read deadline) for at least one byte; without, it returns
// errWouldBlock at once when nothing is there.
func (c *nconn) fill(block bool) error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.rbuf) || (c.r > 0 && len(c.rbuf)-c.w < headerLen) {
		c.w = copy(c.rbuf, c.rbuf[c.r:c.w])
		c.r = 0
	}
	if c.w == len(c.rbuf) {
		nb := make([]byte, 2*len(c.rbuf))
		copy(nb, c.rbuf[:c.w])
		c.rbuf = nb
	}
	c.block, c.rn, c.rerr = block, 0, nil
	if err := c.rc.Read(c.readFn); err != nil {
		return err // deadline exceeded or closed
	}
	if c.rerr != nil {
		return c.rerr
	}
	if c.rn == 0 {
		return errPeerClosed
	}
	c.w += c.rn
	return nil
}

var (
	errWouldBlock = errors.New("cql: no data")
	errPeerClosed = errors.New("cql: connection closed by the server")
)

// readOnce reads what the socket has. The socket is non-blocking, so the
// read goes without the runtime's system-call bookkeeping (rawRead): at a
// fixed rate the process is idle between operations, and entering a system
// call from idle wakes the runtime's sysmon thread, a thread wakeup per call.
func (c *nconn) readOnce(fd uintptr) bool {
	n, err := rawRead(fd, c.rbuf[c.w:])
	for err == syscall.EINTR {
		n, err = rawRead(fd, c.rbuf[c.w:])
	}
	if err == syscall.EAGAIN {
		if c.block {
			return false // wait for readability (the runtime's poller)
		}
		c.rerr = errWouldBlock
		return true
	}
	if err != nil {
		c.rerr = err
		return true
	}
	c.rn = n
	return true
}

// flush writes the queued requests: straight to the non-blocking socket
// (rawWrite, see readOnce), and what the socket does not take at once, or an
// error, through the net.Conn, which waits for room and reports failures.
func (c *nconn) flush() error {
	if len(c.wbuf) == 0 {
		return nil
	}
	b := c.wbuf
	for len(b) > 0 {
		n, err := rawWrite(uintptr(c.fd), b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil || n <= 0 {
			break
		}
		b = b[n:]
	}
	var err error
	if len(b) > 0 {
		_, err = c.nc.Write(b)
	}
	c.wbuf = c.wbuf[:0]
	return err
}

// rawRead and rawWrite are read(2) and write(2) on a non-blocking fd
// without the runtime's system-call bookkeeping (they never block).
func rawRead(fd uintptr, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	n, _, errno := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func rawWrite(fd uintptr, b []byte) (int, error) {
	n, _, errno := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if errno != 0 {
		return 0, errno
	}
	return int(n), nil
}

func (c *nconn) setReadDeadline(t time.Time) {
	_ = c.nc.SetReadDeadline(t)
	c.rdl = t
}

func (c *nconn) close() {
	if c.nc != nil {
		c.nc.Close()
	}
}

// netErr classifies a network failure.
func netErr(host string, err error) error {
	var te *adapter.Error
	if errors.As(err, &te) {
		return err
	}
	class := vocab.ClassUnavailable
	if errors.Is(err, os.ErrDeadlineExceeded) {
		class = vocab.ClassTimeout
	}
	return &adapter.Error{Class: class, Err: fmt.Errorf("cql: %s: %w", host, err)}
}
