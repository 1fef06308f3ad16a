// Package cpwire speaks the few messages of Hazelcast's open binary client
// protocol (2.x) that the hazelcast adapter's CP subsystem needs, on a
// connection of its own to one member: authentication, CP group, CP
// session, FencedLock and ISemaphore. The Go client (v1.6.0) has no
// FencedLock, ISemaphore or CP sessions, and its protocol codecs are
// internal to its module.
//
// Request builds a message, ReadMessage decodes one into a Response, Conn
// is one authenticated connection with calls in flight by correlation id.
// The package knows nothing of workloads or of the adapter's options, and
// imports nothing of platbench's but vocab: its errors carry their class
// as ClassError.
package cpwire

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/vocab"
)

// A member runs a CP call on the Raft group's leader wherever the client
// sends it.
//
// A message is a list of frames: a 4-byte little-endian length (of the
// frame, header included), 2 bytes of flags, then the content. The first
// frame holds the message type, correlation id and partition id, then the
// fixed-size parameters; each string is a frame of its own; data structures
// are framed by begin and end frames; the last frame has the final flag.
const (
	frameHeader   = 6
	flagBeginFrag = 1 << 15
	flagEndFrag   = 1 << 14
	flagFinal     = 1 << 13
	flagBeginData = 1 << 12
	flagEndData   = 1 << 11
	flagNull      = 1 << 10
	flagEvent     = 1 << 9

	reqHeader  = frameHeader + 4 + 8 + 4 // type, correlation id, partition id
	respHeader = 4 + 8 + 1               // type, correlation id, backup acks (frame content offsets)
	// UUIDSize is the size of a UUID parameter: an is-null byte, the most
	// and least significant longs.
	UUIDSize = 17
)

// Message types.
const (
	MsgError         = 0
	MsgAuth          = 0x000100
	MsgCreateGroup   = 0x1E0100
	MsgCreateSession = 0x1F0100
	MsgCloseSession  = 0x1F0200
	MsgHeartbeat     = 0x1F0300
	MsgTryLock       = 0x070200
	MsgUnlock        = 0x070300
	MsgSemInit       = 0x0C0100
	MsgSemAcquire    = 0x0C0200
	MsgSemRelease    = 0x0C0300
)

// Request builds a request.
type Request struct {
	b    []byte
	last int // offset of the last frame
}

// NewRequest is a request of message type typ with fixed bytes of
// fixed-size parameters (set with the Put methods).
func NewRequest(typ int32, fixed int) *Request {
	m := &Request{b: make([]byte, reqHeader+fixed, 128)}
	binary.LittleEndian.PutUint32(m.b[0:], uint32(reqHeader+fixed))
	binary.LittleEndian.PutUint16(m.b[4:], flagBeginFrag|flagEndFrag)
	binary.LittleEndian.PutUint32(m.b[6:], uint32(typ))
	binary.LittleEndian.PutUint32(m.b[18:], 0xFFFFFFFF) // partition -1: any member
	return m
}

// PutLong, PutInt and PutUUID set fixed-size parameters, at offsets from
// the end of the request header.
func (m *Request) PutLong(off int, v int64) {
	binary.LittleEndian.PutUint64(m.b[reqHeader+off:], uint64(v))
}
func (m *Request) PutInt(off int, v int32) {
	binary.LittleEndian.PutUint32(m.b[reqHeader+off:], uint32(v))
}
func (m *Request) PutUUID(off int, u [16]byte) {
	m.b[reqHeader+off] = 0 // not null
	copy(m.b[reqHeader+off+1:], u[:])
}

func (m *Request) frame(flags uint16, content []byte) {
	m.last = len(m.b)
	var h [frameHeader]byte
	binary.LittleEndian.PutUint32(h[:], uint32(frameHeader+len(content)))
	binary.LittleEndian.PutUint16(h[4:], flags)
	m.b = append(append(m.b, h[:]...), content...)
}

// Str, Null, Begin and End append a frame: a string, a null, the begin and
// the end of a data structure. Bytes marks the last frame final and
// returns the message.
func (m *Request) Str(s string)  { m.frame(0, []byte(s)) }
func (m *Request) Null()         { m.frame(flagNull, nil) }
func (m *Request) Begin()        { m.frame(flagBeginData, nil) }
func (m *Request) End()          { m.frame(flagEndData, nil) }
func (m *Request) Bytes() []byte { m.b[m.last+5] |= byte(flagFinal >> 8); return m.b }

// Nullable appends s, or a null frame for "".
func (m *Request) Nullable(s string) {
	if s == "" {
		m.Null()
	} else {
		m.Str(s)
	}
}

// Group writes a RaftGroupId: seed, id, name.
func (m *Request) Group(g RaftGroup) {
	m.Begin()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(g.Seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(g.ID))
	m.frame(0, b[:])
	m.Str(g.Name)
	m.End()
}

// RaftGroup is a CP group's id.
type RaftGroup struct {
	Name     string
	Seed, ID int64
}

// Frame is a frame of a response.
type Frame struct {
	flags uint16
	b     []byte
}

// Response is a decoded response: its frames, the first holding the header.
type Response []Frame

// Long, Boolean: fixed-size values of the response at offsets from the
// end of its header (0 and false when the response is too short).
func (r Response) Long(off int) int64 {
	if len(r[0].b) < respHeader+off+8 {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(r[0].b[respHeader+off:]))
}

func (r Response) Boolean(off int) bool {
	return len(r[0].b) > respHeader+off && r[0].b[respHeader+off] != 0
}

// Type is the message type of the response (-1 when too short).
func (r Response) Type() int32 {
	if len(r[0].b) < 4 {
		return -1
	}
	return int32(binary.LittleEndian.Uint32(r[0].b))
}

// RaftGroup decodes a RaftGroupId response: begin, fixed (seed, id), name, end.
func (r Response) RaftGroup() (RaftGroup, error) {
	if len(r) < 4 || len(r[2].b) < 16 {
		return RaftGroup{}, errors.New("hazelcast: malformed CP Group id in the response")
	}
	return RaftGroup{Seed: int64(binary.LittleEndian.Uint64(r[2].b)), ID: int64(binary.LittleEndian.Uint64(r[2].b[8:])), Name: string(r[3].b)}, nil
}

// MemberError is an exception a member returned.
type MemberError struct {
	Code      int32
	ClassName string // the Java exception's class
	Message   string
}

func (e *MemberError) Error() string {
	return fmt.Sprintf("hazelcast: %s: %s", e.ClassName[strings.LastIndexByte(e.ClassName, '.')+1:], e.Message)
}

// ErrorOf decodes an error response: a list of error holders, the first
// being the cause: begin list, begin holder, fixed (code), class name,
// message (nullable), ...
func (r Response) ErrorOf() error {
	e := &MemberError{ClassName: "unknown"}
	if len(r) > 5 {
		if len(r[3].b) >= 4 {
			e.Code = int32(binary.LittleEndian.Uint32(r[3].b))
		}
		e.ClassName = string(r[4].b)
		if r[5].flags&flagNull == 0 {
			e.Message = string(r[5].b)
		}
	}
	return e
}

// ClassError is an error of the connection, with its class. It reads as
// package adapter's Error ("class: cause") and, through ErrorClass, is
// counted by adapter.Classify under its class: the package imports nothing
// above vocab, and the hazelcast adapter returns its errors as they are.
type ClassError struct {
	Class vocab.Class
	Err   error
}

func (e *ClassError) Error() string { return e.Class.String() + ": " + e.Err.Error() }
func (e *ClassError) Unwrap() error { return e.Err }

// ErrorClass is the error's class (adapter.Classed).
func (e *ClassError) ErrorClass() vocab.Class { return e.Class }

// ErrConnLost fails the calls in flight when the connection breaks.
var ErrConnLost = &ClassError{Class: vocab.ClassUnavailable, Err: errors.New("hazelcast: connection to the member lost")}

// Conn is one authenticated connection, reconnected (to the next member
// of the list) on the first call after it broke.
type Conn struct {
	cfg  Options
	uuid [16]byte

	mu      sync.Mutex // conn, pending, next
	conn    net.Conn
	pending map[int64]chan Response
	next    int // index of the member to try first

	wmu  sync.Mutex // writes
	corr atomic.Int64
}

// Options are where and as whom a Conn connects.
type Options struct {
	Addrs          []string // members, tried in turn
	ConnectTimeout time.Duration
	Cluster        string // the cluster's name
	User, Password string // "" for none
}

// New is a Conn to the members of o; it connects on its first call.
func New(o Options) *Conn {
	w := &Conn{cfg: o, pending: map[int64]chan Response{}}
	_, _ = rand.Read(w.uuid[:])
	return w
}

// connect dials the members in turn until one authenticates the client.
func (w *Conn) connect(ctx context.Context) (net.Conn, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		return w.conn, nil
	}
	var last error
	for i := range w.cfg.Addrs {
		addr := w.cfg.Addrs[(w.next+i)%len(w.cfg.Addrs)]
		c, err := w.dial(ctx, addr)
		if err == nil {
			w.next = (w.next + i) % len(w.cfg.Addrs)
			w.conn = c
			go w.read(c)
			return c, nil
		}
		last = err
	}
	w.next++ // start elsewhere next time
	return nil, &ClassError{Class: vocab.ClassUnavailable, Err: fmt.Errorf("hazelcast: CP connection: %w", last)}
}

// dial opens and authenticates one connection (synchronously, before the
// reader runs).
func (w *Conn) dial(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: w.cfg.ConnectTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(w.cfg.ConnectTimeout))
	m := NewRequest(MsgAuth, UUIDSize+1)
	m.PutUUID(0, w.uuid)
	m.b[reqHeader+UUIDSize] = 1 // serialization version
	m.Str(w.cfg.Cluster)
	m.Nullable(w.cfg.User)
	m.Nullable(w.cfg.Password)
	m.Str("GOO")
	m.Str("5.4.0")
	m.Str("platbench-cp")
	m.Begin() // labels: none
	m.End()
	b := m.Bytes()
	binary.LittleEndian.PutUint64(b[10:], uint64(w.corr.Add(1)))
	if _, err := c.Write(append([]byte("CP2"), b...)); err != nil {
		c.Close()
		return nil, err
	}
	r, err := ReadMessage(bufio.NewReader(c))
	if err == nil && r.Type() == MsgError {
		err = r.ErrorOf()
	}
	if err == nil && len(r[0].b) > respHeader && r[0].b[respHeader] != 0 {
		err = fmt.Errorf("authentication refused (status %d): check ?cluster=NAME and the credentials", r[0].b[respHeader])
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: %w", addr, err)
	}
	_ = c.SetDeadline(time.Time{})
	return c, nil
}

// ReadMessage reads the frames of one message, up to the final one.
func ReadMessage(r *bufio.Reader) (Response, error) {
	var frames Response
	var h [frameHeader]byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, err
		}
		n := int(binary.LittleEndian.Uint32(h[:]))
		if n < frameHeader || n > 64<<20 {
			return nil, fmt.Errorf("hazelcast: bad frame length %d", n)
		}
		f := Frame{flags: binary.LittleEndian.Uint16(h[4:]), b: make([]byte, n-frameHeader)}
		if _, err := io.ReadFull(r, f.b); err != nil {
			return nil, err
		}
		frames = append(frames, f)
		if f.flags&flagFinal != 0 {
			return frames, nil
		}
	}
}

// read dispatches the responses of c until it breaks, then fails the calls
// in flight.
func (w *Conn) read(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		r, err := ReadMessage(br)
		if err != nil {
			break
		}
		if r[0].flags&flagEvent != 0 || len(r[0].b) < 12 {
			continue
		}
		corr := int64(binary.LittleEndian.Uint64(r[0].b[4:]))
		w.mu.Lock()
		ch := w.pending[corr]
		delete(w.pending, corr)
		w.mu.Unlock()
		if ch != nil {
			ch <- r
		}
	}
	c.Close()
	w.mu.Lock()
	if w.conn == c {
		w.conn = nil
		w.next++
	}
	for k, ch := range w.pending {
		close(ch)
		delete(w.pending, k)
	}
	w.mu.Unlock()
}

// Call sends m and waits for its response, until ctx ends.
func (w *Conn) Call(ctx context.Context, m *Request) (Response, error) {
	c, err := w.connect(ctx)
	if err != nil {
		return nil, err
	}
	corr := w.corr.Add(1)
	b := m.Bytes()
	binary.LittleEndian.PutUint64(b[10:], uint64(corr))
	ch := make(chan Response, 1)
	w.mu.Lock()
	w.pending[corr] = ch
	w.mu.Unlock()
	w.wmu.Lock()
	if dl, ok := ctx.Deadline(); ok {
		_ = c.SetWriteDeadline(dl)
	}
	_, err = c.Write(b)
	w.wmu.Unlock()
	if err != nil {
		c.Close() // the reader fails what is in flight
		return nil, ErrConnLost
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, ErrConnLost
		}
		if r.Type() == MsgError {
			return nil, r.ErrorOf()
		}
		return r, nil
	case <-ctx.Done():
		w.mu.Lock()
		delete(w.pending, corr)
		w.mu.Unlock()
		return nil, ctx.Err()
	}
}

// Kill drops the connection without a word, as a crashed client would.
func (w *Conn) Kill() {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// NewUUID is a random UUID (a lock's invocation uid).
func NewUUID() [16]byte {
	var u [16]byte
	_, _ = rand.Read(u[:])
	return u
}
