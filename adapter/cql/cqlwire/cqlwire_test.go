package cqlwire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// Tests of frames and replies: reading over a real loopback socket and
// response parsing need no server (the cql adapter's tests run the
// handshake and the hot path against a real one).

// loopback returns a Conn with a 64-byte read buffer and the peer end of a
// TCP connection on 127.0.0.1.
func loopback(t *testing.T) (*Conn, net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	nc, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-acc
	c, err := NewConn("test", nc)
	if err != nil {
		t.Fatal(err)
	}
	c.rbuf = make([]byte, 64)
	t.Cleanup(func() { nc.Close(); peer.Close() })
	return c, peer
}

func frame(stream int16, op byte, body []byte) []byte {
	b := []byte{0x84, 0, byte(uint16(stream) >> 8), byte(stream), op, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[5:], uint32(len(body)))
	return append(b, body...)
}

// TestFramesSplitAnywhere: frames arriving in pieces of every size, one
// larger than the read buffer, come out whole and in order.
func TestFramesSplitAnywhere(t *testing.T) {
	c, peer := loopback(t)
	var stream []byte
	var want [][]byte
	for i := 0; i < 20; i++ {
		body := bytes.Repeat([]byte{byte(i)}, i*13) // up to 247 B: larger than the 64 B buffer
		want = append(want, body)
		stream = append(stream, frame(int16(i), OpResult, body)...)
	}
	go func() {
		for i, n := 0, 1; i < len(stream); i, n = i+n, n%7+1 {
			peer.Write(stream[i:min(i+n, len(stream))])
			time.Sleep(100 * time.Microsecond)
		}
	}()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for i := 0; i < len(want); {
		h, body, ok, err := c.Next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			if err := c.Fill(true); err != nil {
				t.Fatalf("fill after %d frames: %v", i, err)
			}
			continue
		}
		if int(h.Stream) != i || !bytes.Equal(body, want[i]) {
			t.Fatalf("frame %d: stream %d, %d bytes; want stream %d, %d bytes", i, h.Stream, len(body), i, len(want[i]))
		}
		i++
	}
	// Without data, a non-blocking fill says so at once.
	if err := c.Fill(false); err != ErrWouldBlock {
		t.Errorf("Fill(false) on an idle socket: %v, want ErrWouldBlock", err)
	}
	// A closed peer is reported, not read as an empty frame.
	peer.Close()
	if err := c.Fill(true); err == nil {
		t.Errorf("fill after the peer closed: no error")
	}
}

// TestBadFrames: another protocol version, a compressed frame and a length
// past the protocol's 256 MiB are errors, not frames.
func TestBadFrames(t *testing.T) {
	v3 := frame(0, OpResult, nil)
	v3[0] = 0x83
	compressed := frame(0, OpResult, nil)
	compressed[1] = flagCompressed
	huge := frame(0, OpResult, nil)
	binary.BigEndian.PutUint32(huge[5:], 256<<20+1)
	for name, b := range map[string][]byte{"v3": v3, "compressed": compressed, "huge": huge} {
		c := &Conn{rbuf: b, w: len(b)}
		if _, _, ok, err := c.Next(); ok || err == nil {
			t.Errorf("%s: ok %v, err %v; want an error", name, ok, err)
		}
	}
	var ve *VersionError
	if _, err := ParseHeader(v3); !errors.As(err, &ve) || ve.Got != 3 {
		t.Errorf("v3 header: %v, want a VersionError of 3", err)
	}
}

// TestParseRowsAndErrors: row counts with and without metadata (collection,
// UDT and tuple types included), warnings before the body, error bodies.
func TestParseRowsAndErrors(t *testing.T) {
	var b []byte
	b = AppendInt(b, resultRows)
	b = AppendInt(b, rowsGlobalSpec|rowsHasMorePages)
	b = AppendInt(b, 3)
	b = AppendBytes(b, []byte("paging-state"))
	b = AppendString(b, "ks")
	b = AppendString(b, "tbl")
	b = AppendString(b, "a")
	b = AppendShort(b, 0x0021) // map<text, list<int>>
	b = AppendShort(b, 0x000D)
	b = AppendShort(b, 0x0020)
	b = AppendShort(b, 0x0009)
	b = AppendString(b, "b")
	b = AppendShort(b, 0x0030) // UDT ks.t {x int}
	b = AppendString(b, "ks")
	b = AppendString(b, "t")
	b = AppendShort(b, 1)
	b = AppendString(b, "x")
	b = AppendShort(b, 0x0009)
	b = AppendString(b, "c")
	b = AppendShort(b, 0x0031) // tuple<int, custom>
	b = AppendShort(b, 2)
	b = AppendShort(b, 0x0009)
	b = AppendShort(b, 0x0000)
	b = AppendString(b, "org.example.Type")
	b = AppendInt(b, 2) // rows
	r := Reader{B: b}
	if n, cols, page, ok := RowsMeta(&r); !ok || n != 2 || cols != 3 || string(page) != "paging-state" || r.Err != nil {
		t.Errorf("rows with metadata: %d rows, %d cols, page %q, %v, %v; want 2 rows of 3, page paging-state", n, cols, page, ok, r.Err)
	}

	// NO_METADATA (what skip_metadata gets), after a warning envelope.
	b = AppendShort(nil, 1)
	b = AppendString(b, "a warning")
	b = AppendInt(b, resultRows)
	b = AppendInt(b, rowsNoMetadata)
	b = AppendInt(b, 6)
	b = AppendInt(b, 0)
	r = Reader{B: b}
	r.SkipEnvelope(flagWarning)
	if n, _, ok := RowsHead(&r); !ok || n != 0 || r.Err != nil {
		t.Errorf("no-metadata rows: %d, %v, %v; want 0 rows", n, ok, r.Err)
	}
	// Void (a write) is not rows.
	r = Reader{B: AppendInt(nil, 1)}
	if _, _, ok := RowsHead(&r); ok {
		t.Errorf("Void counted as rows")
	}
	// A truncated body is an error, not a panic.
	r = Reader{B: b[:len(b)-3]}
	r.SkipEnvelope(flagWarning)
	if RowsHead(&r); r.Err == nil {
		t.Errorf("truncated rows body: no error")
	}

	r = Reader{B: AppendString(AppendInt(nil, CodeWriteTimeout), "Operation timed out")}
	code, msg := ErrorBody(&r)
	if code != CodeWriteTimeout || msg != "Operation timed out" {
		t.Errorf("error body: %x %q", code, msg)
	}
}

// FuzzReadFrames: whatever the server sends, reading frames and their
// replies (envelope, rows metadata and values, error bodies) returns
// frames within the input or an error; it never panics or reads past a
// body.
func FuzzReadFrames(f *testing.F) {
	rows := AppendInt(AppendInt(AppendInt(AppendInt(nil, resultRows), rowsNoMetadata), 1), 1)
	rows = AppendBytes(rows, []byte("v"))
	meta := AppendInt(AppendInt(AppendInt(nil, resultRows), rowsGlobalSpec|rowsHasMorePages), 1)
	meta = AppendBytes(meta, []byte("page"))
	meta = AppendString(AppendString(meta, "ks"), "t")
	meta = AppendShort(AppendString(meta, "c"), 0x0021)
	meta = AppendShort(AppendShort(meta, 0x000D), 0x0031)
	meta = AppendShort(AppendShort(meta, 1), 0x0009)
	meta = AppendInt(meta, 0)
	warn := append(AppendString(AppendShort(nil, 1), "careful"), rows...)
	errBody := AppendString(AppendInt(nil, CodeUnavailable), "not enough replicas")
	f.Add(frame(1, OpResult, rows))
	f.Add(append(frame(2, OpResult, meta), frame(3, OpError, errBody)...))
	w := frame(4, OpResult, warn)
	w[1] = flagWarning | flagTracing
	f.Add(w)
	f.Add(frame(5, OpResult, AppendInt(nil, 1))[:12])
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &Conn{rbuf: append([]byte(nil), data...), w: len(data)}
		for {
			if c.Buffered() >= HeaderLen {
				// A frame longer than the input is only waited for; the
				// guard keeps a claimed length from allocating its size.
				if h, err := ParseHeader(c.rbuf[c.r:]); err == nil && h.Length > len(data) {
					return
				}
			}
			h, body, ok, err := c.Next()
			if err != nil || !ok {
				return
			}
			if len(body) != h.Length || c.r > c.w {
				t.Fatalf("frame of %d bytes gave a body of %d (read %d of %d)", h.Length, len(body), c.r, c.w)
			}
			r := Reader{B: body}
			r.SkipEnvelope(h.Flags)
			switch h.Op {
			case OpResult:
				n, cols, page, isRows := RowsMeta(&r)
				if isRows && r.Err == nil && len(page) > len(body) {
					t.Fatalf("paging state of %d bytes in a body of %d", len(page), len(body))
				}
				// Each value read takes at least 4 bytes: the loop ends.
				for i := 0; i < n*cols && r.Err == nil; i++ {
					if v := r.BytesView(); len(v) > len(body) {
						t.Fatalf("value of %d bytes in a body of %d", len(v), len(body))
					}
				}
			case OpError:
				if _, msg := ErrorBodyView(&r); len(msg) > len(body) {
					t.Fatalf("message of %d bytes in a body of %d", len(msg), len(body))
				}
			}
			if r.Err != nil && r.B != nil || len(r.B) > len(body) {
				t.Fatalf("reader left %d bytes of %d (err %v)", len(r.B), len(body), r.Err)
			}
		}
	})
}

// server answers each request frame read from peer with the next of
// replies (a whole frame each, its stream id set to the request's), and
// sends the requests' opcodes and bodies to got.
func server(t *testing.T, peer net.Conn, got chan<- []byte, replies ...[]byte) {
	t.Helper()
	go func() {
		for _, rep := range replies {
			h := make([]byte, HeaderLen)
			if _, err := io.ReadFull(peer, h); err != nil {
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(h[5:]))
			if _, err := io.ReadFull(peer, body); err != nil {
				return
			}
			got <- append([]byte{h[4]}, body...)
			rep = append([]byte(nil), rep...)
			copy(rep[2:4], h[2:4])
			peer.Write(rep)
		}
	}()
}

// TestStartup: the handshake answers a password challenge with the
// credentials, and reports what the server refused as a ServerError of
// the request it refused; without credentials it stops at the challenge.
func TestStartup(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	authenticate := frame(0, opAuthenticate, AppendString(nil, "org.apache.cassandra.auth.PasswordAuthenticator"))
	got := make(chan []byte, 4)

	c, peer := loopback(t)
	server(t, peer, got, authenticate, frame(0, opAuthSuccess, AppendInt(nil, -1)))
	if err := c.Startup("u", "pw", deadline); err != nil {
		t.Fatalf("Startup: %v", err)
	}
	if req := <-got; req[0] != opStartup || !bytes.Contains(req, []byte("CQL_VERSION")) {
		t.Errorf("first request: %q, want STARTUP with CQL_VERSION", req)
	}
	if req := <-got; req[0] != opAuthResponse || !bytes.Equal(req[1:], AppendBytes(nil, []byte("\x00u\x00pw"))) {
		t.Errorf("second request: %q, want AUTH_RESPONSE with \\0u\\0pw", req)
	}

	c, peer = loopback(t)
	server(t, peer, got, authenticate)
	if err := c.Startup("", "", deadline); !errors.Is(err, ErrAuthRequired) {
		t.Errorf("Startup without credentials: %v, want ErrAuthRequired", err)
	}
	<-got

	c, peer = loopback(t)
	server(t, peer, got, authenticate, frame(0, OpError, AppendString(AppendInt(nil, CodeBadCredential), "bad password")))
	var se *ServerError
	if err := c.Startup("u", "x", deadline); !errors.As(err, &se) || se.Req != "AUTH_RESPONSE" || se.Code != CodeBadCredential || se.Msg != "bad password" {
		t.Errorf("refused credentials: %v, want the AUTH_RESPONSE's ServerError", err)
	}
	<-got
	<-got

	c, peer = loopback(t)
	v3 := frame(0, opReady, nil)
	v3[0] = 0x83
	server(t, peer, got, v3)
	var ve *VersionError
	if err := c.Startup("", "", deadline); !errors.As(err, &ve) || ve.Got != 3 {
		t.Errorf("a v3 server: %v, want a VersionError of 3", err)
	}
	<-got
}

// TestUsePrepare: USE quotes the keyspace; PREPARE keeps each statement's
// id in order; an ERROR answer is a ServerError, a closed connection a
// NetError naming the host.
func TestUsePrepare(t *testing.T) {
	deadline := time.Now().Add(10 * time.Second)
	got := make(chan []byte, 4)
	c, peer := loopback(t)
	prepared := func(id string) []byte {
		b := AppendShortBytes(AppendInt(nil, resultPrepared), []byte(id))
		return frame(0, OpResult, append(b, make([]byte, 24)...)) // metadata, not read
	}
	server(t, peer, got, frame(0, OpResult, AppendInt(AppendString(nil, "ks"), 0)), prepared("id-1"), prepared("id-2"),
		frame(0, OpError, AppendString(AppendInt(nil, CodeSyntax), "line 1: no viable alternative")))
	if err := c.Use(`k"s`, deadline); err != nil {
		t.Fatalf("Use: %v", err)
	}
	if req := <-got; req[0] != opQuery || !bytes.Contains(req, []byte(`USE "k""s"`)) {
		t.Errorf("USE request: %q", req)
	}
	for _, s := range []string{"SELECT 1", "SELECT 2"} {
		if err := c.Prepare(s, deadline); err != nil {
			t.Fatalf("Prepare(%q): %v", s, err)
		}
		<-got
	}
	if len(c.IDs) != 2 || string(c.IDs[0]) != "id-1" || string(c.IDs[1]) != "id-2" {
		t.Errorf("IDs %q, want id-1, id-2", c.IDs)
	}
	var se *ServerError
	if err := c.Prepare("SELEC", deadline); !errors.As(err, &se) || se.Req != "PREPARE" || se.Code != CodeSyntax {
		t.Errorf("a refused statement: %v, want PREPARE's ServerError", err)
	}
	<-got
	peer.Close()
	var ne *NetError
	if err := c.Prepare("SELECT 3", deadline); !errors.As(err, &ne) || ne.Host != "test" {
		t.Errorf("a closed connection: %v, want a NetError of host test", err)
	}
}
