package runner

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sleeper waits for an open-loop op's start on a timerfd that the Go
// runtime's poller watches: the worker's goroutine parks (its thread and P
// are free meanwhile) and wakes when the kernel's high-resolution timer
// fires. A nanosleep would hold the thread in a system call, which keeps
// the runtime's sysmon thread waking every 20 µs to take the P back, and
// Go's own timers wake up to a millisecond late.
type sleeper struct {
	f      *os.File
	rc     syscall.RawConn
	fd     int
	spec   unix.ItimerSpec
	waitFn func(uintptr) bool
	at     int64 // sleepUntil: the absolute expiry to arm
	armed  bool
	err    error
}

// newSleeper returns nil where timerfd is not available (the caller then
// falls back to nanosleep).
func newSleeper() *sleeper {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), "platbench-timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil
	}
	s := &sleeper{f: f, rc: rc, fd: fd}
	s.waitFn = s.armThenRead
	return s
}

// sleepUntil waits until the monotonic clock reads abs (ns, CLOCK_MONOTONIC;
// see recorder.Mono). A timer already past returns at once.
func (s *sleeper) sleepUntil(abs int64) error {
	s.at, s.armed, s.err = abs, false, nil
	if err := s.rc.Read(s.waitFn); err != nil {
		return err
	}
	return s.err
}

// armThenRead is sleepUntil's RawConn.Read callback. Its first call arms the
// timer and asks the poller to wait; arming inside the callback comes after
// the poller has cleared any old readiness, so an expiry from then on (even
// at once) ends the wait. Its second call comes only when the poller saw the
// timerfd readable, which after arming means it expired: the expiry count is
// left unread (the next arm resets it, and the edge-triggered poller reports
// every new expiry), which saves a read system call per wakeup (docs/benchmarks.md
// measures what that is worth at 10,000/s). A stale readiness
// could only end a sleep early, which every caller tolerates (it checks the
// clock again).
func (s *sleeper) armThenRead(uintptr) bool {
	if !s.armed {
		s.armed = true
		if s.err = s.arm(s.at); s.err != nil {
			return true
		}
		return false
	}
	return true
}

// arm sets the timer to expire at abs without waiting for it. Its expiry
// still wakes the runtime's network poller, which then runs the Go timers
// that are due: a Poll with a read deadline at abs returns on time instead of
// up to a millisecond late (the poller's own timeouts are whole
// milliseconds). The expiry count left unread is harmless: a sleeper's next
// read only ends a wait early, and every caller checks the clock again.
func (s *sleeper) arm(abs int64) error {
	s.spec.Value = unix.NsecToTimespec(max(abs, 1))
	return unix.TimerfdSettime(s.fd, unix.TFD_TIMER_ABSTIME, &s.spec, nil)
}

func (s *sleeper) close() {
	if s != nil {
		s.f.Close()
	}
}
