package analysis

import "slices"

// GroupRegression is one group's figure worse than the baseline group's by
// more than a limit, by a difference its interval calls real.
type GroupRegression struct {
	Group  int    // index of the group
	Figure string // as named: sustained, p99, read.p99
	// Worse is how much worse than the baseline, a fraction of the
	// baseline's centre (0.2: 20% lower throughput, or 20% higher latency).
	Worse float64
	// Lo and Hi bound the ratio of centres (group/baseline), 95%.
	Lo, Hi float64
	Basis  Basis
	// Unconfirmed: one run on each side; the interval covers within-run
	// noise only, so the change cannot be told from run-to-run noise.
	Unconfirmed bool
	// Blocked: the group's runs did not interleave with the baseline's
	// (Block), so the interval does not cover a change between the two
	// stretches of time.
	Blocked bool
}

// Regressions lists the groups whose named figures are worse than the
// baseline group's by more than limit (a fraction: 0.05 for 5%) with an
// interval called Different: the same rule as every verdict of the
// comparison, so repeated identical runs do not fire it any more often
// than the 5% level allows, and then only by a difference beyond limit. A
// figure without an interval is not judged.
func (c *GroupComparison) Regressions(limit float64, figures []string) []GroupRegression {
	var out []GroupRegression
	for _, row := range c.Rows {
		name := RegressionName(row)
		if name == "" || !slices.Contains(figures, name) {
			continue
		}
		for gi, v := range row.Verdicts {
			if gi == c.Baseline || v.Outcome != OutcomeWorse || v.NoTest != "" || v.Ratio.Ratio <= 0 {
				continue
			}
			// One run on each side (within-run noise only) never gets a
			// verdict; a gate still cannot let a change it cannot rule out
			// pass: worse beyond limit even by within-run noise fires it,
			// marked unconfirmed.
			unconfirmed := v.Basis == BasisWithinRun && (row.Better > 0 && v.Hi < 1 || row.Better < 0 && v.Lo > 1)
			if v.Call != Different && !unconfirmed {
				continue
			}
			worse := v.Ratio.Ratio - 1 // latency: higher is worse
			if row.Better > 0 {
				worse = 1 - v.Ratio.Ratio
			}
			if worse > limit {
				out = append(out, GroupRegression{Group: gi, Figure: name, Worse: worse, Lo: v.Lo, Hi: v.Hi, Basis: v.Basis, Unconfirmed: unconfirmed,
					Blocked: c.blocked(gi)})
			}
		}
	}
	return out
}
