package report

import (
	"slices"
	"strings"

	"fmt"
	"html/template"
	"io"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// thresholdValue formats a threshold's limit or value in its unit.
func thresholdValue(unit string, v float64) string {
	return valueIn(unit, v, units.Int)
}

// valueIn formats v in unit (one of result's Unit* constants, or
// analysis.UnitUSDPerMillionOps); a value of any other unit (a count) with
// other.
func valueIn(unit string, v float64, other func(float64) string) string {
	switch unit {
	case result.UnitNs:
		return units.Latency(v)
	case result.UnitOpsPerS:
		return units.OpsPerSec(v)
	case result.UnitFraction:
		return units.Percent(v)
	case analysis.UnitUSDPerMillionOps:
		return units.Price(v) + "/M ops"
	}
	return other(v)
}

// thresholdsTitle is "Thresholds: 2 of 3 passed".
func thresholdsTitle(ts []result.ThresholdOutcome) string {
	n := 0
	for _, t := range ts {
		if t.Pass {
			n++
		}
	}
	if n == len(ts) {
		return fmt.Sprintf("Thresholds: all %d passed", n)
	}
	return fmt.Sprintf("Thresholds: %d of %d failed", len(ts)-n, len(ts))
}

// thresholdsTable is a row per rule: the rule, the run's value, pass or
// FAIL and, for a figure not measured, why.
func thresholdsTable(ts []result.ThresholdOutcome) *table {
	t := &table{head: []string{"threshold", "value", "result"}, right: []bool{false, true, false}}
	for _, o := range ts {
		v, res := "-", "FAIL"
		if o.Measured {
			v = thresholdValue(o.Unit, o.Value)
		}
		if o.Pass {
			res = "pass"
		} else if o.Reason != "" {
			res += " (" + o.Reason + ")"
		}
		t.add(o.Expr, v, res)
	}
	return t
}

// thresholdsNote says where the rules were evaluated.
func thresholdsNote(ts []result.ThresholdOutcome) string {
	where := "the steady-state window"
	if len(ts) > 0 && ts[0].Phase != "" && ts[0].Phase != "run" {
		where += " of phase " + ts[0].Phase
	}
	return "Over " + where + "; stalls and delayed operations over the whole phase."
}

// abortText is the line that says a live threshold check stopped the run.
func abortText(a *result.Abort) string {
	t := a.Threshold
	return fmt.Sprintf("ABORTED: threshold %s failed %s into the run phase (%s over the intervals since the %s warm-up); the run phase was stopped there",
		t.Expr, units.Seconds(float64(a.AtNs)/1e9), thresholdValue(t.Unit, t.Value), units.Seconds(float64(a.WarmupNs)/1e9))
}

// WriteThresholdsText prints the pass/fail table of r's thresholds (nothing
// when it has none).
func WriteThresholdsText(w io.Writer, r *result.Result) error {
	if len(r.Thresholds) == 0 {
		return nil
	}
	ew := &errWriter{w: w}
	if r.Aborted != nil {
		fmt.Fprintf(ew, "%s\n", abortText(r.Aborted))
	}
	fmt.Fprintf(ew, "%s\n", thresholdsTitle(r.Thresholds))
	thresholdsTable(r.Thresholds).text(ew)
	fmt.Fprintf(ew, "%s\n", thresholdsNote(r.Thresholds))
	return ew.err
}

// writeThresholdsMarkdown is the Markdown section of the thresholds.
func writeThresholdsMarkdown(w io.Writer, r *result.Result) {
	if len(r.Thresholds) == 0 {
		return
	}
	fmt.Fprintf(w, "\n### %s\n\n%s\n\n", thresholdsTitle(r.Thresholds), thresholdsNote(r.Thresholds))
	if r.Aborted != nil {
		fmt.Fprintf(w, "**%s**\n\n", abortText(r.Aborted))
	}
	thresholdsTable(r.Thresholds).markdown(w)
}

// thresholdsSectionHTML is the HTML section of the thresholds, its result
// cells coloured as verdicts.
func thresholdsSectionHTML(r *result.Result) (template.HTML, error) {
	if len(r.Thresholds) == 0 {
		return "", nil
	}
	v := viewOf(thresholdsTable(r.Thresholds))
	for i, o := range r.Thresholds {
		v.Rows[i][2].Class = map[bool]string{true: "better", false: "worse"}[o.Pass]
	}
	notes := []string{thresholdsNote(r.Thresholds)}
	if r.Aborted != nil {
		notes = append([]string{abortText(r.Aborted)}, notes...)
	}
	return execute("section", sectionView{ID: "thresholds", Title: thresholdsTitle(r.Thresholds),
		Notes: notes, Table: v})
}

// RunFailureText is the one line that says why a run failed (see
// analysis.RunHealth.RunFailed, with maxErrors the share of failures
// allowed), ending with the first message the target gave.
func RunFailureText(h analysis.RunHealth, maxErrors float64) string {
	all := h.Completed + h.Failed
	var s string
	switch {
	case h.LostWrites > 0:
		return "the run failed: " + lostText(h.LostWrites)
	case h.Outage != nil && all > 0:
		s = "the run failed: the target stopped serving: " + OutageText(h.Outage)
	case all == 0:
		return "the run failed: no operation completed"
	case h.Completed == 0:
		s = fmt.Sprintf("the run failed: all %s operations failed (%s)", units.Int(float64(all)), classList(h.ErrorsByClass))
	default:
		s = fmt.Sprintf("the run failed: %s of %s operations failed (%s, %s), more than the %s allowed", units.Int(float64(h.Failed)),
			units.Int(float64(all)), units.Percent(h.ErrorShare()), classList(h.ErrorsByClass), units.Percent(maxErrors))
	}
	if m := h.FirstError; m.Message != "" {
		s += fmt.Sprintf(": first error (%s, %s): %s", m.Op, m.Class, m.Message)
	}
	return s
}

// compareThresholdsTable is a row per threshold rule of any run and a column
// per run: the run's value and whether it passed; the last row counts them.
// Nil when no run has thresholds.
func compareThresholdsTable(c *analysis.CompareModel) *table {
	var exprs []string
	seen := map[string]bool{}
	for _, r := range c.Results {
		for _, o := range r.Thresholds {
			if !seen[o.Expr] {
				seen[o.Expr] = true
				exprs = append(exprs, o.Expr)
			}
		}
	}
	if len(exprs) == 0 {
		return nil
	}
	t := &table{head: []string{"threshold"}, right: []bool{false}}
	for _, r := range c.Runs {
		t.head = append(t.head, r.Label)
		t.right = append(t.right, true)
	}
	for _, e := range exprs {
		row := []string{e}
		for _, r := range c.Results {
			row = append(row, thresholdCell(r.Thresholds, e))
		}
		t.add(row...)
	}
	row := []string{"passed"}
	for _, r := range c.Results {
		n := 0
		for _, o := range r.Thresholds {
			if o.Pass {
				n++
			}
		}
		row = append(row, fmt.Sprintf("%d of %d", n, len(r.Thresholds)))
	}
	t.add(row...)
	return t
}

// thresholdCell is "8.4 ms pass", "61 ms FAIL", "not measured" or "-" (the
// run has no such rule).
func thresholdCell(ts []result.ThresholdOutcome, expr string) string {
	for _, o := range ts {
		if o.Expr != expr {
			continue
		}
		res := "FAIL"
		if o.Pass {
			res = "pass"
		}
		if !o.Measured {
			return "not measured " + res
		}
		return thresholdValue(o.Unit, o.Value) + " " + res
	}
	return "-"
}

// RegressionsText is the one line that names the regressions: "valkey:
// sustained 23% worse [interval of the ratio 0.74, 0.80]; p99 40% worse ...".
func RegressionsText(c *analysis.CompareModel, regs []analysis.GroupRegression, limit float64) string {
	parts := make([]string, len(regs))
	unconfirmed := false
	var blocked []string
	for i, g := range regs {
		parts[i] = fmt.Sprintf("%s: %s %s worse (95%% interval of the ratio %.3g to %.3g, %s)", c.Groups[g.Group].Name, g.Figure,
			units.Percent(g.Worse), g.Lo, g.Hi, g.Basis)
		if g.Blocked && !slices.Contains(blocked, c.Groups[g.Group].Name) {
			blocked = append(blocked, c.Groups[g.Group].Name)
		}
		unconfirmed = unconfirmed || g.Unconfirmed
	}
	how := "by an interval that calls it different"
	if unconfirmed {
		how = "not ruled out, but unconfirmed where one run on each side leaves run-to-run noise unknown (fix: repeat each side, e.g. run --repeat 3, or give --run-spread)"
	}
	text := fmt.Sprintf("worse than the baseline (%s) by more than %s, %s: %s",
		c.Groups[c.Baseline].Name, units.Percent(limit), how, strings.Join(parts, "; "))
	if len(blocked) > 0 {
		text += fmt.Sprintf("; but %s ran apart from the baseline's runs, not interleaved, so a change between their times counts as the setups' "+
			"(fix: run the setups in interleaved rounds, a suite's repeat:)", strings.Join(blocked, ", "))
	}
	return text
}

// OutageText says for how long the target stopped serving.
func OutageText(o *analysis.Outage) string {
	sec := func(ns int64) string { return units.Seconds(float64(ns) / 1e9) }
	t := fmt.Sprintf("no operation completed for %s of the %s phase (%s stalled)",
		sec(o.StalledNs), sec(o.PhaseNs), units.Percent(float64(o.StalledNs)/float64(o.PhaseNs)))
	if o.EndStallNs > 0 {
		t += fmt.Sprintf("; it never came back after %s", sec(o.EndStallFromNs))
	}
	return t
}
