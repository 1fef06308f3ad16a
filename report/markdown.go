package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteMarkdown writes the report's tables as GitHub-flavoured Markdown,
// ready to paste into a document.
func WriteMarkdown(w io.Writer, r *result.Result) error {
	f, err := Compute(r)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## platbench: %s\n\n", f.Label)
	fmt.Fprintf(bw, "%s\n", headline(r, f))
	for i, s := range sections(r, f) {
		if i == 1 {
			if err := WriteSweepMarkdown(bw, r); err != nil {
				return err
			}
		}
		fmt.Fprintf(bw, "\n### %s\n\n", s.title)
		for _, n := range s.notes {
			fmt.Fprintf(bw, "%s\n\n", n)
		}
		s.t.markdown(bw)
	}
	if len(f.Notes) > 0 {
		fmt.Fprintf(bw, "\n### Notes\n\n")
		for _, n := range f.Notes {
			fmt.Fprintf(bw, "- %s\n", n)
		}
	}
	return bw.Flush()
}

// headline is the one-sentence summary at the top of every report.
func headline(r *result.Result, f *Figures) string {
	s := fmt.Sprintf("%s (%s) on %s: sustained %s, peak %s, latency p99 %s over %s",
		orDash(f.Workload), orDash(f.Mix), orDash(r.Target.Kind), units.OpsPerSec(f.SustainedOpsPerS), units.OpsPerSec(f.PeakOpsPerS),
		units.Latency(float64(f.Latency.P99Ns)), units.Seconds(f.DurationS))
	if f.ErrorTotal > 0 {
		s += fmt.Sprintf(", %s errors", units.Int(float64(f.ErrorTotal)))
	}
	return s + "."
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
