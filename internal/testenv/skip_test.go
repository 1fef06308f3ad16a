package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// tb records what Skip did to a test instead of ending the real one.
type tb struct {
	testing.TB
	fatal, skip string
}

func (t *tb) Helper()      {}
func (t *tb) Name() string { return "TestX/sub" }
func (t *tb) Fatalf(f string, a ...any) {
	t.fatal = fmt.Sprintf(f, a...)
	runtime.Goexit()
}
func (t *tb) Skipf(f string, a ...any) {
	t.skip = fmt.Sprintf(f, a...)
	runtime.Goexit()
}

// call runs f on a fresh tb in its own goroutine (Fatalf and Skipf end it).
func call(f func(t testing.TB)) *tb {
	r := &tb{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// A missing server skips outside make test and fails under it; a host's
// limit always skips; every skip is logged once with its kind.
func TestSkipKinds(t *testing.T) {
	log := filepath.Join(t.TempDir(), "skips.log")
	t.Setenv(SkipLogEnv, log)
	t.Setenv("CI", "")
	for _, c := range []struct {
		require string
		kind    Kind
		fails   bool
	}{
		{"", Server, false}, {"1", Server, true}, {"1", Root, true}, {"1", Tool, true},
		{"1", Host, false}, {"1", Short, false}, {"1", Race, false}, {"", Host, false},
	} {
		t.Setenv(RequireEnv, c.require)
		r := call(func(t testing.TB) { Skip(t, c.kind, "no %s here", "thing") })
		if c.fails && (r.fatal == "" || !strings.Contains(r.fatal, "no thing here") || r.skip != "") {
			t.Errorf("%s skip with %s=%q: fatal %q skip %q, want it to fail", c.kind, RequireEnv, c.require, r.fatal, r.skip)
		}
		if !c.fails && (r.skip != "skip ["+string(c.kind)+"]: no thing here" || r.fatal != "") {
			t.Errorf("%s skip with %s=%q: fatal %q skip %q, want a skip", c.kind, RequireEnv, c.require, r.fatal, r.skip)
		}
	}
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 8 || lines[0] != "server\tTestX/sub\tno thing here" || lines[4] != "host\tTestX/sub\tno thing here" {
		t.Errorf("skip log:\n%s", b)
	}
}

// CI fails a missing server as make test does; URL goes through Skip.
func TestURLUnderCI(t *testing.T) {
	t.Setenv(SkipLogEnv, "")
	t.Setenv(RequireEnv, "")
	t.Setenv("PLATBENCH_TESTENV_NONE", "")
	t.Setenv("CI", "true")
	if r := call(func(t testing.TB) { URL(t, "PLATBENCH_TESTENV_NONE") }); r.fatal == "" {
		t.Errorf("URL of an unset variable under CI did not fail (skip %q)", r.skip)
	}
	t.Setenv("CI", "")
	if r := call(func(t testing.TB) { URL(t, "PLATBENCH_TESTENV_NONE") }); r.skip == "" || r.fatal != "" {
		t.Errorf("URL of an unset variable outside make test: fatal %q skip %q, want a skip", r.fatal, r.skip)
	}
	t.Setenv("PLATBENCH_TESTENV_NONE", "redis://x")
	if r := call(func(t testing.TB) {
		if u := URL(t, "PLATBENCH_TESTENV_NONE"); u != "redis://x" {
			t.Fatalf("URL = %q", u)
		}
	}); r.fatal != "" || r.skip != "" {
		t.Errorf("URL of a set variable: fatal %q skip %q", r.fatal, r.skip)
	}
}

// Nodes: fewer nodes than a test needs is the user's choice when they asked
// for fewer, a broken setup otherwise.
func TestNodes(t *testing.T) {
	t.Setenv(SkipLogEnv, "")
	t.Setenv(RequireEnv, "1")
	t.Setenv("PLATBENCH_CASSANDRA_NODES", "1")
	if r := call(func(t testing.TB) { Nodes(t, 1, 3) }); !strings.HasPrefix(r.skip, "skip [smaller setup]") {
		t.Errorf("one node chosen: fatal %q skip %q, want a smaller-setup skip", r.fatal, r.skip)
	}
	t.Setenv("PLATBENCH_CASSANDRA_NODES", "")
	if r := call(func(t testing.TB) { Nodes(t, 1, 3) }); r.fatal == "" {
		t.Errorf("one node of make test's three: skip %q, want a failure", r.skip)
	}
	if r := call(func(t testing.TB) { Nodes(t, 3, 3) }); r.fatal != "" || r.skip != "" {
		t.Errorf("enough nodes: fatal %q skip %q", r.fatal, r.skip)
	}
}
