package report

import (
	"fmt"
	"io"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteSweepTerm is the terminal report of a rate sweep (platbench sweep):
// what ran where, the load phase in the run report's one line, the sweep
// section (WriteSweepText: the steps, why steps failed, the verdict) and the
// run's notes.
func WriteSweepTerm(w io.Writer, r *result.Result) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "platbench %s · %s · workload %s · sweep %s\n", r.Tool.Version, r.Target.Kind, r.Config.Workload.Name, r.Config.Extra["sweep"])
	fmt.Fprintf(ew, "platform : %s\n", PlatformLine(&r.Platform))
	if p := r.Phase("load"); p != nil {
		f, err := analysis.PhaseFiguresOf(p)
		if err != nil {
			return err
		}
		writeLoadLine(ew, f)
	}
	if err := WriteSweepText(ew, r); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(ew, "note: %s\n", n)
	}
	return ew.err
}

// WriteSweepStep writes the progress line of a finished step: its sustained
// rate, steady p99 and whether it meets the objective (else why not).
func WriteSweepStep(w io.Writer, st result.SweepStep) error {
	ok := "meets"
	if !st.MeetsObjective {
		ok = "fails: " + SweepStepReason(&st)
	}
	_, err := fmt.Fprintf(w, "step %-12s sustained %s  p99 %s  %s\n", st.Phase, units.OpsPerSec(st.SustainedOpsPerS), units.Latency(float64(st.P99Ns)), ok)
	return err
}
