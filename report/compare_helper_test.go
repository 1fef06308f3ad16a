package report

import (
	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// CompareOptions are the tests' comparison options: the files that name
// the runs, and analysis'.
type CompareOptions struct {
	Files        []string
	GroupBy      analysis.GroupBy
	Baseline     string
	MinEffect    float64
	RunSpread    float64
	SpreadRuns   []*result.Result
	SpreadGroups [][]*result.Result
	Force        bool
}

// Compare is the comparison as the CLI makes it (compareRuns): grouped and
// compared by analysis, named and formatted here, answered by analysis.
func Compare(rs []*result.Result, opt CompareOptions) (*analysis.CompareModel, error) {
	an, err := analysis.CompareRuns(rs, RunKeys(rs, opt.Files), analysis.CompareOptions{GroupBy: opt.GroupBy, Baseline: opt.Baseline,
		MinEffect: opt.MinEffect, RunSpread: opt.RunSpread, SpreadRuns: opt.SpreadRuns, SpreadGroups: opt.SpreadGroups, Force: opt.Force})
	if err != nil {
		return nil, CompareError(rs, opt.Files, err)
	}
	c := CompareModelOf(rs, an, opt.Files)
	c.Answer = analysis.AnswerOf(c)
	return c, nil
}
