package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result/summary"
)

// WriteSuiteText writes the suite's summary table for a terminal.
func WriteSuiteText(w io.Writer, s *summary.Summary) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Suite %s: %d cells, results in %s\n", s.Name, len(s.Rows), s.OutDir)
	suiteTable(s).text(ew)
	return ew.err
}

// WriteSuiteMarkdown writes the suite's summary (summary.md).
func WriteSuiteMarkdown(w io.Writer, s *summary.Summary) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# Suite %s\n\n%d cells. Sustained throughput is over each cell's steady window; p99 is from the merged HDR histograms of that window, overall and per op; errors are over the whole run phase.\n\n", s.Name, len(s.Rows))
	suiteTable(s).markdown(ew)
	return ew.err
}

func suiteTable(s *summary.Summary) *table {
	t := &table{head: []string{"cell", "sustained ops/s", "p99 [per op]", "errors", "result"}, right: []bool{false, true, false, true}}
	for _, r := range s.Rows {
		if r.Error != "" {
			t.add(r.Cell, "", "", "", "FAILED: "+r.Error)
			continue
		}
		file := r.File
		if r.Interrupted {
			file += " (interrupted)"
		}
		if r.Thresholds > 0 {
			file += fmt.Sprintf("; thresholds %d of %d passed", r.Thresholds-len(r.ThresholdsFailed), r.Thresholds)
		}
		if len(r.ThresholdsFailed) > 0 {
			file += " (failed: " + strings.Join(r.ThresholdsFailed, ", ") + ")"
		}
		t.add(r.Cell, units.Int(r.SustainedOpsPerS), suiteP99(r), units.Int(float64(r.Errors)), file)
	}
	return t
}

// suiteP99 is "8.40 ms [READ: 8.60 ms, UPDATE: 2.70 ms]".
func suiteP99(r summary.Row) string {
	s := latencyOrDash(r.P99Ns)
	if len(r.OpOrder) > 0 {
		parts := make([]string, len(r.OpOrder))
		for i, op := range r.OpOrder {
			parts[i] = op + ": " + latencyOrDash(r.OpP99Ns[op])
		}
		s += " [" + strings.Join(parts, ", ") + "]"
	}
	return s
}

// latencyOrDash is "-" for a latency that was not measured.
func latencyOrDash(ns int64) string {
	if ns <= 0 {
		return "-"
	}
	return units.Latency(float64(ns))
}
