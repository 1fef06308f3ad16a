package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result/summary"
	"github.com/platbench/platbench/suite"
)

func runSuite(ctx context.Context, env *Env, args []string) error {
	if wantsSuiteCompare(args) {
		return runSuiteCompare(ctx, env, args)
	}
	fs := newFlags(env, "suite", "FILE.yaml [flags]", "Run a matrix of benchmarks (workloads x dataset sizes x targets, with common run settings) described in a YAML file: one result file per cell and a summary (summary.md) in the output directory. See examples/suites/datastax-ratios.yaml and examples/seeds/. 'platbench suite FILE.yaml --compare DIR [DIR...]' prints the tables of runs of it instead (one directory: each cell's figures; several: each cell compared across them).")
	out := fs.String("out", "", "output directory (default: the suite's out field, else <name>-results next to the file); results of an earlier run there are refused unless --force")
	force := fs.Bool("force", false, "replace the results and summary of an earlier run in the output directory (a journal of a cell that did not finish is never replaced)")
	dry := fs.Bool("dry-run", false, "list the cells and exit")
	scale := fs.Float64("scale", 0, "size the suite by this factor, overriding the file's scale: records, ops, duration, a warm-up duration and a fixed rate are multiplied by it (e.g. 0.001 runs a study written at full size in minutes; default the file's, else 1)")
	quiet := fs.Bool("quiet", false, "no progress output")
	var thresholds listFlag
	fs.Var(&thresholds, "threshold", "pass/fail rule every cell is judged by, added to the file's thresholds: e.g. p99<10ms (repeatable; see 'platbench run --help'); exit status 3 when a cell fails one")
	store := fs.String("store", "", storeFlagDoc)
	validate := fs.Bool("validate", false, validateFlagDoc)
	tflags := addSuiteTargetFlags(fs)
	allowErrors := fs.Bool("allow-errors", false, "without thresholds, a cell in which no operation completed or more than half failed is not a failed cell")
	file, err := suiteFile(fs, args)
	if err != nil {
		return err
	}
	if err := checkStore(*store); err != nil {
		return err
	}
	f, err := suite.Load(file)
	if err != nil {
		return err
	}
	if _, err := analysis.ParseThresholds(thresholds); err != nil {
		return usage(err)
	}
	if flagSet(fs, "scale") {
		if err := f.SetScale(*scale); err != nil {
			return usagef("--%v", err)
		}
	}
	if err := tflags.apply(f); err != nil {
		return err
	}
	f.Thresholds = append(f.Thresholds, thresholds...)
	cells, err := f.Cells()
	if err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = f.OutDir()
	}
	if *dry {
		printCells(env, f, cells, dir)
		return nil
	}
	bench.Version = ToolVersion()
	o := suite.Options{OutDir: dir, AllowErrors: *allowErrors, Open: registry.Open, Force: *force, FailureText: report.RunFailureText}
	if !*quiet {
		suiteProgress(env, &o, len(cells))
	}
	if *validate {
		o.Configure = checkValues(o.Configure)
	}
	s, err := suite.Run(ctx, f, o)
	if err != nil {
		return err
	}
	if err := writeSuiteSummary(s); err != nil {
		return err
	}
	return suiteOutcome(ctx, env, s, *store)
}

// suiteProgress makes o say each cell as it starts ("cell 3/12 NAME"),
// show its progress, and name a cell that failed.
func suiteProgress(env *Env, o *suite.Options, cells int) {
	n := 0
	o.Configure = func(c *suite.Cell) {
		n++
		fmt.Fprintf(env.Stderr, "cell %d/%d %s\n", n, cells, c.Name)
		c.Config.Runner.Progress = newProgress(env, c.Config, nil)
	}
	o.OnCell = func(r summary.Row) {
		if env.IsTTY {
			fmt.Fprint(env.Stderr, "\r\033[K")
		}
		if r.Error != "" {
			fmt.Fprintf(env.Stderr, "cell %s FAILED: %s\n", r.Cell, r.Error)
		}
	}
}

// writeSuiteSummary writes summary.md (report.WriteSuiteMarkdown) and
// summary.json into the suite's output directory.
func writeSuiteSummary(s *summary.Summary) error {
	var md bytes.Buffer
	if err := report.WriteSuiteMarkdown(&md, s); err != nil {
		return err
	}
	return suite.WriteSummary(s, md.Bytes())
}

// suiteFile parses the flags, which may come before or after FILE, and
// returns FILE.
func suiteFile(fs *flag.FlagSet, args []string) (string, error) {
	var file string
	rest := args
	for {
		if err := parseFlags(fs, rest); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		if file != "" {
			return "", usagef("unexpected argument %q (one suite file per command)", fs.Arg(0))
		}
		file, rest = fs.Arg(0), fs.Args()[1:]
	}
	if file == "" {
		return "", usagef("no suite file (fix: platbench suite FILE.yaml)")
	}
	return file, nil
}

// suiteOutcome prints the summary, stores it (--store) and says how the
// suite went: interrupted, cells failed, thresholds failed, or nil.
func suiteOutcome(ctx context.Context, env *Env, s *summary.Summary, store string) error {
	if err := report.WriteSuiteText(env.Stdout, s); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "\nsummary  : %s/summary.md\n", s.OutDir)
	if err := storeSuite(ctx, store, s); err != nil {
		if s.Failed() == 0 && s.ThresholdsFailed() == 0 && ctx.Err() == nil {
			return &exitError{exitFailed, err.Error()}
		}
		fmt.Fprintf(env.Stderr, "platbench suite: %v\n", err)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted: the results of the cells that ran and the summary were written")
	}
	if k := s.Failed(); k > 0 {
		return fmt.Errorf("%d of %d cells failed (see the summary)", k, len(s.Rows))
	}
	if k := s.ThresholdsFailed(); k > 0 {
		return &exitError{exitThresholds, fmt.Sprintf("%d of %d cells failed a threshold (see the summary)", k, len(s.Rows))}
	}
	return nil
}

// checkValues makes every cell a checked workload (--validate) before
// configure (if any) sees it.
func checkValues(configure func(*suite.Cell)) func(*suite.Cell) {
	return func(c *suite.Cell) {
		c.Config.Workload.CheckValues = true
		if configure != nil {
			configure(c)
		}
	}
}

// printCells lists the cells (--dry-run).
func printCells(env *Env, f *suite.File, cells []suite.Cell, dir string) {
	fmt.Fprintf(env.Stdout, "Suite %s: %d cells, results in %s\n", f.Name, len(cells), dir)
	for _, c := range cells {
		fmt.Fprintf(env.Stdout, "  %-40s %s, workload %s (%s), %s records, %s\n", c.Name, c.Config.Target, c.Workload, c.Config.Workload.MixString(), units.Int(float64(c.Records)), cellLength(c.Config))
	}
}

// cellLength says how long and how hard a cell runs, for --dry-run.
func cellLength(c bench.Config) string {
	s := fmt.Sprintf("%s, %d workers", c.Runner.Duration, c.Runner.Concurrency)
	if c.Runner.Ops > 0 {
		s = fmt.Sprintf("%s ops, %d workers", units.Int(float64(c.Runner.Ops)), c.Runner.Concurrency)
	}
	if c.Runner.Rate > 0 {
		s += ", " + units.Compact(c.Runner.Rate) + " ops/s"
	}
	return s
}
