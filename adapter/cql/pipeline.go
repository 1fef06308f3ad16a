package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/cql/cqlwire"
	"github.com/platbench/platbench/adapter/cql/csprofile"
	"github.com/platbench/platbench/adapter/cql/scylla"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// The native worker (driver=native, the default): platbench's own CQL
// protocol v4 client (the protocol itself is adapter/cql/cqlwire), built
// for the load generator's hot path the way the Redis target's RESP client
// is. One worker is one goroutine holding one
// connection to each node (of the local DC); it implements adapter.Pipeliner,
// so the runner keeps many requests in flight from that goroutine: Submit
// encodes an EXECUTE frame (the statements are prepared on each connection
// when it opens) into the connection's write buffer, Flush writes each
// connection's batch in one write, Poll reads responses, which carry the
// request's stream id and may come back in any order. Requests are routed
// to a node owning the key (Murmur3 token ring) or round robin. A
// cassandra-stress profile runs on the same worker (profile_pipeline.go): its
// operations that need several frames (batches, pages) continue on their
// stream as the answers arrive.
//
// The gocql driver (driver=gocql) remains for what this client does not do:
// TLS and protocol compression.
//
// Timeouts: a request still unanswered after the timeout completes with a
// timeout error; its stream stays reserved until the late response arrives
// (or the connection closes), so that the response is not taken for
// another request's. Timeouts are checked every timeout/8 (at most 100 ms),
// so a request times out between timeout and timeout + 2 checks.

// Request kinds.
const (
	kindWrite   = iota // any response but an error completes the op
	kindRead           // a Rows result with no row is not found
	kindRMWRead        // the read of a read-modify-write: its write follows
	kindScan           // a scan: as kindRead, its rows carry their keys
	kindPWrite         // a profile's write: may continue with more batches (profile_pipeline.go)
	kindPQuery         // a profile's query: may continue with more pages
)

// stream is one request in flight (indexed by stream id).
type stream struct {
	busy    bool
	orphan  bool // timed out; its response is still due
	kind    uint8
	conn    int16
	tag     int32
	seen    int64  // first time a timeout check saw it (0: not yet)
	pending []byte // the RMW's write frame, sent when its read returns; a profile query's bound values
	key     []byte // a checked read's key (workload validate)

	// A profile operation's continuation (profile_pipeline.go).
	st *csprofile.Stmt
	vs []csprofile.Visit // a profile write's rows; vs[vi:] are still to send
	vi int
}

// pworker: see above.
type pworker struct {
	t     *Target
	st    *statements
	cfg   *Config
	hosts []string        // the nodes
	conns []*cqlwire.Conn // per slot (shards.go): nil: down (redialled on demand)
	fail  []time.Time

	// Shard awareness (shards.go): where each node's connections sit, what
	// each slot's connection said in SUPPORTED, the requests sent per slot,
	// the connections opened per node (through the shard-aware port,
	// plain, closed as excess).
	lay                     shardLayout
	sups                    []scylla.Supported
	sent                    []int64
	nAware, nPlain, nExcess []int
	lwt                     []bool // per statement (cqls): ScyllaDB marked it a lightweight transaction
	anyLWT                  bool

	// Redials of a node that is down run in the background while the other
	// nodes serve (a dial to a dead host can take the connect timeout).
	dialing []bool
	dialed  chan dialResult
	ndial   int
	ring    ring
	rr      int

	streams []stream
	free    []int16 // free stream ids (a stack)
	hw      int     // streams[:hw] have been used
	live    int     // requests the runner waits for (not orphans)
	depth   int

	broken   []error // per slot: a connection that failed in Flush: its requests fail at the next Poll
	inflight []int   // per slot: streams taken (orphans included)

	timeout    int64 // ns
	checkEvery int64
	nextCheck  int64
	errTimeout error

	wt *waiter // waits on every connection at once (waiter.go)

	next     int // rotates the field single-field updates write
	lastRows int // rows in the last Rows result (for tests)

	syncer adapter.Syncer

	cqls []string  // the statements prepared on each connection
	prof *profPipe // a profile's operations (profile_pipeline.go); nil: ycsb/stress
}

var (
	_ adapter.Pipeliner   = (*pworker)(nil)
	_ adapter.TimedPoller = (*pworker)(nil)
)

// maxDepth is the most requests a native worker keeps in flight; the other
// stream ids are room for timed-out requests whose responses are still due.
const maxDepth = cqlwire.MaxStreams / 2

var monoStart = time.Now()

// mono is a monotonic clock in ns.
func mono() int64 { return int64(time.Since(monoStart)) }

func newNativeWorker(t *Target, st *statements, hosts []string, rg ring, id int) (*pworker, error) {
	return newNativeConns(t, &t.cfg, st, st.all(), nil, hosts, rg, id)
}

// newNativeConns makes a native worker preparing cqls on each connection;
// st (ycsb/stress) or prof (a profile) says what its requests are.
func newNativeConns(t *Target, c *Config, st *statements, cqls []string, prof *profPipe, hosts []string, rg ring, id int) (*pworker, error) {
	w := &pworker{
		t: t, st: st, cfg: c, hosts: hosts, ring: rg, cqls: cqls, prof: prof,
		streams: make([]stream, cqlwire.MaxStreams),
		free:    make([]int16, cqlwire.MaxStreams),
		depth:   maxDepth,
		timeout: int64(c.Timeout),
		rr:      id,
	}
	if st != nil {
		w.next = id % st.fields
	}
	w.checkEvery = min(w.timeout/8, int64(100*time.Millisecond))
	w.nextCheck = mono() + w.checkEvery
	w.errTimeout = &adapter.Error{Class: vocab.ClassTimeout, Err: fmt.Errorf("cql: no response within the request timeout %s", c.Timeout)}
	for i := range w.free {
		w.free[i] = int16(cqlwire.MaxStreams - 1 - i)
	}
	// The wait for any of several nodes, and for one node the timed wait
	// of a fixed-rate run (the runtime poller's deadlines wake up to a
	// millisecond late, too coarse for a schedule).
	wt, err := newWaiter()
	if err != nil {
		return nil, err
	}
	w.wt = wt
	// Connect to every node (and each shard of a sharded one) now, so
	// that the run starts with all of them; a node that is down is retried
	// during the run.
	if err := w.connectAll(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// dial opens the connection of slot i and waits for it.
func (w *pworker) dial(i int) error { return w.dialDone(w.connect(i)) }

// dialTarget is what a dial opens: a connection to the node's CQL port
// (aware ""), or one to shard of shards through the shard-aware port at
// aware (shards.go).
type dialTarget struct {
	aware         string
	shard, shards int
}

// dialNative opens a connection of the native worker to host (protocol v4,
// adapter/cql/cqlwire), reads what the node supports (ScyllaDB's sharding
// and extensions, with shard_aware), authenticates and prepares stmts.
// Failures are explained in one line with the fix.
func dialNative(ctx context.Context, cfg *Config, host string, stmts []string, to dialTarget) dialResult {
	nc, aware, err := dialSocket(ctx, cfg, host, to)
	if err != nil {
		return dialResult{err: &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("cql: cannot reach %s: %v (fix: check that the node runs and listens on native_transport_port)", host, err)}}
	}
	c, err := cqlwire.NewConn(host, nc)
	if err != nil {
		return dialResult{err: err}
	}
	r := dialResult{c: c, aware: aware}
	// The handshake and the preparations run one request at a time, under
	// the connect timeout.
	deadline := time.Now().Add(cfg.ConnectTimeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	if cfg.ShardAware {
		opts, err := c.Options(deadline)
		if err != nil {
			c.Close()
			return dialResult{err: startupErr(cfg, host, err)}
		}
		// A node whose ScyllaDB options cannot be read is served as one
		// that has none; the worker reports it (supErr).
		r.sup, r.supErr = scylla.Parse(opts)
	}
	if err := c.Startup(cfg.Username, cfg.Password, deadline, r.sup.Startup()...); err != nil {
		c.Close()
		return dialResult{err: startupErr(cfg, host, err)}
	}
	if cfg.sessionKeyspace != "" {
		if err := c.Use(cfg.sessionKeyspace, deadline); err != nil {
			c.Close()
			return dialResult{err: requestErr(fmt.Sprintf("USE %s on %s: ", cfg.sessionKeyspace, host), err)}
		}
	}
	for _, s := range stmts {
		if err := c.Prepare(s, deadline); err != nil {
			c.Close()
			return dialResult{err: requestErr(fmt.Sprintf("preparing %q on %s: ", s, host), err)}
		}
	}
	c.ClearDeadlines()
	return r
}

// dialSocket connects to host, or to the shard to.shard through the
// shard-aware port when there is one; when that fails (a firewall, a NAT
// that rewrites source ports), to host: the node then picks the shard.
// aware says which it was.
func dialSocket(ctx context.Context, cfg *Config, host string, to dialTarget) (nc net.Conn, aware bool, err error) {
	d := net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second}
	if to.aware != "" {
		lo, hi := scylla.PortRange()
		if nc, err = scylla.DialShard(ctx, d, to.aware, to.shard, to.shards, lo, hi); err == nil {
			return nc, true, nil
		}
	}
	nc, err = d.DialContext(ctx, "tcp", host)
	return nc, false, err
}

// redial starts a background dial of slot i.
func (w *pworker) redial(i int) {
	w.dialing[i] = true
	w.ndial++
	go func() { w.dialed <- w.connect(i) }()
}

// collectDials takes in the background dials that finished, if any.
func (w *pworker) collectDials() {
	for w.ndial > 0 {
		select {
		case r := <-w.dialed:
			w.dialDone(r)
		default:
			return
		}
	}
}

func (w *pworker) dialDone(r dialResult) error {
	i, c, err := r.i, r.c, r.err
	if w.dialing[i] {
		w.dialing[i] = false
		w.ndial--
	}
	if err != nil {
		w.fail[i] = time.Now()
		w.t.stats.event("dial_failed")
		if adapter.Classify(err) == vocab.ClassOther {
			// A node that answers but cannot serve yet (starting up).
			err = &adapter.Error{Class: vocab.ClassUnavailable, Err: err}
		}
		return err
	}
	if w.wt == nil { // the worker closed meanwhile
		c.Close()
		return nil
	}
	if i = w.place(r); i < 0 {
		return nil // a shard already served (shards.go)
	}
	if err := w.wt.add(c.Fd()); err != nil {
		c.Close()
		return err
	}
	w.conns[i] = c
	w.sups[i] = r.sup
	w.markLWT(c, &r.sup)
	if !w.fail[i].IsZero() {
		w.t.stats.event("reconnected")
	}
	return nil
}

func (w *pworker) Depth() int { return w.depth }

// route picks the connection for key: the owner of its token if that node
// is up (on ScyllaDB, the connection to the shard owning the token), else
// the next connection that is up (another shard of that node, or the next
// node). A connection down for longer than the
// reconnect interval is redialled in the background meanwhile; with every
// node down, the worker waits for a redial (after a pause, so that a dead
// cluster yields a bounded rate of errors).
func (w *pworker) route(key []byte) (int, error) {
	return w.routeToken(murmur3Token(key), w.cfg.TokenAware)
}

// routeToken routes to the owner of token when known (ok) and token-aware.
func (w *pworker) routeToken(token int64, ok bool) (int, error) {
	return w.routeTo(token, ok, w.cfg.TokenAware)
}

// routeTo routes to the owner of token when known (ok) and primary (a
// token-aware run, or a lightweight transaction: shards.go).
func (w *pworker) routeTo(token int64, ok, primary bool) (int, error) {
	if w.ndial > 0 {
		w.collectDials()
	}
	n := len(w.conns)
	start := 0
	if n > 1 {
		start = -1
		if ok && primary {
			if h := w.ring.owner(token); h >= 0 {
				start = w.lay.slotOf(h, token)
			}
		}
		if start < 0 {
			w.rr++
			start = w.rr % n
		}
	}
	for i := 0; i < n; i++ {
		h := (start + i) % n
		if w.conns[h] != nil && w.broken[h] == nil {
			if i > 0 && !w.dialing[start] && w.broken[start] == nil && time.Since(w.fail[start]) >= w.cfg.ReconnectInterval {
				w.redial(start)
			}
			return h, nil
		}
	}
	// Every node is down.
	if w.broken[start] != nil {
		return -1, w.broken[start]
	}
	if w.ndial > 0 {
		// Wait for a redial under way rather than start another.
		if err := w.dialDone(<-w.dialed); err != nil {
			return -1, err
		}
		return w.routeTo(token, ok, primary)
	}
	if d := time.Since(w.fail[start]); d < reconnectPause {
		time.Sleep(reconnectPause - d)
	}
	if err := w.dial(start); err != nil {
		return -1, err
	}
	// The connection may serve another shard than start's (a plain
	// connection goes where the node puts it).
	return w.routeTo(token, ok, primary)
}

// reconnectPause paces redials when every node is down.
const reconnectPause = 100 * time.Millisecond

// Submit encodes req's request into its connection's write buffer.
func (w *pworker) Submit(ctx context.Context, req *workload.Request, tag int) error {
	if len(w.free) == 0 {
		return &adapter.Error{Class: vocab.ClassTimeout, Err: errors.New("cql: every stream id is taken by requests in flight or timed out (fix: a lower concurrency, or a longer timeout)")}
	}
	if w.prof != nil {
		return w.submitProfile(req, tag)
	}
	ci, err := w.route(req.Key)
	if err != nil {
		return err
	}
	c := w.conns[ci]
	id := w.free[len(w.free)-1]
	s := &w.streams[id]
	mark := len(c.Out)
	kind := uint8(kindWrite)
	switch req.Op {
	case vocab.OpRead:
		kind = kindRead
		c.Out = w.execKey(c.Out, c, int(id), stRead, req.Key)
	case vocab.OpInsert, vocab.OpWrite:
		c.Out = w.execInsert(c.Out, c, int(id), req)
	case vocab.OpUpdate:
		c.Out = w.execUpdate(c.Out, c, int(id), req)
	case vocab.OpDelete:
		c.Out = w.execKey(c.Out, c, int(id), stDelete, req.Key)
	case vocab.OpScan:
		kind = kindScan
		c.Out = w.execScan(c.Out, c, int(id), req)
	case vocab.OpRMW:
		kind = kindRMWRead
		c.Out = w.execKey(c.Out, c, int(id), stRead, req.Key)
		s.pending = w.execUpdate(s.pending[:0], c, int(id), req)
	default:
		return adapter.ErrUnsupported
	}
	if len(c.Out)-mark > 256<<20 {
		c.Out = c.Out[:mark]
		return adapter.Configf("cql: a request of %d bytes exceeds the protocol's 256 MiB frame (fix: a smaller value size)", len(c.Out)-mark)
	}
	if w.t.check && kind != kindWrite {
		s.key = append(s.key[:0], req.Key...)
	}
	w.take(id, kind, ci, tag)
	return nil
}

// take marks stream id as carrying a request of kind on connection ci.
func (w *pworker) take(id int16, kind uint8, ci, tag int) {
	w.free = w.free[:len(w.free)-1]
	s := &w.streams[id]
	s.busy, s.orphan, s.kind, s.conn, s.tag, s.seen = true, false, kind, int16(ci), int32(tag), 0
	w.hw = max(w.hw, int(id)+1)
	w.live++
	w.inflight[ci]++
	w.sent[ci]++
}

// Statement indexes in statements.all() order.
const (
	stInsert = iota
	stRead
	stScan
	stDelete
	stUpdate0
)

// execHead starts an EXECUTE of statement st with n bound values.
func (w *pworker) execHead(b []byte, c *cqlwire.Conn, id, st int, cl uint16, n int) []byte {
	b = cqlwire.AppendHeader(b, id, cqlwire.OpExecute)
	b = cqlwire.AppendShortBytes(b, c.IDs[st])
	b = cqlwire.AppendShort(b, int(cl))
	b = append(b, cqlwire.QueryValues|cqlwire.QuerySkipMetadata)
	return cqlwire.AppendShort(b, n)
}

func (w *pworker) execKey(b []byte, c *cqlwire.Conn, id, st int, key []byte) []byte {
	cl := w.cfg.WriteCL
	if st == stRead {
		cl = w.cfg.ReadCL
	}
	start := len(b)
	b = w.execHead(b, c, id, st, uint16(cl), 1)
	b = cqlwire.AppendBytes(b, nonNil(key))
	cqlwire.FinishFrame(b, start)
	return b
}

// execInsert binds the key and every field, each its slice of the value (a
// value shorter than the record leaves the remaining fields empty, not null).
func (w *pworker) execInsert(b []byte, c *cqlwire.Conn, id int, req *workload.Request) []byte {
	start := len(b)
	nf := w.st.fields
	b = w.execHead(b, c, id, stInsert, uint16(w.cfg.WriteCL), nf+1)
	b = cqlwire.AppendBytes(b, nonNil(req.Key))
	v := req.Value
	fl := req.FieldLen
	if fl <= 0 {
		fl = (len(v) + nf - 1) / nf
	}
	for i := 0; i < nf; i++ {
		lo, hi := min(i*fl, len(v)), min((i+1)*fl, len(v))
		b = cqlwire.AppendBytes(b, nonNil(v[lo:hi]))
	}
	cqlwire.FinishFrame(b, start)
	return b
}

// execUpdate writes the whole record (YCSB writeallfields, a value holding
// every field) or one field, rotating over the fields.
func (w *pworker) execUpdate(b []byte, c *cqlwire.Conn, id int, req *workload.Request) []byte {
	nf := w.st.fields
	if nf > 1 && req.FieldLen > 0 && len(req.Value) >= nf*req.FieldLen {
		return w.execInsert(b, c, id, req)
	}
	f := w.next
	w.next++
	if w.next == nf {
		w.next = 0
	}
	if w.t.check { // the field the checked value was made for
		f = req.Field % nf
	}
	n := req.FieldLen
	if n <= 0 || n > len(req.Value) {
		n = len(req.Value)
	}
	start := len(b)
	b = w.execHead(b, c, id, stUpdate0+f, uint16(w.cfg.WriteCL), 2)
	b = cqlwire.AppendBytes(b, nonNil(req.Value[:n]))
	b = cqlwire.AppendBytes(b, nonNil(req.Key))
	cqlwire.FinishFrame(b, start)
	return b
}

func (w *pworker) execScan(b []byte, c *cqlwire.Conn, id int, req *workload.Request) []byte {
	n := req.ScanLen
	if n <= 0 {
		n = 1
	}
	start := len(b)
	b = w.execHead(b, c, id, stScan, uint16(w.cfg.ReadCL), 2)
	b = cqlwire.AppendBytes(b, nonNil(req.Key))
	b = cqlwire.AppendInt(b, 4)
	b = cqlwire.AppendInt(b, int32(n))
	cqlwire.FinishFrame(b, start)
	return b
}

// empty is bound for an empty field: a nil slice would be CQL null.
var empty = []byte{}

func nonNil(b []byte) []byte {
	if b == nil {
		return empty
	}
	return b
}

// Flush writes each connection's queued requests.
func (w *pworker) Flush(ctx context.Context) {
	for i, c := range w.conns {
		if c == nil || len(c.Out) == 0 {
			continue
		}
		if err := c.Flush(); err != nil {
			w.broken[i] = netErr(c.Host(), err)
			w.drop(i)
		}
	}
}

// drop closes connection i; its requests fail at the next Poll (broken[i]).
func (w *pworker) drop(i int) {
	c := w.conns[i]
	if c == nil {
		return
	}
	w.wt.del(c.Fd())
	c.Close()
	w.conns[i] = nil
	w.fail[i] = time.Now()
	w.t.stats.event("connection_lost")
}

// failBroken completes the requests of connections that broke.
func (w *pworker) failBroken(done func(int, error)) int {
	n := 0
	for i, err := range w.broken {
		if err == nil {
			continue
		}
		for id := 0; id < w.hw; id++ {
			s := &w.streams[id]
			if s.busy && int(s.conn) == i {
				if !s.orphan {
					done(int(s.tag), err)
					w.live--
					n++
				}
				w.release(id)
			}
		}
		w.broken[i] = nil
	}
	return n
}

func (w *pworker) release(id int) {
	s := &w.streams[id]
	s.busy, s.orphan = false, false
	w.inflight[s.conn]--
	w.free = append(w.free, int16(id))
}

// Poll reads responses and reports completed requests (see adapter.Pipeliner).
func (w *pworker) Poll(ctx context.Context, wait time.Duration, done func(tag int, err error)) int {
	n := w.failBroken(done)
	n += w.drain(done)
	if n == 0 && w.live > 0 && wait != 0 {
		n += w.await(wait, done)
	} else if n == 0 && w.live > 0 {
		n += w.sweep(done)
	}
	if now := mono(); now >= w.nextCheck {
		n += w.checkTimeouts(now, done)
	}
	w.sendPending()
	return n
}

// drain handles the whole frames already read on every connection.
func (w *pworker) drain(done func(int, error)) int {
	n := 0
	for i, c := range w.conns {
		if c != nil && c.Buffered() > 0 {
			n += w.drainConn(i, done)
		}
	}
	return n
}

func (w *pworker) drainConn(i int, done func(int, error)) int {
	c := w.conns[i]
	n := 0
	for {
		h, body, ok, err := c.Next()
		if err != nil {
			w.broken[i] = &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("cql: %s: %w", c.Host(), wireErr(err))}
			w.drop(i)
			return n + w.failBroken(done)
		}
		if !ok {
			return n
		}
		if h.Stream < 0 || int(h.Stream) >= w.hw {
			continue // an event (we register for none) or a stray response
		}
		s := &w.streams[h.Stream]
		if !s.busy || int(s.conn) != i {
			continue
		}
		if s.orphan {
			w.release(int(h.Stream))
			continue
		}
		r := cqlwire.Reader{B: body}
		r.SkipEnvelope(h.Flags)
		var opErr error
		var unprepared bool
		switch h.Op {
		case cqlwire.OpResult:
			if s.kind >= kindPWrite {
				var more bool
				if more, opErr = w.profResult(c, int(h.Stream), s, &r); more {
					s.seen = 0 // the next frame went out on the same stream
					continue
				}
			} else if s.kind != kindWrite {
				opErr = w.readResult(&r, s)
			}
		case cqlwire.OpError:
			code, msg := cqlwire.ErrorBodyView(&r)
			if sup := &w.sups[i]; sup.RateLimit && code == sup.RateLimitCode {
				opErr = w.t.stats.wordedError(code, errRateLimited, msg)
			} else {
				opErr = w.t.stats.serverError(code, msg)
			}
			unprepared = code == cqlwire.CodeUnprepared
		default:
			opErr = &adapter.Error{Class: vocab.ClassOther, Err: fmt.Errorf("cql: unexpected response opcode 0x%02X", h.Op)}
		}
		if s.kind == kindRMWRead && opErr == nil {
			// The read succeeded: its write goes out on the same stream.
			c.Out = append(c.Out, s.pending...)
			s.kind, s.seen = kindWrite, 0
			continue
		}
		done(int(s.tag), opErr)
		w.live--
		n++
		w.release(int(h.Stream))
		if unprepared {
			// The node forgot our statements (a restart that lost its
			// prepared cache): reconnect, which prepares them again.
			w.broken[i] = opErr
			w.drop(i)
			return n + w.failBroken(done)
		}
	}
}

// readResult is the outcome of a read's (or scan's) Rows result; a checked
// workload checks the rows.
func (w *pworker) readResult(r *cqlwire.Reader, s *stream) error {
	rows, cols, isRows := cqlwire.RowsHead(r)
	w.lastRows = rows
	switch {
	case r.Err != nil:
		return &adapter.Error{Class: vocab.ClassOther, Err: r.Err}
	case !isRows:
		return &adapter.Error{Class: vocab.ClassOther, Err: errors.New("cql: a read answered without rows")}
	case rows == 0 && w.t.check && s.kind != kindScan:
		return adapter.ErrValidationMissing
	case rows == 0:
		return adapter.ErrNotFound
	case w.t.check:
		return adapter.Verdict(checkRows(r, rows, cols, s.key, s.kind == kindScan, w.t.fieldLen))
	}
	return nil
}

// checkRows checks the rows of a checked read (workload validate): each
// row's columns are the fields in order, after the key when keyCol (a
// scan); key is the record's key otherwise. A null, short or wrong field is
// corrupt. It does not allocate.
func checkRows(r *cqlwire.Reader, rows, cols int, key []byte, keyCol bool, fieldLen int) workload.Verdict {
	first := 0
	if keyCol {
		first = 1
	}
	for range rows {
		for c := range cols {
			v := r.BytesView()
			if r.Err != nil {
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

// await blocks until a response arrives, wait passes (wait > 0) or the next
// timeout check is due.
func (w *pworker) await(wait time.Duration, done func(int, error)) int {
	now := mono()
	until := w.nextCheck
	if wait > 0 {
		until = min(until, now+int64(wait))
	}
	one := -1
	active := 0
	for i, c := range w.conns {
		if c != nil {
			one = i
			active++
		}
	}
	if active == 0 {
		return 0
	}
	// One node, waiting for a response only (a closed loop): a blocking read
	// through the runtime's poller, which measured cheaper per request than
	// our own epoll wait (6.6-7.0 vs 7.8-8.2 CPU-s per million inserts).
	if active == 1 && len(w.conns) == 1 && wait < 0 {
		c := w.conns[one]
		for {
			dl := monoStart.Add(time.Duration(until))
			if !c.ReadDeadline().Equal(dl) {
				c.SetReadDeadline(dl)
			}
			err := c.Fill(true)
			if err != nil {
				if errors.Is(err, os.ErrDeadlineExceeded) {
					return 0
				}
				w.broken[one] = netErr(c.Host(), err)
				w.drop(one)
				return w.failBroken(done)
			}
			if n := w.drainConn(one, done); n > 0 || w.live == 0 {
				return n
			}
			if w.conns[one] == nil {
				return 0
			}
			if len(c.Out) > 0 {
				// Continuations (an RMW's write, a profile's next batch
				// or page) go out before the wait for their answers.
				w.sendPending()
				if w.conns[one] == nil {
					return w.failBroken(done)
				}
			}
		}
	}
	for {
		if n := w.sweep(done); n > 0 || w.live == 0 {
			return n
		}
		w.sendPending() // continuations, before the wait for their answers
		if n := w.failBroken(done); n > 0 {
			return n
		}
		left := until - mono()
		if left <= 0 {
			return 0
		}
		if err := w.wt.wait(left); err != nil {
			return 0
		}
	}
}

// sweep reads, without blocking, every connection with data waiting.
func (w *pworker) sweep(done func(int, error)) int {
	n := 0
	for i, c := range w.conns {
		if c == nil || w.inflight[i] == 0 {
			continue
		}
		if !c.ReadDeadline().IsZero() {
			// A deadline left by a blocking wait would fail this read.
			c.SetReadDeadline(time.Time{})
		}
		err := c.Fill(false)
		if err == cqlwire.ErrWouldBlock {
			continue
		}
		if err != nil {
			w.broken[i] = netErr(c.Host(), err)
			w.drop(i)
			n += w.failBroken(done)
			continue
		}
		n += w.drainConn(i, done)
	}
	return n
}

// checkTimeouts completes requests older than the timeout with a timeout
// error; their streams stay taken until their responses arrive.
func (w *pworker) checkTimeouts(now int64, done func(int, error)) int {
	w.nextCheck = now + w.checkEvery
	n := 0
	for id := 0; id < w.hw; id++ {
		s := &w.streams[id]
		if !s.busy || s.orphan {
			continue
		}
		if s.seen == 0 {
			s.seen = now
			continue
		}
		if now-s.seen >= w.timeout {
			s.orphan = true
			done(int(s.tag), w.errTimeout)
			w.live--
			n++
			w.t.stats.event("timed_out")
		}
	}
	return n
}

// sendPending writes the RMW writes queued while reading responses.
func (w *pworker) sendPending() {
	for i, c := range w.conns {
		if c != nil && len(c.Out) > 0 {
			if err := c.Flush(); err != nil {
				w.broken[i] = netErr(c.Host(), err)
				w.drop(i)
			}
		}
	}
}

// Do runs one request synchronously (nothing else may be in flight).
func (w *pworker) Do(ctx context.Context, req *workload.Request) error {
	if w.live != 0 {
		return &adapter.Error{Class: vocab.ClassOther, Err: errors.New("cql: Do called with requests in flight")}
	}
	if err := ctx.Err(); err != nil {
		return &adapter.Error{Class: vocab.ClassTimeout, Err: err}
	}
	return w.syncer.Do(ctx, w, req)
}

// Close closes the connections (waiting for redials under way, so that
// none is left open).
func (w *pworker) Close() error {
	for w.ndial > 0 {
		r := <-w.dialed
		w.dialing[r.i] = false
		w.ndial--
		if r.c != nil {
			r.c.Close()
		}
	}
	for i := range w.conns {
		if w.conns[i] != nil {
			w.conns[i].Close()
			w.conns[i] = nil
		}
	}
	if w.wt != nil {
		w.wt.close()
		w.wt = nil
	}
	if w.lay.slots() > 0 && w.sent != nil {
		w.t.stats.shards.fold(w.hosts, &w.lay, w.sent, w.nAware, w.nPlain, w.nExcess, w.lwt)
		w.sent = nil
	}
	return nil
}

// nativeStats counts what the native workers saw that a reader of the
// result needs: lost connections, timeouts, the last message of each
// server exception. Updated on rare events only.
type nativeStats struct {
	mu     sync.Mutex
	counts map[string]int
	last   map[int32]string
	// worded counts, per code, the errors handed out with the server's
	// message in the current second (wordedSec): a few carry it, the rest
	// are the shared value that costs nothing.
	worded    map[int32]int
	wordedSec int64

	shards shardStats // what shard awareness did (shards.go)
}

// wordedPerSecond is how many errors of one code a second carry the
// server's message (more whenever the message changes): enough for each
// phase's first failures (recorder.MaxErrorMessages of them are kept), few
// enough that an error storm allocates next to nothing.
const wordedPerSecond = 64

// wordedError is a server error with the server's own message: the shared
// value of its code (errors.Is matches it) and what the server said.
type wordedError struct {
	base *adapter.Error
	msg  string
}

func (e *wordedError) Error() string { return e.base.Err.Error() + ": " + e.msg }
func (e *wordedError) Unwrap() error { return e.base }

func (s *nativeStats) event(name string) {
	s.mu.Lock()
	if s.counts == nil {
		s.counts = map[string]int{}
	}
	s.counts[name]++
	s.mu.Unlock()
}

// serverError keeps the last message of each code for the result's
// target details and returns the operation's error: the shared value of the
// code, or, for the first errors of a code in a second and whenever the
// message changes, one that carries the server's message (so that the
// phase's error messages are the server's words).
func (s *nativeStats) serverError(code int32, msg []byte) error {
	return s.wordedError(code, serverError(code), msg)
}

// wordedError is serverError with the error value of the code given: a
// code whose meaning the node advertised (ScyllaDB's rate limit).
func (s *nativeStats) wordedError(code int32, base *adapter.Error, msg []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.last == nil {
		s.last, s.worded = map[int32]string{}, map[int32]int{}
	}
	changed := s.last[code] != string(msg) // no allocation unless it changed
	if changed {
		s.last[code] = string(msg)
	}
	if sec := time.Now().Unix(); sec != s.wordedSec {
		s.wordedSec = sec
		clear(s.worded)
	}
	if !changed && s.worded[code] >= wordedPerSecond {
		return base
	}
	s.worded[code]++
	return &adapter.Error{Class: base.Class, Err: &wordedError{base: base, msg: s.last[code]}}
}

func (s *nativeStats) summary(m map[string]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.counts {
		m["cql_native_"+k] = fmt.Sprint(v)
	}
	for code, msg := range s.last {
		m[fmt.Sprintf("cql_server_error_0x%04X", code)] = firstLine(msg)
	}
}

// PipelineShape makes the native workers pipelined (a profile's too):
// conns workers (each with one connection per node) share the requests in
// flight. The gocql workers are not (the driver multiplexes one goroutine
// per request).
func (t *Target) PipelineShape(concurrency int) (workers, total int) {
	if t.cfg.Driver != DriverNative || concurrency < 1 {
		return 0, 0
	}
	workers = min(t.cfg.Conns, concurrency)
	t.mu.Lock()
	t.shapeN, t.shapeDepth = workers, (concurrency+workers-1)/workers
	t.mu.Unlock()
	return workers, concurrency
}

// nodes lists the nodes the native workers connect to (those of the local
// DC when dc is set) and their token ring, from the driver's view of the
// cluster; the contact points when the driver knows no host.
func (t *Target) nodes() ([]string, ring) {
	var hosts []string
	var tokens [][]string
	for _, h := range t.session.GetHosts() {
		if t.cfg.LocalDC != "" && h.DataCenter() != t.cfg.LocalDC {
			continue
		}
		hosts = append(hosts, h.ConnectAddressAndPort())
		tokens = append(tokens, h.Tokens())
	}
	if len(hosts) == 0 {
		return t.cfg.Hosts, ring{}
	}
	return hosts, newRing(tokens)
}
