// Package resp is RESP2, the Redis serialization protocol, as platbench's
// own Redis client speaks it: commands appended to a caller's buffer
// without allocating (AppendArray, AppendBulk...), replies read from a
// bufio.Reader and discarded as they stream in (ReadReply: platbench needs
// a reply's type and size, never its content), a bulk string read into a
// reused buffer (BulkInto, for checked reads), a whole reply of any shape
// (Value, for setup's CLUSTER SLOTS), and the classes of its
// errors (ServerError by the reply's error code, ClassifyNet for the
// transport; ClassError carries the class, and the package imports nothing
// of platbench's but vocab). It knows nothing of connections, clusters or workloads:
// package redis holds those.
package resp

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/platbench/platbench/vocab"
)

// Reply is what a worker needs to know of one reply.
type Reply struct {
	Kind byte  // '+', ':', '$', '*'
	N    int64 // integer value, bulk length (-1 nil) or array length (-1 nil)
}

// Line returns the next CRLF-terminated line without its CRLF. The slice is
// valid until the next read.
func Line(br *bufio.Reader) ([]byte, error) {
	b, err := br.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, &ClassError{Class: vocab.ClassOther, Err: errors.New("redis reply line longer than 64 KB")}
		}
		return nil, ClassifyNet(err)
	}
	if len(b) < 3 || b[len(b)-2] != '\r' {
		return nil, &ClassError{Class: vocab.ClassOther, Err: fmt.Errorf("malformed RESP line %q", b)}
	}
	return b[:len(b)-2], nil
}

// ReadReply reads one complete reply and discards its payload. A server
// error reply is returned as an error (allocating: errors are rare).
func ReadReply(br *bufio.Reader) (Reply, error) {
	line, err := Line(br)
	if err != nil {
		return Reply{}, err
	}
	kind := line[0]
	switch kind {
	case '-':
		return Reply{}, ServerError(line[1:])
	case '+':
		return Reply{Kind: kind}, nil
	case ':', '$', '*':
		n, ok := ParseInt(line[1:])
		if !ok {
			return Reply{}, &ClassError{Class: vocab.ClassOther, Err: fmt.Errorf("malformed RESP length %q", line)}
		}
		r := Reply{Kind: kind, N: n}
		switch kind {
		case '$':
			if n >= 0 {
				if _, err := br.Discard(int(n) + 2); err != nil {
					return Reply{}, ClassifyNet(err)
				}
			}
		case '*':
			for i := int64(0); i < n; i++ {
				if _, err := ReadReply(br); err != nil {
					return Reply{}, err
				}
			}
		}
		return r, nil
	}
	return Reply{}, &ClassError{Class: vocab.ClassOther, Err: fmt.Errorf("unexpected RESP type %q", kind)}
}

// ParseInt parses a RESP integer (an optional minus, then digits)
// without allocating.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg = true
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var n int64
	for _, ch := range b {
		if ch < '0' || ch > '9' {
			return 0, false
		}
		n = n*10 + int64(ch-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// AppendArray, AppendBulk and AppendBulkString append an array header of
// n elements, a bulk string of v, and one of s, to b.
func AppendArray(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func AppendBulk(b, v []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, v...)
	return append(b, '\r', '\n')
}

// AppendBulk2 appends one bulk string made of a and v concatenated.
func AppendBulk2(b []byte, a string, v []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(a)+len(v)), 10)
	b = append(b, '\r', '\n')
	b = append(b, a...)
	b = append(b, v...)
	return append(b, '\r', '\n')
}

func AppendBulkString(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// ServerError classifies a RESP error reply by its prefix (the error code).
func ServerError(msg []byte) error {
	s := string(msg)
	code := s
	if i := strings.IndexByte(s, ' '); i >= 0 {
		code = s[:i]
	}
	class := vocab.ClassOther
	switch code {
	case "NOAUTH", "WRONGPASS", "NOPERM", "WRONGTYPE", "MOVED", "ASK", "READONLY", "NOSCRIPT":
		class = vocab.ClassRejected
	case "OOM", "BUSY":
		class = vocab.ClassOverloaded
	case "LOADING", "MASTERDOWN", "CLUSTERDOWN", "TRYAGAIN", "NOREPLICAS":
		class = vocab.ClassUnavailable
	}
	if code == "MOVED" || code == "ASK" {
		s += " (the server is a cluster: use cluster=true)"
	}
	return &ClassError{Class: class, Err: &Error{"redis: " + s}}
}

// Error is an error reply of the server. Unlike a network error it leaves
// the connection usable: the reply was read in full.
type Error struct{ Msg string } // "redis: " and the reply's text

func (e *Error) Error() string { return e.Msg }

// ClassError is an error of the protocol, the transport or the server,
// with its class. It reads as package adapter's Error ("class: cause") and,
// through ErrorClass, is counted by adapter.Classify under its class: the
// package imports nothing above vocab, and the redis adapter returns its
// errors as they are.
type ClassError struct {
	Class vocab.Class
	Err   error
}

func (e *ClassError) Error() string { return e.Class.String() + ": " + e.Err.Error() }
func (e *ClassError) Unwrap() error { return e.Err }

// ErrorClass is the error's class (adapter.Classed).
func (e *ClassError) ErrorClass() vocab.Class { return e.Class }

// classed is any error that carries a class (adapter.Classed, declared
// again so that this package does not import adapter).
type classed interface {
	error
	ErrorClass() vocab.Class
}

// ClassOf is the class of err: that of the first classed error in its
// chain, vocab.ClassOther for any other (vocab.ClassNone for nil).
func ClassOf(err error) vocab.Class {
	if err == nil {
		return vocab.ClassNone
	}
	var ce classed
	if errors.As(err, &ce) {
		return ce.ErrorClass()
	}
	return vocab.ClassOther
}

// IsServerError reports whether err is an error reply of the server.
func IsServerError(err error) bool {
	var re *Error
	return errors.As(err, &re)
}

// ClassifyNet turns a network error into a classified target error (one
// that already carries a class is returned as it is).
func ClassifyNet(err error) error {
	var ce classed
	if errors.As(err, &ce) {
		return err
	}
	var ne net.Error
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return &ClassError{Class: vocab.ClassTimeout, Err: err}
	case errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, net.ErrClosed), errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return &ClassError{Class: vocab.ClassUnavailable, Err: err}
	}
	return &ClassError{Class: vocab.ClassOther, Err: err}
}

// BulkInto reads one bulk-string reply's bytes into *dst (grown if needed,
// then reused) and returns them; nil for a nil reply. Only checked reads
// (validate) keep a value's bytes.
func BulkInto(br *bufio.Reader, dst *[]byte) ([]byte, error) {
	line, err := Line(br)
	if err != nil {
		return nil, err
	}
	if line[0] == '-' {
		return nil, ServerError(line[1:])
	}
	n, ok := ParseInt(line[1:])
	if line[0] != '$' || !ok {
		return nil, &ClassError{Class: vocab.ClassOther, Err: fmt.Errorf("redis: expected a bulk string, got %q", line)}
	}
	if n < 0 {
		return nil, nil
	}
	if n > maxBulk { // a length no Redis sends: make would panic
		return nil, &ClassError{Class: vocab.ClassOther, Err: fmt.Errorf("redis: a bulk reply of %d bytes, more than Redis sends (%d)", n, maxBulk)}
	}
	if int64(cap(*dst)) < n+2 {
		*dst = make([]byte, n+2)
	}
	b := (*dst)[:n+2]
	if _, err := io.ReadFull(br, b); err != nil {
		return nil, ClassifyNet(err)
	}
	return b[:n], nil
}

// maxBulk is the longest bulk string Value reads: Redis's own limit
// (proto-max-bulk-len, 512 MB by default).
const maxBulk = 512 << 20

// Value reads one reply of any shape, content included (setup path: it
// allocates): an int64, a string, nil, or an []any of these; an error reply
// is returned as the error (ServerError).
func Value(br *bufio.Reader) (any, error) {
	line, err := Line(br)
	if err != nil {
		return nil, err
	}
	switch line[0] {
	case '-':
		return nil, ServerError(line[1:])
	case '+':
		return string(line[1:]), nil
	}
	n, ok := ParseInt(line[1:])
	if !ok {
		return nil, fmt.Errorf("redis: malformed reply %q", line)
	}
	switch line[0] {
	case ':':
		return n, nil
	case '$':
		if n < 0 {
			return nil, nil
		}
		if n > maxBulk {
			return nil, fmt.Errorf("redis: a bulk reply of %d bytes, more than Redis sends (%d)", n, maxBulk)
		}
		// Grown as the bytes come, not made at the length the reply claims.
		var b bytes.Buffer
		if _, err := io.CopyN(&b, br, n+2); err != nil {
			return nil, ClassifyNet(err)
		}
		return string(b.Bytes()[:n]), nil
	case '*':
		var out []any
		for i := int64(0); i < n; i++ {
			v, err := Value(br)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("redis: unexpected reply %q", line)
}
