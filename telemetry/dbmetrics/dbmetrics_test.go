package dbmetrics

import (
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis"
	"github.com/platbench/platbench/internal/testenv"
)

// fakeReader serves a fixed INFO text, or fails, or hangs until ctx ends.
type fakeReader struct {
	mu    sync.Mutex
	text  string
	fail  error
	hang  bool
	reads int
}

func (f *fakeReader) StatusNodes(context.Context) []string { return []string{"n1:6379"} }
func (f *fakeReader) ResetStatus(context.Context, string) error {
	return errors.New("ERR unknown command 'CONFIG'")
}
func (f *fakeReader) ReadStatus(ctx context.Context, _ string) (string, error) {
	f.mu.Lock()
	f.reads++
	hang, fail, text := f.hang, f.fail, f.text
	f.mu.Unlock()
	if hang {
		<-ctx.Done()
		return "", errors.New("no answer in time")
	}
	return text, fail
}

// waitReads returns once k more readings have been asked for.
func (f *fakeReader) waitReads(k int) {
	f.mu.Lock()
	want := f.reads + k
	f.mu.Unlock()
	for {
		f.mu.Lock()
		done := f.reads >= want
		f.mu.Unlock()
		if done {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (f *fakeReader) set(fn func(f *fakeReader)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

// A node that fails, then hangs, then answers again: the failures are
// missing samples with their error, the run never waits, and the good
// sample after the gap spans it. A refused reset is named.
func TestCollectorGaps(t *testing.T) {
	f := &fakeReader{text: readInfo(t, "redis-7.0.15.txt")}
	const iv = 40 * time.Millisecond
	c := Start(context.Background(), f, iv, true)
	f.waitReads(2)
	f.set(func(f *fakeReader) { f.fail = errors.New("connection refused") })
	f.waitReads(2)
	f.set(func(f *fakeReader) { f.fail, f.hang = nil, true })
	f.waitReads(2)
	f.set(func(f *fakeReader) { f.hang = false })
	f.waitReads(2)
	m := c.Stop()
	if m.Reset || len(m.Unavailable) != 1 || !strings.Contains(m.Unavailable[0], "CONFIG RESETSTAT failed on n1:6379") {
		t.Errorf("reset %v, unavailable %q", m.Reset, m.Unavailable)
	}
	var refused, slow, afterGap bool
	var gap bool
	for _, s := range m.Nodes[0].Samples {
		switch {
		case s.Missing && s.Error == "connection refused":
			refused, gap = true, true
		case s.Missing && s.Error == "no answer in time":
			slow, gap = true, true
		case s.Missing:
			t.Errorf("missing sample with error %q", s.Error)
		case gap:
			afterGap, gap = true, false
			if s.DurationNs < int64(4*iv) { // four failed reads at least one interval apart
				t.Errorf("the sample after the gap spans %v, not the gap", time.Duration(s.DurationNs))
			}
		}
	}
	if !refused || !slow || !afterGap {
		t.Errorf("refused %v, slow %v, good after the gap %v: %+v", refused, slow, afterGap, m.Nodes[0].Samples)
	}
	if m.Server != "redis" || m.Nodes[0].Version != "7.0.15" {
		t.Errorf("server %q version %q", m.Server, m.Nodes[0].Version)
	}
}

// A node that never answers: Stop returns at once, with missing samples only.
func TestCollectorHangs(t *testing.T) {
	f := &fakeReader{hang: true}
	c := Start(context.Background(), f, 20*time.Millisecond, false)
	f.waitReads(2)
	m := c.Stop()
	for _, s := range m.Nodes[0].Samples {
		if !s.Missing {
			t.Fatalf("a good sample from a node that never answered: %+v", s)
		}
	}
	if len(m.Nodes[0].Samples) == 0 {
		t.Error("no missing samples recorded")
	}
}

// The real server (Redis 7, or Valkey 8 when scripts/test.sh points
// PLATBENCH_REDIS_URL at it): a command no other test sends (ECHO), sent a
// known number of times between the first and the last reading, is counted
// exactly by difference, with its server-side time and percentiles.
func TestRealServerCountsCommands(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_REDIS_URL")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tg, err := redis.Open(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	sr := tg.(adapter.StatusReader)
	c := Start(ctx, sr, 200*time.Millisecond, false)
	const n = 2500
	echo(t, u.Host, n)
	time.Sleep(300 * time.Millisecond)
	m := c.Stop()
	if want := os.Getenv("PLATBENCH_REDIS_EXPECT"); want != "" && m.Server != want {
		t.Fatalf("reached %q, expected %q", m.Server, want)
	}
	var calls uint64
	var timeNs float64
	var pct map[string]float64
	for _, s := range m.Nodes[0].Samples {
		if s.Missing {
			t.Fatalf("missing sample: %s", s.Error)
		}
		e := s.Commands["echo"]
		calls += e.Calls
		timeNs += e.TimeNs
		if e.Percentiles != nil {
			pct = e.Percentiles
		}
		if _, ok := s.Values["used_memory_bytes"]; !ok {
			t.Errorf("sample without used_memory_bytes: %v", s.Values)
		}
	}
	if calls != n {
		t.Errorf("the server counted %d ECHO calls, the test sent %d", calls, n)
	}
	if timeNs <= 0 || pct["p50"] <= 0 || pct["p99"] < pct["p50"] {
		t.Errorf("server time %v ns, percentiles %v", timeNs, pct)
	}
	for _, f := range m.Unavailable {
		if f == RedisLatencyStats {
			t.Errorf("%s named unavailable on %s %s", f, m.Server, m.Nodes[0].Version)
		}
	}
}

// echo sends ECHO n times over a connection of its own, pipelined in
// batches, and reads every reply.
func echo(t *testing.T, addr string, n int) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const cmd = "*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n"
	buf := make([]byte, 64<<10)
	for sent := 0; sent < n; {
		k := min(100, n-sent)
		if _, err := c.Write([]byte(strings.Repeat(cmd, k))); err != nil {
			t.Fatal(err)
		}
		want, got := k*len("$2\r\nhi\r\n"), 0
		for got < want {
			m, err := c.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			got += m
		}
		sent += k
	}
}

// The target's status reader in cluster mode (every master) and with a
// password (the target's credentials): INFO parses on every node.
func TestRealServerClusterAndAuth(t *testing.T) {
	for _, env := range []string{"PLATBENCH_REDIS_CLUSTER_URL", "PLATBENCH_REDIS_AUTH_URL"} {
		t.Run(env, func(t *testing.T) {
			u, err := url.Parse(testenv.URL(t, env))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			tg, err := redis.Open(ctx, u, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			sr := tg.(adapter.StatusReader)
			nodes := sr.StatusNodes(ctx)
			if len(nodes) == 0 {
				t.Fatal("no nodes")
			}
			for _, n := range nodes {
				text, err := sr.ReadStatus(ctx, n)
				if err != nil {
					t.Fatalf("%s: %v", n, err)
				}
				r, err := parseInfo(text)
				if err != nil || r.version == "" || len(r.counters) == 0 {
					t.Fatalf("%s: %v %+v", n, err, r)
				}
			}
		})
	}
}
