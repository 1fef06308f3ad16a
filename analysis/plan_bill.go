package analysis

import (
	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/result"
)

// planBill is what a plan row needs to price a cluster of any size: one
// volume, the cross-zone traffic per op measured or estimated from the
// chosen phase, and what is not priced.
type planBill struct {
	volume    *result.CostItem // one node's volume; nil: none
	network   *result.CostItem // at the measured throughput; nil: not priced
	perOp     float64          // cross-zone bytes per op of the measured phase
	notPriced []string
}

// newPlanBill prices the parts of the bill that do not depend on the size
// from the phase the plan chose (window w of r).
func newPlanBill(r *result.Result, w result.Window, o PlanOptions, p Price, cat *catalog.Catalog) (planBill, error) {
	var pb planBill
	b := o.Bill
	b.RF = o.RF
	st, missing, err := storageCost(b.Storage, 1, cat)
	if err != nil {
		return pb, err
	}
	pb.volume = st
	provider := p.Instance.Provider
	if provider == "" && st != nil {
		if v, err := cat.LookupVolume(b.Storage.Type); err == nil {
			provider = v.Provider
		}
	}
	// The planned cluster spans every zone given: do not cap them by the
	// nodes measured.
	net, why := networkCost(r, w, b, max(len(r.Target.Nodes), b.Zones, o.RF), provider, cat)
	if why != "" {
		missing = append(missing, why)
	}
	if net != nil && w.SustainedOpsPerS > 0 {
		pb.network, pb.perOp = net, net.Network.CrossZoneBytesPerS/w.SustainedOpsPerS
	}
	pb.notPriced = append(missing, "load generators (a plan does not size them)", alwaysUnpriced)
	return pb, nil
}

// items is the bill of n nodes carrying opsPerS: the instances, n volumes and
// the cross-zone traffic scaled from the measured bytes per op.
func (pb planBill) items(p Price, n int, opsPerS float64) []result.CostItem {
	out := []result.CostItem{{Component: result.CostInstances, Name: p.Instance.Type, Count: n, UnitPerHourUSD: p.PerHourUSD,
		PerHourUSD: p.PerHourUSD * float64(n), MonthlyUSD: catalog.MonthlyUSD(p.PerHourUSD, n), Source: p.Source, Date: p.Date}}
	if v := pb.volume; v != nil {
		it := *v
		it.Count, it.PerHourUSD, it.MonthlyUSD = n, v.UnitMonthlyUSD*float64(n)/catalog.HoursPerMonth, roundCents(v.UnitMonthlyUSD*float64(n))
		out = append(out, it)
	}
	if v := pb.network; v != nil {
		it := *v
		nc := *v.Network
		nc.WriteBytesPerS, nc.ClientBytesPerS, nc.NodeTxBytesPerS = 0, 0, 0
		nc.CrossZoneBytesPerS = pb.perOp * opsPerS
		it.Network = &nc
		it.PerHourUSD = nc.CrossZoneBytesPerS * 3600 / 1e9 * nc.PerGBUSD
		it.MonthlyUSD = roundCents(it.PerHourUSD * catalog.HoursPerMonth)
		out = append(out, it)
	}
	return out
}

// price sets row's bill for n nodes carrying the plan's throughput.
func (row *PlanRow) price(n int, opsPerS float64) {
	row.Bill = row.planBill.items(row.planPrice, n, opsPerS)
	row.NotPriced = row.planBill.notPriced
	row.MonthlyUSD = 0
	for _, it := range row.Bill {
		row.MonthlyUSD += it.MonthlyUSD
	}
	row.MonthlyUSD = roundCents(row.MonthlyUSD)
}
