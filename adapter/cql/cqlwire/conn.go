package cqlwire

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// Conn is one framed connection: a TCP socket speaking protocol v4, with
// the statements prepared on it. It is used by one goroutine. Reads go
// straight to the socket through syscall.RawConn, so that a caller holding
// connections to several nodes can also try a read without blocking
// (Fill(false)).
type Conn struct {
	host string // host:port
	nc   net.Conn
	rc   syscall.RawConn
	fd   int

	// Out holds the requests not yet written (Flush writes them).
	Out []byte
	// IDs are the ids of the statements prepared on the connection, in
	// the order Prepare prepared them; Flags the flags of each one's
	// metadata (ScyllaDB marks a lightweight transaction there).
	IDs   [][]byte
	Flags []uint32

	rbuf []byte // rbuf[r:w] is read but not yet consumed
	r, w int

	rdl time.Time // read deadline currently set (zero: none)

	// State of the read callback, a method value made once (a closure per
	// read would allocate).
	readFn func(fd uintptr) bool
	block  bool
	rn     int
	rerr   error
}

const rbufSize = 64 << 10

var (
	// ErrWouldBlock: Fill(false) found nothing to read.
	ErrWouldBlock = errors.New("cql: no data")
	errPeerClosed = errors.New("cql: connection closed by the server")
	// ErrAuthRequired: the server asks for credentials and Startup was
	// given none.
	ErrAuthRequired = errors.New("cql: the server requires authentication")
)

// NetError is a network failure of a request/response exchange (Startup,
// Use, Prepare) with the server at Host.
type NetError struct {
	Host string
	Err  error
}

func (e *NetError) Error() string { return "cql: " + e.Host + ": " + e.Err.Error() }
func (e *NetError) Unwrap() error { return e.Err }

// ServerError is an ERROR response to Req (STARTUP, AUTH_RESPONSE, USE or
// PREPARE).
type ServerError struct {
	Req  string
	Code int32
	Msg  string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("cql: %s: server error 0x%04X: %s", e.Req, e.Code, e.Msg)
}

// NewConn makes nc, a TCP connection to host (host:port), a Conn. On an
// error it closes nc.
func NewConn(host string, nc net.Conn) (*Conn, error) {
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
	c := &Conn{host: host, nc: nc, rc: rc, rbuf: make([]byte, rbufSize), Out: make([]byte, 0, 16<<10)}
	c.readFn = c.readOnce
	_ = rc.Control(func(fd uintptr) { c.fd = int(fd) })
	return c, nil
}

// Host is the host:port the connection goes to.
func (c *Conn) Host() string { return c.host }

// Fd is the socket's file descriptor (to wait on it with others).
func (c *Conn) Fd() int { return c.fd }

// Buffered is the number of bytes read but not yet consumed by Next.
func (c *Conn) Buffered() int { return c.w - c.r }

// Options sends OPTIONS and returns the SUPPORTED answer's options (what
// the server speaks, and ScyllaDB's extensions: package scylla reads
// them), before Startup.
func (c *Conn) Options(deadline time.Time) (map[string][]string, error) {
	b := AppendHeader(c.Out[:0], 0, opOptions)
	FinishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return nil, err
	}
	if h.Op == OpError {
		return nil, serverError("OPTIONS", body)
	}
	r := Reader{B: body}
	m := r.StringMultimap()
	if h.Op != opSupported || r.Err != nil {
		return nil, fmt.Errorf("cql: unexpected answer 0x%02X to OPTIONS from %s", h.Op, c.host)
	}
	return m, nil
}

// Startup sends STARTUP, with extra options after CQL_VERSION (the
// extensions a client asks for), and answers a PasswordAuthenticator
// challenge with user and password, one request at a time until deadline.
// The errors are ErrAuthRequired, a *ServerError, a *NetError, or the
// frame's.
func (c *Conn) Startup(user, password string, deadline time.Time, extra ...[2]string) error {
	b := AppendHeader(c.Out[:0], 0, opStartup)
	b = AppendShort(b, 1+len(extra))
	b = AppendString(b, "CQL_VERSION")
	b = AppendString(b, "3.0.0")
	for _, kv := range extra {
		b = AppendString(AppendString(b, kv[0]), kv[1])
	}
	FinishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return err
	}
	switch h.Op {
	case opReady:
		return nil
	case opAuthenticate:
		if user == "" {
			return ErrAuthRequired
		}
		b = AppendHeader(c.Out[:0], 0, opAuthResponse)
		token := make([]byte, 0, 2+len(user)+len(password))
		token = append(append(append(append(token, 0), user...), 0), password...)
		b = AppendBytes(b, token)
		FinishFrame(b, 0)
		h, body, err = c.roundTrip(b, deadline)
		if err != nil {
			return err
		}
		if h.Op == opAuthSuccess {
			return nil
		}
		if h.Op == OpError {
			return serverError("AUTH_RESPONSE", body)
		}
		return fmt.Errorf("cql: unexpected answer 0x%02X to AUTH_RESPONSE from %s", h.Op, c.host)
	case OpError:
		return serverError("STARTUP", body)
	}
	return fmt.Errorf("cql: unexpected answer 0x%02X to STARTUP from %s", h.Op, c.host)
}

func serverError(req string, body []byte) error {
	r := Reader{B: body}
	code, msg := ErrorBody(&r)
	return &ServerError{Req: req, Code: code, Msg: msg}
}

// Use makes ks the connection's keyspace.
func (c *Conn) Use(ks string, deadline time.Time) error {
	b := AppendHeader(c.Out[:0], 0, opQuery)
	b = AppendLongString(b, `USE "`+strings.ReplaceAll(ks, `"`, `""`)+`"`)
	b = AppendShort(b, consistencyOne)
	b = append(b, 0)
	FinishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return err
	}
	if h.Op == OpError {
		return serverError("USE", body)
	}
	return nil
}

// Prepare prepares one statement and appends its id to IDs.
func (c *Conn) Prepare(stmt string, deadline time.Time) error {
	b := AppendHeader(c.Out[:0], 0, opPrepare)
	b = AppendLongString(b, stmt)
	FinishFrame(b, 0)
	h, body, err := c.roundTrip(b, deadline)
	if err != nil {
		return err
	}
	if h.Op == OpError {
		return serverError("PREPARE", body)
	}
	r := Reader{B: body}
	if h.Op != OpResult || r.Int() != resultPrepared {
		return fmt.Errorf("cql: preparing %q on %s: unexpected answer", stmt, c.host)
	}
	id := r.ShortBytes()
	flags := uint32(r.Int()) // the metadata's flags
	if r.Err != nil {
		return r.Err
	}
	c.IDs = append(c.IDs, append([]byte(nil), id...))
	c.Flags = append(c.Flags, flags)
	return nil
}

// ClearDeadlines clears the deadlines the handshake and preparations set
// (the write one too: a write failing five seconds into a run would break
// the connection).
func (c *Conn) ClearDeadlines() {
	_ = c.nc.SetDeadline(time.Time{})
	c.rdl = time.Time{}
}

// roundTrip writes one request and reads the response on stream 0 (only
// while nothing else is in flight). The body is valid until the next read.
func (c *Conn) roundTrip(frame []byte, deadline time.Time) (Header, []byte, error) {
	_ = c.nc.SetDeadline(deadline)
	c.rdl = deadline
	if _, err := c.nc.Write(frame); err != nil {
		return Header{}, nil, &NetError{Host: c.host, Err: err}
	}
	for {
		h, body, ok, err := c.Next()
		if err != nil {
			return h, nil, err
		}
		if ok {
			if h.Stream != 0 {
				continue // an event or a stray response
			}
			var r Reader
			r.B = body
			r.SkipEnvelope(h.Flags)
			return h, r.B, r.Err
		}
		if err := c.Fill(true); err != nil {
			return h, nil, &NetError{Host: c.host, Err: err}
		}
	}
}

// Next returns the next whole frame in the read buffer, if there is one.
// The body aliases the buffer: it is valid until the next Fill.
func (c *Conn) Next() (h Header, body []byte, ok bool, err error) {
	if c.w-c.r < HeaderLen {
		return h, nil, false, nil
	}
	h, err = ParseHeader(c.rbuf[c.r:])
	if err != nil {
		return h, nil, false, err
	}
	if h.Flags&flagCompressed != 0 {
		return h, nil, false, errCompressed
	}
	end := c.r + HeaderLen + h.Length
	if end > c.w {
		if need := HeaderLen + h.Length; need > len(c.rbuf) {
			// A frame larger than the buffer (a big scan page): grow once.
			nb := make([]byte, max(need, 2*len(c.rbuf)))
			c.w = copy(nb, c.rbuf[c.r:c.w])
			c.r = 0
			c.rbuf = nb
		}
		return h, nil, false, nil
	}
	body = c.rbuf[c.r+HeaderLen : end]
	c.r = end
	return h, body, true, nil
}

// Fill reads what the socket has into the buffer. With block it waits (up
// to the read deadline) for at least one byte; without, it returns
// ErrWouldBlock at once when nothing is there.
func (c *Conn) Fill(block bool) error {
	if c.r == c.w {
		c.r, c.w = 0, 0
	} else if c.w == len(c.rbuf) || (c.r > 0 && len(c.rbuf)-c.w < HeaderLen) {
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

// readOnce reads what the socket has. The socket is non-blocking, so the
// read goes without the runtime's system-call bookkeeping (rawRead): at a
// fixed rate the process is idle between operations, and entering a system
// call from idle wakes the runtime's sysmon thread, a thread wakeup per call.
func (c *Conn) readOnce(fd uintptr) bool {
	n, err := rawRead(fd, c.rbuf[c.w:])
	for err == syscall.EINTR {
		n, err = rawRead(fd, c.rbuf[c.w:])
	}
	if err == syscall.EAGAIN {
		if c.block {
			return false // wait for readability (the runtime's poller)
		}
		c.rerr = ErrWouldBlock
		return true
	}
	if err != nil {
		c.rerr = err
		return true
	}
	c.rn = n
	return true
}

// Flush writes the queued requests (Out): straight to the non-blocking
// socket (rawWrite, see readOnce), and what the socket does not take at
// once, or an error, through the net.Conn, which waits for room and
// reports failures.
func (c *Conn) Flush() error {
	if len(c.Out) == 0 {
		return nil
	}
	b := c.Out
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
	c.Out = c.Out[:0]
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

// ReadDeadline is the read deadline currently set (zero: none).
func (c *Conn) ReadDeadline() time.Time { return c.rdl }

// SetReadDeadline sets the read deadline of Fill(true).
func (c *Conn) SetReadDeadline(t time.Time) {
	_ = c.nc.SetReadDeadline(t)
	c.rdl = t
}

// Close closes the connection.
func (c *Conn) Close() {
	if c.nc != nil {
		c.nc.Close()
	}
}
