package disk

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
)

func small(dir string) Config {
	c := Config{Path: dir, Size: 64 << 20, Duration: 400 * time.Millisecond, Direct: true, IODepth: 8}
	c.Defaults()
	return c
}

// Every bad field is reported, each with its fix, in one error.
func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"no path", func(c *Config) { c.Path = "" }, "no path"},
		{"tiny size", func(c *Config) { c.Size = 4096 }, "size "},
		{"short duration", func(c *Config) { c.Duration = time.Millisecond }, "duration "},
		{"zero jobs", func(c *Config) { c.Jobs = -1 }, "jobs "},
		{"depth", func(c *Config) { c.IODepth = 100000 }, "iodepth "},
		{"rw", func(c *Config) { c.Tests = []Test{{Name: "x", RW: "sideways", BS: 4096}} }, "rw "},
		{"bs not 512-aligned with O_DIRECT", func(c *Config) { c.Tests = []Test{{Name: "x", RW: RWRead, BS: 1000}} }, "multiple of 512"},
		{"bs too big", func(c *Config) { c.Tests = []Test{{Name: "x", RW: RWRead, BS: 1 << 30}} }, "bs "},
		{"bucket", func(c *Config) { c.Bucket = time.Microsecond }, "bucket "},
		{"engine", func(c *Config) { c.Engine = "aio" }, "engine "},
		{"mix", func(c *Config) { c.RWMixRead = 101 }, "rwmixread "},
		{"throttle with io_uring", func(c *Config) { c.Engine = EngineIOUring; c.Throttle = &Throttle{On: 1, Period: 2} }, "fix: engine sync"},
		{"submit batch deeper than iodepth", func(c *Config) { c.BatchSubmit = c.IODepth + 1 }, "iodepth_batch_submit "},
		{"completion batch of 0", func(c *Config) { c.BatchCompleteMin = -1 }, "iodepth_batch_complete_min "},
		{"fixed buffers with sync", func(c *Config) { c.Engine = EngineSync; c.FixedBufs = true }, "engine "},
	} {
		c := small("/tmp")
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: Validate() = %v; want an error containing %q and a fix", tc.name, err, tc.want)
		}
	}
	c := small("/tmp")
	if err := c.Validate(); err != nil {
		t.Fatalf("valid config refused: %v", err)
	}
	c.Size, c.Jobs = 1, 0
	if err := c.Validate(); err == nil || strings.Count(err.Error(), "fix:") != 2 {
		t.Errorf("two problems should give two fixes, got %v", err)
	}
}

func engines(t *testing.T) []string {
	es := []string{EngineSync}
	if why := uringProbe(); why == "" {
		es = append(es, EngineIOUring)
	} else {
		t.Logf("io_uring not available here (%s): testing the sync engine only", why)
	}
	return es
}

// The IOTune suite on a real file, with each engine: one phase per test, the
// right op and bytes in each, and the file gone afterwards.
func TestSuiteRealFile(t *testing.T) {
	for _, eng := range engines(t) {
		t.Run(eng, func(t *testing.T) {
			dir := t.TempDir()
			c := small(dir)
			c.Engine = eng
			res, err := Run(context.Background(), c, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Config.Extra["engine"] != eng {
				t.Errorf("engine recorded as %q, want %q", res.Config.Extra["engine"], eng)
			}
			want := []struct{ name, op string }{{"seq-write-1m", "WRITE"}, {"seq-read-1m", "READ"}, {"rand-write-4k", "WRITE"}, {"rand-read-4k", "READ"}}
			if len(res.Phases) != len(want) {
				t.Fatalf("%d phases, want %d", len(res.Phases), len(want))
			}
			for i, w := range want {
				p := res.Phases[i]
				if p.Name != w.name || len(p.Ops) != 1 || p.Ops[0].Op != w.op {
					t.Fatalf("phase %d = %s %+v, want %s with only %s", i, p.Name, p.Ops, w.name, w.op)
				}
				o := p.Ops[0]
				bs := uint64(1 << 20)
				if strings.HasSuffix(w.name, "4k") {
					bs = 4096
				}
				if o.Count == 0 || o.Bytes != o.Count*bs || len(o.Errors) != 0 {
					t.Errorf("%s: count %d bytes %d errors %v; want bytes = count x %d and no errors", p.Name, o.Count, o.Bytes, o.Errors, bs)
				}
				if o.Latency.Count != int64(o.Count) || o.Latency.P50Ns <= 0 || o.Latency.MaxNs < o.Latency.P99Ns {
					t.Errorf("%s: latency summary %+v does not match %d I/Os", p.Name, o.Latency, o.Count)
				}
				var bucketBytes uint64
				for _, b := range p.Buckets.Bytes[w.op] {
					bucketBytes += b
				}
				if bucketBytes != o.Bytes {
					t.Errorf("%s: buckets hold %d bytes, totals %d", p.Name, bucketBytes, o.Bytes)
				}
				if p.DurationNs < int64(c.Duration) || p.DurationNs > int64(c.Duration)+int64(time.Second) {
					t.Errorf("%s: phase lasted %v, want about %v", p.Name, time.Duration(p.DurationNs), c.Duration)
				}
			}
			if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
				t.Errorf("test file left behind: %v", left)
			}
			// The result survives the file round trip and the analysis.
			out := filepath.Join(t.TempDir(), "r.json")
			if err := result.Write(out, res); err != nil {
				t.Fatal(err)
			}
			back, err := result.Read(out)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Analyze(back); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A randrw test reads about RWMixRead percent of the time.
func TestRandRWMix(t *testing.T) {
	c := small(t.TempDir())
	c.Tests = []Test{{Name: "randrw-4k", RW: RWRandRW, BS: 4096}}
	c.RWMixRead = 70
	res, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := analysis.DiskPhaseFigures(&res.Phases[0])
	// A short timed test does fewer I/Os on a loaded machine (890 once):
	// the tolerance is four binomial standard deviations of the count done.
	n := float64(f.Reads + f.Writes)
	frac := float64(f.Reads) / n
	if tol := 4 * math.Sqrt(0.7*0.3/n); n < 200 || math.Abs(frac-0.7) > tol {
		t.Errorf("%d reads, %d writes: read fraction %.3f, want 0.70 +- %.3f", f.Reads, f.Writes, frac, tol)
	}
}

func TestSafety(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "precious")
	if err := os.WriteFile(existing, []byte("do not touch"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"existing file", func(c *Config) { c.Path = existing }, "exists"},
		{"missing directory", func(c *Config) { c.Path = filepath.Join(dir, "nope", "f.dat") }, "does not exist"},
		{"more than the free space", func(c *Config) { c.Size = 1 << 50 }, "not enough free space"},
		{"character device", func(c *Config) { c.Path = "/dev/null" }, "neither"},
	} {
		c := small(dir)
		tc.mod(&c)
		_, err := Run(context.Background(), c, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%s: err = %v; want %q with a fix", tc.name, err, tc.want)
		}
	}
	if b, _ := os.ReadFile(existing); string(b) != "do not touch" {
		t.Fatalf("existing file changed to %q", b)
	}
	if dev := blockDevice(); dev != "" {
		c := small(dev)
		_, err := Run(context.Background(), c, Options{})
		if err == nil || !strings.Contains(err.Error(), "block device") {
			t.Errorf("block device %s: err = %v; want a refusal", dev, err)
		}
	}
	// --force on an existing file uses it and leaves it in place.
	c := small(existing)
	c.Force, c.Size = true, 4<<20
	c.Tests = []Test{{Name: "r", RW: RWRandRead, BS: 4096}}
	if _, err := Run(context.Background(), c, Options{}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(existing); err != nil || st.Size() != 4<<20 {
		t.Errorf("forced file: %v, %v; want it kept, laid out to 4 MiB", st, err)
	}
	// --keep keeps the created file.
	kdir := t.TempDir()
	c = small(kdir)
	c.Keep = true
	c.Tests = []Test{{Name: "w", RW: RWWrite, BS: 1 << 20}}
	res, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(res.Config.Extra["path"]); err != nil {
		t.Errorf("--keep: %v", err)
	}
}

func blockDevice() string {
	for _, d := range []string{"/dev/loop0", "/dev/vda", "/dev/sda", "/dev/nvme0n1"} {
		if st, err := os.Stat(d); err == nil && st.Mode()&os.ModeDevice != 0 && st.Mode()&os.ModeCharDevice == 0 {
			return d
		}
	}
	return ""
}

// O_DIRECT on a file system that refuses it (open returns EINVAL) gets one
// line naming the fix. tmpfs accepts O_DIRECT since Linux 6.6, so the
// mapping is tested directly.
func TestDirectUnsupported(t *testing.T) {
	err := openError("/mnt/x/f.dat", true, syscall.EINVAL)
	if !strings.Contains(err.Error(), "direct=false") {
		t.Fatalf("EINVAL with O_DIRECT: %v; want the --direct=false fix", err)
	}
	if err := openError("/mnt/x/f.dat", false, syscall.EROFS); !strings.Contains(err.Error(), "read-only") {
		t.Errorf("EROFS: %v", err)
	}
}

// A file system that fills up during the probe gives ErrNoSpace, no result,
// and no file left behind.
func TestNoSpace(t *testing.T) {
	mnt := tmpfs(t, "24m")
	c := small(mnt)
	c.Direct, c.Size = false, 16<<20
	// Another process fills the disk between the free-space check and the layout.
	afterOpen = func() {
		if err := os.WriteFile(filepath.Join(mnt, "filler"), make([]byte, 20<<20), 0o600); err != nil && !errors.Is(err, syscall.ENOSPC) {
			t.Logf("filler: %v", err)
		}
	}
	defer func() { afterOpen = nil }()
	saved := freeMargin
	freeMargin = 0
	defer func() { freeMargin = saved }()
	res, err := Run(context.Background(), c, Options{})
	if !errors.Is(err, ErrNoSpace) || res != nil {
		t.Fatalf("Run = %v, %v; want ErrNoSpace and no result", res, err)
	}
	if !strings.Contains(err.Error(), "fix:") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error %q is not one line with a fix", err)
	}
	left, _ := filepath.Glob(filepath.Join(mnt, "platbench-probe-*"))
	if len(left) != 0 {
		t.Errorf("test file left behind: %v", left)
	}
}

// tmpfs mounts a small tmpfs for the test, or skips when mounting is not
// permitted (not root, or a sandbox without mount).
func tmpfs(t *testing.T, size string) string {
	t.Helper()
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", dir).CombinedOutput(); err != nil {
		testenv.Skip(t, testenv.Host, "cannot mount a tmpfs here: %v %s", err, out)
	}
	t.Cleanup(func() { exec.Command("umount", dir).Run() })
	return dir
}

// Ctrl-C: the phase under way is marked interrupted, the partial result is
// returned with the context's error, and the file is removed.
func TestInterrupt(t *testing.T) {
	dir := t.TempDir()
	c := small(dir)
	c.Duration = 10 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel)
	t0 := time.Now()
	res, err := Run(ctx, c, Options{})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("Run = %v, %v; want a partial result and context.Canceled", res, err)
	}
	if time.Since(t0) > 5*time.Second {
		t.Errorf("took %v to stop", time.Since(t0))
	}
	last := res.Phases[len(res.Phases)-1]
	if !last.Interrupted || last.Ops[0].Count == 0 {
		t.Errorf("last phase %s interrupted=%v count=%d; want interrupted with some I/O", last.Name, last.Interrupted, last.Ops[0].Count)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*")); len(left) != 0 {
		t.Errorf("test file left behind: %v", left)
	}
}

// The regulation detector finds a known on/off pattern. The kernel throttles
// of this machine (cgroup v1 blk-throttle) smooth the rate rather than
// switching it on and off, and there is no device-mapper here, so the pattern
// comes from platbench's own rate-limited file layer: I/O passes for 200 ms of
// every second and is held, outstanding, for 800 ms (see docs/disk-probe.md).
func TestRegulationThroughOwnThrottleLayer(t *testing.T) {
	c := small(t.TempDir())
	// Buffered reads of a file small enough to stay in the page cache: the
	// device (here a virtual disk with its own rate limiter) must not add a
	// pattern of its own to the one under test.
	c.Direct, c.Size = false, 4<<20
	c.Duration = 6 * time.Second
	// 50 ms buckets: fine enough to resolve 200 ms, coarse enough that a
	// scheduling hiccup of a loaded 2-core CI machine does not empty one.
	c.Bucket = 50 * time.Millisecond
	c.Engine = EngineSync
	c.IODepth = 1
	// While on, the layer passes 100 MB/s in 256 KiB reads (about 20 per
	// 50 ms bucket), like a disk at its provisioned rate: an on level that does
	// not depend on how busy the CPU is.
	c.Throttle = &Throttle{On: 200 * time.Millisecond, Period: time.Second, Rate: 100e6}
	c.Tests = []Test{{Name: "rand-read-256k", RW: RWRandRead, BS: 256 << 10}}
	res, err := Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := &res.Phases[0]
	st := analysis.Stalls(p)
	rg := st.Regulation
	t.Logf("%s; stalls %d longest %v", rg.Reason, st.Count, time.Duration(st.LongestNs))
	if !rg.Periodic {
		t.Fatalf("regulation not found: %s", rg.Reason)
	}
	// The detector works in whole buckets, and on a loaded machine (load
	// average 13-17 with other test packages and servers) a sleeping
	// goroutine can wake a bucket or two late: allow two buckets either way.
	// The pattern is still told from the unthrottled run's below, which has
	// no period at all.
	tol := 2*c.Bucket + 10*time.Millisecond
	near := func(got, want time.Duration) bool { return got > want-tol && got < want+tol }
	if !near(time.Duration(rg.PeriodNs), time.Second) ||
		!near(time.Duration(rg.OnNs), 200*time.Millisecond) ||
		!near(time.Duration(rg.OffNs), 800*time.Millisecond) {
		t.Errorf("pattern %v on / %v off every %v; want 200ms / 800ms / 1s", time.Duration(rg.OnNs), time.Duration(rg.OffNs), time.Duration(rg.PeriodNs))
	}
	// The longest stall is one off window, stretched when the first I/Os of
	// the next on window are late (a CI machine running three Cassandra
	// nodes woke the reader 100 ms late once), but never a whole period:
	// every on window lets some I/O through.
	if longest := time.Duration(st.LongestNs); st.Count < 4 || longest < 800*time.Millisecond-tol || longest >= time.Second {
		t.Errorf("%d stalls, longest %v; want one stall of 800 ms to under 1 s per second", st.Count, longest)
	}
	// The same file without the throttle layer shows no period.
	c.Throttle = nil
	res, err = Run(context.Background(), c, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rg := analysis.Stalls(&res.Phases[0]).Regulation; rg.Periodic {
		t.Errorf("unthrottled run reported as regulated: %s", rg.Reason)
	}
}

// The per-I/O path (offset choice, submission, completion, recording) does
// not allocate: run b.N I/Os through each engine and report allocations.
func BenchmarkEngine(b *testing.B) {
	for _, eng := range []string{EngineIOUring, EngineSync} {
		b.Run(eng, func(b *testing.B) {
			if eng == EngineIOUring && uringProbe() != "" {
				testenv.Skip(b, testenv.Host, "io_uring unavailable")
			}
			dir := b.TempDir()
			c := small(dir)
			c.Engine = eng
			tf, err := openTestFile(&c)
			if err != nil {
				b.Fatal(err)
			}
			defer tf.close(true)
			if err := tf.layout(context.Background()); err != nil {
				b.Fatal(err)
			}
			jobs, _ := newJobs(tf.fd, Test{RW: RWRandRead, BS: 4096}, tf.size, 1, 0, true)
			bufs, err := jobBuffers(jobs, c.IODepth)
			if err != nil {
				b.Fatal(err)
			}
			defer bufs.free()
			shards := 1
			if eng == EngineSync {
				shards = c.IODepth
			}
			rec := recorder.New(recorder.Config{Shards: shards})
			s := newRecSink(rec, shards)
			r := &run{deadline: int64(time.Hour), limit: int64(b.N)}
			r.left.Store(int64(b.N))
			rec.Start()
			b.ReportAllocs()
			b.ResetTimer()
			if eng == EngineIOUring {
				err = runUring(context.Background(), jobs, c.IODepth, c.uringOpts(), bufs, s, r)
			} else {
				err = runSync(context.Background(), jobs, c.IODepth, bufs, s, r, nil)
			}
			b.StopTimer()
			rec.Stop()
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// The sync engine blocks one thread per request in flight: a queue depth it
// cannot honour is refused with the fix, not attempted.
func TestSyncThreadCap(t *testing.T) {
	c := small(t.TempDir())
	c.Engine, c.Jobs, c.IODepth = EngineSync, 8, 1024
	_, err := Run(context.Background(), c, Options{})
	if err == nil || !strings.Contains(err.Error(), "threads") || !strings.Contains(err.Error(), "fix:") {
		t.Fatalf("8 x 1024 sync: err = %v; want a refusal naming the thread count", err)
	}
}

// Writes carry their own stamp in every 512-byte sector by default (fio's
// scramble_buffers): read back, every block the probe wrote names its own
// offset in each sector, so no two written blocks are alike however often
// the few buffers were reused. With scramble_buffers off, the written blocks
// are copies of the buffers: no more distinct ones than buffers.
func TestWritesAreScrambled(t *testing.T) {
	const bs, size = 4096, 4 << 20
	for _, eng := range engines(t) {
		for _, scramble := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/scramble=%v", eng, scramble), func(t *testing.T) {
				// A file of zeros, fully written: the probe lays nothing out, and a
				// block still all zero afterwards was not written by the test.
				path := filepath.Join(t.TempDir(), "f.dat")
				if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
					t.Fatal(err)
				}
				c := small(path)
				c.Size, c.Duration, c.Engine, c.Force, c.NoScramble = size, 200*time.Millisecond, eng, true, !scramble
				c.Tests = []Test{{Name: "rand-write-4k", RW: RWRandWrite, BS: bs}}
				res, err := Run(context.Background(), c, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := res.Config.Extra["scramble_buffers"]; got != strconv.FormatBool(scramble) {
					t.Errorf("scramble_buffers recorded as %q, want %v", got, scramble)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				written, stamped := 0, 0
				distinct := map[string]bool{}
				for off := 0; off < size; off += bs {
					b := data[off : off+bs]
					if bytes.Count(b, []byte{0}) == bs {
						continue // never written by the test
					}
					written++
					distinct[string(b)] = true
					ok := true
					for s := 0; s < bs; s += 512 {
						w0 := binary.NativeEndian.Uint64(b[s:])
						w1 := binary.NativeEndian.Uint64(b[s+8:])
						ok = ok && w0 == uint64(off+s) && w1 > 0 && w1 == binary.NativeEndian.Uint64(b[8:])
					}
					if ok {
						stamped++
					}
				}
				if written == 0 {
					t.Fatal("no block of the file was written")
				}
				if scramble && stamped != written {
					t.Errorf("%d of %d written blocks carry their offset and one start time in each sector; want all", stamped, written)
				}
				if !scramble && (stamped != 0 || len(distinct) > c.Jobs*c.IODepth) {
					t.Errorf("scramble off: %d blocks stamped, %d distinct written blocks from %d buffers; want none stamped and at most one per buffer",
						stamped, len(distinct), c.Jobs*c.IODepth)
				}
				t.Logf("%d blocks written, %d distinct", written, len(distinct))
			})
		}
	}
}
