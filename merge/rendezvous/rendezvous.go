// Package rendezvous starts the loaders of a distributed run together and
// brings their results back to one of them, over one TCP connection per
// loader: no shared clock setting, no shared volume.
//
// Loader 0 is the coordinator: it listens, waits until every other loader
// has finished its load phase and said so, then tells them all one start
// time a moment ahead (so the run phases start within the clocks' skew, not
// within the spread of load phases and image pulls). After the run each
// loader sends its result to the coordinator, then its seconds file (every
// second with its histograms, in chunks under the smallest message limit),
// which the coordinator writes to a file and points the result at, so that
// the merge reads every loader's seconds as `platbench merge` of the
// loaders' files does (package merge). Loaders of other versions are refused: their results would not
// merge honestly.
//
// Every loader holds the run's secret (Options.Secret) and proves it: loader 0
// sends each connection a fresh challenge, a peer answers with an HMAC of both
// nonces and what it says of itself, and every later line carries an HMAC
// under a key of that connection (wire.go). A connection that cannot prove
// the secret, sends more than HelloLimit bytes before it has, or takes longer
// than HandshakeTimeout is refused, named in loader 0's log (Options.Log) and
// dropped; the run goes on with the real loaders. Handshakes run side by
// side, so a slow stranger holds up no one; at most maxHandshakes run at
// once, perSource of them from one address, and a loader whose connection
// was dropped unread tries again with backoff until its context ends, so
// connections held open by a stranger delay a loader by a handshake
// deadline at most, never stop it.
//
// What it does not do: elect a coordinator (loader 0 is, by its shard
// number), encrypt (results carry no secret), or retry a run a loader dropped
// out of.
package rendezvous

import (
	"bufio"
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/platbench/platbench/result"
)

// Lead is how far ahead of "everyone is ready" the coordinator sets the
// start: enough for its message to reach every loader.
const Lead = 2 * time.Second

// MinSecret is the shortest secret accepted, in bytes.
const MinSecret = 16

// maxHandshakes bounds the connections loader 0 checks at once, and
// perSource those from one address; more are dropped unread (a flood of
// strangers costs it no more than this, and a flood from one address leaves
// the others' slots free). A handshake lasts HandshakeTimeout at most, and a
// loader whose connection was dropped tries again (Dial), so strangers can
// delay a loader, not stop it.
const (
	maxHandshakes = 128
	perSource     = 8
)

// logPerSource bounds the refusals logged for one address: a flood is named,
// not copied into the log.
const logPerSource = 10

// DefaultHandshakeTimeout bounds a connection's handshake: a few seconds,
// for a peer that proves the secret in one round trip.
const DefaultHandshakeTimeout = 5 * time.Second

// Options are what both sides of a rendezvous share besides the address.
type Options struct {
	// Secret is the run's shared secret, at least MinSecret bytes; required.
	Secret []byte
	// MaxMessage bounds an authenticated message (a loader's result), in
	// bytes. Default DefaultMaxMessage.
	MaxMessage int
	// HandshakeTimeout bounds a connection's whole handshake. Default
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// Log receives one line per refused connection (loader 0). Default: none.
	Log func(string)
}

func (o *Options) check() error {
	if len(o.Secret) < MinSecret {
		return fmt.Errorf("rendezvous: the run's secret is %d bytes, under %d (fix: e.g. head -c 32 /dev/urandom | base64 > secret, the same file on every loader)", len(o.Secret), MinSecret)
	}
	if o.MaxMessage <= 0 {
		o.MaxMessage = DefaultMaxMessage
	}
	if o.HandshakeTimeout <= 0 {
		o.HandshakeTimeout = DefaultHandshakeTimeout
	}
	if o.Log == nil {
		o.Log = func(string) {}
	}
	return nil
}

// message is one line of the protocol.
type message struct {
	Type    string         `json:"type"` // challenge, ready, welcome, start, result, ok, error
	Shard   int            `json:"shard,omitempty"`
	Shards  int            `json:"shards,omitempty"`
	Version string         `json:"version,omitempty"`
	Nonce   string         `json:"nonce,omitempty"`
	Proof   string         `json:"proof,omitempty"`
	At      time.Time      `json:"at,omitzero"`
	Result  *result.Result `json:"result,omitempty"`
	Error   string         `json:"error,omitempty"`
	// Lines are lines of a seconds file (type "seconds"); "seconds-end"
	// ends them.
	Lines []json.RawMessage `json:"lines,omitempty"`
}

// secondsChunk bounds the lines of one "seconds" message, well under the
// smallest message limit a loader 0 may be given (1 MiB); a longer line
// (a phase's whole line) goes alone, bounded by the limit as results are.
const secondsChunk = 256 << 10

// conn is one authenticated connection, on either side.
type conn struct {
	net.Conn
	br   *bufio.Reader
	sess *session
}

func (c *conn) send(m message) error {
	line, err := c.sess.frame(m)
	if err != nil {
		return err
	}
	_, err = c.Write(line)
	return err
}

func (c *conn) recv(limit int) (message, error) {
	line, err := readLine(c.br, limit)
	if err != nil {
		return message{}, err
	}
	return c.sess.open(line)
}

// sendPlain writes a pre-authentication line.
func sendPlain(w net.Conn, m message) error {
	line, err := jsonLine(m)
	if err != nil {
		return err
	}
	_, err = w.Write(line)
	return err
}

// peerConn is one loader's connection, as the coordinator holds it.
type peerConn struct {
	shard int
	*conn
}

// Coordinator is loader 0's side.
type Coordinator struct {
	ln      net.Listener
	shards  int
	version string
	opt     Options
	mu      sync.Mutex
	peers   map[int]*peerConn
	pending map[net.Conn]bool // connections in their handshake
	sources map[string]int    // handshakes under way by source address
	logged  map[string]int    // refusals logged by source address
	started bool              // the start is sent: no loader joins after it
}

// Listen makes this loader the coordinator of shards loaders on addr
// (":7070"); version is this loader's, which every peer must match.
func Listen(addr string, shards int, version string, opt Options) (*Coordinator, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("rendezvous: cannot listen on %s: %w (fix: a free port)", addr, err)
	}
	return &Coordinator{ln: ln, shards: shards, version: version, opt: opt, peers: map[int]*peerConn{}, pending: map[net.Conn]bool{},
		sources: map[string]int{}, logged: map[string]int{}}, nil
}

// Ready waits until every other loader has proved the secret and said it is
// ready (ctx bounds the wait), then sends them all the start time and
// returns it.
func (c *Coordinator) Ready(ctx context.Context) (time.Time, error) {
	stop := context.AfterFunc(ctx, func() { c.ln.Close() })
	defer stop()
	admitted := make(chan error, maxHandshakes)
	acceptErr := make(chan error, 1)
	slots := make(chan struct{}, maxHandshakes)
	go func() {
		for {
			nc, err := c.ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			src := source(nc)
			if why := c.take(src, slots); why != "" {
				c.logf(src, "rendezvous: refused %s: %s", nc.RemoteAddr(), why)
				nc.Close()
				continue
			}
			go func() {
				defer c.release(src, slots)
				admitted <- c.admit(nc)
			}()
		}
	}()
	defer c.dropPending()
	for c.count() < c.shards-1 {
		select {
		case err := <-acceptErr:
			return time.Time{}, fmt.Errorf("rendezvous: waiting for loaders %s: %w (fix: start them with loader 0's address and the run's secret, or allow a longer rendezvous timeout)", c.missing(), cmpErr(ctx, err))
		case err := <-admitted:
			// A stranger or a mismatched loader does not end the wait: it is
			// refused, logged and dropped. A loader of another version that
			// holds the secret is one of ours: its run cannot merge.
			var ve *versionError
			if errors.As(err, &ve) {
				return time.Time{}, err
			}
		}
	}
	c.ln.Close()
	c.dropPending()
	at := time.Now().Add(Lead)
	for _, p := range c.sorted() {
		if err := p.send(message{Type: "start", At: at}); err != nil {
			return time.Time{}, fmt.Errorf("rendezvous: loader %d dropped out before the start: %w", p.shard, err)
		}
	}
	return at, nil
}

// source is the address a connection comes from, without its port.
func source(nc net.Conn) string {
	if a, ok := nc.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	host, _, _ := net.SplitHostPort(nc.RemoteAddr().String())
	return host
}

// take claims a handshake slot for a connection from src, or says why
// there is none.
func (c *Coordinator) take(src string, slots chan struct{}) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sources[src] >= perSource {
		return fmt.Sprintf("%d handshakes from %s already under way", perSource, src)
	}
	select {
	case slots <- struct{}{}:
	default:
		return fmt.Sprintf("%d handshakes already under way", maxHandshakes)
	}
	c.sources[src]++
	return ""
}

func (c *Coordinator) release(src string, slots chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sources[src]--; c.sources[src] <= 0 {
		delete(c.sources, src)
	}
	<-slots
}

// logf logs a refusal of a connection from src: the first logPerSource of
// each source, then one line saying the rest are not logged.
func (c *Coordinator) logf(src, format string, a ...any) {
	c.mu.Lock()
	n := c.logged[src]
	if len(c.logged) < 4096 || n > 0 {
		c.logged[src]++
	}
	c.mu.Unlock()
	switch {
	case n < logPerSource:
		c.opt.Log(fmt.Sprintf(format, a...))
	case n == logPerSource:
		c.opt.Log(fmt.Sprintf("rendezvous: more connections from %s refused; not logged", src))
	}
}

// dropPending closes the connections still in their handshake.
func (c *Coordinator) dropPending() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.started = true
	for nc := range c.pending {
		nc.Close()
	}
}

type versionError struct{ msg string }

func (e *versionError) Error() string { return e.msg }

// admit runs one connection's handshake and keeps it if it proves the
// secret and belongs to this run; otherwise it is refused, logged and
// closed.
func (c *Coordinator) admit(nc net.Conn) error {
	c.mu.Lock()
	c.pending[nc] = true
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, nc)
		c.mu.Unlock()
	}()
	claim := ""
	p, err := c.handshake(nc, &claim)
	if err != nil {
		c.logf(source(nc), "rendezvous: refused %s%s: %v", nc.RemoteAddr(), claim, err)
		nc.Close()
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.started {
		p.Close()
		return errors.New("rendezvous: a loader that came after the start")
	}
	if old := c.peers[p.shard]; old != nil {
		old.Close() // a restarted loader replaces its earlier connection
	}
	c.peers[p.shard] = p
	return nil
}

func (c *Coordinator) handshake(nc net.Conn, claim *string) (*peerConn, error) {
	nc.SetDeadline(time.Now().Add(c.opt.HandshakeTimeout))
	cNonce := nonce()
	if err := sendPlain(nc, message{Type: "challenge", Nonce: cNonce}); err != nil {
		return nil, err
	}
	br := bufio.NewReader(nc)
	line, err := readLine(br, HelloLimit)
	if err != nil {
		return nil, fmt.Errorf("no hello: %w", err)
	}
	m, err := decodeHello(line)
	if err != nil {
		return nil, err
	}
	*claim = fmt.Sprintf(" (says it is loader %d)", m.Shard)
	want := helloProof(c.opt.Secret, cNonce, m.Nonce, m.Shard, m.Shards, m.Version)
	if m.Type != "ready" || len(m.Nonce) != 64 || !hmac.Equal([]byte(m.Proof), []byte(want)) {
		sendPlain(nc, message{Type: "error", Error: "rendezvous: loader 0 refused this loader: it did not prove the run's secret (fix: the same secret on every loader)"})
		return nil, errors.New("it does not prove the run's secret")
	}
	pc := &peerConn{shard: m.Shard, conn: &conn{Conn: nc, br: br, sess: &session{key: sessionKey(c.opt.Secret, cNonce, m.Nonce), out: toPeer, in: toCoordinator}}}
	refuse := func(err error) (*peerConn, error) {
		pc.send(message{Type: "error", Error: err.Error()})
		return nil, err
	}
	switch {
	case m.Version != c.version:
		return refuse(&versionError{fmt.Sprintf("rendezvous: loader %d runs platbench %s, loader 0 runs %s (fix: the same image for every loader)", m.Shard, m.Version, c.version)})
	case m.Shards != c.shards:
		return refuse(fmt.Errorf("rendezvous: loader %d counts %d loaders, loader 0 counts %d (fix: the same shard count on every loader)", m.Shard, m.Shards, c.shards))
	case m.Shard <= 0 || m.Shard >= c.shards:
		return refuse(fmt.Errorf("rendezvous: shard %d is not one of 1..%d", m.Shard, c.shards-1))
	}
	if err := pc.send(message{Type: "welcome"}); err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return pc, nil
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
// them in shard order with own (shard 0) first. A loader that drops out,
// sends an error, or sends more than Options.MaxMessage bytes is named in
// the error; the results that did arrive are returned with it.
//
// Each result is followed by the loader's seconds: with secondsPath set,
// they are written to secondsPath(shard) and the result pointed at them
// (result.UseSecondsFile); a result whose seconds did not arrive whole is
// returned without them, and the loader named in the error.
func (c *Coordinator) Collect(ctx context.Context, own *result.Result, secondsPath func(shard int) string) ([]*result.Result, error) {
	peers := c.sorted()
	out := make([]*result.Result, len(peers))
	errs := make([]error, len(peers))
	var wg sync.WaitGroup
	for i, p := range peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stop := context.AfterFunc(ctx, func() { p.SetReadDeadline(time.Now()) })
			defer stop()
			m, err := p.recv(c.opt.MaxMessage)
			switch {
			case err != nil:
				errs[i] = fmt.Errorf("loader %d sent no result: %w", p.shard, cmpErr(ctx, err))
			case m.Type == "error":
				errs[i] = fmt.Errorf("loader %d failed: %s", p.shard, m.Error)
			case m.Type != "result" || m.Result == nil:
				errs[i] = fmt.Errorf("loader %d sent %q, not a result", p.shard, m.Type)
			default:
				out[i] = m.Result
				if err := c.recvSeconds(p, m.Result, secondsPath); err != nil {
					errs[i] = fmt.Errorf("loader %d's seconds: %w", p.shard, cmpErr(ctx, err))
					break
				}
				p.send(message{Type: "ok"})
			}
			p.Close()
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

// recvSeconds receives a peer's seconds, after its result, into
// secondsPath(shard) (discarded without secondsPath) and points r at them.
func (c *Coordinator) recvSeconds(p *peerConn, r *result.Result, secondsPath func(int) string) error {
	var w *bufio.Writer
	var zw io.WriteCloser
	var f *os.File
	var path string
	if secondsPath != nil {
		path = secondsPath(p.shard)
		var err error
		if f, err = os.Create(path + ".tmp"); err != nil {
			return err
		}
		defer func() {
			if f != nil {
				f.Close()
				os.Remove(path + ".tmp")
			}
		}()
		zw = result.NewSecondsWriter(f)
		w = bufio.NewWriterSize(zw, 1<<20)
	}
	for {
		m, err := p.recv(c.opt.MaxMessage)
		if err != nil {
			return err
		}
		if m.Type == "seconds-end" {
			break
		}
		if m.Type != "seconds" {
			return fmt.Errorf("loader %d sent %q, not its seconds", p.shard, m.Type)
		}
		for _, l := range m.Lines {
			if w != nil {
				w.Write(l)
				w.WriteByte('\n')
			}
		}
	}
	if w == nil {
		return nil
	}
	// The run ended: the file reads as a whole seconds file.
	w.WriteString(`{"end":true}` + "\n")
	err := errors.Join(w.Flush(), zw.Close(), f.Sync(), f.Close())
	f = nil
	if err == nil {
		err = result.RenameSynced(path+".tmp", path) // as durable as the result it goes with
	}
	if err != nil {
		os.Remove(path + ".tmp")
		return err
	}
	return result.UseSecondsFile(r, path)
}

// Close drops every connection.
func (c *Coordinator) Close() error {
	c.ln.Close()
	c.dropPending()
	for _, p := range c.sorted() {
		p.Close()
	}
	return nil
}

// Peer is the side of loaders 1..N-1.
type Peer struct {
	*conn
}

// Dial connects loader shard of shards to the coordinator at addr and proves
// the secret, retrying until ctx ends: the coordinator's pod may start later
// than this one, and strangers at its port may hold its handshake slots for
// a while (loader 0 drops them at their deadline). A refusal by loader 0
// (another version, the wrong secret) ends it at once.
func Dial(ctx context.Context, addr string, shard, shards int, version string, opt Options) (*Peer, error) {
	if err := opt.check(); err != nil {
		return nil, err
	}
	var d net.Dialer
	wait := 100 * time.Millisecond
	for {
		nc, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			stop := context.AfterFunc(ctx, func() { nc.SetDeadline(time.Now()) })
			p, herr := hello(nc, shard, shards, version, opt)
			stop()
			if herr == nil {
				return p, nil
			}
			nc.Close()
			var r *refusal
			if errors.As(herr, &r) {
				return nil, fmt.Errorf("rendezvous: %s: %w", addr, herr)
			}
			err = herr
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("rendezvous: loader 0 at %s did not answer: %v (fix: start loader 0, or check the address; a stranger flooding its port delays the handshake: see docs/distributed.md)", addr, err)
		case <-time.After(jitter(wait)):
		}
		wait = min(2*wait, 2*time.Second)
	}
}

// jitter is d give or take a quarter, so loaders dropped together do not
// come back together.
func jitter(d time.Duration) time.Duration {
	return d*3/4 + time.Duration(rand.Int64N(int64(d/2)+1))
}

// refusal is loader 0 saying no (or not proving the secret): trying again
// would not help.
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

// hello is the peer's side of the handshake: answer the challenge, then
// check that loader 0 holds the secret too (its welcome is framed under the
// session key), so no impostor receives this loader's result.
func hello(nc net.Conn, shard, shards int, version string, opt Options) (*Peer, error) {
	nc.SetDeadline(time.Now().Add(opt.HandshakeTimeout))
	br := bufio.NewReader(nc)
	line, err := readLine(br, HelloLimit)
	if err != nil {
		return nil, fmt.Errorf("no challenge from loader 0: %w", err)
	}
	m, err := decodeHello(line)
	if err != nil {
		return nil, err
	}
	if m.Type == "error" {
		return nil, &refusal{m.Error}
	}
	if m.Type != "challenge" || len(m.Nonce) != 64 {
		return nil, fmt.Errorf("loader 0 sent %q, not a challenge", m.Type)
	}
	pNonce := nonce()
	if err := sendPlain(nc, message{Type: "ready", Shard: shard, Shards: shards, Version: version, Nonce: pNonce,
		Proof: helloProof(opt.Secret, m.Nonce, pNonce, shard, shards, version)}); err != nil {
		return nil, err
	}
	p := &Peer{&conn{Conn: nc, br: br, sess: &session{key: sessionKey(opt.Secret, m.Nonce, pNonce), out: toCoordinator, in: toPeer}}}
	line, err = readLine(br, HelloLimit)
	if err != nil {
		return nil, fmt.Errorf("no answer to this loader's hello: %w", err)
	}
	w, err := p.sess.open(line)
	if err != nil {
		if plain, perr := decodeHello(line); perr == nil && plain.Type == "error" {
			return nil, &refusal{plain.Error}
		}
		return nil, &refusal{fmt.Sprintf("loader 0 did not prove the run's secret: %v", err)}
	}
	switch w.Type {
	case "welcome":
		nc.SetDeadline(time.Time{})
		return p, nil
	case "error":
		return nil, &refusal{w.Error}
	}
	return nil, &refusal{fmt.Sprintf("loader 0 sent %q, not a welcome", w.Type)}
}

// Start waits for the coordinator's start time (ctx bounds the wait).
func (p *Peer) Start(ctx context.Context) (time.Time, error) {
	stop := context.AfterFunc(ctx, func() { p.SetReadDeadline(time.Now()) })
	defer stop()
	m, err := p.recv(HelloLimit)
	if err != nil {
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

// Send delivers this loader's result (or, with r nil, its failure), then
// the seconds file (or journal) at seconds ("" for none), and waits for the
// coordinator to acknowledge them.
func (p *Peer) Send(ctx context.Context, r *result.Result, failure error, seconds string) error {
	defer p.Close()
	stop := context.AfterFunc(ctx, func() { p.SetDeadline(time.Now()) })
	defer stop()
	m := message{Type: "result", Result: r}
	if r == nil {
		m = message{Type: "error", Error: fmt.Sprint(failure)}
	}
	if err := p.send(m); err != nil {
		return fmt.Errorf("rendezvous: sending the result to loader 0: %w", err)
	}
	if r == nil {
		return nil
	}
	if err := p.sendSeconds(seconds); err != nil {
		return fmt.Errorf("rendezvous: sending the seconds to loader 0: %w", cmpErr(ctx, err))
	}
	ack, err := p.recv(HelloLimit)
	if err != nil || ack.Type != "ok" {
		return fmt.Errorf("rendezvous: loader 0 did not acknowledge the result: %v", cmpErr(ctx, err))
	}
	return nil
}

// sendSeconds sends the lines of the file at path in chunks, then the end.
// A line that is not JSON (a torn last line of a journal) is left out.
func (p *Peer) sendSeconds(path string) error {
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(result.PlainLines(f))
		sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
		var lines []json.RawMessage
		size := 0
		flush := func() error {
			if len(lines) == 0 {
				return nil
			}
			err := p.send(message{Type: "seconds", Lines: lines})
			lines, size = lines[:0], 0
			return err
		}
		for sc.Scan() {
			b := sc.Bytes()
			if !json.Valid(b) {
				continue
			}
			if size+len(b) > secondsChunk {
				if err := flush(); err != nil {
					return err
				}
			}
			lines = append(lines, json.RawMessage(bytes.Clone(b)))
			size += len(b)
		}
		if err := sc.Err(); err != nil {
			return err
		}
		if err := flush(); err != nil {
			return err
		}
	}
	return p.send(message{Type: "seconds-end"})
}

// cmpErr prefers the context's reason over the I/O error it caused.
func cmpErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}
