package analysis

import (
	"slices"
	"strings"
)

// DefaultRegressionFigures are the figures Regressions judges when none is named.
var DefaultRegressionFigures = []string{"sustained", "p99"}

// Regression is one run's figure worse than the baseline's by more than a
// limit, by a difference the noise test calls real.
type Regression struct {
	Run    int    // index of the run
	Figure string // as named: sustained, p99, read.p99
	// Worse is how much worse than the baseline, a fraction of the
	// baseline's value (0.2: 20% lower throughput, or 20% higher latency).
	Worse float64
	P     float64 // the noise test's p-value
}

// RegressionName is how a row of c is named for Regressions: "sustained",
// a latency statistic of all ops ("p99", "p99.9", "mean"...), or one op
// type's ("read.p99"); "" for rows it cannot judge (no noise test).
func RegressionName(row CompareRow) string {
	switch {
	case row.Figure == FigSustained:
		return "sustained"
	case row.Figure == FigLatency && row.Op == "":
		return row.Stat
	case row.Figure == FigLatency:
		return strings.ToLower(row.Op) + "." + row.Stat
	}
	return ""
}

// Regressions lists the runs whose named figures are worse than the
// baseline's by more than limit (a fraction: 0.05 for 5%) and different by
// the noise test. A figure without a noise test for a run (too few
// intervals) is not judged.
func (c *Comparison) Regressions(limit float64, figures []string) []Regression {
	var out []Regression
	for _, row := range c.Rows {
		name := RegressionName(row)
		if name == "" || !slices.Contains(figures, name) {
			continue
		}
		b := row.Values[c.Baseline]
		for i, v := range row.Verdicts {
			if i == c.Baseline || v.Outcome != OutcomeWorse || v.NoTest != "" || !v.Different || b == 0 {
				continue
			}
			worse := (row.Values[i] - b) / b
			if row.Better > 0 {
				worse = -worse
			}
			if worse > limit {
				out = append(out, Regression{Run: i, Figure: name, Worse: worse, P: v.P})
			}
		}
	}
	return out
}

// RegressionFigureOK reports whether name is a figure Regressions can judge
// (ops lists the op types present, lower case).
func RegressionFigureOK(name string, ops []string) bool {
	if name == "sustained" {
		return true
	}
	op, stat, ok := strings.Cut(name, ".")
	if ok && slices.Contains(LatencyStats[:], stat) {
		return slices.Contains(ops, op)
	}
	return slices.Contains(LatencyStats[:], name)
}
