//go:build linux

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// Memory really is the limit (issue 45): the embedded store's dataset
// (100k records of 4 KiB, 400 MB) is read by a platbench confined to a
// memory cgroup of 128 MiB, with a 1 MiB block cache and two requests in
// flight, the dataset's pages dropped from the page cache first (fadvise, file by file: nothing else's cache is touched), so
// its reads go to storage. The analysis must name memory (the page cache),
// or, on a host whose CPU other work saturated (make test), list the
// page-cache misses beside the limit it named instead. Needs root and a
// memory controller (cgroup v2's memory.max or v1's memory.limit_in_bytes).
func TestMemoryLimitNamed(t *testing.T) {
	const cgroupMax = 128 << 20
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "needs root to create a memory cgroup")
	}
	cg, undo, err := memoryCgroup(cgroupMax)
	if err != nil {
		testenv.Skip(t, testenv.Host, "no memory cgroup usable here: %v", err)
	}
	defer undo()
	dir := t.TempDir()
	bin := filepath.Join(dir, "platbench")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	db := "embedded://" + filepath.Join(dir, "db") + "?cache=1MiB"
	data := []string{"--workload", "ycsb-c", "--records", "100k", "--value-size", "4KiB"}
	load := append([]string{"run", "--target", db, "--ops", "1", "--keep-dataset", "--out", filepath.Join(dir, "load.json"), "--quiet"}, data...)
	if out, err := exec.Command(bin, load...).CombinedOutput(); err != nil {
		t.Fatalf("load: %v\n%s", err, out)
	}
	// Open it once more outside the cgroup: pebble replays the load's
	// write-ahead log into a memtable of up to 64 MiB and flushes it, which
	// must not happen inside 128 MiB (the OOM killer took it there).
	reopen := append([]string{"run", "--target", db, "--no-load", "--ops", "1", "--out", filepath.Join(dir, "reopen.json"), "--quiet"}, data...)
	if out, err := exec.Command(bin, reopen...).CombinedOutput(); err != nil {
		t.Fatalf("reopen: %v\n%s", err, out)
	}
	if err := dropCached(filepath.Join(dir, "db")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	run := append([]string{bin, "run", "--target", db, "--no-load", "--duration", "3s", "--concurrency", "2", "--out", out, "--quiet"}, data...)
	// The shell joins the cgroup, then becomes platbench: all of its memory is charged there.
	sh := fmt.Sprintf(`echo $$ > %q && exec "$@"`, filepath.Join(cg, "cgroup.procs"))
	if b, err := exec.Command("sh", append([]string{"-c", sh, "sh"}, run...)...).CombinedOutput(); err != nil {
		t.Fatalf("run in %s: %v\n%s", cg, err, b)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	// The platform says what the cgroup allowed, and the dataset is set
	// against that, not the host's RAM.
	if r.Platform.MemLimitBytes != cgroupMax || r.Dataset.HostRAMBytes != cgroupMax {
		t.Errorf("platform memory limit %d, dataset's RAM %d: want the cgroup's %d", r.Platform.MemLimitBytes, r.Dataset.HostRAMBytes, cgroupMax)
	}
	checkMemoryNamed(t, r)
}

// checkMemoryNamed: the host's samples read the paging counters, and the
// bottleneck names memory (the page cache), or lists the misses beside
// the limit it named.
func checkMemoryNamed(t *testing.T, r *result.Result) {
	t.Helper()
	if r.Host == nil || len(r.Host.Samples) == 0 || !r.Host.Samples[0].VMStat {
		t.Fatalf("no paging counters in the host's samples: %+v", r.Host)
	}
	b := analysis.BottleneckOf(r)
	var missed bool
	for _, p := range append(append([]result.Phrase{b.Says.Summary}, b.Says.Evidence...), b.Says.Caveats...) {
		missed = missed || p.Kind == analysis.PhraseCacheMiss || p.Kind == analysis.PhraseCacheMissed
	}
	t.Logf("limit %s (%s, %s): %+v", b.Limit, b.Where, b.Strength, b.Says)
	switch {
	case b.Limit == analysis.LimitMemory && b.Says.Summary.Kind == analysis.PhraseCacheMiss:
	case b.Limit == analysis.LimitMemory:
		t.Errorf("memory named by paging, not by the page cache: %+v", b.Says.Summary)
	case missed && (b.Limit == analysis.LimitNeighbours || b.Limit == analysis.LimitCPU || b.Limit == analysis.LimitDisk):
		t.Logf("a saturated %s (%s) came first, the host being busy with other work too; the misses are listed beside it", b.Limit, b.Where)
	default:
		t.Errorf("reads from a dataset 3 times the cgroup's memory: limit %q, misses listed %v", b.Limit, missed)
	}
}

// memoryCgroup makes a cgroup whose memory is limited to max bytes (cgroup
// v2's memory.max, else v1's memory.limit_in_bytes) and returns its
// directory and how to remove it.
func memoryCgroup(max int64) (string, func(), error) {
	type try struct{ root, file string }
	var errs []string
	for _, tr := range []try{{"/sys/fs/cgroup", "memory.max"}, {"/sys/fs/cgroup/unified", "memory.max"}, {"/sys/fs/cgroup/memory", "memory.limit_in_bytes"}} {
		if _, err := os.Stat(filepath.Join(tr.root, "cgroup.procs")); err != nil {
			continue
		}
		cg := filepath.Join(tr.root, fmt.Sprintf("pbtest-mem-%d", os.Getpid()))
		if err := os.Mkdir(cg, 0o755); err != nil {
			errs = append(errs, err.Error())
			continue
		}
		if err := os.WriteFile(filepath.Join(cg, tr.file), []byte(fmt.Sprint(max)), 0); err != nil {
			os.Remove(cg)
			errs = append(errs, fmt.Sprintf("%s: %v", filepath.Join(tr.root, tr.file), err))
			continue
		}
		return cg, func() {
			// The run's process has exited; its cgroup empties as the kernel reaps it.
			for i := 0; i < 100 && os.Remove(cg) != nil; i++ {
				time.Sleep(20 * time.Millisecond)
			}
		}, nil
	}
	return "", nil, errors.New(strings.Join(append(errs, "no memory controller (memory.max or memory.limit_in_bytes)"), "; "))
}

// dropCached drops every file under dir from the page cache.
func dropCached(dir string) error {
	return filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := f.Sync(); err != nil {
			return err
		}
		return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
	})
}
