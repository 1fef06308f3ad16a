package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/platbench/platbench/analysis"
)

// The cells of a comparison of groups: one short cell per group against the
// baseline, "+2.1% [-0.4, +4.7] same", so four groups fit 120 columns. The
// change is of the figure's value (group centre over the baseline's, minus
// one): +5% latency is slower, +5% throughput faster; the word says which.

// withinMark flags a cell whose interval covers within-run noise only (one
// run on each side); the notes below the table say what it means.
const withinMark = "*"

// cellWord is the verdict of a cell: same, better, worse or inconcl.
func cellWord(v analysis.GroupVerdict) string {
	switch v.Call {
	case analysis.Same:
		return "same"
	case analysis.Different:
		return string(v.Outcome) // better or worse
	}
	return "inconcl."
}

// signedPct is a change as a signed percentage: one decimal under 10%,
// none above ("+2.1%", "-12%", "+300%").
func signedPct(f float64) string {
	p := 100 * f
	switch {
	case math.IsInf(p, 0) || math.IsNaN(p):
		return "n/a"
	case math.Abs(p) < 9.95:
		return fmt.Sprintf("%+.1f", p)
	}
	return fmt.Sprintf("%+.0f", p)
}

// changeCell is one group against the baseline on one figure.
func changeCell(v analysis.GroupVerdict) string {
	switch v.Outcome {
	case analysis.OutcomeBaseline:
		return "baseline"
	case analysis.OutcomeNotMeasured, analysis.OutcomeNoBaseline:
		return "-"
	}
	r := v.Ratio.Ratio
	if r == 0 || math.IsInf(r, 0) {
		return string(v.Outcome) + " (" + zeroWord(math.IsInf(r, 0)) + ")"
	}
	if v.NoTest != "" {
		return signedPct(r-1) + "% " + noTestWord(v.NoTest)
	}
	s := fmt.Sprintf("%s%% [%s, %s] %s", signedPct(r-1), signedPct(v.Lo-1), signedPct(v.Hi-1), cellWord(v))
	if v.Basis == analysis.BasisWithinRun {
		s += withinMark
	}
	return s
}

// noTestWord is the short form of why a cell has no interval.
func noTestWord(reason string) string {
	switch reason {
	case analysis.NoTestCount, analysis.NoTestPrice:
		return "(no test)"
	}
	return "(no interval)"
}

// compareNotes are the lines below the table: the method once, what the
// marks mean, and how many runs would settle what is inconclusive.
func compareNotes(c *analysis.GroupComparison, groupName func(int) string) []string {
	notes := []string{fmt.Sprintf("Method: %s (smallest difference that matters: %s%%). Cells: change of the group's centre "+
		"against %s, its 95%% interval, and the verdict: same, better or worse when different, inconcl. when inconclusive.", analysis.MethodText, trimPct(c.MinEffect), groupName(c.Baseline))}
	need := map[int]int{}   // group: most runs needed by the headline rows
	least := map[int]bool{} // group: a lower bound
	within, oneSide, supplied := false, false, false
	for _, row := range c.Rows {
		headline := slices.Contains(analysis.DefaultRegressionFigures, analysis.RegressionName(row))
		for gi, v := range row.Verdicts {
			if v.NoTest != "" || gi == c.Baseline || v.Outcome == analysis.OutcomeNotMeasured || v.Outcome == analysis.OutcomeNoBaseline {
				continue
			}
			switch v.Basis {
			case analysis.BasisWithinRun:
				within = true
			case analysis.BasisOneSide:
				oneSide = true
			case analysis.BasisSupplied:
				supplied = true
			}
			if !headline {
				continue
			}
			if v.RunsNeeded > need[gi] {
				need[gi] = v.RunsNeeded
			}
			least[gi] = least[gi] || v.AtLeast
		}
	}
	if within {
		notes = append(notes, withinMark+" One run on each side: run-to-run noise is unknown; the interval covers within-run noise "+
			"only, so it gives no verdict (inconclusive). Repeat the runs (run --repeat N, a suite's repeat:) or supply a spread (--run-spread, --run-spread-from).")
	}
	if oneSide {
		notes = append(notes, "One side has a single run: the other side's variation between runs stands for both.")
	}
	if supplied {
		s := "the spread typed"
		switch {
		case c.SpreadGroups > 1:
			s = fmt.Sprintf("the spread of each figure pooled over %d earlier runs in %d groups of one setup (commits)", c.SpreadFrom, c.SpreadGroups)
		case c.SpreadFrom > 0:
			s = fmt.Sprintf("the spread of each figure over %d earlier runs", c.SpreadFrom)
		}
		notes = append(notes, "Single runs on both sides: the interval uses "+s+".")
	}
	var parts []string
	for gi := range c.Groups {
		n, ok := need[gi]
		if !ok || n == 0 {
			continue
		}
		switch {
		case n > analysis.MaxRunsNeeded:
			parts = append(parts, fmt.Sprintf("%s: more than %d", groupName(gi), analysis.MaxRunsNeeded))
		case least[gi]:
			parts = append(parts, fmt.Sprintf("%s: at least %d", groupName(gi), n))
		default:
			parts = append(parts, fmt.Sprintf("%s: %d", groupName(gi), n))
		}
	}
	if len(parts) > 0 {
		notes = append(notes, "Runs of each side that would settle "+strings.Join(analysis.DefaultRegressionFigures, " and ")+
			" where they are not settled: "+strings.Join(parts, "; ")+".")
	}
	return notes
}

// trimPct is a fraction as a percentage without trailing zeros: 0.02 -> "2".
func trimPct(f float64) string {
	s := fmt.Sprintf("%.2f", 100*f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
