package disk

import (
	"strings"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// Access patterns, named as fio names them (--rw).
const (
	RWWrite     = "write"     // sequential writes
	RWRead      = "read"      // sequential reads
	RWRandWrite = "randwrite" // random writes, bs-aligned offsets
	RWRandRead  = "randread"  // random reads
	RWRandRW    = "randrw"    // random reads and writes, RWMixRead percent reads
)

// Engines.
const (
	EngineAuto    = "auto"     // io_uring when the kernel allows it, else sync
	EngineIOUring = "io_uring" // one ring per job, IODepth requests in flight
	EngineSync    = "sync"     // Jobs x IODepth goroutines doing pread/pwrite
)

// Test is one timed test of a probe: one phase of the result.
type Test struct {
	Name string // phase name, e.g. "rand-read-4k"
	RW   string // one of the RW* constants
	BS   int    // block size in bytes
}

// Config is one probe. The zero value is not valid: call Defaults first or
// fill every field; Validate reports every problem at once.
type Config struct {
	// Path is a directory (a platbench-probe-<random>.dat file is created in
	// it) or a file path (refused when it exists unless Force).
	Path string
	// Size of the test file in bytes. Default 10 GiB.
	Size int64
	// Duration of each test. Default 30 s.
	Duration time.Duration
	// Direct opens the file with O_DIRECT and aligned buffers. Default true.
	Direct bool
	// Jobs is the number of independent submitters (fio numjobs). Default 1.
	Jobs int
	// IODepth is the number of requests in flight per job. Default 32.
	IODepth int
	// Tests to run, in order. Default: the IOTune suite (Suite).
	Tests []Test
	// RWMixRead is the percentage of reads for randrw. Default 70.
	RWMixRead int
	// Bucket is the width of the fine throughput buckets. Default 100 ms.
	Bucket time.Duration
	// Keep leaves the test file in place after the probe.
	Keep bool
	// Force allows an existing file or a block device as Path.
	Force bool
	// Engine is auto, io_uring or sync. Default auto.
	Engine string
	// Throttle, when set, passes every I/O through platbench's own
	// rate-limited file layer (sync engine only): I/O is let through for
	// Throttle.On of every Throttle.Period and held for the rest. It exists to
	// test the regulation detector where no kernel throttle is available.
	Throttle *Throttle
	// BatchSubmit is how many queued requests each io_uring_enter passes to
	// the kernel (fio iodepth_batch_submit). Default 1, fio's: each request
	// is submitted as soon as it is queued. IODepth submits a whole refill at once.
	BatchSubmit int
	// BatchCompleteMin is how many completions each wait asks the kernel for
	// (fio iodepth_batch_complete_min). Default 1, fio's.
	BatchCompleteMin int
	// RegisterFiles registers the test file with each ring (fio registerfiles,
	// IORING_REGISTER_FILES): no file lookup per request. Default off, as fio.
	RegisterFiles bool
	// FixedBufs registers the I/O buffers with each ring (fio fixedbufs,
	// IORING_REGISTER_BUFFERS): no page pinning per request. Default off, as fio.
	FixedBufs bool
	// NoScramble leaves each write's buffer as it is. By default (fio's
	// scramble_buffers, on by default there too) every 512-byte sector of a
	// write's buffer is stamped with its file offset and the request's start
	// time before the write is queued: the buffers are reused, and unstamped
	// a deduplicating device would see the same few blocks written over and
	// over. Reads are not touched.
	NoScramble bool
	// NoLayout skips writing the whole file before the tests when the file is
	// new (tests of reads on a sparse file measure nothing).
	NoLayout bool
}

// Throttle is an on/off window, anchored at each test's start, with an
// optional bandwidth cap while on.
type Throttle struct {
	On, Period time.Duration
	Rate       int64 // bytes per second while on; 0: as fast as the file allows
}

// Suite is the IOTune set: sequential 1 MiB write and read bandwidth, random
// 4 KiB write and read IOPS.
func Suite() []Test {
	return []Test{
		{Name: "seq-write-1m", RW: RWWrite, BS: 1 << 20},
		{Name: "seq-read-1m", RW: RWRead, BS: 1 << 20},
		{Name: "rand-write-4k", RW: RWRandWrite, BS: 4 << 10},
		{Name: "rand-read-4k", RW: RWRandRead, BS: 4 << 10},
	}
}

// Defaults fills zero fields with their defaults.
func (c *Config) Defaults() {
	if c.Size == 0 {
		c.Size = 10 << 30
	}
	if c.Duration == 0 {
		c.Duration = 30 * time.Second
	}
	if c.Jobs == 0 {
		c.Jobs = 1
	}
	if c.IODepth == 0 {
		c.IODepth = 32
	}
	if c.Tests == nil {
		c.Tests = Suite()
	}
	if c.RWMixRead == 0 {
		c.RWMixRead = 70
	}
	if c.Bucket == 0 {
		c.Bucket = 100 * time.Millisecond
	}
	if c.Engine == "" {
		c.Engine = EngineAuto
	}
	if c.BatchSubmit == 0 {
		c.BatchSubmit = 1
	}
	if c.BatchCompleteMin == 0 {
		c.BatchCompleteMin = 1
	}
}

// uringOpts are the io_uring engine's modes from the Config.
func (c *Config) uringOpts() uringOpts {
	return uringOpts{batchSubmit: c.BatchSubmit, completeMin: c.BatchCompleteMin, registerFiles: c.RegisterFiles, fixedBufs: c.FixedBufs}
}

// Validate reports every problem of the configuration, each with its fix.
func (c *Config) Validate() error {
	var errs usererr.List
	bad := errs.Add
	if c.Path == "" {
		errs.Addf("no path given (fix: platbench probe disk DIR, e.g. /var/lib/scylla)")
	}
	if c.Size < 1<<20 {
		bad("size", "%d bytes is too small (fix: 1G or more; at least 1M)", c.Size)
	}
	if c.Duration < 100*time.Millisecond {
		bad("duration", "%v is too short (fix: 10s or more)", c.Duration)
	}
	if c.Jobs < 1 || c.Jobs > 256 {
		bad("jobs", "%d out of range (fix: between 1 and 256)", c.Jobs)
	}
	if c.IODepth < 1 || c.IODepth > 4096 {
		bad("iodepth", "%d out of range (fix: between 1 and 4096)", c.IODepth)
	}
	if c.RWMixRead < 0 || c.RWMixRead > 100 {
		bad("rwmixread", "%d out of range (fix: between 0 and 100)", c.RWMixRead)
	}
	if c.Bucket < time.Millisecond || c.Bucket > time.Second {
		bad("bucket", "%v out of range (fix: between 1ms and 1s, e.g. 100ms or 10ms)", c.Bucket)
	}
	switch c.Engine {
	case EngineAuto, EngineIOUring, EngineSync:
	default:
		bad("engine", "%q is unknown (fix: auto, io_uring or sync)", c.Engine)
	}
	if c.BatchSubmit < 1 || c.BatchSubmit > c.IODepth && c.IODepth >= 1 {
		bad("iodepth_batch_submit", "%d out of range (fix: between 1 and iodepth %d; 1 submits each request as it is queued, as fio)", c.BatchSubmit, c.IODepth)
	}
	if c.BatchCompleteMin < 1 || c.BatchCompleteMin > c.IODepth && c.IODepth >= 1 {
		bad("iodepth_batch_complete_min", "%d out of range (fix: between 1 and iodepth %d; 1 as fio)", c.BatchCompleteMin, c.IODepth)
	}
	if (c.RegisterFiles || c.FixedBufs) && (c.Engine == EngineSync || c.Throttle != nil) {
		bad("engine", "sync (and the throttle, which runs on it) has no rings to register files or buffers with (fix: engine io_uring without a throttle, or drop registerfiles and fixedbufs)")
	}
	if c.Throttle != nil {
		if c.Throttle.On <= 0 || c.Throttle.Period <= c.Throttle.On {
			bad("throttle", "%v/%v is not an on/off window (fix: on > 0 and period > on, e.g. 200ms/1s)", c.Throttle.On, c.Throttle.Period)
		}
		if c.Engine == EngineIOUring {
			bad("engine", "io_uring cannot be throttled: the throttle layer sits on pread/pwrite (fix: engine sync or auto with a throttle)")
		}
	}
	if len(c.Tests) == 0 {
		bad("rw", "gives no tests (fix: leave it unset for the IOTune suite, or read|write|randread|randwrite|randrw)")
	}
	for _, t := range c.Tests {
		switch t.RW {
		case RWWrite, RWRead, RWRandWrite, RWRandRead, RWRandRW:
		default:
			bad("rw", "%q is unknown (fix: write, read, randwrite, randread or randrw)", t.RW)
		}
		if t.BS < 512 || t.BS > 64<<20 {
			bad("bs", "%d out of range (fix: between 512 and 64M, e.g. 4k or 1m)", t.BS)
		} else if c.Direct && t.BS%512 != 0 {
			bad("bs", "%d is not a multiple of 512, which O_DIRECT needs (fix: 4k, or direct=false)", t.BS)
		} else if c.Size >= 1<<20 && int64(t.BS) > c.Size {
			bad("bs", "%d is larger than the file size %d (fix: a bigger size or a smaller block size)", t.BS, c.Size)
		}
	}
	return errs.Err()
}

// ParseThrottle parses "ON/PERIOD[@RATE]", e.g. "200ms/1s" or "200ms/1s@200m"
// (RATE in bytes per second, a size in the units grammar: 200m is 200 MiB/s).
func ParseThrottle(s string) (*Throttle, error) {
	window, rate, hasRate := strings.Cut(s, "@")
	on, period, ok := strings.Cut(window, "/")
	if ok {
		a, err1 := units.ParseDuration(on)
		b, err2 := units.ParseDuration(period)
		var r int64
		var err3 error
		if hasRate {
			r, err3 = units.ParseSize(rate)
		}
		if err1 == nil && err2 == nil && err3 == nil && a > 0 && b > a {
			return &Throttle{On: a, Period: b, Rate: r}, nil
		}
	}
	return nil, usererr.Field("throttle", "%q is not ON/PERIOD[@BYTES_PER_S] with ON < PERIOD (fix: e.g. 200ms/1s or 200ms/1s@200m)", s)
}
