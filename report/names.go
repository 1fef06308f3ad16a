package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// run is one result with its figures: what every renderer of one run reads.
// The figures come from package analysis; report only names and formats them.
type run struct {
	r     *result.Result
	f     *analysis.Figures
	a     *result.Analysis       // f.Analysis
	load  *analysis.PhaseFigures // the load phase before the main one, or nil
	label string
	// events is the measured cost of each fault event, against the steady
	// state of the same analysis as the figures.
	events []result.EventImpact
}

func newRun(r *result.Result) (*run, error) {
	f, err := analysis.FiguresOf(r)
	if err != nil {
		return nil, err
	}
	u := &run{r: r, f: f, a: f.Analysis, label: Label(r)}
	withAnalysis := *r
	withAnalysis.Analysis = u.a
	u.events = analysis.EventImpacts(&withAnalysis)
	if lp := r.Phase("load"); lp != nil && lp != r.MainPhase() {
		if u.load, err = analysis.PhaseFiguresOf(lp); err != nil {
			return nil, err
		}
	}
	return u, nil
}

// notes are the run's notes, then the analysis'.
func (u *run) notes() []string {
	return append(append([]string(nil), u.r.Notes...), u.a.Notes...)
}

// windowSecs is the steady-state window in seconds from the phase start.
func (u *run) windowSecs() (start, end float64) {
	st := u.a.Steady
	return float64(st.StartNs) / 1e9, float64(st.StartNs+st.LengthNs) / 1e9
}

// Label names a run in comparisons: the result's label, else the instance
// type, else the architecture and CPU model.
func Label(r *result.Result) string {
	if r.Label != "" {
		return r.Label
	}
	return platformName(r)
}

// platformName names a run by where it ran: the instance type, else the
// architecture and CPU model, else the host.
func platformName(r *result.Result) string {
	switch {
	case r.Platform.InstanceType != "":
		return r.Platform.InstanceType
	}
	parts := []string{}
	if r.Platform.Arch != "" {
		parts = append(parts, r.Platform.Arch)
	}
	if r.Platform.CPUModel != "" {
		parts = append(parts, shortCPU(r.Platform.CPUModel))
	}
	if len(parts) == 0 {
		if r.Platform.Hostname != "" {
			return r.Platform.Hostname
		}
		return "run"
	}
	return strings.Join(parts, " ")
}

// shortCPU drops the noise from a CPU model string.
func shortCPU(m string) string {
	for _, junk := range []string{"(R)", "(TM)", "(tm)", " CPU", " Processor", "-Core"} {
		m = strings.ReplaceAll(m, junk, "")
	}
	return strings.Join(strings.Fields(m), " ")
}

// MixString is the op mix in percent, e.g. "READ 50%, UPDATE 50%".
func MixString(r *result.Result) string {
	mix := r.Config.Workload.Mix
	var sum float64
	for _, m := range mix {
		sum += m.Weight
	}
	if sum <= 0 {
		return ""
	}
	parts := make([]string, 0, len(mix))
	for _, m := range mix {
		parts = append(parts, fmt.Sprintf("%s %s%%", r.Config.Workload.OpName(m.Op), units.Trim1(100*m.Weight/sum)))
	}
	return strings.Join(parts, ", ")
}

// opNames lists the op types of a phase in the result's order.
func opNames(p *result.Phase) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range p.Ops {
		if !seen[o.Op] {
			seen[o.Op] = true
			out = append(out, o.Op)
		}
	}
	var extra []string
	for op := range p.Buckets.Counts {
		if !seen[op] {
			seen[op] = true
			extra = append(extra, op)
		}
	}
	sort.Strings(extra)
	return append(out, extra...)
}

// steadySource names the warm-up rule for the report: "MSER-5", "--warmup 75s".
func steadySource(ss result.SteadyState) string {
	switch strings.ToLower(ss.Method) {
	case "mser-5":
		return "MSER-5"
	case "mser":
		return "MSER"
	case "forced":
		return "--warmup " + ss.Requested
	case "none", "":
		return "no warm-up trimmed"
	}
	return ss.Method
}
