package report

import (
	"fmt"
	"strings"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// applyAnalysis takes the steady-state window, throughput, stability, stalls
// and cost from r.Analysis when package analysis has filled it (for the main
// phase); otherwise the raw figures computed in Compute stand, and
// Window.Source says that no analysis was available.
func applyAnalysis(f *Figures, r *result.Result) bool {
	a := r.Analysis
	if a == nil || (a.Phase != "" && a.Phase != f.Phase) || a.Steady.LengthNs <= 0 {
		return false
	}
	st := a.Steady
	f.Window = Window{
		StartS: float64(st.StartNs) / 1e9,
		EndS:   float64(st.StartNs+st.LengthNs) / 1e9,
		Source: steadySource(a.SteadyState),
		Reason: a.SteadyState.Reason,
	}
	if a.Raw.LengthNs > 0 {
		f.MeanOpsPerS = a.Raw.SustainedOpsPerS
	}
	if a.PageCache != nil {
		f.PageCache = a.PageCache.Verdict
	}
	f.Notes = append(f.Notes, a.Notes...)
	f.SustainedOpsPerS = st.SustainedOpsPerS
	f.PeakOpsPerS = st.PeakOpsPerS
	s := st.Stability
	f.Stability = Stability{N: s.Intervals, Min: s.MinOpsPerS, Max: s.MaxOpsPerS, Mean: s.MeanOpsPerS, StdDev: s.StdDevOpsPerS, CV: s.CVPercent / 100}
	for k := range f.Ops {
		for _, po := range st.PerOp {
			if po.Op == f.Ops[k].Op {
				f.Ops[k].OpsPerS = po.SustainedOpsPerS
				f.Ops[k].BytesPerS = po.SustainedBytesPerS
			}
		}
	}
	sl := a.Stalls
	f.Stalls = Stalls{Count: sl.Count, LongestNs: sl.LongestNs, TotalNs: sl.TotalNs}
	if rg := sl.Regulation; rg.Periodic {
		f.Stalls.Period = fmt.Sprintf("every %s: %s on, %s off (%d cycles)", units.Latency(float64(rg.PeriodNs)), units.Latency(float64(rg.OnNs)), units.Latency(float64(rg.OffNs)), rg.Cycles)
	} else {
		f.Stalls.Period = "none found"
	}
	if c := a.Cost; c != nil {
		f.Cost = &Cost{
			Instance: c.InstanceType, USDPerHour: c.PricePerHourUSD, Nodes: c.Nodes,
			OpsPerUSD: c.OpsPerUSD, USDPerMillion: c.USDPerMillionOps, GBPerUSD: c.GBPerUSD,
			MonthlyUSD: c.MonthlyUSD, PriceSource: c.PriceSource, PriceDate: c.PriceDate, Note: c.Note,
		}
		if f.Cost.Instance == "" {
			f.Cost.Instance = "-"
		}
	}
	return true
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
