package redis

import (
	"bufio"
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// conn is a minimal RESP2 connection: one write buffer, one read buffer, no
// per-command allocation. It is the hot path of standalone and cluster mode
// (go-redis, which the dataset checks use, allocates several objects per command).
//
// Replies are parsed and discarded as they stream in: platbench needs a
// reply's type and size, never its content, so a 128 KB value never has to
// fit in the read buffer.
type conn struct {
	nc      net.Conn
	br      *bufio.Reader
	wbuf    []byte
	timeout time.Duration
	// rdl and wdl are when the current read and write deadlines expire. A
	// deadline is refreshed only when less than half of timeout remains, so
	// it costs a clock read per command, not a timer update: a command times
	// out after between timeout/2 and timeout. They are separate because a
	// pipelined connection reads and writes from different goroutines.
	rdl, wdl time.Time
	// vbuf and fbuf hold a checked read's value and field name (validate
	// only; grown to the largest seen, then reused).
	vbuf, fbuf []byte
}

// reply is what the worker needs to know of one reply.
type reply = resp.Reply

// dialOpts is how to reach and authenticate to one server.
type dialOpts struct {
	addr     string
	tls      *tls.Config // nil for plain TCP
	user     string
	password string
	db       int
	timeout  time.Duration // dial and per-command timeout
}

func dial(ctx context.Context, o *dialOpts) (*conn, error) {
	d := net.Dialer{Timeout: o.timeout, KeepAlive: 30 * time.Second}
	var nc net.Conn
	var err error
	if o.tls != nil {
		td := tls.Dialer{NetDialer: &d, Config: o.tls}
		nc, err = td.DialContext(ctx, "tcp", o.addr)
	} else {
		nc, err = d.DialContext(ctx, "tcp", o.addr)
	}
	if err != nil {
		return nil, resp.ClassifyNet(fmt.Errorf("connect to redis at %s: %w", o.addr, err))
	}
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	c := &conn{nc: nc, br: bufio.NewReaderSize(nc, 64<<10), wbuf: make([]byte, 0, 64<<10), timeout: o.timeout}
	if o.password != "" {
		if o.user != "" {
			c.cmd("AUTH", o.user, o.password)
		} else {
			c.cmd("AUTH", o.password)
		}
		if _, err := c.roundTrip(); err != nil {
			nc.Close()
			return nil, adapter.Configf("redis at %s refused the credentials: %v (fix: check the user and the password; give the password in $PLATBENCH_TARGET_PASSWORD or a password file, not in the URL, where ps shows it)", o.addr, err)
		}
	}
	if o.db != 0 {
		c.cmd("SELECT", strconv.Itoa(o.db))
		if _, err := c.roundTrip(); err != nil {
			nc.Close()
			return nil, adapter.Configf("redis at %s: SELECT %d: %v (fix: use a database number the server has, or /0 in cluster mode)", o.addr, o.db, err)
		}
	}
	return c, nil
}

func (c *conn) Close() error { return c.nc.Close() }

// line, readReply and bulkInto read from the connection (package resp).
func (c *conn) line() ([]byte, error)                { return resp.Line(c.br) }
func (c *conn) readReply() (reply, error)            { return resp.ReadReply(c.br) }
func (c *conn) bulkInto(dst *[]byte) ([]byte, error) { return resp.BulkInto(c.br, dst) }

// cmd appends a command made of strings (setup path; allocation is fine).
func (c *conn) cmd(args ...string) {
	c.wbuf = resp.AppendArray(c.wbuf, len(args))
	for _, a := range args {
		c.wbuf = resp.AppendBulkString(c.wbuf, a)
	}
}

// roundTrip flushes the write buffer and reads one reply.
func (c *conn) roundTrip() (reply, error) {
	if err := c.flush(); err != nil {
		return reply{}, err
	}
	c.refreshRead()
	return c.readReply()
}

// text sends a command and returns its bulk-string reply (setup path: INFO).
func (c *conn) text(args ...string) (string, error) {
	c.cmd(args...)
	if err := c.flush(); err != nil {
		return "", err
	}
	c.refreshRead()
	line, err := c.line()
	if err != nil {
		return "", err
	}
	switch line[0] {
	case '-':
		return "", resp.ServerError(line[1:])
	case '$':
		n, err := strconv.Atoi(string(line[1:]))
		if err != nil || n < 0 {
			return "", nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(c.br, b); err != nil {
			return "", resp.ClassifyNet(err)
		}
		return string(b[:n]), nil
	case '+':
		return string(line[1:]), nil
	}
	return "", fmt.Errorf("unexpected reply %q", line)
}

func (c *conn) refreshRead() {
	if c.timeout <= 0 {
		return
	}
	if now := time.Now(); c.rdl.Sub(now) < c.timeout/2 {
		c.rdl = now.Add(c.timeout)
		_ = c.nc.SetReadDeadline(c.rdl)
	}
}

func (c *conn) refreshWrite() {
	if c.timeout <= 0 {
		return
	}
	if now := time.Now(); c.wdl.Sub(now) < c.timeout/2 {
		c.wdl = now.Add(c.timeout)
		_ = c.nc.SetWriteDeadline(c.wdl)
	}
}

// flush writes the write buffer.
func (c *conn) flush() error {
	err := c.write(c.wbuf)
	c.wbuf = c.wbuf[:0]
	return err
}

func (c *conn) write(b []byte) error {
	c.refreshWrite()
	if _, err := c.nc.Write(b); err != nil {
		return resp.ClassifyNet(err)
	}
	return nil
}

// checkedReply reads the reply of a checked read of key (GET, or HGETALL
// when hash) and checks the value (workload.CheckRecord, CheckField). The
// whole reply is read whatever it holds, so the stream stays in step.
func (c *conn) checkedReply(key []byte, hash bool, fieldLen, fieldCount int) (workload.Verdict, error) {
	if !hash {
		v, err := c.bulkInto(&c.vbuf)
		if err != nil {
			return 0, err
		}
		return workload.CheckRecord(v, key, fieldLen, fieldCount), nil
	}
	line, err := c.line()
	if err != nil {
		return 0, err
	}
	if line[0] == '-' {
		return 0, resp.ServerError(line[1:])
	}
	n, ok := resp.ParseInt(line[1:])
	if line[0] != '*' || !ok {
		return 0, &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("redis: expected an array, got %q", line)}
	}
	if n <= 0 {
		return workload.ValueMissing, nil
	}
	verdict := workload.ValueOK
	if n != 2*int64(fieldCount) {
		verdict = workload.ValueCorrupt
	}
	for i := int64(0); i+1 < n; i += 2 {
		name, err := c.bulkInto(&c.fbuf)
		if err != nil {
			return 0, err
		}
		f := fieldNumber(name)
		v, err := c.bulkInto(&c.vbuf)
		if err != nil {
			return 0, err
		}
		if f < 0 || f >= fieldCount || len(v) != fieldLen || !workload.CheckField(v, key, f) {
			verdict = workload.ValueCorrupt
		}
	}
	if n%2 == 1 { // not a hash reply: read the odd element too
		if _, err := c.bulkInto(&c.vbuf); err != nil {
			return 0, err
		}
		verdict = workload.ValueCorrupt
	}
	return verdict, nil
}

// fieldNumber is N of a hash field named fieldN, or -1.
func fieldNumber(name []byte) int {
	const p = "field"
	if len(name) <= len(p) || len(name) > len(p)+6 || string(name[:len(p)]) != p {
		return -1
	}
	n := 0
	for _, ch := range name[len(p):] {
		if ch < '0' || ch > '9' {
			return -1
		}
		n = n*10 + int(ch-'0')
	}
	return n
}
