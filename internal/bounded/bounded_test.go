package bounded

import (
	"fmt"
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

// ReadUpTo reads a regular file and a pipe (a shell's <(...)) of at most its
// limit, and refuses one over it, by its size or by reading on (/dev/zero),
// and a path that is not there, each naming the path.
func TestReadUpTo(t *testing.T) {
	dir := t.TempDir()
	small, big := filepath.Join(dir, "small"), filepath.Join(dir, "big")
	os.WriteFile(small, []byte("name: x\n"), 0o600)
	os.WriteFile(big, make([]byte, 100), 0o600)
	if b, err := ReadUpTo(small, 64); err != nil || string(b) != "name: x\n" {
		t.Errorf("small file: %q %v", b, err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	go func() { w.Write([]byte("from a pipe")); w.Close() }()
	if b, err := ReadUpTo(fmt.Sprintf("/proc/self/fd/%d", r.Fd()), 64); err != nil || string(b) != "from a pipe" {
		t.Errorf("pipe: %q %v", b, err)
	}
	r.Close()
	for path, want := range map[string]string{big: "is 100 bytes, over the 64", "/dev/zero": "reads on past the 64", filepath.Join(dir, "none"): "cannot read"} {
		if _, err := ReadUpTo(path, 64); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v, want %q and the path", path, err, want)
		}
	}
}
