package hazelcast

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

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
)

// The Go client (v1.6.0) has no FencedLock, ISemaphore or CP sessions, and
// its protocol codecs are internal to its module. cpWire speaks the few
// messages of Hazelcast's open binary client protocol (2.x) these need, on
// its own connection to one member: authentication, CP group, CP
// session, FencedLock and ISemaphore. A member runs a CP call on the Raft
// group's leader wherever the client sends it.
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
	uuidSize   = 17                      // is-null byte, most and least significant longs

	msgError         = 0
	msgAuth          = 0x000100
	msgCreateGroup   = 0x1E0100
	msgCreateSession = 0x1F0100
	msgCloseSession  = 0x1F0200
	msgHeartbeat     = 0x1F0300
	msgTryLock       = 0x070200
	msgUnlock        = 0x070300
	msgSemInit       = 0x0C0100
	msgSemAcquire    = 0x0C0200
	msgSemRelease    = 0x0C0300
)

// wmsg builds a request.
type wmsg struct {
	b    []byte
	last int // offset of the last frame
}

func newRequest(typ int32, fixed int) *wmsg {
	m := &wmsg{b: make([]byte, reqHeader+fixed, 128)}
	binary.LittleEndian.PutUint32(m.b[0:], uint32(reqHeader+fixed))
	binary.LittleEndian.PutUint16(m.b[4:], flagBeginFrag|flagEndFrag)
	binary.LittleEndian.PutUint32(m.b[6:], uint32(typ))
	binary.LittleEndian.PutUint32(m.b[18:], 0xFFFFFFFF) // partition -1: any member
	return m
}

// fixed-size parameters, at offsets from the end of the request header
func (m *wmsg) putLong(off int, v int64) {
	binary.LittleEndian.PutUint64(m.b[reqHeader+off:], uint64(v))
}
func (m *wmsg) putInt(off int, v int32) {
	binary.LittleEndian.PutUint32(m.b[reqHeader+off:], uint32(v))
}
func (m *wmsg) putUUID(off int, u [16]byte) {
	m.b[reqHeader+off] = 0 // not null
	copy(m.b[reqHeader+off+1:], u[:])
}

func (m *wmsg) frame(flags uint16, content []byte) {
	m.last = len(m.b)
	var h [frameHeader]byte
	binary.LittleEndian.PutUint32(h[:], uint32(frameHeader+len(content)))
	binary.LittleEndian.PutUint16(h[4:], flags)
	m.b = append(append(m.b, h[:]...), content...)
}

func (m *wmsg) str(s string)  { m.frame(0, []byte(s)) }
func (m *wmsg) null()         { m.frame(flagNull, nil) }
func (m *wmsg) begin()        { m.frame(flagBeginData, nil) }
func (m *wmsg) end()          { m.frame(flagEndData, nil) }
func (m *wmsg) bytes() []byte { m.b[m.last+5] |= byte(flagFinal >> 8); return m.b }
func (m *wmsg) nullable(s string) {
	if s == "" {
		m.null()
	} else {
		m.str(s)
	}
}

// group writes a RaftGroupId: seed, id, name.
func (m *wmsg) group(g raftGroup) {
	m.begin()
	var b [16]byte
	binary.LittleEndian.PutUint64(b[0:], uint64(g.seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(g.id))
	m.frame(0, b[:])
	m.str(g.name)
	m.end()
}

type raftGroup struct {
	name     string
	seed, id int64
}

// rframe is a frame of a response.
type rframe struct {
	flags uint16
	b     []byte
}

// response is a decoded response: its frames, the first holding the header.
type response []rframe

func (r response) long(off int) int64 {
	if len(r[0].b) < respHeader+off+8 {
		return 0
	}
	return int64(binary.LittleEndian.Uint64(r[0].b[respHeader+off:]))
}

func (r response) boolean(off int) bool {
	return len(r[0].b) > respHeader+off && r[0].b[respHeader+off] != 0
}

func (r response) typ() int32 {
	if len(r[0].b) < 4 {
		return -1
	}
	return int32(binary.LittleEndian.Uint32(r[0].b))
}

// raftGroup decodes a RaftGroupId response: begin, fixed (seed, id), name, end.
func (r response) raftGroup() (raftGroup, error) {
	if len(r) < 4 || len(r[2].b) < 16 {
		return raftGroup{}, errors.New("hazelcast: malformed CP group id in the response")
	}
	return raftGroup{seed: int64(binary.LittleEndian.Uint64(r[2].b)), id: int64(binary.LittleEndian.Uint64(r[2].b[8:])), name: string(r[3].b)}, nil
}

// memberError is an exception a member returned.
type memberError struct {
	code      int32
	className string
	message   string
}

func (e *memberError) Error() string {
	return fmt.Sprintf("hazelcast: %s: %s", e.className[strings.LastIndexByte(e.className, '.')+1:], e.message)
}

// errorOf decodes an error response: a list of error holders, the first
// being the cause: begin list, begin holder, fixed (code), class name,
// message (nullable), ...
func (r response) errorOf() error {
	e := &memberError{className: "unknown"}
	if len(r) > 5 {
		if len(r[3].b) >= 4 {
			e.code = int32(binary.LittleEndian.Uint32(r[3].b))
		}
		e.className = string(r[4].b)
		if r[5].flags&flagNull == 0 {
			e.message = string(r[5].b)
		}
	}
	return e
}

// errConnLost fails the calls in flight when the connection breaks.
var errConnLost = &adapter.Error{Class: vocab.ClassUnavailable, Err: errors.New("hazelcast: connection to the member lost")}

// cpWire is one authenticated connection, reconnected (to the next member
// of the list) on the first call after it broke.
type cpWire struct {
	cfg  *Config
	uuid [16]byte

	mu      sync.Mutex // conn, pending, next
	conn    net.Conn
	pending map[int64]chan response
	next    int // index of the member to try first

	wmu  sync.Mutex // writes
	corr atomic.Int64
}

func newWire(cfg *Config) *cpWire {
	w := &cpWire{cfg: cfg, pending: map[int64]chan response{}}
	_, _ = rand.Read(w.uuid[:])
	return w
}

// connect dials the members in turn until one authenticates the client.
func (w *cpWire) connect(ctx context.Context) (net.Conn, error) {
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
	return nil, &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("hazelcast: CP connection: %w", last)}
}

// dial opens and authenticates one connection (synchronously, before the
// reader runs).
func (w *cpWire) dial(ctx context.Context, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: w.cfg.ConnectTimeout}
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(w.cfg.ConnectTimeout))
	m := newRequest(msgAuth, uuidSize+1)
	m.putUUID(0, w.uuid)
	m.b[reqHeader+uuidSize] = 1 // serialization version
	m.str(w.cfg.Cluster)
	m.nullable(w.cfg.User)
	m.nullable(w.cfg.Password)
	m.str("GOO")
	m.str("5.4.0")
	m.str("platbench-cp")
	m.begin() // labels: none
	m.end()
	b := m.bytes()
	binary.LittleEndian.PutUint64(b[10:], uint64(w.corr.Add(1)))
	if _, err := c.Write(append([]byte("CP2"), b...)); err != nil {
		c.Close()
		return nil, err
	}
	r, err := readMessage(bufio.NewReader(c))
	if err == nil && r.typ() == msgError {
		err = r.errorOf()
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

// readMessage reads the frames of one message, up to the final one.
func readMessage(r *bufio.Reader) (response, error) {
	var frames response
	var h [frameHeader]byte
	for {
		if _, err := io.ReadFull(r, h[:]); err != nil {
			return nil, err
		}
		n := int(binary.LittleEndian.Uint32(h[:]))
		if n < frameHeader || n > 64<<20 {
			return nil, fmt.Errorf("hazelcast: bad frame length %d", n)
		}
		f := rframe{flags: binary.LittleEndian.Uint16(h[4:]), b: make([]byte, n-frameHeader)}
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
func (w *cpWire) read(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		r, err := readMessage(br)
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

// call sends m and waits for its response, until ctx ends.
func (w *cpWire) call(ctx context.Context, m *wmsg) (response, error) {
	c, err := w.connect(ctx)
	if err != nil {
		return nil, err
	}
	corr := w.corr.Add(1)
	b := m.bytes()
	binary.LittleEndian.PutUint64(b[10:], uint64(corr))
	ch := make(chan response, 1)
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
		return nil, errConnLost
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return nil, errConnLost
		}
		if r.typ() == msgError {
			return nil, r.errorOf()
		}
		return r, nil
	case <-ctx.Done():
		w.mu.Lock()
		delete(w.pending, corr)
		w.mu.Unlock()
		return nil, ctx.Err()
	}
}

// kill drops the connection without a word, as a crashed client would.
func (w *cpWire) kill() {
	w.mu.Lock()
	c := w.conn
	w.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

func newUUID() [16]byte {
	var u [16]byte
	_, _ = rand.Read(u[:])
	return u
}
