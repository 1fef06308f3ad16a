package disk

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry/host"
	"github.com/platbench/platbench/telemetry/platform"
	"github.com/platbench/platbench/vocab"
)

// Options are what Run needs besides the Config: who is running and where to
// tell progress. Both may be zero.
type Options struct {
	Tool     result.Tool
	Progress func(format string, a ...any) // one line per step; nil: silent
}

// Run probes the disk behind cfg.Path and returns a result with one phase per
// test. The test file is removed on every return path unless cfg.Keep.
//
// When ctx is cancelled (Ctrl-C) Run stops the test under way, marks its
// phase Interrupted and returns the partial result together with ctx's error.
// Any other error returns no result: an I/O error (ENOSPC included) leaves
// nothing worth reporting.
func Run(ctx context.Context, cfg Config, opt Options) (*result.Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	say := opt.Progress
	if say == nil {
		say = func(string, ...any) {}
	}
	tf, err := openTestFile(&cfg)
	if err != nil {
		return nil, err
	}
	defer tf.close(!cfg.Keep)
	if afterOpen != nil {
		afterOpen()
	}

	engine, why := pickEngine(cfg.Engine, cfg.Throttle != nil)
	if engine == "" {
		return nil, usererr.Field("engine", "io_uring is unavailable: %s (fix: sync or auto)", why)
	}
	if engine == EngineSync && cfg.Jobs*cfg.IODepth > maxSyncThreads {
		return nil, usererr.Field("iodepth", "is too deep for the sync engine (%s): %d threads for %d jobs x iodepth %d (fix: at most %d in all, e.g. a smaller iodepth)",
			why, cfg.Jobs*cfg.IODepth, cfg.Jobs, cfg.IODepth, maxSyncThreads)
	}

	res := &result.Result{
		Schema:    result.SchemaVersion,
		Tool:      opt.Tool,
		StartedAt: time.Now(),
		Config:    resultConfig(&cfg, tf, engine, why),
		Platform:  platform.Fingerprint(),
		Target: vocab.Info{
			Kind: "disk",
			URL:  "file://" + tf.path,
			Details: map[string]string{
				"filesystem": tf.fsType,
				"file_bytes": strconv.FormatInt(tf.size, 10),
				"engine":     engine,
			},
		},
	}
	res.Dataset = result.Dataset{LogicalBytes: tf.size, DiskBytes: tf.size, HostRAMBytes: res.Platform.RAMBytes}
	if res.Tool.Name == "" {
		res.Tool = result.Tool{Name: "platbench", Version: "dev", GoVersion: runtime.Version()}
	}
	if tf.device {
		res.Notes = append(res.Notes, "probe ran on the block device "+tf.path+" (forced): its previous contents are overwritten")
	}
	if !cfg.Direct {
		res.Notes = append(res.Notes, "buffered I/O (not O_DIRECT): writes may complete in the page cache and reads may be served from it; the file's pages are dropped before each test")
	}
	if cfg.Throttle != nil {
		rate := "as fast as the file allows"
		if cfg.Throttle.Rate > 0 {
			rate = fmt.Sprintf("at most %.0f MB/s", float64(cfg.Throttle.Rate)/1e6)
		}
		res.Notes = append(res.Notes, fmt.Sprintf("I/O went through platbench's own rate-limited file layer: %v on (%s) / %v off every %v; a simulated throttled disk, not the device's own behaviour",
			cfg.Throttle.On, rate, cfg.Throttle.Period-cfg.Throttle.On, cfg.Throttle.Period))
	}

	if !cfg.NoLayout && tf.fresh < tf.size {
		say("laying out %s (%s)", tf.path, units.Bytes(float64(tf.size)))
		t0 := time.Now()
		if err := tf.layout(ctx); err != nil {
			return interrupted(ctx, res, err)
		}
		say("laid out in %.1f s", time.Since(t0).Seconds())
	}
	for _, t := range cfg.Tests {
		if err := tf.settle(); err != nil {
			return nil, err
		}
		say("%s: %s bs=%s jobs=%d iodepth=%d engine=%s for %v", t.Name, t.RW, units.Bytes(float64(t.BS)), cfg.Jobs, cfg.IODepth, engine, cfg.Duration)
		ph, err := runTest(ctx, &cfg, tf, t, engine)
		if ph != nil {
			res.Phases = append(res.Phases, *ph)
		}
		if err != nil {
			return interrupted(ctx, res, err)
		}
	}
	res.EndedAt = time.Now()
	return res, nil
}

// maxSyncThreads bounds the sync engine's goroutines (each blocks a thread).
const maxSyncThreads = 4096

// interrupted returns the partial result when the error is the cancellation of ctx.
func interrupted(ctx context.Context, res *result.Result, err error) (*result.Result, error) {
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) || ctx.Err() != nil && err == nil {
		res.EndedAt = time.Now()
		res.Notes = append(res.Notes, "interrupted: the probe was stopped before its end")
		return res, ctx.Err()
	}
	return nil, err
}

func runTest(ctx context.Context, cfg *Config, tf *testFile, t Test, engine string) (*result.Phase, error) {
	jobs, err := newJobs(tf.fd, t, tf.size, cfg.Jobs, cfg.RWMixRead, !cfg.NoScramble)
	if err != nil {
		return nil, err
	}
	shards := cfg.Jobs // one submitting goroutine per job
	if engine == EngineSync {
		shards = cfg.Jobs * cfg.IODepth // one per request in flight
	}
	bufs, err := jobBuffers(jobs, cfg.IODepth)
	if err != nil {
		return nil, err
	}
	defer bufs.free()
	// Recorder shards hold HDR histograms of a few hundred KB each: submitters
	// share them (the recorder maps i to i mod its shards, under a mutex)
	// rather than each owning a set.
	rec := recorder.New(recorder.Config{Shards: min(shards, 2*runtime.GOMAXPROCS(0)), BucketWidth: cfg.Bucket})
	s := newRecSink(rec, shards)
	r := &run{deadline: int64(cfg.Duration)}
	rec.Start()
	switch engine {
	case EngineIOUring:
		err = runUring(ctx, jobs, cfg.IODepth, cfg.uringOpts(), bufs, s, r)
	default:
		err = runSync(ctx, jobs, cfg.IODepth, bufs, s, r, newGate(cfg.Throttle))
	}
	ph := rec.Stop()
	if err != nil {
		return nil, err
	}
	ph.Name = t.Name
	ph.Mode = "closed"
	ph.Concurrency = cfg.Jobs * cfg.IODepth
	if ctx.Err() != nil {
		ph.Interrupted = true
		return ph, ctx.Err()
	}
	return ph, nil
}

// pickEngine resolves auto. It returns "" and the reason when io_uring was
// asked for and is not available.
func pickEngine(want string, throttled bool) (engine, why string) {
	if want == EngineSync {
		return EngineSync, "asked for"
	}
	if throttled {
		return EngineSync, "the throttle layer wraps pread/pwrite"
	}
	if reason := uringProbe(); reason != "" {
		if want == EngineIOUring {
			return "", reason
		}
		return EngineSync, reason
	}
	return EngineIOUring, ""
}

// uringProbe sets up and tears down a small ring; "" means io_uring works.
func uringProbe() string {
	if b, err := os.ReadFile("/proc/sys/kernel/io_uring_disabled"); err == nil && len(b) > 0 && b[0] == '2' {
		return "io_uring disabled by kernel.io_uring_disabled=2"
	}
	rg, err := newRing(4)
	if err != nil {
		return err.Error()
	}
	rg.close()
	return ""
}

func resultConfig(c *Config, tf *testFile, engine, why string) result.Config {
	rw, bs := "iotune", ""
	if len(c.Tests) == 1 {
		rw, bs = c.Tests[0].RW, strconv.Itoa(c.Tests[0].BS)
	}
	extra := map[string]string{
		"probe":      "disk",
		"engine":     engine,
		"path":       tf.path,
		"size":       strconv.FormatInt(tf.size, 10),
		"direct":     strconv.FormatBool(c.Direct),
		"jobs":       strconv.Itoa(c.Jobs),
		"iodepth":    strconv.Itoa(c.IODepth),
		"rw":         rw,
		"bucket":     c.Bucket.String(),
		"filesystem": tf.fsType,
	}
	// The whole disk under the file, as /sys/block names it (what the host
	// telemetry's per-device figures are keyed by); overlay and tmpfs have none.
	if dev, err := host.DeviceOf(tf.path); err == nil {
		extra["device"] = dev
	}
	if bs != "" {
		extra["bs"] = bs
	}
	if rw == RWRandRW {
		extra["rwmixread"] = strconv.Itoa(c.RWMixRead)
	}
	if engine == EngineIOUring {
		// The ring set-up the kernel accepts (each job's ring is made alike).
		if rg, err := newRing(4); err == nil {
			extra["uring_setup"] = rg.setup
			rg.close()
		}
	}
	if engine == EngineIOUring {
		// The io_uring modes used, by fio's names for them.
		extra["iodepth_batch_submit"] = strconv.Itoa(c.BatchSubmit)
		extra["iodepth_batch_complete_min"] = strconv.Itoa(c.BatchCompleteMin)
		extra["registerfiles"] = strconv.FormatBool(c.RegisterFiles)
		extra["fixedbufs"] = strconv.FormatBool(c.FixedBufs)
	}
	extra["scramble_buffers"] = strconv.FormatBool(!c.NoScramble)
	if engine == EngineSync && why != "" {
		extra["engine_reason"] = why
	}
	if c.Throttle != nil {
		extra["throttle"] = c.Throttle.On.String() + "/" + c.Throttle.Period.String() + "@" + strconv.FormatInt(c.Throttle.Rate, 10)
	}
	return result.Config{
		Target:      "file://" + tf.path,
		Workload:    result.Workload{Name: "disk-" + rw},
		DurationNs:  int64(c.Duration),
		Concurrency: c.Jobs * c.IODepth,
		Warmup:      "0",
		Extra:       extra,
	}
}

// recSink adapts the recorder to the engines' sink.
type recSink struct {
	rec    *recorder.Recorder
	shards []*recorder.Shard
}

func newRecSink(rec *recorder.Recorder, n int) *recSink {
	s := &recSink{rec: rec, shards: make([]*recorder.Shard, n)}
	for i := range s.shards {
		s.shards[i] = rec.Shard(i)
	}
	return s
}

func (s *recSink) Now() int64         { return s.rec.Now() }
func (s *recSink) Begin(shard, n int) { s.shards[shard].BeginN(n) }
func (s *recSink) Record(shard int, op vocab.Op, start, end int64, bytes uint64, class vocab.Class) {
	s.shards[shard].Record(op, start, start, end, bytes, class)
}
