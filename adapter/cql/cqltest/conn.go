package cqltest

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/platbench/platbench/adapter/cql/murmur3"
	"github.com/platbench/platbench/adapter/cql/scylla"
)

// Opcodes and result kinds of native_protocol_v4.spec.
const (
	opError     = 0x00
	opStartup   = 0x01
	opReady     = 0x02
	opOptions   = 0x05
	opSupported = 0x06
	opQuery     = 0x07
	opResult    = 0x08
	opPrepare   = 0x09
	opExecute   = 0x0A
	opRegister  = 0x0B
	opBatch     = 0x0D

	resultVoid        = 1
	resultRows        = 2
	resultSetKeyspace = 3
	resultPrepared    = 4

	codeProtocol   = 0x000A
	codeInvalid    = 0x2200
	codeConfig     = 0x2300
	codeUnprepared = 0x2500
)

// conn is one client connection, served by one goroutine.
type conn struct {
	n     *Node
	nc    net.Conn
	shard int
	aware bool

	lwt, rateLimit bool // negotiated in STARTUP
	out            []byte
}

func (c *conn) serve() {
	defer c.nc.Close()
	defer c.n.forget(c.nc)
	r := bufio.NewReaderSize(c.nc, 64<<10)
	hdr := make([]byte, 9)
	for {
		if _, err := io.ReadFull(r, hdr); err != nil {
			return
		}
		stream := int16(binary.BigEndian.Uint16(hdr[2:]))
		op := hdr[4]
		body := make([]byte, binary.BigEndian.Uint32(hdr[5:]))
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		if hdr[0] != 0x04 {
			c.fail(stream, codeProtocol, fmt.Sprintf("cqltest speaks protocol v4 only, got version %d", hdr[0]&0x7F), nil)
		} else {
			c.handle(stream, op, &rd{b: body})
		}
		// Write when no other request is buffered: a pipelining client's
		// answers go out in batches, as a server's do.
		if r.Buffered() < 9 || len(c.out) > 32<<10 {
			if _, err := c.nc.Write(c.out); err != nil {
				return
			}
			c.out = c.out[:0]
		}
	}
}

func (c *conn) handle(stream int16, op byte, r *rd) {
	switch op {
	case opOptions:
		c.frame(stream, opSupported, c.supported())
	case opStartup:
		opts := r.stringMap()
		_, c.lwt = opts[scylla.KeyLWTMark]
		_, c.rateLimit = opts[scylla.KeyRateLimitError]
		c.frame(stream, opReady, nil)
	case opRegister:
		c.frame(stream, opReady, nil)
	case opQuery:
		c.query(stream, r.longString())
	case opPrepare:
		c.prepare(stream, r.longString())
	case opExecute:
		c.execute(stream, r)
	case opBatch:
		c.batch(stream, r)
	default:
		c.fail(stream, codeProtocol, fmt.Sprintf("cqltest: opcode 0x%02X is not served", op), nil)
	}
}

// supported is this connection's SUPPORTED body: ScyllaDB's options in
// Scylla mode, Cassandra's alone otherwise.
func (c *conn) supported() []byte {
	o := [][2]string{{"CQL_VERSION", "3.0.0"}, {"PROTOCOL_VERSIONS", "4/v4"}}
	cfg := &c.n.c.cfg
	if cfg.Scylla {
		o = append(o, c.scyllaOptions()...)
	}
	var keys []string
	m := map[string][]string{"COMPRESSION": {}}
	for _, kv := range o {
		keys = append(keys, kv[0])
		m[kv[0]] = append(m[kv[0]], kv[1])
	}
	return appendMultimap(nil, append(keys, "COMPRESSION"), m)
}

// scyllaOptions are ScyllaDB's keys, as a node sends them.
func (c *conn) scyllaOptions() [][2]string {
	cfg := &c.n.c.cfg
	var o [][2]string
	o = append(o,
		[2]string{scylla.KeyShard, strconv.Itoa(c.shard)},
		[2]string{scylla.KeyNrShards, strconv.Itoa(cfg.Shards)},
		[2]string{scylla.KeyPartitioner, scylla.Murmur3},
		[2]string{scylla.KeyShardingAlgorithm, scylla.BiasedTokenRoundRobin},
		[2]string{scylla.KeyIgnoreMSB, strconv.Itoa(int(cfg.IgnoreMSB))},
		[2]string{scylla.KeyLWTMark, "LWT_OPTIMIZATION_META_BIT_MASK=" + strconv.Itoa(LWTMask)},
		[2]string{scylla.KeyRateLimitError, "ERROR_CODE=" + strconv.Itoa(RateLimitCode)})
	if p := c.n.AwarePort(); p != 0 {
		o = append(o, [2]string{scylla.KeyShardAwarePort, strconv.Itoa(p)})
	}
	return o
}

func (c *conn) frame(stream int16, op byte, body []byte) {
	c.out = append(c.out, 0x84, 0, byte(uint16(stream)>>8), byte(stream), op)
	c.out = binary.BigEndian.AppendUint32(c.out, uint32(len(body)))
	c.out = append(c.out, body...)
}

// fail answers an ERROR; extra follows the message (an unprepared id, the
// rate-limit error's two bytes).
func (c *conn) fail(stream int16, code int32, msg string, extra []byte) {
	b := binary.BigEndian.AppendUint32(nil, uint32(code))
	b = appendString(b, msg)
	c.frame(stream, opError, append(b, extra...))
}

func (c *conn) query(stream int16, q string) {
	f := strings.Fields(q)
	if len(f) == 2 && strings.EqualFold(f[0], "USE") {
		ks := strings.Trim(f[1], `"`)
		c.frame(stream, opResult, appendString(binary.BigEndian.AppendUint32(nil, resultSetKeyspace), ks))
		return
	}
	c.frame(stream, opResult, binary.BigEndian.AppendUint32(nil, resultVoid))
}

func (c *conn) prepare(stream int16, q string) {
	s, err := parseStmt(q, c.n.c.cfg.KeyColumns)
	if err != nil {
		c.fail(stream, codeInvalid, err.Error(), nil)
		return
	}
	c.n.mu.Lock()
	c.n.prepared[string(s.id)] = s
	c.n.mu.Unlock()
	c.frame(stream, opResult, s.preparedBody(c.lwt))
}

// execute serves an EXECUTE: <id><consistency><flags><values>...
func (c *conn) execute(stream int16, r *rd) {
	id := r.shortBytes()
	s, err := c.n.statement(id)
	if err != nil {
		c.fail(stream, codeUnprepared, err.Error(), appendShortBytes(nil, id))
		return
	}
	r.short() // consistency
	var vals [][]byte
	if r.byte()&0x01 != 0 {
		for k := r.short(); k > 0 && r.err == nil; k-- {
			vals = append(vals, r.bytes())
		}
	}
	if r.err != nil {
		c.fail(stream, codeProtocol, "cqltest: malformed EXECUTE", nil)
		return
	}
	c.count(s, vals)
	if every := c.n.c.cfg.RateLimitEvery; every > 0 && c.n.executes.Add(1)%int64(every) == 0 {
		c.n.rateLimited.Add(1)
		if c.rateLimit {
			c.fail(stream, RateLimitCode, "cqltest: per-partition rate limit reached", []byte{1, 1})
		} else {
			c.fail(stream, codeConfig, "cqltest: per-partition rate limit reached", nil)
		}
		return
	}
	c.frame(stream, opResult, c.n.apply(s, vals))
}

// batch serves a BATCH: <type><n><query_1>...<query_n><consistency>...
// Each statement is checked against its own token (a batch of one
// partition's rows is what a token-aware client sends to it).
func (c *conn) batch(stream int16, r *rd) {
	r.byte()
	for k := r.short(); k > 0 && r.err == nil; k-- {
		var s *stmt
		if r.byte() == 0 {
			var err error
			if s, err = parseStmt(r.longString(), c.n.c.cfg.KeyColumns); err != nil {
				c.fail(stream, codeInvalid, err.Error(), nil)
				return
			}
		} else {
			id := r.shortBytes()
			var err error
			if s, err = c.n.statement(id); err != nil {
				c.fail(stream, codeUnprepared, err.Error(), appendShortBytes(nil, id))
				return
			}
		}
		var vals [][]byte
		for v := r.short(); v > 0 && r.err == nil; v-- {
			vals = append(vals, r.bytes())
		}
		c.count(s, vals)
		c.n.apply(s, vals)
	}
	if r.err != nil {
		c.fail(stream, codeProtocol, "cqltest: malformed BATCH", nil)
		return
	}
	c.frame(stream, opResult, binary.BigEndian.AppendUint32(nil, resultVoid))
}

// count checks one execution against the owner of its token.
func (c *conn) count(s *stmt, vals [][]byte) {
	n := c.n
	n.requests[c.shard].Add(1)
	if s.pk < 0 || s.pk >= len(vals) || vals[s.pk] == nil {
		n.unrouted.Add(1)
		return
	}
	t := murmur3.Token(vals[s.pk])
	switch {
	case n.c.Owner(t) != n.index:
		n.wrongNode.Add(1)
	case n.sharder.ShardOf(t) != c.shard:
		n.wrongShard.Add(1)
	}
}

// rd reads a request body; a read past the end sets err.
type rd struct {
	b   []byte
	err error
}

var errShort = errors.New("cqltest: request body shorter than its fields")

func (r *rd) take(n int) []byte {
	if r.err != nil || n < 0 || len(r.b) < n {
		r.err = errShort
		return nil
	}
	v := r.b[:n:n]
	r.b = r.b[n:]
	return v
}

func (r *rd) byte() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *rd) short() int {
	if b := r.take(2); b != nil {
		return int(binary.BigEndian.Uint16(b))
	}
	return 0
}

func (r *rd) int() int32 {
	if b := r.take(4); b != nil {
		return int32(binary.BigEndian.Uint32(b))
	}
	return 0
}

func (r *rd) string() string { return string(r.take(r.short())) }

func (r *rd) longString() string { return string(r.take(int(r.int()))) }

func (r *rd) shortBytes() []byte { return r.take(r.short()) }

// bytes is a [bytes] value: nil for CQL null (a negative length).
func (r *rd) bytes() []byte {
	n := int(r.int())
	if n < 0 {
		return nil
	}
	if n == 0 {
		return []byte{}
	}
	return r.take(n)
}

func (r *rd) stringMap() map[string]string {
	m := map[string]string{}
	for k := r.short(); k > 0 && r.err == nil; k-- {
		key := r.string()
		m[key] = r.string()
	}
	return m
}

func appendString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

func appendShortBytes(b, v []byte) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(v))), v...)
}

// appendMultimap appends m as a [string multimap], keys in the order given.
func appendMultimap(b []byte, keys []string, m map[string][]string) []byte {
	b = binary.BigEndian.AppendUint16(b, uint16(len(keys)))
	for _, k := range keys {
		b = appendString(b, k)
		b = binary.BigEndian.AppendUint16(b, uint16(len(m[k])))
		for _, v := range m[k] {
			b = appendString(b, v)
		}
	}
	return b
}
