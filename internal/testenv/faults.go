//go:build linux

package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// MajorFaults makes this process take about pages major page faults, for
// tests of the paging counters (/proc/vmstat's pgmajfault): it writes a file
// of that many pages in a test directory, syncs it, drops its pages from the
// page cache (fadvise DONTNEED), maps it with readahead off (MADV_RANDOM)
// and touches every page, so that each touch reads its page from disk. It
// returns the major faults the process took meanwhile (getrusage), or skips
// the test (Host) when the pages stayed cached (a tmpfs, a file system that
// ignores the advice).
var MajorFaults = func(t testing.TB, pages int) int {
	t.Helper()
	page := os.Getpagesize()
	path := filepath.Join(t.TempDir(), "majfaults")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, pages*page)
	for i := range buf {
		buf[i] = byte(i)
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, len(buf), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	if err := unix.Madvise(m, unix.MADV_RANDOM); err != nil {
		t.Fatal(err)
	}
	vec := make([]byte, pages)
	if _, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0]))); errno != 0 {
		t.Fatal(errno)
	}
	cached := 0
	for _, v := range vec {
		cached += int(v & 1)
	}
	if cached > pages/10 {
		Skip(t, Host, "%d of %d pages of %s stayed in the page cache after fadvise DONTNEED (a tmpfs?): no major faults to make", cached, pages, path)
	}
	var before, after unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &before)
	sum := 0
	for i := 0; i < len(m); i += page {
		sum += int(m[i])
	}
	unix.Getrusage(unix.RUSAGE_SELF, &after)
	runtime.KeepAlive(sum) // a sum nobody reads would be compiled away, and its loads with it
	return int(after.Majflt - before.Majflt)
}
