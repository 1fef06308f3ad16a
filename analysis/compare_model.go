package analysis

import (
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// CompareModel is the versioned model of a comparison (`platbench compare`,
// its JSON): groups of runs side by side, a row per figure, a column per
// group. The numbers and verdicts are CompareGroups' (Figures); package
// report fills in the names, labels and text (report.Compare) and renders
// it.
type CompareModel struct {
	Schema string `json:"schema"`
	// GroupedBy and Grouping say how the runs were grouped (Grouping.How).
	GroupedBy GroupBy             `json:"grouped_by"`
	Grouping  string              `json:"grouping"`
	Groups    []CompareModelGroup `json:"groups"`
	// Baseline is the index of the group the others are compared to.
	Baseline int               `json:"baseline"`
	Runs     []CompareModelRun `json:"runs"`
	Rows     []CompareModelRow `json:"rows"`
	// Method says how every interval and verdict was made (MethodText);
	// MinEffect is the smallest difference that matters, a fraction.
	Method    string  `json:"method"`
	MinEffect float64 `json:"min_effect"`
	// RunSpread is the between-run spread supplied for single runs
	// (standard deviation of log run values), when one was;
	// RunSpreadRuns how many earlier runs it was estimated from, per figure,
	// and RunSpreadGroups in how many groups of one setup (1 for an A/A
	// set; a history's commits).
	RunSpread       float64 `json:"run_spread,omitempty"`
	RunSpreadRuns   int     `json:"run_spread_runs,omitempty"`
	RunSpreadGroups int     `json:"run_spread_groups,omitempty"`
	// Notes explain the table once: the method, what a mark means, how
	// many runs would settle what is not settled.
	Notes    []string `json:"notes"`
	Warnings []string `json:"warnings,omitempty"`
	// Answer is the comparison in plain words, before the tables
	// (AnswerOf): the headline figures, each group's limit, what is unfair.
	Answer *CompareAnswer `json:"answer,omitempty"`

	// Results are the runs compared and Figures their comparison's numbers
	// (CompareGroups); neither is part of the JSON.
	Results []*result.Result `json:"-"`
	Figures *GroupComparison `json:"-"`
}

// CompareSchema names the JSON shape of a CompareModel. v4 (issue 45):
// the answer (headline figures, each group's limit, what is unfair). v3 (issue 31):
// columns are groups of runs; each row has every group's centre and its
// runs' values, and each cell the ratio of centres with its 95% interval,
// the verdict and its basis. v2: a column per run, a per-second noise test.
const CompareSchema = "platbench.compare/v4"

// CompareModelGroup is one column: a group of runs.
type CompareModelGroup struct {
	Name string `json:"name"`
	// Runs are the indices of the group's runs in CompareModel.Runs.
	Runs []int `json:"runs"`
}

// CompareModelRun is one run of a group.
type CompareModelRun struct {
	Label    string   `json:"label"`
	File     string   `json:"file,omitempty"`
	Group    int      `json:"group"`
	Platform string   `json:"platform"` // instance, arch, CPU in one line
	Target   string   `json:"target"`
	Figures  *Figures `json:"figures"`
	// Thresholds are the run's pass/fail rules as its file records them.
	Thresholds []result.ThresholdOutcome `json:"thresholds,omitempty"`
}

// CompareModelRow is one figure across the groups.
type CompareModelRow struct {
	Figure string `json:"figure"`
	// Better is "higher", "lower" or "" when the figure has no direction.
	Better string `json:"better,omitempty"`
	// Values are each group's centre (geometric mean of its runs' values;
	// the arithmetic mean for counts and context figures); NaN-free, Cells
	// mark a group without the figure. RunValues are each group's runs'
	// values, in the order of its runs.
	Values    []float64        `json:"values"`
	RunValues [][]float64      `json:"run_values"`
	Text      []string         `json:"text"` // formatted centres
	Cells     []CompareVerdict `json:"verdicts"`
}

// CompareVerdict is one group against the baseline group for one figure.
type CompareVerdict struct {
	Missing bool `json:"missing,omitempty"`
	// Phrase is "baseline", "not measured", "no baseline value", or the
	// direction of the centres: "same", "better", "worse".
	Phrase string `json:"phrase"`
	// Ratio is the group's centre over the baseline's (not oriented: 1.05
	// is 5% more, faster for throughput, slower for latency); 0 when the
	// baseline is 0. Low and High bound its 95% interval.
	Ratio float64 `json:"ratio,omitempty"`
	Low   float64 `json:"ratio_low,omitempty"`
	High  float64 `json:"ratio_high,omitempty"`
	// DF are the interval's degrees of freedom; 0 for a normal interval.
	DF float64 `json:"df,omitempty"`
	// Verdict is same, different or inconclusive; Basis what noise the
	// interval covers (Basis*).
	Verdict Call  `json:"verdict,omitempty"`
	Basis   Basis `json:"basis,omitempty"`
	// RunsNeeded is how many runs of each side would settle a verdict
	// that is not settled; AtLeast when that is a lower bound.
	RunsNeeded int  `json:"runs_needed,omitempty"`
	AtLeast    bool `json:"runs_needed_at_least,omitempty"`
	// NoTest says why no interval was made.
	NoTest string `json:"no_test,omitempty"`
	// Text is the cell as the tables show it: "+2.1% [-0.4, +4.7] same".
	Text string `json:"text"`
}

// Regressions are the groups' figures worse than the baseline group's by
// more than limit (a fraction) with an interval that calls them different
// (GroupComparison.Regressions). A figure name it cannot judge is a user
// error of field fail_on.
func (c *CompareModel) Regressions(limit float64, figures []string) ([]GroupRegression, error) {
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
