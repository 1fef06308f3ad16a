package cli

import (
	"strings"
	"testing"
)

// A TLS file a target option names is checked before a driver reads it:
// /dev/zero (which never ends) is refused with one line and exit 2.
func TestTLSFilesBounded(t *testing.T) {
	for _, args := range [][]string{
		{"run", "--target", "cql://127.0.0.1?tls_ca=/dev/zero"},
		{"run", "--target", "cql://127.0.0.1", "--target-opt", "tls_cert=/dev/zero", "--target-opt", "tls_key=/dev/zero"},
		{"run", "--target", "kafka://127.0.0.1:1?tls_ca=/dev/zero", "--workload", "produce"},
	} {
		code, _, stderr := run(t, args...)
		if code != 2 || !strings.Contains(stderr, "/dev/zero is a character device, not a regular file") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and one line refusing /dev/zero", args, code, stderr)
		}
	}
}
