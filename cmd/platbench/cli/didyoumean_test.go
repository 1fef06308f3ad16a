package cli

import (
	"strings"
	"testing"
)

// An unknown flag names the nearest one: another tool's name for it
// (--threads), or a typo of it; nothing when nothing is near.
func TestUnknownFlagSuggests(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"run --threads 4", "unknown flag --threads (did you mean --concurrency?)"},
		{"run --concurency 4", "unknown flag --concurency (did you mean --concurrency?)"},
		{"run --time 10s", "unknown flag --time (did you mean --duration?)"},
		{"compare --fail-if-wrse 5 a.json b.json", "unknown flag --fail-if-wrse (did you mean --fail-if-worse?)"},
		{"run --zzz 1", "unknown flag --zzz (see 'platbench run --help')"},
	} {
		code, _, stderr := run(t, strings.Fields(c.args)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q, want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}
