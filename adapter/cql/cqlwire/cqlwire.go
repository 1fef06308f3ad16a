// Package cqlwire speaks the CQL binary protocol, version 4
// (native_protocol_v4.spec in the Cassandra tree): only what the cql
// adapter's native worker sends and reads. Every Cassandra since 2.2,
// ScyllaDB and DSE speak it. Frames are a 9-byte header (version, flags,
// stream, opcode, body length) and a body; requests carry a stream id that
// the response repeats, so responses may come back in any order on one
// connection.
//
// The Append functions encode request frames into a caller's buffer,
// Reader walks a response body without copying, and Conn is one framed
// connection (its buffers, reads straight from the socket, the handshake
// and preparations). The package knows frames and replies, not the
// adapter's options, workloads or datasets: which error class a server
// error code is, and what a failure means to a user, the adapter says.
package cqlwire

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const (
	protoVersion = 0x04
	// HeaderLen is the size of a frame header.
	HeaderLen = 9
	// MaxStreams is the number of stream ids (0..32767, v3+).
	MaxStreams = 32768

	// Opcodes.
	OpError        = 0x00
	opStartup      = 0x01
	opReady        = 0x02
	opAuthenticate = 0x03
	opQuery        = 0x07
	OpResult       = 0x08
	opPrepare      = 0x09
	OpExecute      = 0x0A
	OpBatch        = 0x0D
	opAuthResponse = 0x0F
	opAuthSuccess  = 0x10
	opOptions      = 0x05
	opSupported    = 0x06

	flagCompressed    = 0x01
	flagTracing       = 0x02
	flagCustomPayload = 0x04
	flagWarning       = 0x08

	resultRows     = 0x0002
	resultPrepared = 0x0004

	// Flags of a query's parameters (QUERY, EXECUTE).
	QueryValues       = 0x01
	QuerySkipMetadata = 0x02
	QueryPageSize     = 0x04
	QueryPagingState  = 0x08
	QuerySerial       = 0x10

	rowsGlobalSpec   = 0x0001
	rowsHasMorePages = 0x0002
	rowsNoMetadata   = 0x0004

	consistencyOne = 0x0001
)

// Server error codes (section 9 of the spec).
const (
	CodeServer        = 0x0000
	CodeProtocol      = 0x000A
	CodeBadCredential = 0x0100
	CodeUnavailable   = 0x1000
	CodeOverloaded    = 0x1001
	CodeBootstrapping = 0x1002
	CodeTruncate      = 0x1003
	CodeWriteTimeout  = 0x1100
	CodeReadTimeout   = 0x1200
	CodeReadFailure   = 0x1300
	CodeFunction      = 0x1400
	CodeWriteFailure  = 0x1500
	CodeSyntax        = 0x2000
	CodeUnauthorized  = 0x2100
	CodeInvalid       = 0x2200
	CodeConfig        = 0x2300
	CodeAlreadyExists = 0x2400
	CodeUnprepared    = 0x2500
)

var (
	errShortFrame = errors.New("cql: malformed frame from the server (body shorter than its fields)")
	errCompressed = errors.New("cql: the server sent a compressed frame although compression was not negotiated")
)

// VersionError: the server answered with another protocol version than 4.
type VersionError struct{ Got byte }

func (e *VersionError) Error() string {
	return fmt.Sprintf("cql: the server answered with protocol version %d, want %d", e.Got, protoVersion)
}

// Header is a decoded response header.
type Header struct {
	Flags  byte
	Stream int16
	Op     byte
	Length int
}

// ParseHeader decodes the first HeaderLen bytes of b.
func ParseHeader(b []byte) (Header, error) {
	if b[0] != 0x80|protoVersion {
		return Header{}, &VersionError{Got: b[0] & 0x7F}
	}
	h := Header{
		Flags:  b[1],
		Stream: int16(binary.BigEndian.Uint16(b[2:])),
		Op:     b[4],
		Length: int(binary.BigEndian.Uint32(b[5:])),
	}
	if h.Length < 0 || h.Length > 256<<20 {
		return h, fmt.Errorf("cql: frame of %d bytes from the server (the protocol allows 256 MiB)", h.Length)
	}
	return h, nil
}

// AppendHeader starts a request frame; FinishFrame writes its body length.
func AppendHeader(b []byte, stream int, op byte) []byte {
	return append(b, protoVersion, 0, byte(stream>>8), byte(stream), op, 0, 0, 0, 0)
}

// FinishFrame writes the body length of the frame that starts at b[start].
func FinishFrame(b []byte, start int) {
	binary.BigEndian.PutUint32(b[start+5:], uint32(len(b)-start-HeaderLen))
}

// AppendShort appends a [short].
func AppendShort(b []byte, v int) []byte { return append(b, byte(v>>8), byte(v)) }

// AppendInt appends an [int].
func AppendInt(b []byte, v int32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

// AppendString appends a [string].
func AppendString(b []byte, s string) []byte { return append(AppendShort(b, len(s)), s...) }

// AppendLongString appends a [long string].
func AppendLongString(b []byte, s string) []byte {
	return append(AppendInt(b, int32(len(s))), s...)
}

// AppendBytes is a [bytes] value: nil is CQL null, an empty slice an empty value.
func AppendBytes(b []byte, v []byte) []byte {
	if v == nil {
		return AppendInt(b, -1)
	}
	return append(AppendInt(b, int32(len(v))), v...)
}

// AppendShortBytes appends a [short bytes].
func AppendShortBytes(b []byte, v []byte) []byte { return append(AppendShort(b, len(v)), v...) }

// Reader walks a response body; a read past the end sets Err and returns zeros.
type Reader struct {
	B   []byte
	Err error
}

func (r *Reader) need(n int) bool {
	if r.Err != nil {
		return false
	}
	if n < 0 || len(r.B) < n {
		r.Err = errShortFrame
		r.B = nil
		return false
	}
	return true
}

// Short reads a [short].
func (r *Reader) Short() int {
	if !r.need(2) {
		return 0
	}
	v := int(binary.BigEndian.Uint16(r.B))
	r.B = r.B[2:]
	return v
}

// Int reads an [int].
func (r *Reader) Int() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.B))
	r.B = r.B[4:]
	return v
}

func (r *Reader) skip(n int) {
	if r.need(n) {
		r.B = r.B[n:]
	}
}

// StringView reads a [string]; it aliases the body.
func (r *Reader) StringView() []byte {
	n := r.Short()
	if !r.need(n) {
		return nil
	}
	s := r.B[:n:n]
	r.B = r.B[n:]
	return s
}

func (r *Reader) skipString() { r.skip(r.Short()) }

// BytesView reads a [bytes] (nil for null); it aliases the body.
func (r *Reader) BytesView() []byte {
	n := int(r.Int())
	if n < 0 {
		return nil
	}
	if !r.need(n) {
		return nil
	}
	v := r.B[:n:n]
	r.B = r.B[n:]
	return v
}

// ShortBytes reads a [short bytes]; it aliases the body.
func (r *Reader) ShortBytes() []byte {
	n := r.Short()
	if !r.need(n) {
		return nil
	}
	v := r.B[:n:n]
	r.B = r.B[n:]
	return v
}

// SkipEnvelope skips what the response flags put before the body proper:
// a tracing id, warnings, a custom payload.
func (r *Reader) SkipEnvelope(flags byte) {
	if flags&flagTracing != 0 {
		r.skip(16)
	}
	if flags&flagWarning != 0 {
		for n := r.Short(); n > 0 && r.Err == nil; n-- {
			r.skipString()
		}
	}
	if flags&flagCustomPayload != 0 {
		for n := r.Short(); n > 0 && r.Err == nil; n-- {
			r.skipString()
			r.BytesView()
		}
	}
}

// skipOption skips a column type ([option], recursively for collections,
// UDTs and tuples).
func (r *Reader) skipOption() {
	id := r.Short()
	switch id {
	case 0x0000: // custom: class name
		r.skipString()
	case 0x0020, 0x0022: // list, set
		r.skipOption()
	case 0x0021: // map
		r.skipOption()
		r.skipOption()
	case 0x0030: // UDT
		r.skipString()
		r.skipString()
		for n := r.Short(); n > 0 && r.Err == nil; n-- {
			r.skipString()
			r.skipOption()
		}
	case 0x0031: // tuple
		for n := r.Short(); n > 0 && r.Err == nil; n-- {
			r.skipOption()
		}
	}
}

// RowsHead reads a RESULT body's kind and, for Rows, the row and column
// counts, leaving r at the first row (each row is its columns' [bytes]).
// Other kinds (Void for writes) are not Rows.
func RowsHead(r *Reader) (rows, cols int, isRows bool) {
	rows, cols, _, isRows = RowsMeta(r)
	return rows, cols, isRows
}

// RowsMeta is RowsHead with the paging state when more pages follow (a
// view into the frame; nil on the last page).
func RowsMeta(r *Reader) (rows, cols int, page []byte, isRows bool) {
	if r.Int() != resultRows {
		return 0, 0, nil, false
	}
	flags := r.Int()
	cols = int(r.Int())
	if flags&rowsHasMorePages != 0 {
		page = r.BytesView()
	}
	if flags&rowsNoMetadata == 0 {
		if flags&rowsGlobalSpec != 0 {
			r.skipString()
			r.skipString()
		}
		for i := 0; i < cols && r.Err == nil; i++ {
			if flags&rowsGlobalSpec == 0 {
				r.skipString()
				r.skipString()
			}
			r.skipString()
			r.skipOption()
		}
	}
	return int(r.Int()), cols, page, true
}

// ErrorBodyView reads an ERROR body's code and message; the message
// aliases the frame (no copy on the hot path).
func ErrorBodyView(r *Reader) (code int32, msg []byte) {
	code = r.Int()
	return code, r.StringView()
}

// ErrorBody is ErrorBodyView with the message copied out.
func ErrorBody(r *Reader) (code int32, msg string) {
	code, m := ErrorBodyView(r)
	return code, string(m)
}

// StringMultimap reads a [string multimap]: a [short] count of keys, each
// a [string] and a [string list] (the body of SUPPORTED). It allocates:
// handshakes only.
func (r *Reader) StringMultimap() map[string][]string {
	keys := r.Short()
	m := make(map[string][]string, min(keys, 64))
	for ; keys > 0 && r.Err == nil; keys-- {
		k := string(r.StringView())
		n := r.Short()
		vs := make([]string, 0, min(n, 16))
		for ; n > 0 && r.Err == nil; n-- {
			vs = append(vs, string(r.StringView()))
		}
		m[k] = vs
	}
	if r.Err != nil {
		return nil
	}
	return m
}
