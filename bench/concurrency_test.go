package bench

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
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
