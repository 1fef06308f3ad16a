package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result/summary"
	"github.com/platbench/platbench/suite"
)

// wantsSuiteCompare says whether the suite command's arguments ask for
// its tables (--compare) rather than a run.
func wantsSuiteCompare(args []string) bool {
	return slices.Contains(args, "--compare") || slices.Contains(args, "-compare")
}

const suiteCompareArgs = "FILE.yaml --compare DIR [DIR...] [--min-effect P] [--run-spread P] [cost flags]"

// runSuiteCompare prints the seed tables of suite runs: with one output
// directory each cell's figures in the seed reports' shape (report.
// WriteSeedTable); with several, each cell compared across them, a column
// per directory (a platform), the baseline the first (report.
// WriteSeedCompare).
func runSuiteCompare(_ context.Context, env *Env, args []string) error {
	fs := newFlags(env, "suite", suiteCompareArgs, "Print the tables of runs of a suite: with one output directory each cell's figures as the seed reports give them; with several (the same suite run on several platforms, e.g. with --target and --out), each cell compared across them: a column per directory, the change against the first with its 95% interval, the headline and what limited each side.")
	fs.Bool("compare", true, "print the tables of the output directories named after the suite file (runs nothing)")
	minEffect := fs.String("min-effect", "2%", "the smallest difference that matters (`percentage`): an interval within it is the same")
	runSpread := fs.String("run-spread", "", "between-run spread (`percentage`) for cells with one run on each side")
	aopt := addAnalysisFlags(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 {
		return usagef("--compare needs the suite file and at least one output directory (fix: platbench suite %s)", suiteCompareArgs)
	}
	f, err := suite.Load(pos[0])
	if err != nil {
		return err
	}
	dirs := pos[1:]
	sums := make([]*summary.Summary, len(dirs))
	for i, d := range dirs {
		if sums[i], err = readSuiteSummary(d, f.Name); err != nil {
			return err
		}
	}
	opt := analysis.CompareOptions{}
	if err := groupFlags(fs, &opt, string(analysis.GroupByLabel), *minEffect, *runSpread); err != nil {
		return err
	}
	for _, cell := range suiteCellNames(sums) {
		if err := suiteCellTable(env, fs, cell, dirs, sums, opt, aopt); err != nil {
			return err
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}

// readSuiteSummary reads DIR/summary.json, the outcome of a run of suite name.
func readSuiteSummary(dir, name string) (*summary.Summary, error) {
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, usagef("%s is not the output directory of a suite run: %v (fix: the --out directory of 'platbench suite FILE')", dir, err)
	}
	var s summary.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, usagef("%s/summary.json is no suite summary (%v)", dir, err)
	}
	if s.Name != name {
		return nil, usagef("%s holds a run of suite %q, not of %q (fix: the output directories of this suite's runs)", dir, s.Name, name)
	}
	return &s, nil
}

// suiteCellNames are the cells of the summaries, in the first's order, each once.
func suiteCellNames(sums []*summary.Summary) []string {
	var out []string
	for _, s := range sums {
		for _, r := range s.Rows {
			if !slices.Contains(out, r.Cell) {
				out = append(out, r.Cell)
			}
		}
	}
	return out
}

// suiteCellTable prints one cell's table: its figures (one directory) or
// its comparison across the directories, each directory's runs labelled
// with the directory's name.
func suiteCellTable(env *Env, fs *flag.FlagSet, cell string, dirs []string, sums []*summary.Summary, opt analysis.CompareOptions, aopt *analysis.Options) error {
	var files, labels, failed []string
	for i, s := range sums {
		for _, r := range s.Rows {
			switch {
			case r.Cell != cell:
			case r.Error != "" || r.File == "":
				// A failed cell's result (a load that failed) measured
				// something else: it is named, not compared.
				failed = append(failed, fmt.Sprintf("  %s: the cell failed: %s", dirLabel(dirs, i), r.Error))
			default:
				files = append(files, filepath.Join(dirs[i], r.File))
				labels = append(labels, dirLabel(dirs, i))
			}
		}
	}
	if len(files) == 0 || (len(dirs) > 1 && len(failed) > 0) {
		fmt.Fprintf(env.Stdout, "%s\n%s\n", cell, strings.Join(failed, "\n"))
		return nil
	}
	rs, err := readCompared(fs, files, aopt)
	if err != nil {
		return err
	}
	if len(dirs) == 1 {
		for i, r := range rs {
			s, err := analysis.SeedFiguresOf(r)
			if err != nil {
				return fmt.Errorf("%s: %w", files[i], err)
			}
			if err := report.WriteSeedTable(env.Stdout, cell+" ("+files[i]+")", s); err != nil {
				return err
			}
		}
		return nil
	}
	for i, r := range rs {
		r.Label = labels[i]
	}
	c, err := compareRuns(rs, files, opt)
	if err != nil {
		return fmt.Errorf("cell %s: %w", cell, err)
	}
	return report.WriteSeedCompare(env.Stdout, cell, c)
}

// dirLabel names directory i's runs in a comparison: its base name, with
// its position when another directory has the same base name.
func dirLabel(dirs []string, i int) string {
	base := filepath.Base(filepath.Clean(dirs[i]))
	for j, d := range dirs {
		if j != i && filepath.Base(filepath.Clean(d)) == base {
			return fmt.Sprintf("%s#%d", base, i+1)
		}
	}
	return base
}
