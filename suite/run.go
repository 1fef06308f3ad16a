package suite

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/summary"
)

// Options are how to run a suite.
type Options struct {
	// OutDir receives one <cell>.json per cell, summary.md and summary.json
	// (created). Default: the file's OutDir.
	OutDir string
	// OnCell is called after each cell with its summary row.
	OnCell func(summary.Row)
	// Open opens each cell's target (bench.Config.Open). Required unless
	// Runner is set.
	Open bench.OpenFunc
	// Runner, if set, replaces bench.Run (tests).
	Runner func(ctx context.Context, cfg bench.Config) (*result.Result, error)
	// Configure, if set, may adjust each cell's config before it runs
	// (the CLI sets progress output).
	Configure func(c *Cell)
	// AllowErrors keeps a cell without thresholds in which no operation
	// completed, or more than analysis.DefaultMaxErrors failed, from
	// counting as failed.
	AllowErrors bool
	// FailureText words a cell that failed without thresholds (no
	// operation completed, or more than analysis.DefaultMaxErrors failed)
	// in its row's Error: the CLI gives report.RunFailureText. Default: the
	// counts.
	FailureText func(h analysis.RunHealth, maxErrors float64) string
	// Force replaces the files of an earlier run of the suite in OutDir
	// (every cell's result and seconds file, the summary); without it Run
	// refuses, before any cell runs, when one is there. A journal of a cell
	// that did not finish is refused either way (result.CheckOutputs).
	Force bool
}

// Run runs every cell in order, writing each result as it finishes, and
// returns the summary (the caller renders it and writes it: WriteSummary). With
// repeat: N, it runs N rounds, each every cell once in a fresh random order
// (Rounds), and writes <cell>.rNN.json. A cell that fails is recorded and
// the suite goes on; Ctrl-C stops after writing what ran.
func Run(ctx context.Context, f *File, o Options) (*summary.Summary, error) {
	cells, err := f.Cells()
	if err != nil {
		return nil, err
	}
	if o.OutDir == "" {
		o.OutDir = f.OutDir()
	}
	if err := result.CheckOutputs(Outputs(f, cells, o.OutDir), o.Force, result.OutFlags{Out: "--out directory", Force: "--force"}); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, usererr.New("cannot create the output directory %s: %v (fix: another output directory)", o.OutDir, err)
	}
	run := o.Runner
	if run == nil {
		run = bench.Run
	}
	ths, err := analysis.ParseThresholds(f.Thresholds)
	if err != nil {
		return nil, err
	}
	s := &summary.Summary{Name: f.Name, OutDir: o.OutDir}
	repeat := f.repeats()
	order := [][]int{make([]int, len(cells))}
	for i := range order[0] {
		order[0][i] = i
	}
	if repeat > 1 {
		seed := int64(bench.DefaultSeed)
		if f.Seed != nil {
			seed = *f.Seed
		}
		order = Rounds(repeat, len(cells), uint64(seed))
	}
	for round, cellsOfRound := range order {
		for _, i := range cellsOfRound {
			if ctx.Err() != nil {
				break
			}
			row := runCell(ctx, &cells[i], round, repeat, o, run, ths)
			s.Rows = append(s.Rows, row)
			if o.OnCell != nil {
				o.OnCell(row)
			}
		}
	}
	return s, nil
}

// Outputs are the files a run of the suite f, whose cells are cells,
// writes in dir: each cell's (each round's) result files and the summary.
func Outputs(f *File, cells []Cell, dir string) []result.Output {
	var outs []result.Output
	repeat := f.repeats()
	for round := range repeat {
		for _, c := range cells {
			file := c.Name + ".json"
			if repeat > 1 {
				file = RepeatName(c.Name, round, repeat) + ".json"
			}
			outs = append(outs, result.RunOutputs(filepath.Join(dir, file), false)...)
		}
	}
	return append(outs, result.Output{Path: filepath.Join(dir, "summary.md"), What: "suite summary"},
		result.Output{Path: filepath.Join(dir, "summary.json"), What: "suite summary"})
}

// runCell runs one cell (round of repeat), writing its result
// (bench.Benchmark: the cell streams as a run does, its seconds to a
// journal beside its result, kept as the result's seconds file once it is
// written), and returns its row.
func runCell(ctx context.Context, c *Cell, round, repeat int, o Options, run func(context.Context, bench.Config) (*result.Result, error), ths []analysis.Threshold) summary.Row {
	c.Config.Open = o.Open
	if o.Configure != nil {
		o.Configure(c)
	}
	row := summary.Row{Cell: c.Name, Target: c.Target, Workload: c.Workload, Records: c.Records}
	file := c.Name + ".json"
	if repeat > 1 {
		row.Round = round + 1
		file = RepeatName(c.Name, round, repeat) + ".json"
	}
	var jerr error // the journal's, once the result is written
	out := bench.Output{Path: filepath.Join(o.OutDir, file), Force: o.Force, Run: run,
		Analysis: &analysis.Options{Warmup: c.Config.Warmup}, Thresholds: ths,
		Warn: func(err error) { jerr = cmp.Or(jerr, err) }}
	// A cell whose load failed has a result too (the load, with the
	// target's messages): it is written, the cell failed.
	r, err := bench.Benchmark(ctx, c.Config, out)
	if r != nil {
		row.File = file
		err = cmp.Or(err, fillRow(r, &row))
	}
	err = cmp.Or(err, jerr)
	if err == nil && len(ths) == 0 && !o.AllowErrors {
		if h := analysis.HealthOf(r); h.RunFailed(analysis.DefaultMaxErrors) {
			err = errors.New(o.failureText(h))
		}
	}
	if err != nil {
		row.Error = oneLine(err.Error())
	}
	return row
}

// failureText words a cell that failed without thresholds
// (Options.FailureText).
func (o Options) failureText(h analysis.RunHealth) string {
	if o.FailureText != nil {
		return o.FailureText(h, analysis.DefaultMaxErrors)
	}
	return fmt.Sprintf("the run failed: %d of %d operations failed", h.Failed, h.Completed+h.Failed)
}

// WriteSummary writes the summary of a suite into its output directory:
// summary.md (md, the Markdown the caller rendered: report.WriteSuiteMarkdown)
// and summary.json (the model).
func WriteSummary(s *summary.Summary, md []byte) error {
	if err := result.WriteFileAtomic(filepath.Join(s.OutDir, "summary.md"), md); err != nil {
		return err
	}
	js, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return result.WriteFileAtomic(filepath.Join(s.OutDir, "summary.json"), append(js, '\n'))
}

// fillRow fills a cell's row from its analysed result: thresholds,
// sustained throughput and errors, and the p99 over the steady window,
// overall and per op.
func fillRow(r *result.Result, row *summary.Row) error {
	a := r.Analysis
	row.Thresholds = len(r.Thresholds)
	for _, t := range r.Thresholds {
		if !t.Pass {
			row.ThresholdsFailed = append(row.ThresholdsFailed, t.Expr)
		}
	}
	p := r.MainPhase()
	row.Interrupted = p.Interrupted
	row.SustainedOpsPerS = a.Steady.SustainedOpsPerS
	row.Ops, row.Errors = a.Raw.Ops, a.Raw.Errors
	first := a.SteadyState.WarmupIntervals
	var err error
	if row.P99Ns, err = steadyP99(p, first, ""); err != nil {
		return err
	}
	row.OpP99Ns = map[string]int64{}
	for _, t := range p.Ops {
		if row.OpP99Ns[t.Op], err = steadyP99(p, first, t.Op); err != nil {
			return err
		}
		row.OpOrder = append(row.OpOrder, t.Op)
	}
	return nil
}

// steadyP99 is the p99 of op ("" for all) over the steady window of p
// (intervals from first on): analysis.SteadyLatency, whose rule for files
// without interval histograms every report shares.
func steadyP99(p *result.Phase, first int, op string) (int64, error) {
	var ops []string
	if op != "" {
		ops = []string{op}
	}
	s, err := analysis.SteadyLatency(p, first, ops...)
	if err != nil {
		return 0, fmt.Errorf("phase %s: %w", p.Name, err)
	}
	return s.P99Ns, nil
}
