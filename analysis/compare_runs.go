package analysis

import (
	"math"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// CompareOptions configure CompareRuns.
type CompareOptions struct {
	// GroupBy says how runs are grouped (default by label).
	GroupBy GroupBy
	// Baseline names the group the others are compared to: a group's name,
	// one of its files, or a 1-based group position; "" is the first group
	// (Grouping.PickGroup).
	Baseline string
	// MinEffect is the smallest difference that matters, a fraction
	// (default DefaultMinEffect).
	MinEffect float64
	// RunSpread is a between-run spread (coefficient of variation of run
	// values, a fraction) for comparisons of single runs; SpreadRuns are
	// earlier repeated runs of one setup to estimate each figure's instead,
	// and SpreadGroups earlier runs in groups of one setup each (a
	// history's runs of one commit, CommitGroups) to pool it from.
	RunSpread    float64
	SpreadRuns   []*result.Result
	SpreadGroups [][]*result.Result
	// Force compares runs of different workloads anyway.
	Force bool
}

// CompareRuns groups the runs rs, whose keys are keys (GroupRuns), picks
// the baseline group and compares the groups (CompareGroups): every figure
// of the comparison, in numbers, which package report names and formats
// into a CompareModel. Runs of different workloads are a *WorkloadError
// unless opt.Force; a run that cannot be read into figures a *RunError.
func CompareRuns(rs []*result.Result, keys []RunKey, opt CompareOptions) (*GroupComparison, error) {
	if len(rs) < 2 {
		return nil, usererr.New("compare needs at least two result files, got %d", len(rs))
	}
	g, err := GroupRuns(keys, opt.GroupBy)
	if err != nil {
		return nil, err
	}
	base, err := g.PickGroup(opt.Baseline, keys)
	if err != nil {
		return nil, err
	}
	o := GroupOptions{Baseline: base, MinEffect: opt.MinEffect, SpreadRuns: opt.SpreadRuns,
		SpreadGroups: opt.SpreadGroups, Force: opt.Force}
	if opt.RunSpread > 0 {
		o.Spread = &Spread{SD: math.Log1p(opt.RunSpread)}
	}
	return CompareGroups(rs, g, o)
}
