package analysis

import (
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// CompareModel is the versioned model of a comparison (`platbench compare`,
// its JSON): a side-by-side of several runs, a row per figure, a column per
// run. The numbers and verdicts are Compare's (Figures); package report
// fills in the names, labels and text (report.Compare) and renders it.
type CompareModel struct {
	Schema   string            `json:"schema"`
	Runs     []CompareModelRun `json:"runs"`
	Baseline int               `json:"baseline"`
	Rows     []CompareModelRow `json:"rows"`
	Test     string            `json:"noise_test"`
	Warnings []string          `json:"warnings,omitempty"`

	// Results are the runs compared and Figures their comparison's numbers
	// (Compare); neither is part of the JSON.
	Results []*result.Result `json:"-"`
	Figures *Comparison      `json:"-"`
}

// CompareSchema names the JSON shape of a CompareModel. v2: each run's
// figures are package analysis' (Figures).
const CompareSchema = "platbench.compare/v2"

// CompareModelRun is one column.
type CompareModelRun struct {
	Label    string   `json:"label"`
	File     string   `json:"file,omitempty"`
	Platform string   `json:"platform"` // instance, arch, CPU in one line
	Figures  *Figures `json:"figures"`
	// Thresholds are the run's pass/fail rules as its file records them.
	Thresholds []result.ThresholdOutcome `json:"thresholds,omitempty"`
}

// CompareModelRow is one figure across the runs.
type CompareModelRow struct {
	Figure string `json:"figure"`
	// Better is "higher", "lower" or "" when the figure has no direction.
	Better string       `json:"better,omitempty"`
	Values []float64    `json:"values"` // NaN-free; Missing marks a run without the figure
	Text   []string     `json:"text"`   // formatted values
	Cells  []RowVerdict `json:"verdicts"`
}

// RowVerdict is one run against the baseline for one figure.
type RowVerdict struct {
	Missing bool    `json:"missing,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"` // >1 means better than the baseline
	Phrase  string  `json:"phrase"`          // "better by 4.0x", "worse by 1.3x", "same", "baseline"
	// Noise is the outcome of the noise test: "different"; for runs it finds
	// alike, "same within X%" or "inconclusive: ..." by how small a difference
	// it could have found (Detectable), "within noise" when that cannot be
	// stated; or why it did not run.
	Noise string  `json:"noise"`
	P     float64 `json:"p,omitempty"`
	// Detectable is the smallest difference the noise test would find with
	// 80% power (Power), as a fraction of the baseline;
	// RunsNeeded is how many runs of each side, RunSeconds long each, would
	// bring it to DetectTarget. Zero without a noise test.
	Detectable float64 `json:"detectable,omitempty"`
	RunsNeeded int     `json:"runs_needed,omitempty"`
	RunSeconds float64 `json:"run_seconds,omitempty"`
}

// Regressions are the runs' figures worse than the baseline by more than
// limit (a fraction) by a difference the noise test calls real
// (Comparison.Regressions). A figure name it cannot judge is a user
// error of field fail_on.
func (c *CompareModel) Regressions(limit float64, figures []string) ([]Regression, error) {
	var ops []string
	for _, f := range c.Figures.Runs {
		for _, o := range f.PerOp {
			ops = append(ops, strings.ToLower(o.Op))
		}
	}
	for _, f := range figures {
		if !RegressionFigureOK(f, ops) {
			return nil, usererr.Field("fail_on", "%q is not a figure compare can judge (fix: sustained, a latency statistic %s, or OP.STAT such as read.p99)", f, strings.Join(LatencyStats[:], ", "))
		}
	}
	return c.Figures.Regressions(limit, figures), nil
}
