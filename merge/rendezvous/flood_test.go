package rendezvous

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// flood holds connections open to addr from the loopback address src, n at
// a time: each is renewed (after pause) when loader 0 drops it. With slow
// set, each sends a byte a second instead of nothing.
type flood struct {
	stop   chan struct{}
	wg     sync.WaitGroup
	opened atomic.Int64
}

func (f *flood) hold(t *testing.T, addr, src string, n int, slow bool, pause time.Duration) {
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: time.Second}
	for range n {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			for {
				select {
				case <-f.stop:
					return
				default:
				}
				nc, err := d.Dial("tcp", addr)
				if err == nil {
					f.opened.Add(1)
					f.idle(nc, slow)
				}
				select {
				case <-f.stop:
					return
				case <-time.After(pause):
				}
			}
		}()
	}
}

// idle keeps nc open until loader 0 drops it or the flood stops.
func (f *flood) idle(nc net.Conn, slow bool) {
	defer nc.Close()
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-f.stop:
		case <-done:
		}
		nc.Close()
	}()
	if slow {
		for _, b := range []byte(`{"type":"ready","shard":1}`) {
			if _, err := nc.Write([]byte{b}); err != nil {
				return
			}
			select {
			case <-f.stop:
				return
			case <-time.After(time.Second):
			}
		}
	}
	buf := make([]byte, 512)
	for {
		if _, err := nc.Read(buf); err != nil {
			return
		}
	}
}

// Loader 0's port under a flood while four loaders meet: 200 connections
// held open (and renewed when dropped) from 25 other addresses, more than
// loader 0 checks at once; 200 held open from the loaders' own address
// before they come; and a slow-loris peer that sends a byte a second. The
// real loaders are delayed, not stopped: each retries its handshake until
// its context ends, every result is collected, and loader 0's goroutines
// and heap stay bounded however many connections come.
func TestRendezvousUnderFlood(t *testing.T) {
	if nc, err := (&net.Dialer{LocalAddr: &net.UDPAddr{IP: net.ParseIP("127.0.0.2")}}).Dial("udp", "127.0.0.1:9"); err != nil {
		t.Fatalf("this test floods from 127.0.0.2-127.0.0.40, which this machine does not route to itself: %v", err)
	} else {
		nc.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log logLines
	o := opts()
	o.Log = log.add
	o.HandshakeTimeout = time.Second
	const shards = 4
	c, err := Listen("127.0.0.1:0", shards, "v1", o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	addr := c.ln.Addr().String()
	base := runtime.NumGoroutine()
	ready := make(chan struct{})
	var readyErr error
	go func() {
		_, readyErr = c.Ready(ctx)
		close(ready)
	}()

	f := &flood{stop: make(chan struct{})}
	defer func() { close(f.stop); f.wg.Wait() }()
	for i := range 25 {
		f.hold(t, addr, fmt.Sprintf("127.0.0.%d", 10+i), 8, false, 200*time.Millisecond)
	}
	f.hold(t, addr, "127.0.0.3", 1, true, 200*time.Millisecond)
	// From the loaders' own address, opened once before they come.
	same := &flood{stop: f.stop}
	same.hold(t, addr, "127.0.0.1", 200, false, time.Hour)
	for f.opened.Load() < 200 || same.opened.Load() < 200 {
		select {
		case <-ctx.Done():
			t.Fatalf("the flood opened %d and %d connections", f.opened.Load(), same.opened.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}

	var peak atomic.Int64
	watch := make(chan struct{})
	go func() {
		defer close(watch)
		for ctx.Err() == nil {
			peak.Store(max(peak.Load(), int64(runtime.NumGoroutine())))
			select {
			case <-ready:
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	var wg sync.WaitGroup
	for shard := 1; shard < shards; shard++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sendAsLoader(ctx, t, addr, shard, shards, res(fmt.Sprintf("loader-%d", shard)))
		}()
	}
	<-watch
	<-ready
	if readyErr != nil {
		t.Fatal(readyErr)
	}
	all, err := c.Collect(ctx, res("loader-0"), nil)
	wg.Wait()
	if err != nil || len(all) != shards {
		t.Fatalf("collect: %d results, %v", len(all), err)
	}
	var labels []string
	for _, r := range all {
		labels = append(labels, r.Label)
	}
	if got := strings.Join(labels, " "); got != "loader-0 loader-1 loader-2 loader-3" {
		t.Errorf("collected %s", got)
	}
	// The flood's own goroutines (two per connection at most) aside, loader
	// 0 runs a goroutine per handshake slot at most.
	flooders := int64(2 * (200 + 1 + 200))
	if extra := peak.Load() - int64(base) - flooders; extra > maxHandshakes+32 {
		t.Errorf("%d goroutines at the peak beyond the flood's own: loader 0 is not bounded by its %d handshake slots", extra, maxHandshakes)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > 256<<20 {
		t.Errorf("heap in use %d MB under the flood", ms.HeapInuse>>20)
	}
	got := log.all()
	if !strings.Contains(got, "handshakes already under way") && !strings.Contains(got, "handshakes from 127.0.0.1 already under way") ||
		!strings.Contains(got, "more connections from 127.0.0.1 refused; not logged") {
		t.Errorf("loader 0's log does not name the flood from the loaders' address, or copies it whole:\n%.2000s", got)
	}
	if n := strings.Count(got, "\n"); n > 40*logPerSource {
		t.Errorf("loader 0 logged %d lines for the flood: want a bounded few per source", n)
	}
}
