package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
)

// More workers than MaxConcurrency are refused with the fix; more than the
// host's cores run get a warning naming the figures they distort.
func TestConcurrencyBounds(t *testing.T) {
	cfg := Config{Target: "null", Run: true}
	cfg.EnsureDefaults()
	cfg.Runner.Concurrency = 1_000_000
	err := cfg.Validate()
	if err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "concurrency 1000000 workers is over the 100000") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("1,000,000 workers: %v", err)
	}
	cfg.Runner.Concurrency = MaxConcurrency
	if err := cfg.Validate(); err != nil {
		t.Errorf("%d workers: %v", MaxConcurrency, err)
	}
	if w := concurrencyWarning(20_000, 2); !strings.Contains(w, "20000 workers on 2 cores") || !strings.Contains(w, "per-second peak") || !strings.Contains(w, "overrun its duration") {
		t.Errorf("20,000 workers on 2 cores: %q", w)
	}
	for _, n := range []int{16, 8192} {
		if w := concurrencyWarning(n, 2); w != "" {
			t.Errorf("%d workers on 2 cores warned: %q", n, w)
		}
	}
}

// A phase that ends more than a second past its duration says why.
func TestOverrunNote(t *testing.T) {
	rc := runner.Config{Duration: 2 * time.Second, Concurrency: 1_000_000}
	if n := overrunNote(&result.Phase{Name: "run", DurationNs: int64(10900 * time.Millisecond)}, rc, 2); !strings.Contains(n, "the run phase lasted 10.9 s, 8.9 s past its 2s") || !strings.Contains(n, "1000000 workers on 2 cores") {
		t.Errorf("note: %q", n)
	}
	if n := overrunNote(&result.Phase{Name: "run", DurationNs: int64(2900 * time.Millisecond)}, rc, 2); n != "" {
		t.Errorf("0.9 s past: %q", n)
	}
	if n := overrunNote(&result.Phase{Name: "run", DurationNs: int64(time.Hour)}, runner.Config{Ops: 10}, 2); n != "" {
		t.Errorf("a phase of an op count: %q", n)
	}
}
