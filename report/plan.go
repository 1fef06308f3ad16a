package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
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
	var notes []string
	for _, r := range rep.Rows {
		if r.Reason != "" {
			notes = append(notes, fmt.Sprintf("  %s (%s): %s", r.Label, r.File, r.Reason))
		}
		if r.PriceKnown && r.PriceSource != "" {
			notes = append(notes, fmt.Sprintf("  %s price: %s", r.Label, r.PriceSource))
		}
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
