package hazelcast

import (
	"context"
	"testing"
	"time"

	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func lockSpec(records uint64, mix ...vocab.Op) *workload.Spec {
	s := spec(mix...)
	s.Records = records
	return s
}

// FencedLock (cp=lock): a CAS (tryLock) of a lock another client holds does
// not get it and counts in lock_busy; once released it does; another key is
// another lock; SET locks and unlocks. A client killed while holding a lock
// keeps it until its CP session expires (session-time-to-live-seconds: 10 on
// the test cluster), then the lock is free again.
func TestFencedLock(t *testing.T) {
	raw := clusterURL(t)
	ctx := context.Background()
	opts := map[string]string{"cp": "lock", "lock": "lk-" + uniq, "timeout": "3s"}
	tg := open(t, raw, opts)
	if err := tg.Setup(ctx, lockSpec(2, vocab.OpSet, vocab.OpCAS)); err != nil {
		t.Fatal(err)
	}
	other := open(t, raw, opts)
	if err := other.Setup(ctx, lockSpec(2, vocab.OpSet, vocab.OpCAS)); err != nil {
		t.Fatal(err)
	}
	name := "lk-" + uniq + "-0"
	if got, err := other.locks.lock(ctx, name, 1, 0); err != nil || !got {
		t.Fatalf("the other client could not take a free lock: %v %v", got, err)
	}
	w, _ := tg.NewWorker(0)
	try := &workload.Request{Op: vocab.OpCAS, KeyNum: 0}
	if err := w.Do(ctx, try); err != nil {
		t.Fatal(err)
	}
	if s := tg.Summary(ctx); s["lock_busy"] != "1" {
		t.Fatalf("tryLock of a held lock: summary %v, want lock_busy=1", s)
	}
	// Another key is another lock: free.
	if err := w.Do(ctx, &workload.Request{Op: vocab.OpCAS, KeyNum: 1}); err != nil {
		t.Fatal(err)
	}
	if s := tg.Summary(ctx); s["lock_busy"] != "1" {
		t.Fatalf("tryLock of a free lock counted as busy: %v", s)
	}
	if err := other.locks.unlock(ctx, name, 1); err != nil {
		t.Fatal(err)
	}
	for _, op := range []vocab.Op{vocab.OpCAS, vocab.OpSet, vocab.OpSet} {
		if err := w.Do(ctx, &workload.Request{Op: op, KeyNum: 0}); err != nil {
			t.Fatalf("%s of a released lock: %v", op, err)
		}
	}
	if s := tg.Summary(ctx); s["lock_busy"] != "1" {
		t.Fatalf("after the release: summary %v, want lock_busy=1 still", s)
	}
	// The worker released what it took: the other client gets the lock.
	if got, err := other.locks.lock(ctx, name, 1, 0); err != nil || !got {
		t.Fatalf("the worker did not unlock: %v %v", got, err)
	}

	// The other client dies holding the lock: busy until the session
	// expires (its time to live: 10 s on scripts/servers' cluster, 300 s by
	// default), then free.
	other.locks.mu.Lock()
	ttl := other.locks.ttl
	other.locks.mu.Unlock()
	if ttl <= 0 || ttl > 2*time.Minute {
		t.Fatalf("session TTL %v: the test cluster should expire sessions within seconds (member.yaml)", ttl)
	}
	other.locks.crash()
	start := time.Now()
	deadline := start.Add(2*ttl + 20*time.Second)
	got := false
	for !got && time.Now().Before(deadline) {
		if err := w.Do(ctx, try); err != nil {
			t.Logf("while the dead client's session lives: %v", err)
		}
		if got = lockFree(ctx, t, tg, name); !got {
			time.Sleep(500 * time.Millisecond)
		}
	}
	s := tg.Summary(ctx)
	t.Logf("lock of the killed client released after %v; summary %v", time.Since(start).Round(time.Second), s)
	if !got {
		t.Fatal("the lock of a killed client was never released (CP session expiry)")
	}
	if s["lock_busy"] == "1" {
		t.Errorf("no tryLock found the dead client's lock busy: %v", s)
	}
}

// lockFree reports whether the worker's client gets name at once (and
// releases it).
func lockFree(ctx context.Context, t *testing.T, tg *Target, name string) bool {
	got, err := tg.locks.lock(ctx, name, 99, 0)
	if err != nil || !got {
		return false
	}
	if err := tg.locks.unlock(ctx, name, 99); err != nil {
		t.Fatal(err)
	}
	return true
}

// ISemaphore (cp=semaphore, permits=2): with both permits taken by another
// client, a CAS (tryAcquire) counts in lock_busy; with one released it gets
// one, and gives it back.
func TestSemaphore(t *testing.T) {
	raw := clusterURL(t)
	ctx := context.Background()
	opts := map[string]string{"cp": "semaphore", "semaphore": "sem-" + uniq, "permits": "2"}
	tg := open(t, raw, opts)
	if err := tg.Setup(ctx, lockSpec(1, vocab.OpSet, vocab.OpCAS)); err != nil {
		t.Fatal(err)
	}
	other := open(t, raw, opts)
	if err := other.Setup(ctx, lockSpec(1, vocab.OpSet)); err != nil {
		t.Fatal(err)
	}
	name := "sem-" + uniq + "-0"
	for th := int64(1); th <= 2; th++ {
		if got, err := other.locks.acquire(ctx, name, th, 0); err != nil || !got {
			t.Fatalf("permit %d of 2: %v %v", th, got, err)
		}
	}
	w, _ := tg.NewWorker(0)
	if err := w.Do(ctx, &workload.Request{Op: vocab.OpCAS}); err != nil {
		t.Fatal(err)
	}
	if s := tg.Summary(ctx); s["lock_busy"] != "1" {
		t.Fatalf("tryAcquire with no permit left: summary %v, want lock_busy=1", s)
	}
	if err := other.locks.release(ctx, name, 2); err != nil {
		t.Fatal(err)
	}
	for _, op := range []vocab.Op{vocab.OpCAS, vocab.OpSet} {
		if err := w.Do(ctx, &workload.Request{Op: op}); err != nil {
			t.Fatalf("%s with a permit free: %v", op, err)
		}
	}
	if s := tg.Summary(ctx); s["lock_busy"] != "1" {
		t.Fatalf("summary %v, want lock_busy=1 still", s)
	}
	// The worker gave its permit back: the other client takes it.
	if got, err := other.locks.acquire(ctx, name, 3, 0); err != nil || !got {
		t.Fatalf("the worker did not release its permit: %v %v", got, err)
	}
}

// cp=lock has no GET.
func TestLockHasNoGet(t *testing.T) {
	tg := open(t, clusterURL(t), map[string]string{"cp": "lock"})
	if err := tg.Setup(context.Background(), lockSpec(1, vocab.OpGet)); err == nil {
		t.Fatal("cp=lock accepted GET")
	}
}

// longs=3 spreads INCR and cp=long's SET/GET/CAS over three counters by key
// number; CAS compares with the last value the worker saw of that counter.
func TestLongs(t *testing.T) {
	ctx := context.Background()
	tg := open(t, clusterURL(t), map[string]string{"cp": "long", "long": "longs-" + uniq, "longs": "3"})
	if err := tg.Setup(ctx, lockSpec(3, vocab.OpSet, vocab.OpGet, vocab.OpCAS, vocab.OpIncr)); err != nil {
		t.Fatal(err)
	}
	if len(tg.longs) != 3 {
		t.Fatalf("%d counters, want 3", len(tg.longs))
	}
	w, _ := tg.NewWorker(0)
	for _, r := range []workload.Request{{Op: vocab.OpSet, KeyNum: 1}, {Op: vocab.OpCAS, KeyNum: 1}, {Op: vocab.OpCAS, KeyNum: 1},
		{Op: vocab.OpIncr, KeyNum: 2}, {Op: vocab.OpGet, KeyNum: 2}, {Op: vocab.OpCAS, KeyNum: 2}} {
		if err := w.Do(ctx, &r); err != nil {
			t.Fatalf("%s %d: %v", r.Op, r.KeyNum, err)
		}
	}
	for i, want := range []int64{0, 3, 2} {
		if v, err := tg.longs[i].Get(ctx); err != nil || v != want {
			t.Errorf("counter %d = %d (%v), want %d", i, v, err, want)
		}
	}
	if s := tg.Summary(ctx); s["cas_failed"] != "0" {
		t.Errorf("summary %v, want cas_failed=0", s)
	}
}

// crash stops the heartbeats and drops the connection without closing the
// session, as a client that was killed: what it holds stays held until the
// cluster expires the session.
func (l *cpLocks) crash() {
	close(l.hbStop)
	l.w.Kill()
}
