package rendezvous

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// secret is the run's secret in these tests.
var secret = []byte("0123456789abcdef0123456789abcdef")

func opts() Options { return Options{Secret: secret} }

func res(label string) *result.Result {
	return &result.Result{Schema: result.SchemaVersion, Label: label, Phases: []result.Phase{{Name: "run", DurationNs: 1}}}
}

// Three loaders: the two peers dial before the coordinator listens (they
// retry), all three get the same start, and the coordinator collects both
// results in shard order after its own, each with its seconds: written
// whole (lines of several chunks, a torn last line left out, the end
// added) and the result's phases pointed at them.
func TestThreeLoaders(t *testing.T) {
	dir := t.TempDir()
	started := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	journal := func(shard int) (path, want string) {
		head := `{"journal":"platbench.journal/v2","result":{"schema":"platbench.result/v2","started_at":"2026-11-27T01:00:00Z"}}`
		var b strings.Builder
		b.WriteString(head + "\n")
		for s := 0; s < 3000; s++ { // about 600 KB: three chunks
			fmt.Fprintf(&b, `{"phase":"run","interval":{"start_ns":%d,"duration_ns":1000000000,"ops":[{"op":"READ","count":%d,"pad":"%s"}]}}`+"\n", s*1e9, shard, strings.Repeat("x", 150))
		}
		want = b.String() + `{"end":true}` + "\n"
		path = filepath.Join(dir, fmt.Sprintf("sent-%d.partial", shard))
		os.WriteFile(path, []byte(b.String()+`{"phase":"run","inter`), 0o644) // torn last line
		return path, want
	}
	withStart := func(r *result.Result) *result.Result { r.StartedAt = started; return r }
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// Reserve a port, then free it so the peers dial into nothing first.
	c0, err := Listen("127.0.0.1:0", 3, "v1", opts())
	if err != nil {
		t.Fatal(err)
	}
	addr := c0.ln.Addr().String()
	c0.Close()

	starts := make([]time.Time, 3)
	var wg sync.WaitGroup
	for shard := 1; shard <= 2; shard++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := Dial(ctx, addr, shard, 3, "v1", opts())
			if err != nil {
				t.Error(err)
				return
			}
			if starts[shard], err = p.Start(ctx); err != nil {
				t.Error(err)
				return
			}
			path, _ := journal(shard)
			if err := p.Send(ctx, withStart(res("loader-"+string(rune('0'+shard)))), nil, path); err != nil {
				t.Error(err)
			}
		}()
	}
	time.Sleep(700 * time.Millisecond) // the peers' first dials fail
	c, err := Listen(addr, 3, "v1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if starts[0], err = c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Until(starts[0]); d <= 0 || d > Lead {
		t.Errorf("start %v from now, want within (0, %v]", d, Lead)
	}
	kept := func(shard int) string { return filepath.Join(dir, fmt.Sprintf("loader-%d.seconds.jsonl.zst", shard)) }
	all, err := c.Collect(ctx, res("loader-0"), kept)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	for shard := 1; shard <= 2; shard++ {
		_, want := journal(shard)
		f, err := os.Open(kept(shard))
		var got []byte
		if err == nil {
			got, err = io.ReadAll(result.PlainLines(f)) // kept compressed
			f.Close()
		}
		if err != nil || string(got) != want {
			t.Errorf("loader %d's seconds as kept: %d bytes (%v), want the %d sent and the end", shard, len(got), err, len(want))
		}
		if !all[shard].Phases[0].HasSeconds() {
			t.Errorf("loader %d's result is not pointed at its seconds", shard)
		}
	}
	var labels []string
	for _, r := range all {
		labels = append(labels, r.Label)
	}
	if strings.Join(labels, " ") != "loader-0 loader-1 loader-2" {
		t.Errorf("collected %v", labels)
	}
	for i, s := range starts {
		if !s.Equal(starts[0]) {
			t.Errorf("loader %d starts at %v, loader 0 at %v", i, s, starts[0])
		}
	}
}

// A loader of another version is refused, at once and on both sides.
func TestVersionMismatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Listen("127.0.0.1:0", 2, "v1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	done := make(chan error, 1)
	go func() {
		p, err := Dial(ctx, c.ln.Addr().String(), 1, 2, "v2", opts())
		if err != nil {
			done <- err
			return
		}
		_, err = p.Start(ctx)
		done <- err
	}()
	if _, err := c.Ready(ctx); err == nil || !strings.Contains(err.Error(), "loader 1 runs platbench v2, loader 0 runs v1") {
		t.Errorf("coordinator: %v", err)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "the same image") {
		t.Errorf("peer: %v", err)
	}
}

// A loader that fails after the start is named; the other results still
// arrive.
func TestPeerFailureNamed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Listen("127.0.0.1:0", 3, "v1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for shard := 1; shard <= 2; shard++ {
		go func() {
			p, err := Dial(ctx, c.ln.Addr().String(), shard, 3, "v1", opts())
			if err != nil {
				t.Error(err)
				return
			}
			if _, err := p.Start(ctx); err != nil {
				t.Error(err)
				return
			}
			if shard == 2 {
				p.Send(ctx, nil, context.DeadlineExceeded, "")
				return
			}
			p.Send(ctx, res("ok"), nil, "")
		}()
	}
	if _, err := c.Ready(ctx); err != nil {
		t.Fatal(err)
	}
	all, err := c.Collect(ctx, res("own"), nil)
	if err == nil || !strings.Contains(err.Error(), "loader 2 failed") || len(all) != 2 {
		t.Errorf("collect: %d results, %v", len(all), err)
	}
}

// A coordinator whose loaders never come gives up when its context ends and
// names them.
func TestReadyTimesOut(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	c, err := Listen("127.0.0.1:0", 3, "v1", opts())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Ready(ctx); err == nil || !strings.Contains(err.Error(), "waiting for loaders 1, 2") {
		t.Errorf("ready: %v", err)
	}
}
