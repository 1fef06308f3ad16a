package cqltest

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/adapter/cql/murmur3"
	"github.com/platbench/platbench/adapter/cql/scylla"
)

// client is a bare protocol v4 client: one request at a time, stream 1.
type client struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (c *client) do(op byte, body []byte) (byte, []byte) {
	c.t.Helper()
	f := append([]byte{0x04, 0, 0, 1, op}, binary.BigEndian.AppendUint32(nil, uint32(len(body)))...)
	if _, err := c.nc.Write(append(f, body...)); err != nil {
		c.t.Fatal(err)
	}
	h := make([]byte, 9)
	if _, err := io.ReadFull(c.r, h); err != nil {
		c.t.Fatal(err)
	}
	b := make([]byte, binary.BigEndian.Uint32(h[5:]))
	if _, err := io.ReadFull(c.r, b); err != nil {
		c.t.Fatal(err)
	}
	return h[4], b
}

func dial(t *testing.T, nc net.Conn) (*client, scylla.Supported) {
	t.Helper()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	c := &client{t: t, nc: nc, r: bufio.NewReader(nc)}
	t.Cleanup(func() { nc.Close() })
	op, body := c.do(opOptions, nil)
	if op != opSupported {
		t.Fatalf("OPTIONS answered 0x%02X", op)
	}
	r := cqlwire.Reader{B: body}
	m := r.StringMultimap()
	if r.Err != nil {
		t.Fatal(r.Err)
	}
	s, err := scylla.Parse(m)
	if err != nil {
		t.Fatal(err)
	}
	startup := binary.BigEndian.AppendUint16(nil, 2)
	for _, kv := range [][2]string{{"CQL_VERSION", "3.0.0"}, {scylla.KeyLWTMark, "LWT_OPTIMIZATION_META_BIT_MASK=2147483648"}} {
		startup = appendString(appendString(startup, kv[0]), kv[1])
	}
	if op, _ := c.do(opStartup, startup); op != opReady {
		t.Fatalf("STARTUP answered 0x%02X", op)
	}
	return c, s
}

func (c *client) prepare(q string) (id []byte, flags uint32, pk int) {
	op, b := c.do(opPrepare, append(binary.BigEndian.AppendUint32(nil, uint32(len(q))), q...))
	if op != opResult {
		c.t.Fatalf("PREPARE %q answered 0x%02X: %q", q, op, b)
	}
	r := &rd{b: b}
	r.int()
	id = r.shortBytes()
	flags = uint32(r.int())
	r.int()
	pk = -1
	if r.int() == 1 {
		pk = r.short()
	}
	return id, flags, pk
}

func (c *client) execute(id []byte, vals ...[]byte) (byte, []byte) {
	b := appendShortBytes(nil, id)
	b = append(binary.BigEndian.AppendUint16(b, 1), 0x01)
	b = binary.BigEndian.AppendUint16(b, uint16(len(vals)))
	for _, v := range vals {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
	}
	return c.do(opExecute, b)
}

// TestShardAwareServer: the server's own behaviour, with a bare client:
// SUPPORTED carries the options; a connection to the shard-aware port from
// a port p is served by shard p % shards; an EXECUTE is counted on its
// connection's shard and checked against its token's owner; a read finds
// what was written; the LWT mark is set on a conditional statement.
func TestShardAwareServer(t *testing.T) {
	cl, err := Start(Config{Scylla: true, ShardAwarePort: true, Nodes: 2, Shards: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	lo, hi := scylla.PortRange()
	key := []byte("user42")
	tok := murmur3.Token(key)
	owner := cl.Owner(tok)
	node := cl.Node(owner)
	want := scylla.NewSharder(3, 12).ShardOf(tok)
	aware, _ := scylla.ShardAwareAddr(node.Addr(), uint16(node.AwarePort()))
	for shard := range 3 {
		nc, err := scylla.DialShard(context.Background(), net.Dialer{}, aware, shard, 3, lo, hi)
		if err != nil {
			t.Fatal(err)
		}
		c, sup := dial(t, nc)
		if !sup.Sharded() || sup.Shard != shard || sup.NrShards != 3 || int(sup.ShardAwarePort) != node.AwarePort() || !sup.LWTMark || !sup.RateLimit {
			t.Fatalf("asked for shard %d: %+v", shard, sup)
		}
		ins, _, pk := c.prepare("INSERT INTO ks.usertable (y_id, field0) VALUES (?, ?)")
		if pk != 0 {
			t.Errorf("insert's pk_index %d, want 0", pk)
		}
		if op, b := c.execute(ins, key, []byte("v")); op != opResult {
			t.Fatalf("EXECUTE: 0x%02X %q", op, b)
		}
		sel, _, _ := c.prepare("SELECT field0 FROM ks.usertable WHERE y_id = ?")
		_, b := c.execute(sel, key)
		r := &rd{b: b}
		if r.int() != resultRows || r.int() != 0x0004 || r.int() != 1 || r.int() != 1 || string(r.bytes()) != "v" {
			t.Errorf("the read did not find the write: %q", b)
		}
		_, flags, pk := c.prepare(`UPDATE ks.usertable SET field0 = ? WHERE y_id = ? IF field0 = ?`)
		if flags&LWTMask == 0 || pk != 1 {
			t.Errorf("LWT update: flags %#x, pk %d", flags, pk)
		}
	}
	s := cl.Stats()
	if s.AwareConns[owner][0] != 1 || s.AwareConns[owner][1] != 1 || s.AwareConns[owner][2] != 1 {
		t.Errorf("shard-aware connections per shard %v, want one each", s.AwareConns[owner])
	}
	if s.Requests[owner][0]+s.Requests[owner][1]+s.Requests[owner][2] != 6 || s.WrongNode != 0 || s.WrongShard != 4 {
		t.Errorf("stats %+v: want 6 requests, 2 on shard %d, 4 counted on the wrong shard", s, want)
	}
	// On the other node every request is on the wrong node.
	other := cl.Node(1 - owner)
	nc, err := net.Dial("tcp", other.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c, _ := dial(t, nc)
	ins, _, _ := c.prepare("INSERT INTO ks.usertable (y_id, field0) VALUES (?, ?)")
	c.execute(ins, key, []byte("w"))
	if s := cl.Stats(); s.WrongNode != 1 {
		t.Errorf("a request on the wrong node: WrongNode %d", s.WrongNode)
	}
}

// TestCassandraMode: no ScyllaDB option in SUPPORTED, one shard.
func TestCassandraMode(t *testing.T) {
	cl, err := Start(Config{Nodes: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nc, err := net.Dial("tcp", cl.Hosts()[0])
	if err != nil {
		t.Fatal(err)
	}
	_, sup := dial(t, nc)
	if sup != (scylla.Supported{}) {
		t.Errorf("Cassandra mode advertised %+v", sup)
	}
}

// TestBatch: each statement of a BATCH (prepared or not) is checked
// against its own token, and its rows are written.
func TestBatch(t *testing.T) {
	cl, err := Start(Config{Scylla: true, Nodes: 1, Shards: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	nc, err := net.Dial("tcp", cl.Hosts()[0])
	if err != nil {
		t.Fatal(err)
	}
	c, _ := dial(t, nc)
	ins, _, _ := c.prepare("INSERT INTO ks.t (key, \"C0\") VALUES (?, ?)")
	b := []byte{1}                          // unlogged
	b = binary.BigEndian.AppendUint16(b, 2) // two statements
	b = append(b, 1)                        // prepared
	b = appendShortBytes(b, ins)            // its id
	b = binary.BigEndian.AppendUint16(b, 2) // two values
	for _, v := range []string{"k1", "v1"} {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
	}
	q := `INSERT INTO ks.t (key, "C0") VALUES (?, ?)`
	b = append(b, 0) // a query string
	b = append(binary.BigEndian.AppendUint32(b, uint32(len(q))), q...)
	b = binary.BigEndian.AppendUint16(b, 2)
	for _, v := range []string{"k2", "v2"} {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
	}
	b = append(binary.BigEndian.AppendUint16(b, 1), 0) // consistency ONE, no flags
	if op, body := c.do(opBatch, b); op != opResult {
		t.Fatalf("BATCH answered 0x%02X %q", op, body)
	}
	s := cl.Stats()
	if got := s.Requests[0][0] + s.Requests[0][1]; got != 2 || s.WrongNode != 0 || s.Unrouted != 0 {
		t.Errorf("stats %+v: want 2 statements counted on the one node", s)
	}
	sel, _, _ := c.prepare(`SELECT "C0" FROM ks.t WHERE key = ?`)
	for _, k := range []string{"k1", "k2"} {
		_, body := c.execute(sel, []byte(k))
		r := &rd{b: body}
		r.int()
		r.int()
		r.int()
		if r.int() != 1 || string(r.bytes()) != "v"+k[1:] {
			t.Errorf("the batch's row %s was not written: %q", k, body)
		}
	}
}
