package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteMarkdown writes the report's tables as GitHub-flavoured Markdown,
// ready to paste into a document.
func WriteMarkdown(w io.Writer, r *result.Result) error {
	u, err := newRun(r)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## platbench: %s\n\n", u.label)
	fmt.Fprintf(bw, "%s\n", headline(u))
	writeLimitsMarkdown(bw, u.a)
	writeThresholdsMarkdown(bw, r)
	for i, s := range sections(u) {
		if i == 1 {
			// After the throughput: the sweep's steps and the fault events' cost.
			if err := WriteSweepMarkdown(bw, r); err != nil {
				return err
			}
			writeEventsMarkdown(bw, r, u.events)
		}
		s.markdown(bw)
	}
	writeNodesMarkdown(bw, r)
	writeDBMetricsMarkdown(bw, r)
	if notes := u.notes(); len(notes) > 0 {
		fmt.Fprintf(bw, "\n### Notes\n\n")
		for _, n := range notes {
			fmt.Fprintf(bw, "- %s\n", mdEscape(n))
		}
	}
	return bw.Flush()
}

// headline is the one-sentence summary at the top of every report.
func headline(u *run) string {
	f, a := u.f, u.a
	s := fmt.Sprintf("%s (%s) on %s: sustained %s, peak %s, latency p99 %s over %s",
		orDash(u.r.Config.Workload.Name), orDash(MixString(u.r)), orDash(u.r.Target.Kind), units.OpsPerSec(a.Steady.SustainedOpsPerS), units.OpsPerSec(a.Steady.PeakOpsPerS),
		units.Latency(float64(f.Latency.P99Ns)), units.Seconds(float64(f.DurationNs)/1e9))
	if f.Errors > 0 {
		s += fmt.Sprintf(", %s errors", units.Int(float64(f.Errors)))
	}
	if v := analysis.VerificationOf(u.r); v != nil && v.Lost > 0 {
		// Before any figure: the target did not keep what it acknowledged.
		s = "Acknowledged writes lost: " + verificationText(v) + ". " + s
	}
	if o := analysis.HealthOf(u.r).Outage; o != nil {
		// Before any figure: the figures describe an outage, not the system.
		return "The target stopped serving: " + OutageText(o) + ". " + s + "."
	}
	return s + "."
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
