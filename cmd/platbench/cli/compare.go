package cli

import (
	"context"
	"errors"
	"flag"
	"io"
	"strconv"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

var compareFormats = []string{"term", "md", "html", "json"}

func runCompare(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "compare", "A.json B.json ... [--baseline A.json] [--format term|md|html|json] [--out PATH]",
		"Compare runs side by side: a column per run labelled by its platform, a row per figure, each run's\n"+
			"ratio to the baseline (\"better by 4.0x\") and whether the difference is larger than run-to-run\n"+
			"noise (Welch t-test on the per-second values with autocorrelation-corrected sample sizes).\n"+
			"Runs of different workloads are refused unless --force.")
	format, out := addOutputFlags(fs, compareFormats)
	baseline := fs.String("baseline", "", "the run the others are compared to: its file name as given, its label, or its position (1 = first); default the first")
	force := fs.Bool("force", false, "compare runs even when they measured different workloads")
	failIfWorse := fs.String("fail-if-worse", "", "exit status 3 when a run is worse than the baseline by more than this `percentage` (e.g. 5%) on a --fail-on figure and the noise test calls the difference real")
	failOn := fs.String("fail-on", strings.Join(analysis.DefaultRegressionFigures, ","), "figures --fail-if-worse judges, comma-separated: sustained, a latency statistic (mean, median, p95, p99, p99.9, max) or OP.STAT (read.p99)")
	aopt := addAnalysisFlags(fs)
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
	limit, err := failLimit(fs, *failIfWorse)
	if err != nil {
		return err
	}
	rs := make([]*result.Result, len(files))
	for i, f := range files {
		r, err := readAnalysed(fs, f, aopt)
		if err != nil {
			return err
		}
		rs[i] = r
	}
	base, err := pickBaseline(*baseline, files, rs)
	if err != nil {
		return err
	}
	c, err := report.Compare(rs, report.CompareOptions{Files: files, Baseline: base, Force: *force})
	if err != nil {
		if errors.Is(err, report.ErrDifferentWorkloads) {
			return usagef("%v; compare runs of the same workload, or pass --force to compare anyway", err)
		}
		return err
	}
	var regs []analysis.Regression
	if flagSet(fs, "fail-if-worse") {
		if regs, err = c.Regressions(limit, strings.Split(*failOn, ",")); err != nil {
			return usage(err)
		}
	}
	err = writeOut(env, *out, func(w io.Writer) error {
		switch *format {
		case "md":
			return report.WriteCompareMarkdown(w, c)
		case "html":
			return report.WriteCompareHTML(w, c)
		case "json":
			return report.WriteCompareJSON(w, c)
		}
		return report.WriteCompareText(w, c)
	})
	if err == nil && len(regs) > 0 {
		return &exitError{exitThresholds, report.RegressionsText(c, regs, limit)}
	}
	return err
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

// pickBaseline resolves --baseline: a file as given, a run's label, or a 1-based position.
func pickBaseline(s string, files []string, rs []*result.Result) (int, error) {
	if s == "" {
		return 0, nil
	}
	for i, f := range files {
		if f == s {
			return i, nil
		}
	}
	for i, r := range rs {
		if report.Label(r) == s {
			return i, nil
		}
	}
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(files) {
		return n - 1, nil
	}
	return 0, usagef("--baseline %q is none of the files, labels or positions 1..%d given", s, len(files))
}
