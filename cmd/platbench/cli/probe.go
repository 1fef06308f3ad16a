package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"runtime"
	"strings"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/probe/disk"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

const probeUsage = `Characterise storage as IOTune and fio do. With no --rw it runs the IOTune
set: sequential 1 MiB writes and reads (MB/s), random 4 KiB writes and reads
(IOPS). With --rw it runs one fio-like test. Each test is one phase of a normal
result file, so 'platbench report' and 'platbench compare' work on it.

PATH is a directory (a platbench-probe-<random>.dat file is created in it and
removed afterwards) or a new file name. An existing file or a block device is
refused unless --force. Free space is checked first. O_DIRECT by default.`

func runProbe(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(env.Stdout, "Usage: platbench probe disk PATH [flags]\n\n%s\n\nRun 'platbench probe disk --help' for the flags.\n", probeUsage)
		if len(args) == 0 {
			return usagef("which probe? (fix: platbench probe disk PATH)")
		}
		return nil
	}
	if args[0] != "disk" {
		return usagef("unknown probe %q (fix: platbench probe disk PATH)", args[0])
	}
	return runProbeDisk(ctx, env, args[1:])
}

// bindUringFlags binds the io_uring engine's modes, named and defaulted as
// fio's options; the function it returns copies them into a Config.
func bindUringFlags(fs *flag.FlagSet) func(*disk.Config) error {
	batchSubmit := fs.Int("iodepth-batch-submit", 1, "io_uring: requests passed per io_uring_enter (fio iodepth_batch_submit; 1 submits each as it is queued)")
	batchComplete := fs.Int("iodepth-batch-complete-min", 1, "io_uring: completions each wait asks for (fio iodepth_batch_complete_min)")
	registerFiles := fs.Bool("registerfiles", false, "io_uring: register the test file with each ring (fio registerfiles)")
	fixedBufs := fs.Bool("fixedbufs", false, "io_uring: register the I/O buffers with each ring (fio fixedbufs)")
	return func(c *disk.Config) error {
		c.BatchSubmit, c.BatchCompleteMin, c.RegisterFiles, c.FixedBufs = *batchSubmit, *batchComplete, *registerFiles, *fixedBufs
		// 0 means "the default" to the library, but something else to fio
		// (submit: the whole iodepth; complete: poll without waiting): refuse it.
		if *batchSubmit == 0 {
			return usererr.Field("iodepth_batch_submit", "0 is not supported (fix: 1 to submit each request as it is queued, as fio's default, or the iodepth for whole refills, which is what fio's 0 means)")
		}
		if *batchComplete == 0 {
			return usererr.Field("iodepth_batch_complete_min", "0 (poll without waiting) is not supported (fix: 1, fio's default, or more)")
		}
		return nil
	}
}

func runProbeDisk(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "probe disk", "PATH [flags]", probeUsage)
	size := units.Size(10 << 30)
	fs.Var(&size, "size", "test file size (binary units: 10G, 512MiB; default 10G)")
	dur := units.Duration(30 * time.Second)
	fs.Var(&dur, "duration", "duration of each test (default 30s)")
	direct := fs.Bool("direct", true, "O_DIRECT with aligned buffers; --direct=false for buffered I/O")
	scramble := fs.Bool("scramble-buffers", true, "stamp every 512-byte sector of each write with its offset and time, so a deduplicating device cannot fold the reused buffers (fio scramble_buffers); --scramble-buffers=false writes the buffers as filled")
	jobs := fs.Int("jobs", 1, "independent submitters (fio numjobs)")
	depth := fs.Int("iodepth", 32, "requests in flight per job")
	rw := fs.String("rw", "", "one test: write, read, randwrite, randread or randrw (default: the IOTune set)")
	var bs units.Size
	fs.Var(&bs, "bs", "block size of a --rw test (default 4k for random, 1m for sequential)")
	mix := fs.Int("rwmixread", 70, "percentage of reads for --rw randrw")
	bucket := units.Duration(100 * time.Millisecond)
	fs.Var(&bucket, "bucket", "width of the throughput buckets (10ms to see sub-second regulation; default 100ms)")
	keep := fs.Bool("keep", false, "keep the test file afterwards")
	force := fs.Bool("force", false, "allow an existing file or a block device as PATH (its contents are overwritten), and replace the --out result when it exists")
	out := fs.String("out", "", "result file (default probe-disk-YYYYMMDD-HHMMSS.json)")
	engine := fs.String("engine", "auto", "auto, io_uring or sync (pread/pwrite, jobs x iodepth goroutines)")
	uringModes := bindUringFlags(fs)
	throttle := fs.String("throttle", "", "pass I/O through platbench's own on/off throttle, ON/PERIOD[@BYTES_PER_S], e.g. 200ms/1s@200m (tests the regulation detector)")
	path, err := probePath(fs, args)
	if err != nil {
		return err
	}
	cfg := disk.Config{Path: path, Size: int64(size), Duration: time.Duration(dur), Direct: *direct, Jobs: *jobs, IODepth: *depth,
		RWMixRead: *mix, Bucket: time.Duration(bucket), Keep: *keep, Force: *force, Engine: *engine, NoScramble: !*scramble}
	bsSet := false
	fs.Visit(func(f *flag.Flag) { bsSet = bsSet || f.Name == "bs" })
	var errs []error
	err = uringModes(&cfg)
	if err != nil {
		errs = append(errs, err)
	}
	if *rw != "" {
		t := disk.Test{RW: *rw, BS: 4 << 10}
		if *rw == disk.RWRead || *rw == disk.RWWrite {
			t.BS = 1 << 20
		}
		if bsSet {
			t.BS = int(min(int64(bs), 1<<40))
		}
		t.Name = *rw + "-" + strings.ToLower(fmtSize(t.BS))
		cfg.Tests = []disk.Test{t}
	} else if bsSet {
		errs = append(errs, errors.New("--bs needs --rw (fix: add --rw randread, or drop --bs for the IOTune set)"))
	}
	if *throttle != "" {
		if cfg.Throttle, err = disk.ParseThrottle(*throttle); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return usage(errors.Join(errs...))
	}
	cfg.Defaults()
	if err := cfg.Validate(); err != nil {
		return usage(err)
	}
	if *out == "" {
		*out = "probe-disk-" + time.Now().Format("20060102-150405") + ".json"
	}
	if err := checkOut(*out, "result", *force); err != nil {
		return err
	}
	opt := disk.Options{
		Tool: result.Tool{Name: "platbench", Version: ToolVersion(), GoVersion: runtime.Version()},
		Progress: func(format string, a ...any) {
			fmt.Fprintf(env.Stderr, "probe: "+format+"\n", a...)
		},
	}
	return probeOutcome(ctx, env, cfg, opt, *out)
}

// probePath parses the flags, which may come before or after PATH, and
// returns PATH.
func probePath(fs *flag.FlagSet, args []string) (string, error) {
	var pos []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(pos) != 1 {
		return "", usagef("give exactly one PATH, got %d (fix: platbench probe disk /var/lib/mydb)", len(pos))
	}
	return pos[0], nil
}

// probeOutcome runs the probe, writes its result to out and its report to
// stdout, and says whether it was interrupted.
func probeOutcome(ctx context.Context, env *Env, cfg disk.Config, opt disk.Options, out string) error {
	res, runErr := disk.Run(ctx, cfg, opt)
	if res == nil {
		return runErr
	}
	if len(res.Phases) == 0 {
		return fmt.Errorf("interrupted before the first test ended; no result written")
	}
	if _, err := disk.Analyze(res); err != nil {
		return err
	}
	if err := result.Write(out, res); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	report.WriteDiskProbe(env.Stdout, res)
	fmt.Fprintf(env.Stdout, "\nresult: %s\n", out)
	if runErr != nil {
		return fmt.Errorf("interrupted; the partial result is in %s", out)
	}
	return nil
}

func fmtSize(n int) string {
	switch {
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dm", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dk", n>>10)
	}
	return fmt.Sprint(n)
}
