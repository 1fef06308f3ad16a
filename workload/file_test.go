package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A workload file that never ends (/dev/zero), a directory or one past
// MaxFileBytes is refused before it is read whole, in one line naming it.
func TestOpenRefusesWhatIsNoWorkloadFile(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(big, make([]byte, 0), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxFileBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/zero", t.TempDir(), big} {
		_, err := Open(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", p, err)
		}
	}
}
