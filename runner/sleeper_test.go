package runner

import (
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/recorder"
)

// The timerfd sleeper waits at least until the time asked, repeatedly (also
// after an expiry nobody read, as arm leaves behind), without allocating; a
// time already past returns at once.
func TestSleeperWaits(t *testing.T) {
	s := newSleeper()
	if s == nil {
		testenv.Skip(t, testenv.Host, "no timerfd here: the runner falls back to nanosleep")
	}
	defer s.close()
	rec := recorder.New(recorder.Config{})
	rec.Start()
	defer rec.Stop()
	for _, d := range []time.Duration{50 * time.Microsecond, 2 * time.Millisecond} {
		t0 := time.Now()
		if err := s.sleepUntil(rec.Mono(rec.Now() + int64(d))); err != nil {
			t.Fatal(err)
		}
		if got := time.Since(t0); got < d {
			t.Errorf("sleepUntil(now+%v) returned after %v", d, got)
		}
	}
	// An expiry left unread by arm does not end the next sleep early by
	// more than the one spurious wakeup the callers tolerate.
	if err := s.arm(rec.Mono(rec.Now())); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	t0 := time.Now()
	if err := s.sleepUntil(rec.Mono(rec.Now() + int64(time.Millisecond))); err != nil {
		t.Fatal(err)
	}
	if got := time.Since(t0); got < time.Millisecond {
		t.Logf("a sleep after an unread expiry returned after %v (a spurious wakeup)", got)
	}
	if err := s.sleepUntil(rec.Mono(rec.Now() - int64(time.Second))); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(100, func() { _ = s.sleepUntil(rec.Mono(rec.Now() + int64(10*time.Microsecond))) }); n != 0 {
		t.Errorf("sleepUntil allocates %.1f times", n)
	}
}
