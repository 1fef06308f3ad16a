package cli

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/summary"
	"github.com/platbench/platbench/store/postgres"
)

var historyFormats = []string{"term", "md", "html", "json"}

func runHistory(ctx context.Context, env *Env, args []string) error {
	fs := newFlags(env, "history", "RESULTS... [--store postgres://...] [--figures LIST] [--format term|md|html|json] [--out PATH]",
		"The history of runs and the changes in it: result files (or directories of them) and the rows of a\n"+
			"--store, grouped by workload, target and label; the series of each figure over time; and its change\n"+
			"points by E-divisive means with a t-test, as Apache Otava finds them (docs/history.md). Each change\n"+
			"is printed with its time, the mean before and after, the relative change and the p-value.")
	format, out := addOutputFlags(fs, historyFormats)
	force := fs.Bool("force", false, "replace the --out file when it exists (without it an existing file is refused)")
	figures := fs.String("figures", analysis.DefaultHistoryMetrics, "figures to follow, comma-separated [op.]FIGURE (*.FIGURE: each op type): sustained, peak, errors, a latency (mean, p50, p90, p95, p99, p99.9, max; service. or lag. before it), stalls, stalled, delayed, cv, cost ($ per million ops)")
	store := fs.String("store", "", "also read the runs stored in this PostgreSQL `URL` by run/sweep/suite --store")
	window := fs.Int("window", analysis.DefaultChangePointOptions.Window, "the detector's sliding window, in runs (Otava's --window)")
	pvalue := fs.Float64("pvalue", analysis.DefaultChangePointOptions.MaxPValue, "the significance level a change must reach (Otava's --p-value)")
	minChange := fs.String("min-change", "0%", "the smallest relative change reported, a `percentage` such as 5% (Otava's --magnitude)")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(paths) == 0 && *store == "" {
		return usagef("history needs result files, directories of them, or --store")
	}
	if err := checkFormat(*format, historyFormats); err != nil {
		return err
	}
	if err := checkOut(*out, "history report", *force); err != nil {
		return err
	}
	if *window < 2 {
		return usagef("--window %d is too short (fix: at least 2 runs; Otava's default is 50)", *window)
	}
	if !(*pvalue > 0 && *pvalue < 1) {
		return usagef("--pvalue %v is not a probability (fix: between 0 and 1, e.g. 0.001)", *pvalue)
	}
	minMag, err := units.ParsePercent(*minChange)
	if err != nil || minMag < 0 {
		return usagef("--min-change %q is not a percentage (fix: e.g. 5%%, or 0%% for every change)", *minChange)
	}
	ms, err := analysis.ParseMetrics(*figures)
	if err != nil {
		return usage(err)
	}
	if *store != "" {
		if err := postgres.ParseURL(*store); err != nil {
			return usage(err)
		}
	}
	runs, skipped, err := history.ReadFiles(paths, ms)
	if err != nil {
		return err
	}
	if *store != "" {
		rows, err := postgres.Rows(ctx, *store)
		if err != nil {
			return fmt.Errorf("reading the store: %w", err)
		}
		runs = append(runs, history.RunsOfRows(rows, ms)...)
	}
	h := history.Build(runs, history.Options{Metrics: ms,
		ChangePoints: analysis.ChangePointOptions{Window: *window, MaxPValue: *pvalue, MinMagnitude: minMag}})
	h.Skipped = skipped
	return writeOut(env, *out, func(w io.Writer) error {
		switch *format {
		case "md":
			return report.WriteHistoryMarkdown(w, h)
		case "html":
			return report.WriteHistoryHTML(w, h)
		case "json":
			return report.WriteHistoryJSON(w, h)
		}
		return report.WriteHistoryText(w, h)
	})
}

// storeRows appends the rows of a result to the --store (nothing without
// one). A store that fails leaves the result file as it is: the error says
// the row was not stored.
func storeRows(ctx context.Context, store string, r *result.Result, path string) error {
	if store == "" || r == nil {
		return nil
	}
	rows, err := history.RowsOf(r, path)
	if err == nil {
		err = postgres.Append(ctx, store, rows)
	}
	if err != nil {
		return fmt.Errorf("the run's rows were not stored in --store (the result file %s was written): %v", path, err)
	}
	return nil
}

const storeFlagDoc = "append one row per run and op type (figures, thresholds, the result file) to this PostgreSQL `URL`'s table platbench_runs, e.g. postgres://user@db:5432/perf, the password in $PGPASSWORD or ~/.pgpass, kept off the command line (docs/history.md); the result file is written even when the store is down"

// checkStore refuses a --store that is not a PostgreSQL URL, before the run.
func checkStore(store string) error {
	if store == "" {
		return nil
	}
	return usage(postgres.ParseURL(store))
}

// stored appends the rows of the run b judged last to --store, after its
// result file was written. A store that fails turns a passing run into a
// failed one (exit 1); a run that already failed keeps its own status and
// the store's error is printed.
func (b *benchFlags) stored(ctx context.Context, runErr error) error {
	if b.store == "" || b.last == nil {
		return runErr
	}
	path := b.lastPath
	err := storeRows(context.WithoutCancel(ctx), b.store, b.last, path)
	if err == nil {
		return runErr
	}
	if runErr != nil {
		fmt.Fprintf(b.stderr, "platbench: %v\n", err)
		return runErr
	}
	return &exitError{exitFailed, err.Error()}
}

// storeSuite appends the rows of every cell that wrote a result to --store.
func storeSuite(ctx context.Context, store string, s *summary.Summary) error {
	if store == "" {
		return nil
	}
	for _, row := range s.Rows {
		if row.File == "" {
			continue
		}
		path := filepath.Join(s.OutDir, row.File)
		r, err := result.Read(path)
		if err != nil {
			return fmt.Errorf("the cells' rows were not stored in --store: %v", err)
		}
		if err := storeRows(context.WithoutCancel(ctx), store, r, path); err != nil {
			return err
		}
	}
	return nil
}
