package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/report"
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
	// Force replaces the files of an earlier run of the suite in OutDir
	// (every cell's result and seconds file, the summary); without it Run
	// refuses, before any cell runs, when one is there. A journal of a cell
	// that did not finish is refused either way (result.CheckOutputs).
	Force bool
}

// Run runs every cell in order, writing each result as it finishes and the
// summary (summary.md, and summary.json with the rows) at the end. With
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
	return s, writeSummary(s)
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

// runCell runs one cell (round of repeat) and writes its result.
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
	// The cell streams as a run does: its seconds go to a journal beside
	// its result, kept as the result's seconds file once it is written.
	cfg := c.Config
	path := filepath.Join(o.OutDir, file)
	j, err := result.CreateJournal(path + result.JournalSuffix)
	if err != nil {
		row.Error = oneLine(err.Error())
		return row
	}
	cfg.Journal = j
	r, err := run(ctx, cfg)
	written := false
	if r != nil {
		// A cell whose load failed has a result too (the load, with the
		// target's messages): it is written, the cell failed.
		var ferr error
		if o.Force {
			// The old result and its seconds file go first: no moment
			// leaves the old result beside the new seconds.
			ferr = result.RemoveOld(path, result.SecondsPath(path))
		}
		if ferr == nil {
			written, ferr = finishCell(r, c, o.OutDir, file, &row, ths)
		}
		if err == nil {
			err = ferr
		}
	}
	var jerr error
	if written {
		jerr = j.Keep(result.SecondsPath(path))
	} else {
		jerr = j.Close(true) // no result: nothing half-written stays (a killed suite leaves it)
	}
	if err == nil {
		err = jerr
	}
	if err == nil && len(ths) == 0 && !o.AllowErrors {
		if h := analysis.HealthOf(r); h.RunFailed(analysis.DefaultMaxErrors) {
			err = errors.New(report.RunFailureText(h, analysis.DefaultMaxErrors))
		}
	}
	if err != nil {
		row.Error = oneLine(err.Error())
	}
	return row
}

// writeSummary writes summary.md and summary.json into the output directory.
func writeSummary(s *summary.Summary) error {
	var md bytes.Buffer
	if err := report.WriteSuiteMarkdown(&md, s); err != nil {
		return err
	}
	if err := result.WriteFileAtomic(filepath.Join(s.OutDir, "summary.md"), md.Bytes()); err != nil {
		return err
	}
	js, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return err
	}
	return result.WriteFileAtomic(filepath.Join(s.OutDir, "summary.json"), append(js, '\n'))
}

// finishCell analyses a cell's result, writes it and fills its row from the
// analysis: sustained throughput and errors, and the p99 over the steady
// window, overall and per op. written says whether the result file was.
func finishCell(r *result.Result, c *Cell, dir, file string, row *summary.Row, ths []analysis.Threshold) (written bool, err error) {
	a, err := analysis.Analyze(r, analysis.Options{Warmup: c.Config.Warmup})
	if err != nil {
		return false, err
	}
	r.Analysis = a
	if r.Thresholds, err = analysis.Thresholds(r, ths); err != nil {
		return false, err
	}
	row.Thresholds = len(r.Thresholds)
	for _, t := range r.Thresholds {
		if !t.Pass {
			row.ThresholdsFailed = append(row.ThresholdsFailed, t.Expr)
		}
	}
	row.File = file
	if err := result.Write(filepath.Join(dir, row.File), r); err != nil {
		return false, err
	}
	p := r.MainPhase()
	row.Interrupted = p.Interrupted
	row.SustainedOpsPerS = a.Steady.SustainedOpsPerS
	row.Ops, row.Errors = a.Raw.Ops, a.Raw.Errors
	first := a.SteadyState.WarmupIntervals
	if row.P99Ns, err = steadyP99(p, first, ""); err != nil {
		return true, err
	}
	row.OpP99Ns = map[string]int64{}
	for _, t := range p.Ops {
		if row.OpP99Ns[t.Op], err = steadyP99(p, first, t.Op); err != nil {
			return true, err
		}
		row.OpOrder = append(row.OpOrder, t.Op)
	}
	return true, nil
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
