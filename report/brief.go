package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteBrief prints a run in a few lines, for --quiet and for the rounds of
// run --repeat: the headline (an outage or lost writes first), what limited
// it, the verification and the thresholds' outcome. The full report is
// `platbench report FILE`.
func WriteBrief(w io.Writer, r *result.Result) error {
	u, err := newRun(r)
	if err != nil {
		return err
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "%s\n", headline(u))
	if ls := limitLines(u.a); len(ls) > 0 {
		writeLabelled(ew, ls[:1]) // the limit alone; the report has the rest
	}
	if v := analysis.VerificationOf(r); v != nil {
		fmt.Fprintf(ew, "verified  : %s\n", verificationText(v))
	}
	if n := len(r.Thresholds); n > 0 {
		if r.Aborted != nil {
			fmt.Fprintf(ew, "%s\n", abortText(r.Aborted))
		}
		var failed []string
		for _, o := range r.Thresholds {
			if !o.Pass {
				failed = append(failed, o.Expr)
			}
		}
		line := fmt.Sprintf("thresholds: %d of %d passed", n-len(failed), n)
		if len(failed) > 0 {
			line += "; failed: " + strings.Join(failed, ", ")
		}
		fmt.Fprintln(ew, line)
	}
	return ew.err
}

// WriteRepeatSummary prints one summary of the runs of run --repeat: each
// run's sustained throughput and p99 and their spread, the limit most runs
// had, and the command that compares them with another group.
func WriteRepeatSummary(w io.Writer, rs []*result.Result, files []string) error {
	ew := &errWriter{w: w}
	if len(rs) == 0 {
		fmt.Fprintln(ew, "no run wrote a result")
		return ew.err
	}
	var tput, p99 []float64
	var bs []*result.Bottleneck
	for _, r := range rs {
		f, err := analysis.FiguresOf(r)
		if err != nil {
			return err
		}
		tput = append(tput, f.Analysis.Steady.SustainedOpsPerS)
		p99 = append(p99, float64(f.Latency.P99Ns))
		if b := f.Analysis.Bottleneck; b != nil {
			bs = append(bs, b)
		}
	}
	fmt.Fprintf(ew, "\n%d runs of %s:\n", len(rs), orDash(rs[0].Config.Workload.Name))
	fmt.Fprintf(ew, "  sustained %s\n", spreadText(tput, units.OpsPerSec))
	fmt.Fprintf(ew, "  p99       %s\n", spreadText(p99, units.Latency))
	if top, n := analysis.CommonLimit(bs); top != nil {
		fmt.Fprintf(ew, "  limited by (%d of %d runs): %s\n", n, len(rs), BottleneckSummary(top))
	}
	fmt.Fprintf(ew, "%d runs: %s\n", len(files), strings.Join(files, " "))
	fmt.Fprintf(ew, "compare them with another group: platbench compare %s OTHER.r*.json\n", strings.Join(files, " "))
	return ew.err
}

// spreadText is each run's value, then the lowest and the highest.
func spreadText(vs []float64, f func(float64) string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = f(v)
	}
	s := strings.Join(parts, ", ")
	if len(vs) < 2 {
		return s
	}
	return fmt.Sprintf("%s (lowest %s, highest %s)", s, f(slices.Min(vs)), f(slices.Max(vs)))
}
