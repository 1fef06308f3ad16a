package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WritePlanText writes a capacity plan (analysis.Plan) for a terminal: the
// ranked table, the notes on each platform, then the assumptions.
func WritePlanText(w io.Writer, rep *analysis.PlanReport) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Capacity plan: %s ops/s with p99 <= %s (replication factor %d, nodes added in sets of %d)\n\n",
		units.Int(rep.ThroughputOpsPerS), time.Duration(rep.P99Ns), rep.RF, rep.Step)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tPLATFORM\tFILE\tPHASE\tMEASURED\tP99\tPER NODE\tNODES\t$/NODE-HOUR\tMONTHLY")
	for _, r := range rep.Rows {
		label := orDash(r.Label)
		if !r.Feasible {
			fmt.Fprintf(tw, "%d\t%s\t%s\t-\t-\t-\t-\t-\t-\t-\n", r.Rank, label, r.File)
			continue
		}
		measured := fmt.Sprintf("%s ops/s on %d", units.Int(r.MeasuredOps), r.MeasuredNodes)
		price, monthly := "-", "-"
		if r.PriceKnown {
			price, monthly = units.Price(r.PricePerH), units.Cents(r.MonthlyUSD)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\n", r.Rank, label, r.File, r.Phase, measured,
			time.Duration(r.MeasuredP99Ns).Round(10*time.Microsecond), units.Int(r.PerNodeOps), r.Nodes, price, monthly)
	}
	tw.Flush()
	for _, r := range rep.Rows {
		if r.Fit != nil {
			writePlanFit(ew, r)
		}
	}
	var notes []string
	for _, r := range rep.Rows {
		if r.Reason != "" {
			notes = append(notes, fmt.Sprintf("  %s (%s): %s", r.Label, r.File, r.Reason))
		}
		if r.PriceKnown && r.PriceSource != "" {
			notes = append(notes, fmt.Sprintf("  %s price: %s", r.Label, r.PriceSource))
		}
		if b := planBillText(r, rep.ThroughputOpsPerS); b != "" {
			notes = append(notes, fmt.Sprintf("  %s bill: %s", r.Label, b))
		}
	}
	if np := planNotPriced(rep); np != "" {
		notes = append(notes, "  not priced: "+np)
	}
	if len(notes) > 0 {
		fmt.Fprintf(ew, "\nNotes\n%s\n", strings.Join(notes, "\n"))
	}
	fmt.Fprintf(ew, "\nAssumptions\n")
	for _, a := range rep.Assumptions {
		fmt.Fprintf(ew, "  - %s\n", a)
	}
	return ew.err
}

// WritePlanJSON writes a capacity plan as JSON.
func WritePlanJSON(w io.Writer, rep *analysis.PlanReport) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", " ")
	return enc.Encode(rep)
}

// writePlanFit writes the USL fit of one platform: the parameters, the
// measured points beside the curve, and the curve at the sizes the plan
// chose from, the chosen size marked.
func writePlanFit(ew *errWriter, r analysis.PlanRow) {
	f := r.Fit
	fmt.Fprintf(ew, "\nScalability of %s (Universal Scalability Law, %d sizes)\n", orDash(r.Label), f.Sizes)
	fmt.Fprintf(ew, "  λ %s ops/s per node, σ (contention) %s, κ (coherency) %s, R² %s\n",
		units.Int(f.Lambda), strconv.FormatFloat(f.Sigma, 'g', 3, 64), strconv.FormatFloat(f.Kappa, 'g', 3, 64), units.Fixed(f.R2, 4))
	switch {
	case f.PeakNodes > 0:
		fmt.Fprintf(ew, "  throughput peaks at N* = %s nodes (%s ops/s)\n", units.Trim1(f.PeakNodes), units.Int(f.PeakOpsPerS))
	case f.PeakOpsPerS > 0:
		fmt.Fprintf(ew, "  no peak (κ = 0): throughput approaches %s ops/s\n", units.Int(f.PeakOpsPerS))
	}
	fmt.Fprintf(ew, "  %s\n", f.Method)
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  MEASURED\tNODES\tOPS/S\tFITTED\tP99\tPHASE")
	for _, p := range r.Points {
		fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\t%s\t%s\n", p.File, p.Nodes, units.Int(p.OpsPerS), units.Int(p.FittedOpsPerS),
			time.Duration(p.P99Ns).Round(10*time.Microsecond), p.Phase)
	}
	tw.Flush()
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  CURVE\tNODES\tOPS/S\t")
	for _, c := range r.Curve {
		mark := ""
		if c.Nodes == r.Nodes {
			mark = "<- chosen"
			if !r.Feasible {
				mark = "<- peak, below the target"
			}
		}
		fmt.Fprintf(tw, "  \t%d\t%s\t%s\n", c.Nodes, units.Int(c.OpsPerS), mark)
	}
	tw.Flush()
}

// planBillText is a row's monthly bill item by item, when it has more than
// the instances: "instances $8,199.36 + storage $1,474.56 (18 x gp3:1TiB) + network ... = $27,193.92".
func planBillText(r analysis.PlanRow, target float64) string {
	if len(r.Bill) < 2 {
		return ""
	}
	var parts []string
	for _, it := range r.Bill {
		what, _, _ := billItemText(it)
		switch it.Component {
		case result.CostInstances:
			parts = append(parts, fmt.Sprintf("%s %s", it.Component, units.Cents(it.MonthlyUSD)))
		case result.CostNetwork:
			parts = append(parts, fmt.Sprintf("%s %s (%s/s across zones at the target throughput, %s per op as %s)", it.Component, units.Cents(it.MonthlyUSD),
				units.Bytes(it.Network.CrossZoneBytesPerS), units.Bytes(it.Network.CrossZoneBytesPerS/target), it.Network.Basis))
		default:
			parts = append(parts, fmt.Sprintf("%s %s (%d x %s)", it.Component, units.Cents(it.MonthlyUSD), it.Count, what))
		}
	}
	return strings.Join(parts, " + ") + " = " + units.Cents(r.MonthlyUSD) + " a month"
}

// planNotPriced is what the plan's bills leave out (the first priced row's:
// every row is priced by the same options).
func planNotPriced(rep *analysis.PlanReport) string {
	for _, r := range rep.Rows {
		if len(r.NotPriced) > 0 {
			return strings.Join(r.NotPriced, "; ")
		}
	}
	return ""
}
