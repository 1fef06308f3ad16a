// Package testenv gives integration tests the address of a real server that
// scripts/test.sh started, and the one way a test is skipped (Skip, with
// its kind). Outside make test a missing server skips the test; under make
// test (PLATBENCH_REQUIRE_SERVERS set) or CI it fails it, so neither passes
// by skipping.
package testenv

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// URL returns the value of env (e.g. PLATBENCH_REDIS_URL), or skips the test
// (fails it in CI) when it is not set.
//
// It is a variable rather than a func because only tests call it: deadcode,
// which follows the call graph of the binaries, would list a test-only
// func as unreachable code, and this package exists for tests alone.
var URL = func(t testing.TB, env string) string {
	t.Helper()
	v := os.Getenv(env)
	if v != "" {
		return v
	}
	Skip(t, Server, "%s not set: start the server with scripts/servers.sh start, then eval \"$(scripts/servers.sh env)\"", env)
	return ""
}

// Shared holds the server named by env (e.g. PLATBENCH_CQL_URL) for the
// rest of the test against tests in other packages that disturb it: go test
// runs packages side by side, and the CQL adapter's tests freeze and stop
// Cassandra nodes, which fails another package's load with timeouts that
// are not its subject. Any number of tests hold a server shared at once.
var Shared = func(t testing.TB, env string) { hold(t, env, syscall.LOCK_SH) }

// Exclusive holds the server named by env alone for the rest of the test:
// for tests that freeze, stop or restart it. It waits until no test of any
// package holds it (Shared or Exclusive). A test must not hold the same
// server both ways: the second would wait for the first forever.
var Exclusive = func(t testing.TB, env string) { hold(t, env, syscall.LOCK_EX) }

// holdWait bounds the wait for a server held by other tests: far longer than
// any one test holds it.
const holdWait = 10 * time.Minute

// hold takes a lock (flock, so it holds across the processes of one go
// test run and is dropped if a process dies) on a file named after the
// server's address, released when the test ends. A variable, as URL is.
var hold = func(t testing.TB, env string, how int) {
	t.Helper()
	addr := os.Getenv(env)
	if addr == "" {
		return // URL skips or fails the test
	}
	h := fnv.New64a()
	h.Write([]byte(addr))
	path := filepath.Join(os.TempDir(), fmt.Sprintf("platbench-test-%x.lock", h.Sum64()))
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		t.Fatalf("testenv: lock for %s: %v", env, err)
	}
	deadline := time.Now().Add(holdWait)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			break
		}
		if err != syscall.EWOULDBLOCK || time.Now().After(deadline) {
			f.Close()
			t.Fatalf("testenv: %s still held by another test after %v (%v): a test that holds it may hang", env, holdWait, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { f.Close() })
}
