package cql

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The CQL binary protocol, version 4 (native_protocol_v4.spec in the
// Cassandra tree): only what the native worker sends and reads. Every
// Cassandra since 2.2, ScyllaDB and DSE speak it. Frames are a 9-byte header
// (version, flags, stream, opcode, body length) and a body; requests carry a
// stream id that the response repeats, so responses may come back in any
// order on one connection.

const (
	protoVersion = 0x04
	headerLen    = 9
	maxStreams   = 32768 // stream ids 0..32767 (v3+)

	opError        = 0x00
	opStartup      = 0x01
	opReady        = 0x02
	opAuthenticate = 0x03
	opQuery        = 0x07
	opResult       = 0x08
	opPrepare      = 0x09
	opExecute      = 0x0A
	opBatch        = 0x0D
	opAuthResponse = 0x0F
	opAuthSuccess  = 0x10

	flagCompressed    = 0x01
	flagTracing       = 0x02
	flagCustomPayload = 0x04
	flagWarning       = 0x08

	resultRows     = 0x0002
	resultPrepared = 0x0004

	qpValues       = 0x01
	qpSkipMetadata = 0x02
	qpPageSize     = 0x04
	qpPagingState  = 0x08
	qpSerial       = 0x10

	rowsGlobalSpec   = 0x0001
	rowsHasMorePages = 0x0002
	rowsNoMetadata   = 0x0004
)

// Server error codes (section 9 of the spec).
const (
	codeServer        = 0x0000
	codeProtocol      = 0x000A
	codeBadCredential = 0x0100
	codeUnavailable   = 0x1000
	codeOverloaded    = 0x1001
	codeBootstrapping = 0x1002
	codeTruncate      = 0x1003
	codeWriteTimeout  = 0x1100
	codeReadTimeout   = 0x1200
	codeReadFailure   = 0x1300
	codeFunction      = 0x1400
	codeWriteFailure  = 0x1500
	codeSyntax        = 0x2000
	codeUnauthorized  = 0x2100
	codeInvalid       = 0x2200
	codeConfig        = 0x2300
	codeAlreadyExists = 0x2400
	codeUnprepared    = 0x2500
)

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
		codeServer:        {vocab.ClassOther, "server error"},
		codeProtocol:      {vocab.ClassRejected, "protocol error"},
		codeBadCredential: {vocab.ClassRejected, "bad credentials"},
		codeUnavailable:   {vocab.ClassUnavailable, "unavailable (not enough replicas alive)"},
		codeOverloaded:    {vocab.ClassOverloaded, "overloaded"},
		codeBootstrapping: {vocab.ClassUnavailable, "coordinator is bootstrapping"},
		codeTruncate:      {vocab.ClassUnavailable, "truncate error"},
		codeWriteTimeout:  {vocab.ClassTimeout, "write timeout (server side)"},
		codeReadTimeout:   {vocab.ClassTimeout, "read timeout (server side)"},
		codeReadFailure:   {vocab.ClassUnavailable, "read failure"},
		codeFunction:      {vocab.ClassOther, "function failure"},
		codeWriteFailure:  {vocab.ClassUnavailable, "write failure"},
		codeSyntax:        {vocab.ClassRejected, "syntax error"},
		codeUnauthorized:  {vocab.ClassRejected, "unauthorized"},
		codeInvalid:       {vocab.ClassRejected, "invalid request"},
		codeConfig:        {vocab.ClassRejected, "configuration error"},
		codeAlreadyExists: {vocab.ClassRejected, "already exists"},
		codeUnprepared:    {vocab.ClassOther, "statement not prepared on this node"},
	} {
		serverErrors[code] = &adapter.Error{Class: def.class, Err: fmt.Errorf("cql: %s (server code 0x%04X)", def.name, code)}
	}
}

// serverError returns the error value of an exception code.
func serverError(code int32) *adapter.Error {
	if e, ok := serverErrors[code]; ok {
		return e
	}
	return &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("cql: server error code 0x%04X", code)}
}

var (
	errShortFrame = errors.New("cql: malformed frame from the server (body shorter than its fields)")
	errCompressed = errors.New("cql: the server sent a compressed frame although compression was not negotiated")
)

// frameHeader is a decoded response header.
type frameHeader struct {
	flags  byte
	stream int16
	op     byte
	length int
}

func parseHeader(b []byte) (frameHeader, error) {
	if b[0] != 0x80|protoVersion {
		return frameHeader{}, fmt.Errorf("cql: the server answered with protocol version %d, want %d (fix: use driver=gocql for servers without protocol v4)", b[0]&0x7F, protoVersion)
	}
	h := frameHeader{
		flags:  b[1],
		stream: int16(binary.BigEndian.Uint16(b[2:])),
		op:     b[4],
		length: int(binary.BigEndian.Uint32(b[5:])),
	}
	if h.length < 0 || h.length > 256<<20 {
		return h, fmt.Errorf("cql: frame of %d bytes from the server (the protocol allows 256 MiB)", h.length)
	}
	return h, nil
}

// appendHeader starts a request frame; finishFrame writes its body length.
func appendHeader(b []byte, stream int, op byte) []byte {
	return append(b, protoVersion, 0, byte(stream>>8), byte(stream), op, 0, 0, 0, 0)
}

func finishFrame(b []byte, start int) {
	binary.BigEndian.PutUint32(b[start+5:], uint32(len(b)-start-headerLen))
}

func appendShort(b []byte, v int) []byte { return append(b, byte(v>>8), byte(v)) }

func appendInt(b []byte, v int32) []byte {
	return append(b, byte(v>>24), byte(v>>16), byte(v>>8), byte(v))
}

func appendString(b []byte, s string) []byte { return append(appendShort(b, len(s)), s...) }

func appendLongString(b []byte, s string) []byte {
	return append(appendInt(b, int32(len(s))), s...)
}

// appendBytes is a [bytes] value: nil is CQL null, an empty slice an empty value.
func appendBytes(b []byte, v []byte) []byte {
	if v == nil {
		return appendInt(b, -1)
	}
	return append(appendInt(b, int32(len(v))), v...)
}

func appendShortBytes(b []byte, v []byte) []byte { return append(appendShort(b, len(v)), v...) }

// reader walks a response body; a read past the end sets err and returns zeros.
type reader struct {
	b   []byte
	err error
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if n < 0 || len(r.b) < n {
		r.err = errShortFrame
		r.b = nil
		return false
	}
	return true
}

func (r *reader) short() int {
	if !r.need(2) {
		return 0
	}
	v := int(binary.BigEndian.Uint16(r.b))
	r.b = r.b[2:]
	return v
}

func (r *reader) int() int32 {
	if !r.need(4) {
		return 0
	}
	v := int32(binary.BigEndian.Uint32(r.b))
	r.b = r.b[4:]
	return v
}

func (r *reader) skip(n int) {
	if r.need(n) {
		r.b = r.b[n:]
	}
}

func (r *reader) stringView() []byte {
	n := r.short()
	if !r.need(n) {
		return nil
	}
	s := r.b[:n:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) skipString() { r.skip(r.short()) }

func (r *reader) bytesView() []byte {
	n := int(r.int())
	if n < 0 {
		return nil
	}
	if !r.need(n) {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) shortBytes() []byte {
	n := r.short()
	if !r.need(n) {
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

// skipEnvelope skips what the response flags put before the body proper:
// a tracing id, warnings, a custom payload.
func (r *reader) skipEnvelope(flags byte) {
	if flags&flagTracing != 0 {
		r.skip(16)
	}
	if flags&flagWarning != 0 {
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.skipString()
		}
	}
	if flags&flagCustomPayload != 0 {
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.skipString()
			r.bytesView()
		}
	}
}

// skipOption skips a column type ([option], recursively for collections,
// UDTs and tuples).
func (r *reader) skipOption() {
	id := r.short()
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
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.skipString()
			r.skipOption()
		}
	case 0x0031: // tuple
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.skipOption()
		}
	}
}

// rowsHead reads a RESULT body's kind and, for Rows, the row and column
// counts, leaving r at the first row (the rows are decoded only by a
// checked read: checkRows). Other kinds (Void for writes) are not Rows.
func rowsHead(r *reader) (rows, cols int, isRows bool) {
	rows, cols, _, isRows = rowsMeta(r)
	return rows, cols, isRows
}

// rowsMeta is rowsHead with the paging state when more pages follow (a
// view into the frame; nil on the last page).
func rowsMeta(r *reader) (rows, cols int, page []byte, isRows bool) {
	if r.int() != resultRows {
		return 0, 0, nil, false
	}
	flags := r.int()
	cols = int(r.int())
	if flags&rowsHasMorePages != 0 {
		page = r.bytesView()
	}
	if flags&rowsNoMetadata == 0 {
		if flags&rowsGlobalSpec != 0 {
			r.skipString()
			r.skipString()
		}
		for i := 0; i < cols && r.err == nil; i++ {
			if flags&rowsGlobalSpec == 0 {
				r.skipString()
				r.skipString()
			}
			r.skipString()
			r.skipOption()
		}
	}
	return int(r.int()), cols, page, true
}

// checkRows checks the rows of a checked read (workload validate): each
// row's columns are the fields in order, after the key when keyCol (a
// scan); key is the record's key otherwise. A null, short or wrong field is
// corrupt. It does not allocate.
func checkRows(r *reader, rows, cols int, key []byte, keyCol bool, fieldLen int) workload.Verdict {
	first := 0
	if keyCol {
		first = 1
	}
	for range rows {
		for c := range cols {
			v := r.bytesView()
			if r.err != nil {
				return workload.ValueCorrupt
			}
			if c < first {
				key = v
				continue
			}
			if len(v) != fieldLen || !workload.CheckField(v, key, c-first) {
				return workload.ValueCorrupt
			}
		}
	}
	return workload.ValueOK
}

// errorBodyView reads an ERROR body's code and message; the message
// aliases the frame (no copy on the hot path).
func errorBodyView(r *reader) (code int32, msg []byte) {
	code = r.int()
	return code, r.stringView()
}

// errorBody is errorBodyView with the message copied out.
func errorBody(r *reader) (code int32, msg string) {
	code, m := errorBodyView(r)
	return code, string(m)
}
