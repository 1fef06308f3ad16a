package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/platbench/platbench/runner"
)

// The command line's own parsers (--shard i/N, --target-opt key=value,
// --event OFFSET:KIND:ARG, compare's --min-effect and --run-spread-from)
// never panic, and what they accept is in range.
func FuzzFlagParsers(f *testing.F) {
	for _, s := range []string{"2%", "0.5", "100%", "-3%", "NaN%", "0/3", "3/2", "-1/2", "a/b", "1/", "k=v", "=v", " k = v ", "60s:exec:echo a:b", "90:kill:4242", "1d:stop:2", "x:cont:3",
		"a.json,b.json", "history:runs", "history: runs/ , old.json", "history:", "a.json,,b.json", "a.json,history:b"} {
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
		// compare's --run-spread-from: paths, each trimmed and none empty, or a usage error.
		if fromHistory, paths, err := parseSpreadFrom(s); err == nil {
			if len(paths) == 0 || fromHistory != strings.HasPrefix(strings.TrimSpace(s), historyPrefix) {
				t.Fatalf("parseSpreadFrom(%q) = %v, %q", s, fromHistory, paths)
			}
			for _, p := range paths {
				if p == "" || strings.TrimSpace(p) != p || strings.Contains(p, ",") || strings.HasPrefix(p, historyPrefix) {
					t.Fatalf("parseSpreadFrom(%q) path %q", s, p)
				}
			}
		} else if ue := (*usageError)(nil); !errors.As(err, &ue) {
			t.Fatalf("parseSpreadFrom(%q): %v is not a usage error", s, err)
		}
		// compare's --min-effect and --run-spread: a fraction in (0, 1) or a usage error.
		if v, err := percentFlag("min-effect", s); err == nil && !(v > 0 && v < 1) {
			t.Fatalf("percentFlag(%q) = %v", s, v)
		} else if ue := (*usageError)(nil); err != nil && !errors.As(err, &ue) {
			t.Fatalf("percentFlag(%q): %v is not a usage error", s, err)
		}
	})
}
