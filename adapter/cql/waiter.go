package cql

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// waiter lets a native worker wait for any of its connections to have data,
// or for a deadline, without blocking its thread in a system call: its
// connections and a timerfd sit in an epoll set, and the epoll set's own fd
// is watched by the Go runtime's poller, so the worker's goroutine parks
// like one blocked on a socket. A blocking epoll_wait would hold the thread
// in a system call and keep the runtime's sysmon taking its P back every
// 20 µs; the runtime's own timers wake up to a millisecond late, too coarse
// for a fixed-rate schedule. The timerfd's timer fires on time.
type waiter struct {
	ep     *os.File
	rc     syscall.RawConn
	epfd   int
	tfd    int
	spec   unix.ItimerSpec
	events [8]unix.EpollEvent
	tbuf   [8]byte
	readFn func(uintptr) bool
}

func newWaiter() (*waiter, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("cql: epoll: %w", err)
	}
	tfd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, fmt.Errorf("cql: timerfd: %w", err)
	}
	w := &waiter{epfd: epfd, tfd: tfd}
	if err := w.add(tfd); err != nil {
		unix.Close(epfd)
		unix.Close(tfd)
		return nil, err
	}
	// Non-blocking, so that os.NewFile hands it to the runtime's poller.
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		unix.Close(tfd)
		return nil, fmt.Errorf("cql: epoll: %w", err)
	}
	w.ep = os.NewFile(uintptr(epfd), "cql-epoll")
	if w.rc, err = w.ep.SyscallConn(); err != nil {
		w.close()
		return nil, fmt.Errorf("cql: epoll: %w", err)
	}
	w.readFn = w.ready
	return w, nil
}

func (w *waiter) add(fd int) error {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(fd)}
	if err := unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		return fmt.Errorf("cql: epoll: %w", err)
	}
	return nil
}

func (w *waiter) del(fd int) { _ = unix.EpollCtl(w.epfd, unix.EPOLL_CTL_DEL, fd, nil) }

// ready polls the set without waiting; false makes the runtime's poller
// park the goroutine until the set's fd is readable.
// Both system calls are non-blocking, so they go without the runtime's
// system-call bookkeeping (see cqlwire.Conn's readOnce).
func (w *waiter) ready(uintptr) bool {
	r, _, errno := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(w.epfd), uintptr(unsafe.Pointer(&w.events[0])), uintptr(len(w.events)), 0, 0, 0)
	n := int(r)
	if errno != 0 || n == 0 {
		return errno != 0 && errno != unix.EINTR
	}
	for _, ev := range w.events[:n] {
		if int(ev.Fd) == w.tfd {
			_, _, _ = unix.RawSyscall(unix.SYS_READ, uintptr(w.tfd), uintptr(unsafe.Pointer(&w.tbuf[0])), uintptr(len(w.tbuf))) // clear the expiry
		}
	}
	return true
}

// wait returns when a connection has data or ns nanoseconds have passed.
func (w *waiter) wait(ns int64) error {
	w.spec.Value = unix.NsecToTimespec(max(ns, 1))
	if err := unix.TimerfdSettime(w.tfd, 0, &w.spec, nil); err != nil {
		return err
	}
	return w.rc.Read(w.readFn)
}

func (w *waiter) close() {
	if w.ep != nil {
		w.ep.Close()
	} else {
		unix.Close(w.epfd)
	}
	unix.Close(w.tfd)
}

// PollsOnTime: the native worker's Poll waits on its own timerfd
// (adapter.TimedPoller), so the runner's open loop arms none.
func (w *pworker) PollsOnTime() bool { return true }
