package cli

import (
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

// printTerm is the terminal report: the seed-shaped summary, then the analysis.
func printTerm(w io.Writer, r *result.Result) error {
	if err := report.WriteTerm(w, r); err != nil {
		return err
	}
	if r.Sweep != nil {
		fmt.Fprintln(w)
		if err := report.WriteSweepText(w, r); err != nil {
			return err
		}
	}
	if len(r.Events) > 0 {
		fmt.Fprintln(w)
		if err := report.WriteEventsText(w, r, analysis.EventImpacts(r)); err != nil {
			return err
		}
	}
	if r.Verification != nil {
		fmt.Fprintln(w)
		if err := report.WriteVerificationText(w, r); err != nil {
			return err
		}
	}
	if r.Host != nil {
		fmt.Fprintln(w)
		report.WriteHostText(w, r)
	}
	if len(r.Nodes) > 0 {
		fmt.Fprintln(w)
		report.WriteNodesText(w, r)
	}
	if r.DBMetrics != nil {
		fmt.Fprintln(w)
		report.WriteDBMetricsText(w, r)
	}
	// Counters of the server or of the whole machine were asked for by name
	// (as seed 000 ran perf stat on Cassandra): show them in full.
	if c := r.Counters; c != nil && (c.Scope == "server" || c.Scope == "system") {
		report.WritePerfStat(w, c)
	}
	if r.Analysis != nil {
		fmt.Fprintln(w)
		if err := report.WriteAnalysisText(w, r, r.Analysis); err != nil {
			return err
		}
	}
	if len(r.Thresholds) > 0 {
		fmt.Fprintln(w)
		return report.WriteThresholdsText(w, r)
	}
	return nil
}

// showProgress prints the load's plan before it starts and a progress line
// while each phase runs.
func showProgress(env *Env, cfg *bench.Config) {
	var loadTotal atomic.Uint64
	cfg.OnLoadPlan = func(p analysis.LoadPlan) {
		loadTotal.Store(p.Records)
		fmt.Fprintln(env.Stderr, report.LoadPlanText(p))
	}
	cfg.Runner.Progress = newProgress(env, *cfg, &loadTotal)
}

// newProgress returns the runner's progress callback: a live line on a
// terminal, a plain line every 10 s when stderr is piped.
func newProgress(env *Env, cfg bench.Config, loadTotal *atomic.Uint64) func(string, recorder.Live, time.Duration) {
	var total time.Duration
	if cfg.Runner.Duration > 0 {
		total = cfg.Runner.Duration
	}
	return func(phase string, l recorder.Live, elapsed time.Duration) {
		secs := elapsed.Round(time.Second)
		pos := secs.String()
		if phase == "run" && total > 0 {
			pos += "/" + total.String()
		}
		line := fmt.Sprintf("%-4s %-9s %s  p99 %s  ops %s  errors %s", phase, pos, units.OpsPerSec(l.OpsPerSec()), units.Latency(float64(l.P99Ns)), units.Int(float64(l.TotalCount)), units.Int(float64(l.TotalErrors)))
		if phase == "load" && loadTotal != nil {
			line += report.LoadProgressText(l.TotalCount+l.TotalErrors, loadTotal.Load(), elapsed)
		}
		if env.IsTTY {
			fmt.Fprintf(env.Stderr, "\r\033[K%s", line)
		} else if int(secs.Seconds())%10 == 0 {
			fmt.Fprintln(env.Stderr, line)
		}
	}
}
