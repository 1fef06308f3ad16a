// Package summary is the model of a suite's outcome, the contract of its
// summary.json: a row per cell with the figures package analysis computed.
// Package suite fills and writes it; package report draws it
// (report.WriteSuiteText, WriteSuiteMarkdown). It sits with the other file
// contracts under result/, below suite and report both, so that report draws
// it without linking what suite runs (bench and every adapter).
package summary

// Summary is the outcome of a suite (package suite fills it and writes it
// as summary.json): one row a cell, in the order they ran.
type Summary struct {
	Name   string `json:"name"`
	OutDir string `json:"out_dir"`
	Rows   []Row  `json:"rows"`
}

// Row is one cell of a suite: its figures over the cell's steady window,
// from package analysis.
type Row struct {
	Cell string `json:"cell"`
	// Round is the round of a repeated suite (1-based; 0 when not repeated).
	Round            int              `json:"round,omitempty"`
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
func (s *Summary) ThresholdsFailed() int {
	n := 0
	for _, r := range s.Rows {
		if len(r.ThresholdsFailed) > 0 {
			n++
		}
	}
	return n
}

// Failed counts the cells without a result.
func (s *Summary) Failed() int {
	n := 0
	for _, r := range s.Rows {
		if r.Error != "" {
			n++
		}
	}
	return n
}
