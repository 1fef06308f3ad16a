package fake

import (
	"context"
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
