package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// PlanPoint is one measured cluster size of a platform planned from the USL.
type PlanPoint struct {
	File          string  `json:"file"`
	Phase         string  `json:"phase"`
	Nodes         int     `json:"nodes"`
	OpsPerS       float64 `json:"ops_per_s"`
	P99Ns         int64   `json:"p99_ns"`
	FittedOpsPerS float64 `json:"fitted_ops_per_s"`
}

// PlanCurvePoint is the fitted throughput of one cluster size the plan may
// choose (a multiple of the step, at least the replication factor).
type PlanCurvePoint struct {
	Nodes   int     `json:"nodes"`
	OpsPerS float64 `json:"ops_per_s"`
}

// uslSize is the smallest cluster size of at least rf nodes, grown in sets
// of step, whose fitted throughput meets target. When no size does, ok is
// false and n is the size nearest the curve's peak.
func uslSize(f *USLFit, target float64, rf, step int) (n int, ok bool) {
	c0 := (rf + step - 1) / step * step
	size := func(k int) int { return c0 + k*step }
	at := func(k int) float64 { return f.At(float64(size(k))) }
	if f.Kappa == 0 && f.Sigma < 1 {
		// Rising for ever (towards λ/σ): solve λN/(1+σ(N−1)) = target.
		if f.Lambda <= target*f.Sigma {
			return size(0), false
		}
		need := target * (1 - f.Sigma) / (f.Lambda - target*f.Sigma)
		if need > 1e9 {
			return size(0), false
		}
		k := max(0, int(math.Ceil((need-float64(c0))/float64(step)-1e-9)))
		for k > 0 && at(k-1) >= target {
			k--
		}
		for at(k) < target {
			k++
		}
		return size(k), true
	}
	// Unimodal: rising to N*, falling after.
	kp := 0
	if f.Kappa > 0 && f.Sigma < 1 {
		kp = max(0, int(math.Round((f.PeakNodes-float64(c0))/float64(step))))
		for kp > 0 && at(kp-1) > at(kp) {
			kp--
		}
		for at(kp+1) > at(kp) {
			kp++
		}
	}
	if at(kp) < target {
		return size(kp), false
	}
	lo, hi := 0, kp // at(hi) >= target
	for lo < hi {
		mid := (lo + hi) / 2
		if at(mid) >= target {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return size(lo), true
}

// uslCurve is the fitted throughput at the sizes the plan chooses from, up
// to last, at most 12 of them (evenly spread, always with the first and last).
func uslCurve(f *USLFit, rf, step, last int) []PlanCurvePoint {
	c0 := (rf + step - 1) / step * step
	count := max(1, (last-c0)/step+1)
	var out []PlanCurvePoint
	prev := -1
	for i := 0; i < min(count, 12); i++ {
		k := i
		if count > 12 {
			k = int(math.Round(float64(i) * float64(count-1) / 11))
		}
		if k == prev {
			continue
		}
		prev = k
		n := c0 + k*step
		out = append(out, PlanCurvePoint{Nodes: n, OpsPerS: f.At(float64(n))})
	}
	return out
}

func platformKey(r PlanRow) string {
	if r.InstanceType != "" {
		return r.InstanceType
	}
	return r.Label
}

// planScaling replaces, for every platform measured at two or more cluster
// sizes, its rows by one planned from the USL fitted to them; a platform
// measured at one size keeps its linear plan, and says why.
func planScaling(rows []PlanRow, o PlanOptions) []PlanRow {
	groups := map[string][]int{}
	var keys []string
	for i, r := range rows {
		if !r.Feasible || platformKey(r) == "" {
			continue
		}
		k := platformKey(r)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], i)
	}
	merged := map[int]bool{}
	var out []PlanRow
	for _, k := range keys {
		idx := groups[k]
		sizes := map[int]bool{}
		for _, i := range idx {
			sizes[rows[i].MeasuredNodes] = true
		}
		if len(sizes) < 2 {
			for _, i := range idx {
				rows[i].Reason = joinReason(rows[i].Reason, fmt.Sprintf("one cluster size measured (%d nodes): the USL needs two or more, so throughput is assumed to scale linearly and the node count is a lower bound", rows[i].MeasuredNodes))
			}
			if len(idx) > 1 {
				var members []PlanRow
				for _, i := range idx {
					members = append(members, rows[i])
					merged[i] = true
				}
				out = append(out, repeatedRow(members, o))
			}
			continue
		}
		var members []PlanRow
		for _, i := range idx {
			members = append(members, rows[i])
			merged[i] = true
		}
		out = append(out, uslRow(members, o))
	}
	for i, r := range rows {
		if !merged[i] {
			out = append(out, r)
		}
	}
	return out
}

// uslRow plans one platform from the USL fitted to its measured sizes.
func uslRow(members []PlanRow, o PlanOptions) PlanRow {
	sort.SliceStable(members, func(i, j int) bool { return members[i].MeasuredNodes < members[j].MeasuredNodes })
	big := members[len(members)-1]
	row := big
	row.Model = "usl"
	row.Reason = ""
	var files []string
	var pts []USLPoint
	for _, m := range members {
		files = append(files, m.File)
		pts = append(pts, USLPoint{N: float64(m.MeasuredNodes), X: m.MeasuredOps})
		if m.Reason != "" {
			row.Reason = joinReason(row.Reason, m.File+": "+m.Reason)
		}
	}
	row.File = strings.Join(files, "+")
	fit, err := FitUSL(pts)
	if err != nil { // cannot happen: two or more sizes, each feasible
		row.Feasible, row.Reason = false, err.Error()
		return row
	}
	row.Fit = fit
	for _, m := range members {
		row.Points = append(row.Points, PlanPoint{File: m.File, Phase: m.Phase, Nodes: m.MeasuredNodes, OpsPerS: m.MeasuredOps,
			P99Ns: m.MeasuredP99Ns, FittedOpsPerS: fit.At(float64(m.MeasuredNodes))})
	}
	n, ok := uslSize(fit, o.ThroughputOpsPerS, o.RF, o.Step)
	row.Curve = uslCurve(fit, o.RF, o.Step, max(n, big.MeasuredNodes))
	row.Nodes = n
	row.PlannedOps = fit.At(float64(n))
	row.PerNodeOps = row.PlannedOps / float64(n)
	if !ok {
		row.Feasible = false
		row.MonthlyUSD, row.Bill = 0, nil
		row.Reason = joinReason(row.Reason, fmt.Sprintf("the target is above the fitted curve's peak (%.0f ops/s at %d nodes): adding nodes cannot reach it", row.PlannedOps, n))
	}
	if row.PriceKnown && ok {
		row.price(n, o.ThroughputOpsPerS)
	}
	uslLowEnd(&row, members, o)
	return row
}

// uslLowEnd carries the runs' uncertainty into a USL plan, as repeatedRow
// does for one size: when some cluster size was run two or more times, the
// USL is fitted again to each such size's low end of the 95% interval of its
// throughput (a size run once keeps its one value: its spread is unknown),
// and NodesAtLow is the size that curve needs: the count that still reaches
// the target if the platform is as slow as its runs allow.
func uslLowEnd(row *PlanRow, members []PlanRow, o PlanOptions) {
	bySize := map[int][]float64{}
	var sizes []int
	for _, m := range members {
		if bySize[m.MeasuredNodes] == nil {
			sizes = append(sizes, m.MeasuredNodes)
		}
		bySize[m.MeasuredNodes] = append(bySize[m.MeasuredNodes], m.MeasuredOps)
	}
	repeated := 0
	var pts []USLPoint
	for _, n := range sizes {
		ops := bySize[n]
		_, lo, _, ok := CentreInterval(ops)
		if !ok {
			return
		}
		if len(ops) > 1 {
			repeated++
		}
		pts = append(pts, USLPoint{N: float64(n), X: lo})
	}
	if repeated == 0 {
		return
	}
	fit, err := FitUSL(pts)
	if err != nil {
		return
	}
	n, ok := uslSize(fit, o.ThroughputOpsPerS, o.RF, o.Step)
	if !ok {
		row.Reason = joinReason(row.Reason, fmt.Sprintf("at the low end of the 95%% interval of the %d sizes run more than once, the target is above the curve's peak", repeated))
		return
	}
	row.NodesAtLow = n
	row.Reason = joinReason(row.Reason, fmt.Sprintf("%d of %d sizes run more than once: fitted to the low end of their 95%% intervals, the curve needs %d nodes", repeated, len(sizes), n))
}
