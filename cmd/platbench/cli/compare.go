package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

var compareFormats = []string{"term", "md", "html", "json"}

const (
	compareArgs    = "A.json B.json ... [--group-by label|platform|target|file] [--baseline GROUP] [--format term|md|html|json] [--out PATH]"
	compareSummary = "Compare groups of runs: the answer first (each group's throughput and p99 against the baseline with\n" +
		"its interval, what limited each group, what makes the comparison unfair), then the tables. Runs are\n" +
		"grouped by label (runs without one by platform, split by target, then by file; the runs of one\n" +
		"--repeat together), a column per group. Each group's centre (geometric mean of its runs) is compared\n" +
		"with the baseline group's: the change, its 95% interval (Welch t-interval on the logs of the run\n" +
		"values) and a verdict, same / different / inconclusive, against --min-effect. With one run on each\n" +
		"side run-to-run noise is unknown: repeat runs (run --repeat N) or give --run-spread. Runs of\n" +
		"different workloads are refused unless --force."
)

func runCompare(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "compare", compareArgs, compareSummary)
	format, out := addOutputFlags(fs, compareFormats)
	groupBy := fs.String("group-by", string(analysis.GroupByLabel), "how runs are grouped: label, platform, target or file")
	baseline := fs.String("baseline", "", "the group the others are compared to: its name, one of its files, or its position (1 = first); default the first")
	minEffect := fs.String("min-effect", "2%", "the smallest difference that matters (`percentage`): an interval within it is the same")
	runSpread := fs.String("run-spread", "", "between-run spread (`percentage`, the coefficient of variation of run values, e.g. 3%) from earlier repeated runs, for comparisons of one run on each side")
	spreadFrom := fs.String("run-spread-from", "", "earlier repeated runs from which each figure's between-run spread is estimated, for comparisons of one run on each side: comma-separated result files of one setup (an A/A set), or history:PATH,... (result files and directories: the runs of each commit, run --commit, are a group; the spread is pooled over them)")
	force := fs.Bool("force", false, "compare runs even when they measured different workloads, and replace the --out file when it exists")
	failIfWorse := fs.String("fail-if-worse", "", "exit status 3 when a group is worse than the baseline by more than this `percentage` (e.g. 5%) on a --fail-on figure and its interval calls the difference real")
	failOn := fs.String("fail-on", strings.Join(analysis.DefaultRegressionFigures, ","), "figures --fail-if-worse judges, comma-separated: sustained, a latency statistic (mean, median, p95, p99, p99.9, max) or OP.STAT (read.p99)")
	aopt := addAnalysisFlags(fs)
	help := groupedUsage(fs, "compare", compareArgs, compareSummary, compareGroups, compareExamples)
	fs.Usage = func() { help(env.Stdout) }
	files, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(files) < 2 {
		return usagef("compare needs at least two result files, got %d", len(files))
	}
	if err := checkFormat(*format, compareFormats); err != nil {
		return err
	}
	for _, f := range files {
		if sameFile(*out, f) {
			return usagef("--out %s is one of the result files; write the comparison to another path", *out)
		}
	}
	if err := checkOut(*out, "comparison", *force); err != nil {
		return err
	}
	limit, err := failLimit(fs, *failIfWorse)
	if err != nil {
		return err
	}
	opt := analysis.CompareOptions{Baseline: *baseline, Force: *force}
	if err := groupFlags(fs, &opt, *groupBy, *minEffect, *runSpread); err != nil {
		return err
	}
	rs, err := readCompared(fs, files, aopt)
	if err != nil {
		return err
	}
	if report.AllDiskProbes(rs) { // their tests side by side, not their last test alone
		return writeOut(env, *out, func(w io.Writer) error { return report.WriteDiskCompare(w, files, rs) })
	}
	if err := spreadFromFlag(fs, &opt, *spreadFrom, aopt); err != nil {
		return err
	}
	c, err := compareRuns(rs, files, opt)
	if err != nil {
		if errors.Is(err, report.ErrDifferentWorkloads) {
			return usagef("%v; compare runs of the same workload, or pass --force to compare anyway", err)
		}
		if usererr.Is(err) {
			return usage(err)
		}
		return err
	}
	var regs []analysis.GroupRegression
	if flagSet(fs, "fail-if-worse") {
		if regs, err = c.Regressions(limit, strings.Split(*failOn, ",")); err != nil {
			return usage(err)
		}
		if err := gateCanTell(c); err != nil {
			return err
		}
	}
	err = writeOut(env, *out, func(w io.Writer) error { return writeCompare(w, *format, c) })
	if err == nil && len(regs) > 0 {
		return &exitError{exitThresholds, report.RegressionsText(c, regs, limit)}
	}
	return err
}

// compareRuns is the comparison of rs (files name them): grouped and
// compared by analysis (analysis.CompareRuns), its figures named and
// formatted by report (report.CompareModelOf), answered by analysis
// (analysis.AnswerOf, from those rows).
func compareRuns(rs []*result.Result, files []string, opt analysis.CompareOptions) (*analysis.CompareModel, error) {
	an, err := analysis.CompareRuns(rs, report.RunKeys(rs, files), opt)
	if err != nil {
		return nil, report.CompareError(rs, files, err)
	}
	c := report.CompareModelOf(rs, an, files)
	c.Answer = analysis.AnswerOf(c)
	return c, nil
}

// gateCanTell refuses --fail-if-worse where a group and the baseline have
// one run each and no between-run spread was given: the gate would judge
// from within-run noise alone, and two runs of one setup differ by more
// than that (it fired on 26 of 56 pairs of identical Redis runs). Passing
// would hide a regression, failing would cry wolf: it asks for runs.
func gateCanTell(c *analysis.CompareModel) error {
	if c.RunSpread > 0 || c.RunSpreadRuns > 0 || c.RunSpreadGroups > 0 || len(c.Groups[c.Baseline].Runs) > 1 {
		return nil
	}
	for gi, g := range c.Groups {
		if gi != c.Baseline && len(g.Runs) == 1 {
			return usagef("--fail-if-worse cannot tell a regression from run-to-run noise with one run of %s against one of %s (fix: repeat each side, e.g. run --repeat 3, or give --run-spread or --run-spread-from)",
				g.Name, c.Groups[c.Baseline].Name)
		}
	}
	return nil
}

// writeCompare writes c in format (term, md, html or json).
func writeCompare(w io.Writer, format string, c *analysis.CompareModel) error {
	switch format {
	case "md":
		return report.WriteCompareMarkdown(w, c)
	case "html":
		return report.WriteCompareHTML(w, c)
	case "json":
		return report.WriteCompareJSON(w, c)
	}
	return report.WriteCompareText(w, c)
}

// readCompared reads the result files named (trimmed), analysed as the
// analysis flags say, side by side (result.ReadFiles).
func readCompared(fs *flag.FlagSet, files []string, aopt *analysis.Options) ([]*result.Result, error) {
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = strings.TrimSpace(f)
	}
	return result.ReadFiles(paths, func(i int, r *result.Result) error {
		if err := analyseFor(fs, r, aopt); err != nil {
			return fmt.Errorf("%s: %w", paths[i], err)
		}
		return nil
	})
}

// spreadFromFlag reads the runs --run-spread-from names into opt: an A/A
// set's (SpreadRuns) or a history's, a group per commit (SpreadGroups).
func spreadFromFlag(fs *flag.FlagSet, opt *analysis.CompareOptions, spreadFrom string, aopt *analysis.Options) error {
	if !flagSet(fs, "run-spread-from") {
		return nil
	}
	if flagSet(fs, "run-spread") {
		return usagef("--run-spread and --run-spread-from both give the between-run spread; give one")
	}
	fromHistory, paths, err := parseSpreadFrom(spreadFrom)
	if err != nil {
		return err
	}
	if fromHistory {
		opt.SpreadGroups, err = readHistorySpread(fs, paths, aopt)
	} else {
		opt.SpreadRuns, err = readCompared(fs, paths, aopt)
	}
	return err
}

// historyPrefix marks a --run-spread-from of a history's runs.
const historyPrefix = "history:"

// parseSpreadFrom reads --run-spread-from: comma-separated result files
// (an A/A set), or history: and result files or directories of a
// history's runs.
func parseSpreadFrom(s string) (fromHistory bool, paths []string, err error) {
	rest, fromHistory := strings.CutPrefix(strings.TrimSpace(s), historyPrefix)
	for p := range strings.SplitSeq(rest, ",") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, historyPrefix) {
			return false, nil, usagef("--run-spread-from %q: an empty path or a history: inside the list (fix: comma-separated result files of one setup, or history:PATH,... for a history's results)", s)
		}
		paths = append(paths, p)
	}
	return fromHistory, paths, nil
}

// readHistorySpread reads the runs of a history (result files and
// directories, analysed as the analysis flags say) that repeat a commit,
// in a group per commit and setup (analysis.CommitGroups).
func readHistorySpread(fs *flag.FlagSet, paths []string, aopt *analysis.Options) ([][]*result.Result, error) {
	var rs []*result.Result
	read := 0
	_, err := history.Results(paths, func(path string, r *result.Result) error {
		read++
		if r.Commit == "" {
			return nil // not a run of a known version: it is let go at once
		}
		if err := analyseFor(fs, r, aopt); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		rs = append(rs, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	groups := analysis.CommitGroups(rs)
	if len(groups) == 0 {
		return nil, usagef("--run-spread-from %s%s: no commit was run twice in one setup among its %d results (%d with a commit), so they cannot measure run-to-run noise (fix: repeat runs of one commit, run --commit C --repeat 3, or give an A/A set of result files)",
			historyPrefix, strings.Join(paths, ","), read, len(rs))
	}
	return groups, nil
}

// groupFlags reads --group-by, --min-effect and --run-spread into opt.
func groupFlags(fs *flag.FlagSet, opt *analysis.CompareOptions, groupBy, minEffect, runSpread string) error {
	var err error
	if opt.GroupBy, err = analysis.ParseGroupBy(groupBy); err != nil {
		return usage(err)
	}
	if opt.MinEffect, err = percentFlag("min-effect", minEffect); err != nil {
		return err
	}
	if flagSet(fs, "run-spread") {
		if opt.RunSpread, err = percentFlag("run-spread", runSpread); err != nil {
			return err
		}
	}
	return nil
}

// percentFlag reads a positive percentage below 100%, with or without its %.
func percentFlag(name, s string) (float64, error) {
	t := strings.TrimSpace(s)
	if !strings.HasSuffix(t, "%") {
		t += "%"
	}
	v, err := units.ParsePercent(t)
	if err != nil || v <= 0 || v >= 1 {
		return 0, usagef("--%s %q is not a percentage between 0 and 100 (fix: e.g. 2%%)", name, s)
	}
	return v, nil
}

// failLimit reads --fail-if-worse: a percentage, with or without its %.
func failLimit(fs *flag.FlagSet, s string) (float64, error) {
	if !flagSet(fs, "fail-if-worse") {
		return 0, nil
	}
	t := strings.TrimSpace(s)
	if !strings.HasSuffix(t, "%") {
		t += "%"
	}
	v, err := units.ParsePercent(t)
	if err != nil || v <= 0 {
		return 0, usagef("--fail-if-worse %q is not a positive percentage (fix: e.g. 5%%)", s)
	}
	return v, nil
}
