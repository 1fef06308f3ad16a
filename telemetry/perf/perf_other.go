//go:build !linux

package perf

import (
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Session is empty outside Linux: perf_event_open is a Linux system call.
type Session struct {
	scope string
	start time.Time
}

const reasonOS = "perf_event_open exists only on Linux"

// Open returns a session that counts nothing and says why.
func Open(scope string) (*Session, error) {
	switch scope {
	case "", "process", "system":
	default:
		return nil, usererr.Field("perf_scope", "%q is not process, system or server (fix: process, system or server)", scope)
	}
	if scope == "" {
		scope = "process"
	}
	return &Session{scope: scope, start: time.Now()}, nil
}

// OpenPID returns a session that counts nothing and says why.
func OpenPID(pid int) (*Session, error) { return &Session{scope: "server", start: time.Now()}, nil }

// Cut does nothing.
func (s *Session) Cut(time.Time) {}

// Snapshot lists every counter as unavailable.
func (s *Session) Snapshot() *result.Counters {
	return &result.Counters{Values: map[string]uint64{}, Unavailable: Order(), UnavailableReason: reasonOS,
		Scope: s.scope, DurationNs: time.Since(s.start).Nanoseconds()}
}

// Stop is Snapshot.
func (s *Session) Stop() *result.Counters { return s.Snapshot() }

// Close does nothing.
func (s *Session) Close() {}
