package testenv

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// Kind says why a test is skipped. Every skip in the tree goes through Skip
// with its kind, so that `make test` can tell a skip that hides a missing
// server (a failure there) from one this host cannot help (counted and
// reported), and count both by reason.
type Kind string

// The kinds of skip. Server, Root and Tool fail the test when Required: make
// test installs and starts every server, runs as root and installs every
// tool, so one of them missing there is a broken setup, not a choice.
const (
	// Server: a server, its address or a setting of it is missing.
	Server Kind = "server"
	// Root: the test needs root (a cgroup, a mount).
	Root Kind = "root"
	// Tool: a program the test runs is not installed.
	Tool Kind = "tool"
	// Host: this host or kernel lacks something no install provides (a
	// block device, perf counters, timerfd, a usable blkio throttle, a
	// mount in a container); also a case that cannot be shown as root.
	Host Kind = "host"
	// Smaller: the user chose a smaller setup than make test's default
	// (PLATBENCH_CASSANDRA_NODES=1): the test needs the bigger one.
	Smaller Kind = "smaller setup"
	// Short: a long test under -short.
	Short Kind = "short"
	// Race: figures (heap, allocations) that are the race detector's.
	Race Kind = "race"
	// Subprocess: the test body of a child process that another test runs.
	Subprocess Kind = "subprocess"
)

// RequireEnv, when set (scripts/test.sh sets it, as CI does with CI), makes
// a skip of kind Server, Root or Tool fail the test.
const RequireEnv = "PLATBENCH_REQUIRE_SERVERS"

// SkipLogEnv names a file to which every skip appends one line
// (kind, test, reason, tab-separated): scripts/test.sh counts them by kind and
// reason at the end of make test.
const SkipLogEnv = "PLATBENCH_SKIP_LOG"

// Required tells whether a missing server, root or tool fails the test
// (RequireEnv or CI set) instead of skipping it.
func Required() bool { return os.Getenv(RequireEnv) != "" || os.Getenv("CI") != "" }

// fails tells whether a skip of kind k fails the test when Required.
func (k Kind) fails() bool { return k == Server || k == Root || k == Tool }

// Skip skips the test, saying why (its kind and reason), and writes it to
// the skip log; a Server, Root or Tool skip fails the test instead when
// Required. A variable, as URL is (only tests call it).
var Skip = func(t testing.TB, k Kind, format string, args ...any) {
	t.Helper()
	reason := fmt.Sprintf(format, args...)
	logSkip(t, k, reason)
	if k.fails() && Required() {
		t.Fatalf("%s (a %s skip, and %s or CI is set: make test installs and starts everything these tests need)", reason, k, RequireEnv)
	}
	t.Skipf("skip [%s]: %s", k, reason)
}

// SkipShort skips a long test under -short.
var SkipShort = func(t testing.TB, what string) {
	t.Helper()
	if testing.Short() {
		Skip(t, Short, "%s; not in -short", what)
	}
}

// Nodes skips a test that needs need Cassandra nodes when the cluster has
// fewer: a choice when the user asked for fewer (PLATBENCH_CASSANDRA_NODES),
// a broken setup otherwise (make test starts three).
var Nodes = func(t testing.TB, have, need int) {
	t.Helper()
	if have >= need {
		return
	}
	k := Server
	if n, err := strconv.Atoi(os.Getenv("PLATBENCH_CASSANDRA_NODES")); err == nil && n < need {
		k = Smaller
	}
	Skip(t, k, "%d Cassandra node(s); the test needs %d (PLATBENCH_CASSANDRA_NODES=%d)", have, need, need)
}

// logSkip appends one line to the skip log, when there is one. A log that
// cannot be written fails the test: the count would be wrong.
func logSkip(t testing.TB, k Kind, reason string) {
	t.Helper()
	path := os.Getenv(SkipLogEnv)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("testenv: skip log: %v", err)
	}
	defer f.Close()
	line := fmt.Sprintf("%s\t%s\t%s\n", k, t.Name(), strings.ReplaceAll(reason, "\n", " "))
	if _, err := f.WriteString(line); err != nil { // one write(2): O_APPEND keeps lines whole across processes
		t.Fatalf("testenv: skip log: %v", err)
	}
}
