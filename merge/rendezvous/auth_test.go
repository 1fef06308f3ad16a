package rendezvous

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// logLines collects loader 0's log of refused connections.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) add(s string) { l.mu.Lock(); l.lines = append(l.lines, s); l.mu.Unlock() }
func (l *logLines) all() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// Strangers at loader 0's port while the real loaders meet: one with no
// secret (today's protocol: a bare ready line), one with a wrong secret, one
// that sends an endless line, one that sends a byte a second. Each is
// refused and named in the log; the two real loaders start and their results
// are collected.
func TestStrangersRefused(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log logLines
	o := opts()
	o.Log = log.add
	o.HandshakeTimeout = time.Second
	c, err := Listen("127.0.0.1:0", 3, "v1", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ln.Addr().String()
	ready := make(chan time.Time, 1)
	readyErr := make(chan error, 1)
	go func() {
		at, err := c.Ready(ctx)
		ready <- at
		readyErr <- err
	}()

	strangers := map[string]func(net.Conn){
		"no secret": func(nc net.Conn) {
			readLine(bufio.NewReader(nc), HelloLimit) // the challenge
			json.NewEncoder(nc).Encode(message{Type: "ready", Shard: 1, Shards: 3, Version: "v1"})
		},
		"wrong secret": func(nc net.Conn) {
			wrong := opts()
			wrong.Secret = []byte("not-the-secret-of-this-run")
			wrong.check()
			_, err := hello(nc, 2, 3, "v1", wrong)
			if err == nil || !strings.Contains(err.Error(), "did not prove the run's secret") {
				t.Errorf("a loader with the wrong secret was told %v", err)
			}
		},
		"oversized line": func(nc net.Conn) {
			readLine(bufio.NewReader(nc), HelloLimit)
			nc.Write([]byte(`{"type":"ready","version":"` + strings.Repeat("x", 1<<20)))
		},
		"one byte a second": func(nc net.Conn) {
			for _, b := range []byte(`{"type":"ready"}`) {
				if _, err := nc.Write([]byte{b}); err != nil {
					return
				}
				time.Sleep(time.Second)
			}
		},
	}
	var sw, slow sync.WaitGroup
	for name, fn := range strangers {
		nc, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(name, err)
		}
		wg := &sw
		if name == "one byte a second" {
			wg = &slow
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer nc.Close()
			fn(nc)
			// loader 0 hangs up on a refused stranger
			nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				if _, err := nc.Read(make([]byte, 512)); err != nil {
					return
				}
			}
		}()
	}
	// The quick strangers are refused first; the real loaders then come
	// while the slow one is still there, and are not held up by it.
	sw.Wait()
	var wg sync.WaitGroup
	for shard := 1; shard <= 2; shard++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sendAsLoader(ctx, t, addr, shard, 3, res("loader"))
		}()
	}
	<-ready
	if err := <-readyErr; err != nil {
		t.Fatal(err)
	}
	all, err := c.Collect(ctx, res("own"), nil)
	wg.Wait()
	if err != nil || len(all) != 3 {
		t.Fatalf("collect: %d results, %v", len(all), err)
	}
	slow.Wait()
	// Every stranger is named in the log (the slow one as "no hello": cut
	// off by its deadline or by the start, which drops connections still in
	// their handshake).
	// (A connection the start dropped is logged just after it is closed.)
	got := log.all()
	for end := time.Now().Add(5 * time.Second); strings.Count(got, "refused") < 4 && time.Now().Before(end); got = log.all() {
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{"(says it is loader 1): it does not prove the run's secret", "(says it is loader 2): it does not prove the run's secret", "message over the size limit"} {
		if !strings.Contains(got, want) {
			t.Errorf("loader 0's log lacks %q:\n%s", want, got)
		}
	}
	if n := strings.Count(got, "rendezvous: refused 127.0.0.1:"); n != 4 {
		t.Errorf("%d refusals logged, want 4:\n%s", n, got)
	}
}

// A slow stranger alone is dropped at the handshake deadline, not kept.
func TestSlowStrangerDropped(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log logLines
	o := opts()
	o.Log = log.add
	o.HandshakeTimeout = 300 * time.Millisecond
	c, err := Listen("127.0.0.1:0", 2, "v1", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Ready(ctx)
	nc, err := net.Dial("tcp", c.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	br := bufio.NewReader(nc)
	readLine(br, HelloLimit)
	nc.Write([]byte(`{"ty`))
	// loader 0 closes the connection at its deadline: the read ends.
	nc.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := br.ReadByte(); err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
		t.Fatalf("the slow connection was not dropped by loader 0: %v", err)
	}
	if got := log.all(); !strings.Contains(got, "no hello") {
		t.Errorf("log: %q", got)
	}
}

// A loader with the secret does not talk to a loader 0 without it: its
// result would go to an impostor.
func TestImpostorCoordinator(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	o := opts()
	o.Secret = []byte("an-impostor-guessing-the-secret")
	c, err := Listen("127.0.0.1:0", 2, "v1", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go c.Ready(ctx)
	_, err = Dial(ctx, c.ln.Addr().String(), 1, 2, "v1", opts())
	if err == nil || !strings.Contains(err.Error(), "prove the run's secret") {
		t.Fatalf("dial to an impostor: %v", err)
	}
}

// A short secret is refused with the fix, on both sides.
func TestShortSecret(t *testing.T) {
	if _, err := Listen("127.0.0.1:0", 2, "v1", Options{Secret: []byte("short")}); err == nil || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("listen: %v", err)
	}
	if _, err := Dial(context.Background(), "127.0.0.1:1", 1, 2, "v1", Options{}); err == nil || !strings.Contains(err.Error(), "under 16") {
		t.Errorf("dial: %v", err)
	}
}

// Framed lines: a forged, replayed, reordered or other-direction line is
// refused; a line over the limit is not read to its end.
func TestSessionFrames(t *testing.T) {
	key := sessionKey(secret, strings.Repeat("a", 64), strings.Repeat("b", 64))
	w := &session{key: key, out: toCoordinator, in: toPeer}
	r := &session{key: key, out: toPeer, in: toCoordinator}
	l1, _ := w.frame(message{Type: "result"})
	l2, _ := w.frame(message{Type: "error", Error: "x"})
	if _, err := r.open(l2[:len(l2)-1]); err == nil {
		t.Error("a line out of order was accepted")
	}
	if m, err := r.open(l1[:len(l1)-1]); err != nil || m.Type != "result" {
		t.Fatalf("first line: %v %v", m, err)
	}
	if _, err := r.open(l1[:len(l1)-1]); err == nil {
		t.Error("a replayed line was accepted")
	}
	forged := []byte(strings.Replace(string(l2[:len(l2)-1]), `"x"`, `"y"`, 1))
	if _, err := r.open(forged); err == nil {
		t.Error("a forged line was accepted")
	}
	if m, err := r.open(l2[:len(l2)-1]); err != nil || m.Error != "x" {
		t.Errorf("second line: %v %v", m, err)
	}
	back := &session{key: key, out: toPeer, in: toPeer} // a line of the other direction
	l3, _ := back.frame(message{Type: "ok"})
	if _, err := (&session{key: key, in: toCoordinator, read: 0}).open(l3[:len(l3)-1]); err == nil {
		t.Error("a line of the other direction was accepted")
	}
	long := bufio.NewReaderSize(strings.NewReader(strings.Repeat("z", 10000)+"\n"), 16)
	if _, err := readLine(long, 100); !errors.Is(err, ErrTooLong) {
		t.Errorf("long line: %v", err)
	}
	exact := bufio.NewReaderSize(strings.NewReader(strings.Repeat("z", 100)+"\nnext\n"), 16)
	if l, err := readLine(exact, 100); err != nil || len(l) != 100 {
		t.Errorf("a line of exactly the limit: %d %v", len(l), err)
	}
}

// sendAsLoader is loader shard of shards: it dials addr, starts and sends
// r, reporting any error to t (from its own goroutine: t.Error).
func sendAsLoader(ctx context.Context, t *testing.T, addr string, shard, shards int, r *result.Result) {
	p, err := Dial(ctx, addr, shard, shards, "v1", opts())
	if err != nil {
		t.Error(err)
		return
	}
	if _, err := p.Start(ctx); err != nil {
		t.Error(err)
		return
	}
	if err := p.Send(ctx, r, nil, ""); err != nil {
		t.Error(err)
	}
}
