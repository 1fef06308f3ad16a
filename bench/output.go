package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Output is where the result of one benchmark goes and what is done to it
// before it is written (Benchmark): the result file at Path with its
// seconds file and, with Hlog, its .hlog, under the rule every file
// platbench writes follows (result/outfile.go: checked before anything
// runs, never replaced silently, a journal never replaced at all).
type Output struct {
	// Path is the result file. "-" writes no file: the run's journal is a
	// temporary file, removed once Done returns, and Done has the result
	// (the CLI prints its JSON).
	Path string
	// Force replaces the result, its .hlog and its seconds file when they
	// exist: they are removed once the new result is ready, before it is
	// written (a failed write then leaves the journal, not the old result).
	// Never a journal's files.
	Force bool
	// Hlog writes the result's HdrHistogram log (.hlog): a run phase's is
	// written as it runs, beside the journal, and renamed into place once
	// the result is; any other (a load only, a merged result) is written
	// from the result. A suite cell and a sweep write none.
	Hlog bool
	// Analysis, if set, analyses the result (analysis.Analyze) before it
	// is written, into Result.Analysis.
	Analysis *analysis.Options
	// Thresholds are evaluated on the result (analysis.Thresholds, into
	// Result.Thresholds) before it is written.
	Thresholds []analysis.Threshold
	// Run, if set, replaces Run: what produces the result, given the
	// config with its Journal set (a sweep's steps; a distributed run's
	// hand-over to loader 0; tests). A nil result means nothing ran.
	Run func(ctx context.Context, cfg Config) (*result.Result, error)
	// SecondsAs, if set, names the seconds file the journal becomes once
	// the result is written, instead of result.SecondsPath(Path).
	SecondsAs func() string
	// Done, if set, is called once the result is written (with Path "-",
	// once it is ready), before the journal becomes its seconds file: the
	// CLI prints the report there. Its error is Benchmark's.
	Done func(r *result.Result, f Files) error
	// Warn, if set, hears what went wrong without failing the result: a
	// journal that could not be kept, a .hlog that could not be written.
	Warn func(error)
}

// Files are the files Benchmark wrote: the result, its .hlog ("" without
// one) and its seconds file ("" when none is kept beside it: a run of no
// journal, a merged result without the loaders' seconds).
type Files struct {
	Result, Hlog, Seconds string
}

// Outputs are the files the benchmark writes at o.Path (result.RunOutputs).
func (o Output) Outputs() []result.Output {
	return result.RunOutputs(o.Path, o.Hlog)
}

// Check refuses, before anything runs, an output that would replace a file
// (result.CheckOutputs: without Force, any of o.Outputs and extra that
// exists; with it, a journal's) or whose directory cannot take a file; fl
// names the caller's options in the fix. Path "-" writes no file.
func (o Output) Check(fl result.OutFlags, extra ...result.Output) error {
	if o.Path == "-" {
		return nil
	}
	if err := result.CheckOutputs(append(o.Outputs(), extra...), o.Force, fl); err != nil {
		return err
	}
	return checkWritable(o.Path, fl.Out)
}

// checkWritable refuses, as bad input, a path whose directory cannot take
// a file: missing, not a directory, not writable.
func checkWritable(path, out string) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, ".platbench-check-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err // not the probe's own name
		}
		return usererr.New("cannot write the result to %s: its directory %s: %v (fix: another %s)", path, dir, err, out)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// DefaultPath names the result of a benchmark nobody named: prefix, the
// target's kind, the workload and the time, in the current directory
// (platbench-embedded-ycsb-a-20261122-100000.json).
func DefaultPath(prefix string, cfg Config, at time.Time) string {
	return fmt.Sprintf("%s-%s-%s-%s.json", prefix, sanitize(targetKind(cfg.Target)), sanitize(cfg.Workload.Name), at.Format("20060102-150405"))
}

// targetKind is a target URL's scheme, or the target's name.
func targetKind(t string) string {
	if i := strings.Index(t, "://"); i >= 0 {
		return t[:i]
	}
	return t
}

// sanitize keeps s to letters, digits, '-' and '_' (a file name's part).
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

// Benchmark runs one benchmark end to end and owns its files: it opens the
// run's journal beside o.Path (RESULT.partial: what a run killed at any
// moment leaves, readable by report and compare) and, with o.Hlog, the run
// phase's .hlog beside it; runs cfg (Run, or o.Run); analyses the result
// and judges its thresholds; writes the result (replacing the old files
// first with o.Force) and its .hlog; calls o.Done; and moves the journal
// beside the result as its seconds file. Call o.Check first.
//
// It returns the result once it is written (with Path "-", ready), with
// the run's own error, if any, that still left a result (an interrupted
// verification, a loader missing from a merge): a nil result comes with
// the error that kept it from being written. A result that could not be
// written leaves its journal (and the .hlog beside it) in place.
func Benchmark(ctx context.Context, cfg Config, o Output) (*result.Result, error) {
	run := o.Run
	if run == nil {
		run = Run
	}
	jl, err := openJournal(o, &cfg)
	if err != nil {
		return nil, err
	}
	written, ran := false, true
	defer func() { jl.close(written, ran) }()
	r, runErr := run(ctx, cfg)
	if r == nil {
		ran = false // nothing ran: no journal to keep
		return nil, runErr
	}
	if err := o.complete(r); err != nil {
		return nil, err
	}
	f := Files{}
	if o.Path != "-" {
		if f, err = jl.write(r); err != nil {
			return nil, err
		}
		written = true
	}
	if o.Done != nil {
		if err := o.Done(r, f); err != nil {
			return r, err
		}
	}
	return r, runErr
}

// complete analyses r (o.Analysis) and judges its thresholds.
func (o Output) complete(r *result.Result) error {
	if o.Analysis != nil {
		a, err := analysis.Analyze(r, *o.Analysis)
		if err != nil {
			return err
		}
		r.Analysis = a
	}
	var err error
	r.Thresholds, err = analysis.Thresholds(r, o.Thresholds)
	return err
}

// warn tells o.Warn.
func (o Output) warn(err error) {
	if o.Warn != nil && err != nil {
		o.Warn(err)
	}
}
