package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/pebble"
)

// platbench clean as a user meets it, on a store directory that also holds
// an application's key user42: without a manifest it refuses with one line
// naming the key and exit 1; after a load, --dry-run lists and removes
// nothing, clean removes the load's keys and leaves user42; a run with its
// own load leaves nothing of its own (clean finds no manifest after it);
// bad flags are exit 2.
func TestCleanCommand(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "db")
	target := "embedded://" + store
	db, err := pebble.Open(store, &pebble.Options{Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte("user42"), []byte("the application's"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	db.Close()
	appKey := func() {
		t.Helper()
		db, err := pebble.Open(store, &pebble.Options{Logger: quietPebble{}})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		v, c, err := db.Get([]byte("user42"))
		if err != nil || string(v) != "the application's" {
			t.Fatalf("the application's key user42: %q %v", v, err)
		}
		c.Close()
	}
	refused := func(when string) {
		t.Helper()
		code, stdout, stderr := run(t, "clean", "--target", target)
		if code != 1 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, `"user42"`) || !strings.Contains(stderr, "no dataset manifest") || stdout != "" {
			t.Fatalf("clean %s: exit %d, stdout %q, stderr %q; want exit 1 and one line naming user42", when, code, stdout, stderr)
		}
		appKey()
	}
	refused("before any load")

	if code, _, stderr := run(t, "load", "--target", target, "--records", "100", "--out", filepath.Join(dir, "load.json"), "--quiet"); code != 0 {
		t.Fatalf("load: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "clean", "--target", target, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would remove 100 keys user<n>") || !strings.HasSuffix(stdout, "nothing removed (--dry-run)\n") {
		t.Fatalf("clean --dry-run: exit %d: %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "clean", "--target", target, "--dry-run")
	if code != 0 || !strings.Contains(stdout, "would remove 100 keys") {
		t.Fatalf("a second clean --dry-run (the first removed something?): exit %d: %q %q", code, stdout, stderr)
	}
	code, stdout, stderr = run(t, "clean", "--target", target)
	if code != 0 || !strings.Contains(stdout, "removed 100 keys user<n>") || !strings.Contains(stdout, "removed key platbench:dataset:user") {
		t.Fatalf("clean: exit %d: %q %q", code, stdout, stderr)
	}
	appKey()
	refused("after clean (only the application's key is left)")

	if code, _, stderr := run(t, "run", "--target", target, "--records", "100", "--ops", "200", "--workload", "ycsb-d", "--out", filepath.Join(dir, "run.json"), "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	refused("after a run with its own load")

	if code, _, stderr := run(t, "clean", "--target", target, "--dry-run=maybe"); code != 2 || !strings.Contains(stderr, "dry-run") {
		t.Errorf("clean --dry-run=maybe: exit %d: %q, want 2 naming the flag", code, stderr)
	}
	if code, _, stderr := run(t, "clean"); code != 2 || !strings.Contains(stderr, "--target URL") {
		t.Errorf("clean without a target: exit %d: %q, want 2 naming --target", code, stderr)
	}
}

// quietPebble keeps pebble's informational lines out of the test's output.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any) {}
func (quietPebble) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// clean of the default embedded target (a new temporary directory) finds
// nothing and leaves no directory behind.
func TestCleanTempEmbeddedLeavesNoDirectory(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, stdout, stderr := run(t, "clean", "--target", "embedded")
	if code != 0 || !strings.Contains(stdout, "nothing of platbench's to remove") {
		t.Fatalf("clean --target embedded: exit %d: %q %q", code, stdout, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "platbench-embedded-*")); len(left) != 0 {
		t.Errorf("clean left %q", left)
	}
}
