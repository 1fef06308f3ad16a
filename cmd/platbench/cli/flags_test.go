package cli

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/runner"
)

// The command line's own parsers (--shard i/N, --target-opt key=value,
// --event OFFSET:KIND:ARG) never panic, and what they accept is in range.
func FuzzFlagParsers(f *testing.F) {
	for _, s := range []string{"0/3", "3/2", "-1/2", "a/b", "1/", "k=v", "=v", " k = v ", "60s:exec:echo a:b", "90:kill:4242", "1d:stop:2", "x:cont:3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if i, n, err := parseShard(s); err == nil && (n < 1 || i < 0 || i >= n) {
			t.Fatalf("parseShard(%q) = %d/%d", s, i, n)
		}
		kv := kvFlag{}
		if err := kv.Set(s); err == nil {
			for k := range kv {
				if k == "" || strings.TrimSpace(k) != k {
					t.Fatalf("kvFlag.Set(%q) key %q", s, k)
				}
			}
		}
		if ev, err := runner.ParseEvent(s); err == nil && (ev.At < 0 || ev.Do == nil || ev.Arg == "") {
			t.Fatalf("ParseEvent(%q) = %+v", s, ev)
		}
	})
}
