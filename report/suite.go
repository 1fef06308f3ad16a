package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/internal/units"
)

// SuiteSummary is the outcome of a suite (package suite fills it and writes
// it as summary.json): one row a cell, in the order they ran. It lives here,
// with its renderers, because package suite sits above report (it runs
// benchmarks, so it imports every target).
type SuiteSummary struct {
	Name   string     `json:"name"`
	OutDir string     `json:"out_dir"`
	Rows   []SuiteRow `json:"rows"`
}

// SuiteRow is one cell of a suite: its figures over the cell's steady
// window, from package analysis.
type SuiteRow struct {
	Cell             string           `json:"cell"`
	Target           string           `json:"target"`
	Workload         string           `json:"workload"`
	Records          uint64           `json:"records"`
	File             string           `json:"file,omitempty"`
	SustainedOpsPerS float64          `json:"sustained_ops_per_s"`
	P99Ns            int64            `json:"p99_ns"`
	OpP99Ns          map[string]int64 `json:"op_p99_ns,omitempty"`
	OpOrder          []string         `json:"op_order,omitempty"`
	Ops              uint64           `json:"ops"`
	Errors           uint64           `json:"errors"`
	// Error is why the cell produced no result.
	Error string `json:"error,omitempty"`
	// Interrupted is true when Ctrl-C stopped the cell.
	Interrupted bool `json:"interrupted,omitempty"`
	// Thresholds counts the suite's pass/fail rules judged on the cell;
	// ThresholdsFailed lists those it failed.
	Thresholds       int      `json:"thresholds,omitempty"`
	ThresholdsFailed []string `json:"thresholds_failed,omitempty"`
}

// ThresholdsFailed counts the cells that failed a threshold.
func (s *SuiteSummary) ThresholdsFailed() int {
	n := 0
	for _, r := range s.Rows {
		if len(r.ThresholdsFailed) > 0 {
			n++
		}
	}
	return n
}

// Failed counts the cells without a result.
func (s *SuiteSummary) Failed() int {
	n := 0
	for _, r := range s.Rows {
		if r.Error != "" {
			n++
		}
	}
	return n
}

// WriteSuiteText writes the suite's summary table for a terminal.
func WriteSuiteText(w io.Writer, s *SuiteSummary) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Suite %s: %d cells, results in %s\n", s.Name, len(s.Rows), s.OutDir)
	suiteTable(s).text(ew)
	return ew.err
}

// WriteSuiteMarkdown writes the suite's summary (summary.md).
func WriteSuiteMarkdown(w io.Writer, s *SuiteSummary) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "# Suite %s\n\n%d cells. Sustained throughput is over each cell's steady window; p99 is from the merged HDR histograms of that window, overall and per op; errors are over the whole run phase.\n\n", s.Name, len(s.Rows))
	suiteTable(s).markdown(ew)
	return ew.err
}

func suiteTable(s *SuiteSummary) *table {
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
func suiteP99(r SuiteRow) string {
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
