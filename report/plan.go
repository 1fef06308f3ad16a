package report

import (
	"encoding/json"
	"fmt"
	"html/template"
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
	fmt.Fprintf(ew, "%s\n\n", planTitle(rep))
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
	if notes := planNotes(rep); len(notes) > 0 {
		fmt.Fprintf(ew, "\nNotes\n  %s\n", strings.Join(notes, "\n  "))
	}
	fmt.Fprintf(ew, "\nAssumptions\n")
	for _, a := range rep.Assumptions {
		fmt.Fprintf(ew, "  - %s\n", a)
	}
	return ew.err
}

// planNotes are the plan's remarks on each platform: why it could not be
// planned, where its price came from, its bill, and what was not priced.
func planNotes(rep *analysis.PlanReport) []string {
	var notes []string
	for _, r := range rep.Rows {
		if r.Reason != "" {
			notes = append(notes, fmt.Sprintf("%s (%s): %s", r.Label, r.File, r.Reason))
		}
		if r.PriceKnown && r.PriceSource != "" {
			notes = append(notes, fmt.Sprintf("%s price: %s", r.Label, r.PriceSource))
		}
		if b := planBillText(r, rep.ThroughputOpsPerS); b != "" {
			notes = append(notes, fmt.Sprintf("%s bill: %s", r.Label, b))
		}
	}
	if np := planNotPriced(rep); np != "" {
		notes = append(notes, "not priced: "+np)
	}
	return notes
}

// planTitle is the plan's one-line statement of what it plans for.
func planTitle(rep *analysis.PlanReport) string {
	return fmt.Sprintf("Capacity plan: %s ops/s with p99 <= %s (replication factor %d, nodes added in sets of %d)",
		units.Int(rep.ThroughputOpsPerS), time.Duration(rep.P99Ns), rep.RF, rep.Step)
}

// planTable is the ranked table of the HTML page.
func planTable(rep *analysis.PlanReport) *table {
	t := &table{head: []string{"rank", "platform", "file", "phase", "measured", "p99", "per node", "model", "nodes", "$/node-hour", "monthly"},
		right: []bool{true, false, false, false, true, true, true, false, true, true, true}}
	for _, r := range rep.Rows {
		if !r.Feasible {
			t.add(strconv.Itoa(r.Rank), orDash(r.Label), r.File, "-", "-", "-", "-", "-", "-", "-", "-")
			continue
		}
		price, monthly := "-", "-"
		if r.PriceKnown {
			price, monthly = units.Price(r.PricePerH), units.Cents(r.MonthlyUSD)
		}
		t.add(strconv.Itoa(r.Rank), orDash(r.Label), r.File, r.Phase, fmt.Sprintf("%s ops/s on %d", units.Int(r.MeasuredOps), r.MeasuredNodes),
			units.Latency(float64(r.MeasuredP99Ns)), units.Int(r.PerNodeOps), orDash(r.Model), strconv.Itoa(r.Nodes), price, monthly)
	}
	return t
}

// planChart draws one platform's scalability: the measured throughputs as
// dots, the fitted USL curve, the target throughput and the chosen size.
func planChart(k int, r *analysis.PlanRow, target float64) *chart {
	f := r.Fit
	c := &chart{id: chartID(fmt.Sprintf("plan-%d", k)), title: orDash(r.Label) + ": throughput by cluster size",
		x: xRun, y: yCount, xLabel: "nodes", yLabel: "ops/s", marksName: "chosen size",
		note: fmt.Sprintf("Universal Scalability Law: λ %s ops/s per node, σ %s, κ %s, R² %s (%d sizes measured)",
			units.Int(f.Lambda), strconv.FormatFloat(f.Sigma, 'g', 3, 64), strconv.FormatFloat(f.Kappa, 'g', 3, 64), units.Fixed(f.R2, 4), f.Sizes)}
	curve := series{name: "fitted curve", color: k}
	for _, p := range r.Curve {
		curve.xs, curve.ys = append(curve.xs, float64(p.Nodes)), append(curve.ys, p.OpsPerS)
	}
	measured := series{name: "measured", color: k + 1, dots: true}
	for _, p := range r.Points {
		measured.xs, measured.ys = append(measured.xs, float64(p.Nodes)), append(measured.ys, p.OpsPerS)
	}
	c.series = []series{curve, measured}
	if n := len(curve.xs); n > 0 {
		c.series = append(c.series, series{name: "target throughput", color: k + 2, dashed: true,
			xs: []float64{curve.xs[0], curve.xs[n-1]}, ys: []float64{target, target}})
	}
	if r.Nodes > 0 {
		label := fmt.Sprintf("%d nodes", r.Nodes)
		if !r.Feasible {
			label += " (the peak, below the target)"
		}
		c.marks = []mark{{x: float64(r.Nodes), label: label}}
	}
	return c
}

// WritePlanHTML writes a capacity plan as one self-contained page: the
// ranked table, each fitted platform's scalability chart, the notes and the
// assumptions.
func WritePlanHTML(w io.Writer, rep *analysis.PlanReport) error {
	page := struct {
		Head        headView
		Title, Lead string
		Plan        tableView
		Charts      []template.HTML
		Notes       []string
		Assumptions []string
		Tool        string
	}{Head: newHead("platbench: capacity plan"), Title: "Capacity plan", Lead: planTitle(rep), Plan: viewOf(planTable(rep)),
		Notes: planNotes(rep), Assumptions: rep.Assumptions, Tool: "platbench"}
	for i := range rep.Rows {
		if rep.Rows[i].Fit != nil {
			page.Charts = append(page.Charts, chartHTML(planChart(i, &rep.Rows[i], rep.ThroughputOpsPerS)))
		}
	}
	return writePage(w, "plan", page)
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
