// Package rendezvous starts the loaders of a distributed run together and
// brings their results back to one of them, over one TCP connection per
// loader: no shared clock setting, no shared volume.
//
// Loader 0 is the coordinator: it listens, waits until every other loader
// has finished its load phase and said so, then tells them all one start
// time a moment ahead (so the run phases start within the clocks' skew, not
// within the spread of load phases and image pulls). After the run each
// loader sends its result to the coordinator, which merges them (package
// merge). Loaders of other versions are refused: their results would not
// merge honestly.
//
// What it does not do: elect a coordinator (loader 0 is, by its shard
// number), authenticate peers, or retry a run a loader dropped out of.
package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/platbench/platbench/result"
)

// Lead is how far ahead of "everyone is ready" the coordinator sets the
// start: enough for its message to reach every loader.
const Lead = 2 * time.Second

// message is one line of the protocol (JSON per line).
type message struct {
	Type    string         `json:"type"` // ready, start, result, ok, error
	Shard   int            `json:"shard,omitempty"`
	Shards  int            `json:"shards,omitempty"`
	Version string         `json:"version,omitempty"`
	At      time.Time      `json:"at,omitzero"`
	Result  *result.Result `json:"result,omitempty"`
	Error   string         `json:"error,omitempty"`
}

// peerConn is one loader's connection, as the coordinator holds it.
type peerConn struct {
	shard int
	conn  net.Conn
	enc   *json.Encoder
	dec   *json.Decoder
}

// Coordinator is loader 0's side.
type Coordinator struct {
	ln      net.Listener
	shards  int
	version string
	mu      sync.Mutex
	peers   map[int]*peerConn
}

// Listen makes this loader the coordinator of shards loaders on addr
// (":7070"); version is this loader's, which every peer must match.
func Listen(addr string, shards int, version string) (*Coordinator, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: cannot listen on %s: %w (fix: a free port)", addr, err)
	}
	return &Coordinator{ln: ln, shards: shards, version: version, peers: map[int]*peerConn{}}, nil
}

// Ready waits until every other loader has said it is ready (ctx bounds the
// wait), then sends them all the start time and returns it.
func (c *Coordinator) Ready(ctx context.Context) (time.Time, error) {
	stop := context.AfterFunc(ctx, func() { c.ln.Close() })
	defer stop()
	for c.count() < c.shards-1 {
		conn, err := c.ln.Accept()
		if err != nil {
			return time.Time{}, fmt.Errorf("rendezvous: waiting for loaders %s: %w (fix: start them with loader 0's address, or allow a longer rendezvous timeout)", c.missing(), cmpErr(ctx, err))
		}
		if err := c.admit(ctx, conn); err != nil {
			conn.Close()
			// A stray or mismatched connection does not end the wait; it is
			// answered and dropped. A version mismatch is reported at once.
			var ve *versionError
			if errors.As(err, &ve) {
				return time.Time{}, err
			}
		}
	}
	c.ln.Close()
	at := time.Now().Add(Lead)
	for _, p := range c.sorted() {
		if err := p.enc.Encode(message{Type: "start", At: at}); err != nil {
			return time.Time{}, fmt.Errorf("rendezvous: loader %d dropped out before the start: %w", p.shard, err)
		}
	}
	return at, nil
}

type versionError struct{ msg string }

func (e *versionError) Error() string { return e.msg }

// admit reads a connection's ready message and keeps it.
func (c *Coordinator) admit(ctx context.Context, conn net.Conn) error {
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	p := &peerConn{conn: conn, enc: json.NewEncoder(conn), dec: json.NewDecoder(bufio.NewReader(conn))}
	var m message
	if err := p.dec.Decode(&m); err != nil || m.Type != "ready" {
		return fmt.Errorf("rendezvous: a connection that is not a loader: %v", err)
	}
	conn.SetReadDeadline(time.Time{})
	refuse := func(format string, a ...any) error {
		msg := fmt.Sprintf(format, a...)
		p.enc.Encode(message{Type: "error", Error: msg})
		return errors.New(msg)
	}
	switch {
	case m.Version != c.version:
		msg := fmt.Sprintf("rendezvous: loader %d runs platbench %s, loader 0 runs %s (fix: the same image for every loader)", m.Shard, m.Version, c.version)
		p.enc.Encode(message{Type: "error", Error: msg})
		return &versionError{msg}
	case m.Shards != c.shards:
		return refuse("rendezvous: loader %d counts %d loaders, loader 0 counts %d (fix: the same --shard i/N on every loader)", m.Shard, m.Shards, c.shards)
	case m.Shard <= 0 || m.Shard >= c.shards:
		return refuse("rendezvous: shard %d is not one of 1..%d", m.Shard, c.shards-1)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old := c.peers[m.Shard]; old != nil {
		old.conn.Close() // a restarted loader replaces its earlier connection
	}
	p.shard = m.Shard
	c.peers[m.Shard] = p
	return nil
}

func (c *Coordinator) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.peers)
}

func (c *Coordinator) sorted() []*peerConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*peerConn, 0, len(c.peers))
	for _, p := range c.peers {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].shard < out[j].shard })
	return out
}

// missing names the loaders not yet connected.
func (c *Coordinator) missing() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var m []string
	for i := 1; i < c.shards; i++ {
		if c.peers[i] == nil {
			m = append(m, fmt.Sprint(i))
		}
	}
	return strings.Join(m, ", ")
}

// Collect receives every peer's result (ctx bounds the wait) and returns
// them in shard order with own (shard 0) first. A loader that drops out or
// sends an error is named in the error; the results that did arrive are
// returned with it.
func (c *Coordinator) Collect(ctx context.Context, own *result.Result) ([]*result.Result, error) {
	peers := c.sorted()
	out := make([]*result.Result, len(peers))
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := context.AfterFunc(ctx, func() { p.conn.SetReadDeadline(time.Now()) })
			defer stop()
			var m message
			err := p.dec.Decode(&m)
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("loader %d sent no result: %w", p.shard, cmpErr(ctx, err))
			case m.Type == "error":
				errs[i] = fmt.Errorf("loader %d failed: %s", p.shard, m.Error)
			case m.Type != "result" || m.Result == nil:
				errs[i] = fmt.Errorf("loader %d sent %q, not a result", p.shard, m.Type)
			default:
				out[i] = m.Result
				p.enc.Encode(message{Type: "ok"})
			}
			p.conn.Close()
		}()
	}
	wg.Wait()
	all := []*result.Result{own}
	for _, r := range out {
		if r != nil {
			all = append(all, r)
		}
	}
	return all, errors.Join(errs...)
}

// Close drops every connection.
func (c *Coordinator) Close() error {
	c.ln.Close()
	for _, p := range c.sorted() {
		p.conn.Close()
	}
	return nil
}

// Peer is the side of loaders 1..N-1.
type Peer struct {
	conn net.Conn
	enc  *json.Encoder
	dec  *json.Decoder
}

// Dial connects loader shard of shards to the coordinator at addr, retrying
// until ctx ends (the coordinator's pod may start later than this one).
func Dial(ctx context.Context, addr string, shard, shards int, version string) (*Peer, error) {
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			p := &Peer{conn: conn, enc: json.NewEncoder(conn), dec: json.NewDecoder(bufio.NewReader(conn))}
			if err := p.enc.Encode(message{Type: "ready", Shard: shard, Shards: shards, Version: version}); err != nil {
				conn.Close()
				return nil, fmt.Errorf("rendezvous: %s: %w", addr, err)
			}
			return p, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("rendezvous: loader 0 at %s did not answer: %w (fix: start loader 0, or check the address)", addr, err)
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Start waits for the coordinator's start time (ctx bounds the wait).
func (p *Peer) Start(ctx context.Context) (time.Time, error) {
	stop := context.AfterFunc(ctx, func() { p.conn.SetReadDeadline(time.Now()) })
	defer stop()
	var m message
	if err := p.dec.Decode(&m); err != nil {
		return time.Time{}, fmt.Errorf("rendezvous: waiting for the start: %w", cmpErr(ctx, err))
	}
	switch m.Type {
	case "start":
		return m.At, nil
	case "error":
		return time.Time{}, errors.New(m.Error)
	}
	return time.Time{}, fmt.Errorf("rendezvous: loader 0 sent %q, not a start", m.Type)
}

// Send delivers this loader's result (or, with r nil, its failure) and waits
// for the coordinator to acknowledge it.
func (p *Peer) Send(ctx context.Context, r *result.Result, failure error) error {
	defer p.conn.Close()
	stop := context.AfterFunc(ctx, func() { p.conn.SetDeadline(time.Now()) })
	defer stop()
	m := message{Type: "result", Result: r}
	if r == nil {
		m = message{Type: "error", Error: fmt.Sprint(failure)}
	}
	if err := p.enc.Encode(m); err != nil {
		return fmt.Errorf("rendezvous: sending the result to loader 0: %w", err)
	}
	if r == nil {
		return nil
	}
	var ack message
	if err := p.dec.Decode(&ack); err != nil || ack.Type != "ok" {
		return fmt.Errorf("rendezvous: loader 0 did not acknowledge the result: %v", cmpErr(ctx, err))
	}
	return nil
}

// cmpErr prefers the context's reason over the I/O error it caused.
func cmpErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
