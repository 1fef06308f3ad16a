package disk

import (
	"fmt"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// Analyze fills r.Analysis the way every other run gets it (package analysis
// looks at the main phase, which for a probe is its last test) and returns
// the stall and regulation analysis of every test, in phase order. A disk
// probe has no warm-up to trim: every test starts on a laid-out file.
func Analyze(r *result.Result) ([]result.Stalls, error) {
	a, err := analysis.Analyze(r, analysis.Options{Warmup: "0"})
	if err != nil {
		return nil, fmt.Errorf("analysing the probe: %w", err)
	}
	r.Analysis = a // its page-cache verdict knows O_DIRECT (Config.Extra["direct"])
	st := make([]result.Stalls, len(r.Phases))
	for i := range r.Phases {
		st[i] = analysis.Stalls(&r.Phases[i])
	}
	return st, nil
}
