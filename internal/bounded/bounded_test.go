package bounded

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// /dev/zero, a FIFO, a directory and a file over the limit are refused,
// each named, before anything is read (a FIFO would block the test, and
// /dev/zero would never end); a small regular file is read whole.
func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 4097), 0o600)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("s3cret\n"), 0o600)
	for path, want := range map[string]string{"/dev/zero": "a character device", fifo: "a FIFO", dir: "a directory",
		big: "4097 bytes, over the 4096", filepath.Join(dir, "none"): "cannot read"} {
		if _, err := ReadFile(path, 4096); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFile(%s) = %v, want %q", path, err, want)
		}
		if err := Check(path, 4096); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check(%s) = %v, want %q", path, err, want)
		}
	}
	if b, err := ReadFile(ok, 4096); err != nil || string(b) != "s3cret\n" {
		t.Errorf("ReadFile(ok) = %q, %v", b, err)
	}
}
