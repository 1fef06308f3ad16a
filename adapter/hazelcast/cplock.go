package hazelcast

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/hazelcast/cpwire"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// cpLocks drives FencedLocks and ISemaphores (cp=lock, cp=semaphore) over
// a cpwire.Conn, in one CP session of this client on the CP group, kept alive by
// heartbeats. The object of an op is named after the request's key number
// (PREFIX-KeyNum), so the workload's records and key distribution set the
// contention: one hot lock, or many.
type cpLocks struct {
	w     *cpwire.Conn
	cfg   *Config
	group cpwire.RaftGroup

	mu      sync.Mutex
	session int64         // 0: none yet, or expired
	ttl     time.Duration // the session's time to live without a heartbeat, as the cluster said
	hbStop  chan struct{}
	threads atomic.Int64
	inited  sync.Map // semaphores initialised by this client

	busy    atomic.Int64 // tryLock / tryAcquire that did not get it within try_timeout
	expired atomic.Int64 // sessions the cluster expired (the heartbeats did not reach it)
}

// openLocks reaches the CP group of the objects and opens a session on it.
func openLocks(ctx context.Context, cfg *Config, prefix string) (*cpLocks, error) {
	l := &cpLocks{w: cpwire.New(cpwire.Options{Addrs: cfg.Addrs, ConnectTimeout: cfg.ConnectTimeout, Cluster: cfg.Cluster, User: cfg.User, Password: cfg.Password}), cfg: cfg, hbStop: make(chan struct{})}
	m := cpwire.NewRequest(cpwire.MsgCreateGroup, 0)
	m.Str(prefix) // the proxy name: "name" or "name@group"
	r, err := l.w.Call(ctx, m)
	if err == nil {
		l.group, err = r.RaftGroup()
	}
	if err == nil {
		_, err = l.sessionID(ctx)
	}
	if err != nil {
		l.close()
		return nil, err
	}
	go l.heartbeats()
	return l, nil
}

// sessionID is the client's session, created when there is none.
func (l *cpLocks) sessionID(ctx context.Context) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.session != 0 {
		return l.session, nil
	}
	m := cpwire.NewRequest(cpwire.MsgCreateSession, 0)
	m.Group(l.group)
	m.Str("platbench")
	r, err := l.w.Call(ctx, m)
	if err != nil {
		return 0, err
	}
	l.session, l.ttl = r.Long(0), time.Duration(r.Long(8))*time.Millisecond
	return l.session, nil
}

// heartbeats keeps the session alive (the members expire it after
// session-time-to-live-seconds without one).
func (l *cpLocks) heartbeats() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-l.hbStop:
			return
		case <-t.C:
		}
		l.mu.Lock()
		sid := l.session
		l.mu.Unlock()
		if sid == 0 {
			continue
		}
		m := cpwire.NewRequest(cpwire.MsgHeartbeat, 8)
		m.PutLong(0, sid)
		m.Group(l.group)
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Timeout)
		_, err := l.w.Call(ctx, m)
		cancel()
		l.noteExpired(sid, err)
	}
}

// noteExpired forgets session sid if err says the cluster expired it: the
// next op opens a new one.
func (l *cpLocks) noteExpired(sid int64, err error) {
	var e *cpwire.MemberError
	if !errors.As(err, &e) || !strings.HasSuffix(e.ClassName, "SessionExpiredException") {
		return
	}
	l.mu.Lock()
	if l.session == sid {
		l.session = 0
		l.expired.Add(1)
	}
	l.mu.Unlock()
}

// close stops the heartbeats, closes the session (its locks and permits are
// released at once) and the connection.
func (l *cpLocks) close() {
	select {
	case <-l.hbStop:
		return
	default:
		close(l.hbStop)
	}
	l.mu.Lock()
	sid := l.session
	l.mu.Unlock()
	if sid != 0 {
		m := cpwire.NewRequest(cpwire.MsgCloseSession, 8)
		m.PutLong(0, sid)
		m.Group(l.group)
		ctx, cancel := context.WithTimeout(context.Background(), l.cfg.Timeout)
		_, _ = l.w.Call(ctx, m)
		cancel()
	}
	l.w.Kill()
}

// lockMsg builds a FencedLock or ISemaphore call of the session's thread:
// fixed session, thread, invocation uid, then extra fixed bytes.
func (l *cpLocks) lockMsg(typ int32, sid, thread int64, extra int) *cpwire.Request {
	m := cpwire.NewRequest(typ, 8+8+cpwire.UUIDSize+extra)
	m.PutLong(0, sid)
	m.PutLong(8, thread)
	m.PutUUID(16, cpwire.NewUUID())
	return m
}

const lockFixed = 8 + 8 + cpwire.UUIDSize // offset of the parameters after session, thread, uid

// lock takes the FencedLock name for thread (tryLock), waiting up to wait.
// It returns whether it got it.
func (l *cpLocks) lock(ctx context.Context, name string, thread int64, wait time.Duration) (bool, error) {
	sid, err := l.sessionID(ctx)
	if err != nil {
		return false, err
	}
	m := l.lockMsg(cpwire.MsgTryLock, sid, thread, 8)
	m.PutLong(lockFixed, wait.Milliseconds())
	m.Group(l.group)
	m.Str(name)
	r, err := l.w.Call(ctx, m)
	if err != nil {
		l.noteExpired(sid, err)
		return false, err
	}
	return r.Long(0) != 0, nil // the fence; 0 when a tryLock did not get the lock
}

func (l *cpLocks) unlock(ctx context.Context, name string, thread int64) error {
	sid, err := l.sessionID(ctx)
	if err != nil {
		return err
	}
	m := l.lockMsg(cpwire.MsgUnlock, sid, thread, 0)
	m.Group(l.group)
	m.Str(name)
	_, err = l.w.Call(ctx, m)
	l.noteExpired(sid, err)
	return err
}

// initSemaphore gives the semaphore its permits the first time this client
// uses it (a semaphore that exists keeps the permits it has).
func (l *cpLocks) initSemaphore(ctx context.Context, name string) error {
	if _, ok := l.inited.Load(name); ok {
		return nil
	}
	m := cpwire.NewRequest(cpwire.MsgSemInit, 4)
	m.PutInt(0, int32(l.cfg.Permits))
	m.Group(l.group)
	m.Str(name)
	if _, err := l.w.Call(ctx, m); err != nil {
		return err
	}
	l.inited.Store(name, true)
	return nil
}

// acquire takes one permit of the semaphore name, waiting up to wait.
func (l *cpLocks) acquire(ctx context.Context, name string, thread int64, wait time.Duration) (bool, error) {
	if err := l.initSemaphore(ctx, name); err != nil {
		return false, err
	}
	sid, err := l.sessionID(ctx)
	if err != nil {
		return false, err
	}
	m := l.lockMsg(cpwire.MsgSemAcquire, sid, thread, 4+8)
	m.PutInt(lockFixed, 1)
	m.PutLong(lockFixed+4, wait.Milliseconds())
	m.Group(l.group)
	m.Str(name)
	r, err := l.w.Call(ctx, m)
	if err != nil {
		l.noteExpired(sid, err)
		return false, err
	}
	return r.Boolean(0), nil
}

func (l *cpLocks) release(ctx context.Context, name string, thread int64) error {
	sid, err := l.sessionID(ctx)
	if err != nil {
		return err
	}
	m := l.lockMsg(cpwire.MsgSemRelease, sid, thread, 4)
	m.PutInt(lockFixed, 1)
	m.Group(l.group)
	m.Str(name)
	_, err = l.w.Call(ctx, m)
	l.noteExpired(sid, err)
	return err
}

// doLock runs SET (lock, hold, unlock) or CAS (tryLock within try_timeout,
// hold, unlock; not getting it counts in lock_busy, it is no error) on a
// FencedLock or an ISemaphore.
func (w *worker) doLock(ctx context.Context, req *workload.Request) error {
	t := w.t
	l := t.locks
	if l == nil || (req.Op != vocab.OpSet && req.Op != vocab.OpCAS) {
		return adapter.ErrUnsupported
	}
	if w.thread == 0 {
		w.thread = l.threads.Add(1)
	}
	w.name = strconv.AppendUint(append(w.name[:0], w.prefix()...), req.KeyNum, 10)
	name := string(w.name)
	try := req.Op == vocab.OpCAS
	// A SET waits for the lock or permit, but the member gives up a little
	// before the call's timeout: a wait the client abandoned must not get
	// the lock later for a worker that no longer waits.
	wait := t.cfg.TryTimeout
	if !try {
		wait = t.cfg.Timeout * 4 / 5
	}
	var got bool
	var err error
	if t.cfg.CP == "lock" {
		got, err = l.lock(ctx, name, w.thread, wait)
	} else {
		got, err = l.acquire(ctx, name, w.thread, wait)
	}
	if err != nil {
		return classify(err)
	}
	if !got {
		if !try {
			return &adapter.Error{Class: vocab.ClassTimeout, Err: fmt.Errorf("hazelcast: %s %s not obtained within %s", t.cfg.CP, name, wait)}
		}
		l.busy.Add(1)
		return nil
	}
	if t.cfg.Hold > 0 {
		select {
		case <-time.After(t.cfg.Hold):
		case <-ctx.Done():
		}
	}
	// Release even when ctx ended during the hold.
	rctx, cancel := context.WithTimeout(context.Background(), t.cfg.Timeout)
	defer cancel()
	if t.cfg.CP == "lock" {
		err = l.unlock(rctx, name, w.thread)
	} else {
		err = l.release(rctx, name, w.thread)
	}
	return classify(err)
}

// prefix is the name prefix of the worker's objects, "LOCK-" or
// "SEMAPHORE-" (the CP group is not part of the name: the calls carry it).
func (w *worker) prefix() string {
	if w.t.cfg.CP == "lock" {
		return w.t.cfg.Lock + "-"
	}
	return w.t.cfg.Semaphore + "-"
}

// openLocks opens the CP connection and session of cp=lock or semaphore,
// waiting (connect_timeout) for a fresh CP subsystem to elect its group.
func (t *Target) openLocks(ctx context.Context) error {
	prefix := t.cfg.Lock
	if t.cfg.CP == "semaphore" {
		prefix = t.cfg.Semaphore
	}
	cctx, cancel := context.WithTimeout(ctx, t.cfg.ConnectTimeout)
	defer cancel()
	l, err := openLocks(cctx, t.cfg, t.cpName(prefix))
	if err != nil {
		return cpError(t.cfg, "CP session for "+t.cfg.CP, err)
	}
	t.locks = l
	return nil
}
