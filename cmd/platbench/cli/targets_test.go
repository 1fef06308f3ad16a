package cli

import (
	"strings"
	"testing"
)

// `platbench targets NAME` prints the table generated from the target's
// declarations: names, aliases, defaults, units.
func TestTargetOptionsTable(t *testing.T) {
	code, out, stderr := run(t, "targets", "cql")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"OPTION", "MEANING",
		"replication_factor  count", " rf ", // an alias
		"tls_insecure", "tls_verify_host",
		"page_size", "rows", // a unit
		"read_consistency    enum             LOCAL_ONE",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("targets cql lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space in %q", l)
		}
	}
	_, out, _ = run(t, "targets", "kafka")
	if !strings.Contains(out, "A workload's options: may also set") {
		t.Errorf("targets kafka does not say which options a workload may set:\n%s", out)
	}
	_, out, _ = run(t, "targets", "null")
	if !strings.Contains(out, "It takes no options.") {
		t.Errorf("targets null: %s", out)
	}
	code, _, stderr = run(t, "targets", "mongo")
	if code == 0 || !strings.Contains(stderr, `unknown target "mongo" (fix: one of embedded,`) {
		t.Errorf("targets mongo: exit %d, %s", code, stderr)
	}
	if code, _, _ = run(t, "targets", "cql", "kafka"); code != 2 {
		t.Errorf("targets cql kafka: exit %d, want a usage error", code)
	}
}
