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
