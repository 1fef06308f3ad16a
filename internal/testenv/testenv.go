// Package testenv gives integration tests the address of a real server that
// scripts/test.sh started. Locally a missing server skips the test; in CI
// (CI set) it fails it, so CI never passes by skipping.
package testenv

import (
	"os"
	"testing"
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
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not set in CI: scripts/test.sh should have started the server (scripts/servers.sh start)", env)
	}
	t.Skipf("%s not set: start the server with scripts/servers.sh start, then eval \"$(scripts/servers.sh env)\"", env)
	return ""
}
