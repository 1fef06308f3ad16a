package hazelcast

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/hazelcast/hazelcast-go-client/hzerrors"
	"github.com/hazelcast/hazelcast-go-client/logger"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/hazelcast/cpwire"
	"github.com/platbench/platbench/vocab"
)

// lastError is a logger for the client that keeps its last error message.
type lastError struct {
	mu  sync.Mutex
	msg string
}

func (l *lastError) Log(w logger.Weight, f func() string) {
	if w <= logger.WeightError {
		m := f()
		l.mu.Lock()
		l.msg = m
		l.mu.Unlock()
	}
}

func (l *lastError) get() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.msg
}

// openError explains why the client could not start, with the fix. logged
// is the client's last logged error: it says why connections failed
// (the returned error only says that they did).
func openError(cfg *Config, err error, logged string) error {
	addrs := strings.Join(cfg.Addrs, ",")
	msg := err.Error()
	if logged != "" {
		msg += " (last: " + oneLine(logged) + ")"
	}
	switch {
	case errors.Is(err, hzerrors.ErrAuthentication) || strings.Contains(logged, "authentication") || strings.Contains(logged, "credentials"):
		return adapter.Configf("hazelcast: members at %s refused the client for cluster %q: %s (fix: ?cluster=NAME must match the members' cluster-name; check the user and the password, the password in $PLATBENCH_TARGET_PASSWORD or a password file)", addrs, cfg.Cluster, oneLine(msg))
	case errors.Is(err, hzerrors.ErrIllegalState) || strings.Contains(msg, "unable to connect") || strings.Contains(msg, "connect"):
		return &adapter.Error{Class: vocab.ClassUnavailable, Err: fmt.Errorf("hazelcast: cannot connect to cluster %q at %s within %s: %s (fix: start the members, check host:port, and that ?cluster=NAME matches the members' cluster-name)", cfg.Cluster, addrs, cfg.ConnectTimeout, oneLine(msg))}
	}
	return fmt.Errorf("hazelcast: connect to %s: %w", addrs, err)
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// cpError explains a CP-subsystem failure at Setup (most often: the
// cluster has no CP subsystem, or too few members for it).
func cpError(cfg *Config, what string, err error) error {
	return fmt.Errorf("hazelcast: %s %q: %w (fix: the CP subsystem needs cp-subsystem.cp-member-count >= 3 on the members, Hazelcast 5.3/5.4 community or enterprise, and a majority of CP members up)", what, cfg.Ref, classify(err))
}

// classify maps the client's errors onto target error classes.
func classify(err error) error { return adapter.WithClass(err, classOf) }

func classOf(err error) vocab.Class {
	var ce *cpwire.MemberError
	if errors.As(err, &ce) {
		return cpClass(ce.ClassName)
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, hzerrors.ErrOperationTimeout), errors.Is(err, hzerrors.ErrTimeout):
		return vocab.ClassTimeout
	case errors.Is(err, hzerrors.ErrHazelcastOverLoad), errors.Is(err, hzerrors.ErrCannotReplicateException):
		return vocab.ClassOverloaded
	case errors.Is(err, hzerrors.ErrClientOffline), errors.Is(err, hzerrors.ErrClientNotActive),
		errors.Is(err, hzerrors.ErrTargetDisconnected), errors.Is(err, hzerrors.ErrMemberLeft),
		errors.Is(err, hzerrors.ErrTargetNotMember), errors.Is(err, hzerrors.ErrHazelcastInstanceNotActive),
		errors.Is(err, hzerrors.ErrIO), errors.Is(err, hzerrors.ErrRetryableIO),
		errors.Is(err, hzerrors.ErrPartitionMigrating), errors.Is(err, hzerrors.ErrNotLeaderException),
		errors.Is(err, hzerrors.ErrLeaderDemotedException), errors.Is(err, hzerrors.ErrCallerNotMember),
		errors.Is(err, hzerrors.ErrCPGroupDestroyedException), errors.Is(err, hzerrors.ErrIndeterminateOperationState):
		return vocab.ClassUnavailable
	case errors.Is(err, hzerrors.ErrAuthentication), errors.Is(err, hzerrors.ErrSecurity),
		errors.Is(err, hzerrors.ErrHazelcastSerialization), errors.Is(err, hzerrors.ErrIllegalArgument),
		errors.Is(err, hzerrors.ErrClassCast):
		return vocab.ClassRejected
	}
	return vocab.ClassOther
}

// cpClass is the class of an exception a member returned to a CP call.
func cpClass(className string) vocab.Class {
	n := className[strings.LastIndexByte(className, '.')+1:]
	switch n {
	case "OperationTimeoutException", "WaitKeyCancelledException":
		return vocab.ClassTimeout
	case "CannotReplicateException", "HazelcastOverloadException":
		return vocab.ClassOverloaded
	case "NotLeaderException", "LeaderDemotedException", "StaleAppendRequestException", "CPGroupDestroyedException",
		"SessionExpiredException", "HazelcastInstanceNotActiveException", "MemberLeftException", "TargetNotMemberException",
		"CallerNotMemberException", "IndeterminateOperationStateException", "RetryableHazelcastException", "NoDataMemberInClusterException":
		return vocab.ClassUnavailable
	case "IllegalMonitorStateException", "LockOwnershipLostException", "LockAcquireLimitReachedException",
		"IllegalArgumentException", "AuthenticationException", "UnsupportedOperationException", "HazelcastException":
		return vocab.ClassRejected
	}
	return vocab.ClassOther
}
