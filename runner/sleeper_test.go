package runner

import (
	"testing"
	"time"
)

// The timerfd sleeper waits at least as long as asked, repeatedly, without
// allocating.
func TestSleeperWaits(t *testing.T) {
	s := newSleeper()
	if s == nil {
		t.Skip("no timerfd here: the runner falls back to nanosleep")
	}
	defer s.close()
	for _, d := range []time.Duration{50 * time.Microsecond, 2 * time.Millisecond} {
		t0 := time.Now()
		if err := s.sleep(int64(d)); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(t0); got < d {
			t.Errorf("sleep(%v) returned after %v", d, got)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.sleep(int64(10 * time.Microsecond)) }); n != 0 {
		t.Errorf("sleep allocates %.1f times", n)
	}
}
