package redis

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Cluster mode on platbench's RESP client: each key's slot is computed here
// (CRC16 of the key or of its {hash tag}, as Redis Cluster does), the slot
// map comes from CLUSTER SLOTS, and a worker keeps one connection per
// master it has sent to (cworker; pipelined, cpworker: one pipeline per
// master). A MOVED reply refreshes the map (at most every 100 ms); the
// one-at-a-time path sends the command again to the new owner, the
// pipelined path counts the op as an error (its command is gone from the
// buffer). After an ASK reply (a slot being migrated), the one-at-a-time
// path sends ASKING and the command to the node named; pipelined, it is
// counted as an error. A
// master that is gone fails the ops of its slots as unavailable, redialled
// at most every 100 ms per worker, and the map is read again (a replica
// may have taken over its slots); the other masters' ops go on.
// Scans (YCSB E) read the index on its master, then each record from its
// own. go-redis's ClusterClient stays for what is not the benchmark's
// path: dataset checks and clean, and the list of masters INFO is read from.

const numSlots = 16384

var crcTable = func() (t [256]uint16) {
	for i := range t {
		crc := uint16(i) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
		t[i] = crc
	}
	return t
}()

// crc16 is CRC16-CCITT (XMODEM), Redis Cluster's key hash.
func crc16(crc uint16, b []byte) uint16 {
	for _, c := range b {
		crc = crc<<8 ^ crcTable[byte(crc>>8)^c]
	}
	return crc
}

// keySlot is key's cluster slot: of the part between the first { and the
// next } when that part is not empty (a hash tag), else of the whole key.
func keySlot(key []byte) int {
	if i := bytes.IndexByte(key, '{'); i >= 0 {
		if j := bytes.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(0, key) & (numSlots - 1))
}

// topology is a cluster's slot map: the masters and the master of each slot.
type topology struct {
	addrs []string
	slot  [numSlots]int16 // index in addrs; -1: no master serves it
}

// readTopology asks the first of addrs that answers for CLUSTER SLOTS.
func readTopology(ctx context.Context, o dialOpts, addrs []string) (*topology, error) {
	var last error
	for _, a := range addrs {
		o.addr = a
		c, err := dial(ctx, &o)
		if err != nil {
			last = err
			continue
		}
		c.cmd("CLUSTER", "SLOTS")
		var v any
		if err = c.flush(); err == nil {
			c.refreshRead()
			v, err = resp.Value(c.br)
		}
		c.Close()
		if err != nil {
			last = err
			continue
		}
		host, _, _ := net.SplitHostPort(a)
		return parseSlots(v, host)
	}
	return nil, fmt.Errorf("redis: CLUSTER SLOTS: no node answered: %w", last)
}

// parseSlots reads CLUSTER SLOTS' reply: [start, end, [ip, port, id...],
// replicas...] per range. An empty ip is the node asked (seedHost).
func parseSlots(v any, seedHost string) (*topology, error) {
	t := &topology{}
	for i := range t.slot {
		t.slot[i] = -1
	}
	ranges, ok := v.([]any)
	bad := func() (*topology, error) {
		return nil, fmt.Errorf("redis: CLUSTER SLOTS: unexpected reply %v", v)
	}
	if !ok {
		return bad()
	}
	index := map[string]int16{}
	for _, r := range ranges {
		e, ok := r.([]any)
		if !ok || len(e) < 3 {
			return bad()
		}
		start, ok1 := e[0].(int64)
		end, ok2 := e[1].(int64)
		m, ok3 := e[2].([]any)
		if !ok1 || !ok2 || !ok3 || len(m) < 2 || start < 0 || end >= numSlots || start > end {
			return bad()
		}
		ip, _ := m[0].(string)
		port, ok := m[1].(int64)
		if !ok {
			return bad()
		}
		if ip == "" || ip == "?" {
			ip = seedHost
		}
		addr := net.JoinHostPort(ip, strconv.FormatInt(port, 10))
		n, seen := index[addr]
		if !seen {
			n = int16(len(t.addrs))
			index[addr] = n
			t.addrs = append(t.addrs, addr)
		}
		for s := start; s <= end; s++ {
			t.slot[s] = n
		}
	}
	if len(t.addrs) == 0 {
		return nil, errors.New("redis: CLUSTER SLOTS lists no master: the cluster serves no slot (fix: assign the slots to the masters, e.g. with redis-cli's cluster create)")
	}
	return t, nil
}

// clusterState is the slot map a cluster target shares between its workers.
type clusterState struct {
	topo atomic.Pointer[topology]
	mu   sync.Mutex // one refresh at a time
	last time.Time  // of the last refresh
}

// refresh reads the slot map again, from the masters known and the seeds,
// at most every 100 ms whatever the number of workers asking.
func (t *Target) refresh() {
	t.cs.mu.Lock()
	defer t.cs.mu.Unlock()
	if time.Since(t.cs.last) < reconnectPause {
		return
	}
	t.cs.last = time.Now()
	addrs := append(append([]string(nil), t.cs.topo.Load().addrs...), t.cfg.Addrs...)
	ctx, cancel := context.WithTimeout(context.Background(), t.cfg.Timeout)
	defer cancel()
	if topo, err := readTopology(ctx, t.dial, addrs); err == nil {
		t.cs.topo.Store(topo)
	}
}

// cworker is a cluster worker: a connection per master (a plain worker,
// or a pipeline when depth > 0), kept by address for the worker's life.
type cworker struct {
	base  *worker // the settings, and the generator of the nodes' seeds
	depth int     // > 0: the nodes are pipelines (cpworker)
	topo  *topology
	idx   []int      // topo's master i is nodes[idx[i]]
	nodes []*pworker // by address, in the order first used
	kbuf  []byte
}

var _ adapter.Worker = (*cworker)(nil)

var (
	_ adapter.Worker    = (*cworker)(nil)
	_ adapter.Pipeliner = (*cpworker)(nil)
)

// node returns the connection to the master of key, following a new slot map.
func (w *cworker) node(key []byte) (*pworker, error) {
	if topo := w.base.t.cs.topo.Load(); topo != w.topo {
		w.remap(topo)
	}
	i := w.topo.slot[keySlot(key)]
	if i < 0 {
		return nil, errNoMaster
	}
	return w.nodes[w.idx[i]], nil
}

// remap follows a new slot map; a master seen before keeps its connection
// (and what it has in flight).
func (w *cworker) remap(topo *topology) {
	w.idx = make([]int, len(topo.addrs))
	for i, a := range topo.addrs {
		w.idx[i] = w.nodeAt(a)
	}
	w.topo = topo
}

// nodeAt is the index in w.nodes of the node at addr, added if new.
func (w *cworker) nodeAt(addr string) int {
	for j, n := range w.nodes {
		if n.dial.addr == addr {
			return j
		}
	}
	b := w.base
	o := b.t.dial
	o.addr = addr
	n := &pworker{worker: &worker{t: b.t, rng: b.next() | 1, fieldNames: b.fieldNames, writeAll: b.writeAll, dial: &o}, depth: w.depth}
	if w.depth > 0 {
		n.ring = make([]pent, ringSize(w.depth))
	}
	w.nodes = append(w.nodes, n)
	return len(w.nodes) - 1
}

// routeKey is the key req's command is routed by: the record's key, the
// counter's for INCR, a template's first key word (with its text).
func (w *cworker) routeKey(req *workload.Request) []byte {
	switch {
	case req.Op == vocab.OpIncr:
		w.kbuf = append(append(w.kbuf[:0], "ctr:"...), req.Key...)
		return w.kbuf
	case req.Op.Named() && int(req.Op-vocab.OpNamed0) < len(w.base.t.tmpls):
		for _, h := range w.base.t.tmpls[req.Op-vocab.OpNamed0].holes {
			if h.Kind == workload.ArgKey {
				w.kbuf = append(append(append(w.kbuf[:0], h.Text...), req.Key...), h.Suffix...)
				return w.kbuf
			}
		}
	}
	return req.Key
}

// Do sends req to the master of its key; after a MOVED reply, once more to
// the new owner.
func (w *cworker) Do(ctx context.Context, req *workload.Request) error {
	t := w.base.t
	var n *pworker
	var err error
	switch {
	case req.Op == vocab.OpScan:
		err = w.scan(req)
	case t.index != "" && (req.Op == vocab.OpInsert || req.Op == vocab.OpDelete):
		err = w.indexed(req)
	default:
		if n, err = w.node(w.routeKey(req)); err == nil {
			err = n.worker.Do(ctx, req)
		}
	}
	switch {
	case err == nil:
	case n == nil: // a scan, an indexed write, or no master for the slot
		if isRedirect(err) || adapter.Classify(err) == vocab.ClassUnavailable {
			t.refresh()
		}
	case askTarget(err) != "":
		// The slot is moving: this key is at the importing node already.
		a := w.nodes[w.nodeAt(askTarget(err))].worker
		a.ask = true
		err = a.Do(ctx, req)
		a.ask = false
	case isRedirect(err):
		t.refresh()
		if n2, err2 := w.node(w.routeKey(req)); err2 == nil && n2 != n {
			return n2.worker.Do(ctx, req)
		}
	case adapter.Classify(err) == vocab.ClassUnavailable:
		t.refresh() // a master gone: a replica may have taken its slots
	}
	return err
}

// scan reads the keys from the index's master, then each record from its
// own master: one write and its replies per master.
func (w *cworker) scan(req *workload.Request) error {
	ix, err := w.node(w.base.t.indexB)
	if err != nil {
		return err
	}
	x := ix.worker
	if err := x.readIndex(req); err != nil {
		return err
	}
	cmd := x.recordCmd()
	var first error
	start := 0
	for _, end := range x.scanEnds {
		key := x.scanKeys[start:end]
		start = end
		n, err := w.node(key)
		if err == nil && n.worker.c == nil {
			err = n.worker.redial()
		}
		if err != nil {
			first = firstErr(first, err)
			continue
		}
		c := n.worker.c
		c.wbuf = resp.AppendArray(c.wbuf, 2)
		c.wbuf = resp.AppendBulkString(c.wbuf, cmd)
		c.wbuf = resp.AppendBulk(c.wbuf, key)
		n.worker.scanPend++
	}
	x.scanFound = 0
	for _, n := range w.nodes {
		if p := n.worker.scanPend; p > 0 {
			n.worker.scanPend = 0
			found, err := n.worker.readRecords(p)
			x.scanFound += found
			first = firstErr(first, err)
		}
	}
	return first
}

// indexed writes (or deletes) the record on its master, then updates the
// index on the index's master.
func (w *cworker) indexed(req *workload.Request) error {
	n, err := w.node(req.Key)
	if err != nil {
		return err
	}
	if err := n.worker.one(req, req.Op); err != nil {
		return err
	}
	ix, err := w.node(w.base.t.indexB)
	if err != nil {
		return err
	}
	return ix.worker.indexOnly(req)
}

// Close closes the connections to every master.
func (w *cworker) Close() error {
	for _, n := range w.nodes {
		n.worker.Close()
	}
	return nil
}

// cpworker is a pipelined cluster worker: one pipeline per master. Poll
// reads what every master has sent; when none has, it waits on one master
// with commands in flight, in turn.
type cpworker struct {
	cw     *cworker
	rr     int
	outer  func(int, error)
	inner  func(int, error) // onDone, made once
	syncer adapter.Syncer
}

var _ adapter.Pipeliner = (*cpworker)(nil)

func (t *Target) newCPWorker(base *worker) *cpworker {
	w := &cpworker{cw: &cworker{base: base, depth: t.depth}}
	w.inner = w.onDone
	return w
}

func (w *cpworker) Depth() int { return w.cw.depth }

// Submit queues req on the pipeline of its key's master.
func (w *cpworker) Submit(ctx context.Context, req *workload.Request, tag int) error {
	n, err := w.cw.node(w.cw.routeKey(req))
	if err == nil {
		err = n.Submit(ctx, req, tag)
	}
	if err != nil && adapter.Classify(err) == vocab.ClassUnavailable {
		w.cw.base.t.refresh()
	}
	return err
}

// Flush writes every master's queued commands.
func (w *cpworker) Flush(ctx context.Context) {
	for _, n := range w.cw.nodes {
		n.Flush(ctx)
	}
}

// Poll reports the completed ops of every master (see adapter.Pipeliner).
func (w *cpworker) Poll(ctx context.Context, wait time.Duration, done func(tag int, err error)) int {
	w.outer = done
	got := 0
	nodes := w.cw.nodes
	for _, n := range nodes {
		if n.broken != nil || (n.n > 0 && n.c != nil && n.c.br.Buffered() > 0) {
			got += n.Poll(ctx, -1, w.inner)
		}
	}
	if got > 0 || wait == 0 {
		return got
	}
	for k := range nodes {
		i := (w.rr + k) % len(nodes)
		if nodes[i].n > 0 {
			w.rr = i + 1
			return nodes[i].Poll(ctx, wait, w.inner)
		}
	}
	return 0
}

// onDone refreshes the slot map after a MOVED or ASK reply, or a master
// that cannot be reached (a replica may have taken its slots).
func (w *cpworker) onDone(tag int, err error) {
	if err != nil && (isRedirect(err) || adapter.Classify(err) == vocab.ClassUnavailable) {
		w.cw.base.t.refresh()
	}
	w.outer(tag, err)
}

// Do runs one op synchronously (nothing else may be in flight).
func (w *cpworker) Do(ctx context.Context, req *workload.Request) error {
	return w.syncer.Do(ctx, w, req)
}

// Close closes the connections to every master.
func (w *cpworker) Close() error { return w.cw.Close() }
