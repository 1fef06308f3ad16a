package fake

import (
	"context"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestOpenOptions(t *testing.T) {
	u, _ := url.Parse("fake://?latency=1ms&stall_at=2&stall_for=500ms&error_every=1k")
	tg, err := Open(context.Background(), u, map[string]string{"stall_every": "1m"})
	if err != nil {
		t.Fatal(err)
	}
	f := tg.(*Target)
	if f.Latency != time.Millisecond || f.StallAt != 2*time.Second || f.StallFor != 500*time.Millisecond ||
		f.StallEvery != time.Minute || f.ErrorEvery != 1000 {
		t.Fatalf("got %+v", f)
	}
	u, _ = url.Parse("fake://?latency=fast&error_every=-1&stal_at=1s")
	_, err = Open(context.Background(), u, nil)
	for _, w := range []string{`fake: latency="fast" is not a duration`, `fake: error_every="-1" is not a whole number`, `did you mean stall_at?`} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("%v does not mention %q", err, w)
		}
	}
}

// TestDrift: drift scales each run's latency by its own draw; a seed makes
// the k-th run's draw reproducible, and runs of one seed differ.
func TestDrift(t *testing.T) {
	open := func(q string) *Target {
		u, _ := url.Parse("fake://?" + q)
		tg, err := Open(context.Background(), u, nil)
		if err != nil {
			t.Fatal(err)
		}
		return tg.(*Target)
	}
	a, b := open("latency=1ms&drift=0.05&drift_seed=77"), open("latency=1ms&drift=5%25&drift_seed=77")
	if a.Latency == b.Latency || a.Latency == time.Millisecond {
		t.Errorf("two runs of one seed: %v and %v, want each its own draw", a.Latency, b.Latency)
	}
	for _, tg := range []*Target{a, b} {
		if r := float64(tg.Latency) / 1e6; r < 0.7 || r > 1.4 {
			t.Errorf("latency %v: more than 7 sd of a 5%% drift away", tg.Latency)
		}
	}
	if z := driftZ(78); z != rand.New(rand.NewPCG(78, 0)).NormFloat64() {
		t.Errorf("the first draw of seed 78 is not reproducible")
	}
	u, _ := url.Parse("fake://?drift=lots")
	if _, err := Open(context.Background(), u, nil); err == nil || !strings.Contains(err.Error(), "drift") {
		t.Errorf("drift=lots: %v", err)
	}
}

// sleep never returns before the latency asked (a lower bound cannot flake
// on a loaded machine; how close it comes above is BenchmarkSleep's), and a
// cancelled context ends an hour's stall at once.
func TestSleepHonoursLatency(t *testing.T) {
	for _, d := range []time.Duration{50 * time.Microsecond, 300 * time.Microsecond, 450 * time.Microsecond, 2 * time.Millisecond, 25 * time.Millisecond} {
		start := time.Now()
		sleep(context.Background(), d)
		if got := time.Since(start); got < d {
			t.Errorf("sleep(%v) returned after %v", d, got)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sleep(ctx, time.Hour) // the test's own timeout fails it if this waits
}

// BenchmarkSleep: the latency the fake gives for what it is asked, as a
// ratio (1.00 is exact): go test -bench Sleep ./adapter/fake. Through the
// runtime's timer, 300µs and 450µs both gave a 1.14 ms mean (3.8x, 2.5x).
func BenchmarkSleep(b *testing.B) {
	for _, d := range []time.Duration{300 * time.Microsecond, 450 * time.Microsecond, 2 * time.Millisecond} {
		b.Run(d.String(), func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				sleep(context.Background(), d)
			}
			b.ReportMetric(float64(time.Since(start))/float64(b.N)/float64(d), "x-asked")
		})
	}
}
