package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

func uslPlan(feasible bool) *analysis.PlanReport {
	fit, err := analysis.FitUSL([]analysis.USLPoint{{N: 3, X: 53956.83}, {N: 6, X: 91603.05}, {N: 9, X: 116580.31}, {N: 12, X: 132304.3}})
	if err != nil {
		panic(err)
	}
	row := analysis.PlanRow{Rank: 1, File: "c3.json+c6.json+c9.json+c12.json", Label: "i3.2xlarge", InstanceType: "i3.2xlarge", Phase: "run",
		MeasuredNodes: 12, MeasuredOps: 132304.3, MeasuredP99Ns: 5e6, PerNodeOps: 11025, Feasible: feasible, Nodes: 12,
		PriceKnown: true, PricePerH: 0.624, MonthlyUSD: 5466.24, Model: "usl", PlannedOps: 132304.3, Fit: fit,
		Points: []analysis.PlanPoint{{File: "c3.json", Phase: "run", Nodes: 3, OpsPerS: 53956.83, P99Ns: 5e6, FittedOpsPerS: fit.At(3)},
			{File: "c12.json", Phase: "run", Nodes: 12, OpsPerS: 132304.3, P99Ns: 5e6, FittedOpsPerS: fit.At(12)}},
		Curve: []analysis.PlanCurvePoint{{Nodes: 3, OpsPerS: fit.At(3)}, {Nodes: 6, OpsPerS: fit.At(6)}, {Nodes: 9, OpsPerS: fit.At(9)}, {Nodes: 12, OpsPerS: fit.At(12)}}}
	return &analysis.PlanReport{ThroughputOpsPerS: 120000, P99Ns: 1e7, RF: 3, Step: 3, Rows: []analysis.PlanRow{row}}
}

func TestWritePlanTextUSL(t *testing.T) {
	var b bytes.Buffer
	if err := WritePlanText(&b, uslPlan(true)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, s := range []string{"Scalability of i3.2xlarge (Universal Scalability Law, 4 sizes)", "σ (contention) 0.05", "κ (coherency) 0.002",
		"R² 1.0000", "throughput peaks at N* = 21.8 nodes", "c3.json", "53,957", "132,304", "<- chosen", "$5,466.24", "4 sizes: λ, σ and κ fitted"} {
		if !strings.Contains(out, s) {
			t.Errorf("text lacks %q:\n%s", s, out)
		}
	}
	b.Reset()
	if err := WritePlanText(&b, uslPlan(false)); err != nil || !strings.Contains(b.String(), "<- peak, below the target") {
		t.Errorf("unreachable plan: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := WritePlanJSON(&b, uslPlan(true)); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Rows []struct {
			Model  string                                    `json:"model"`
			Nodes  int                                       `json:"nodes"`
			Fit    struct{ Sigma, Kappa, PeakNodes float64 } `json:"usl"`
			Points []struct{ Nodes int }                     `json:"points"`
			Curve  []struct{ Nodes int }                     `json:"curve"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(b.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if r := back.Rows[0]; r.Model != "usl" || r.Nodes != 12 || r.Fit.Sigma < 0.049 || r.Fit.Sigma > 0.051 || len(r.Points) != 2 || len(r.Curve) != 4 {
		t.Errorf("json %+v\n%s", back, b.String())
	}
}

// A plan's bill beyond the instances is itemised in the notes, and what it
// leaves out is named.
func TestPlanTextBill(t *testing.T) {
	rep := uslPlan(true)
	row := &rep.Rows[0]
	row.Bill = []result.CostItem{
		{Component: result.CostInstances, Name: "i3.2xlarge", Count: 12, UnitPerHourUSD: 0.624, MonthlyUSD: 5466.24},
		{Component: result.CostStorage, Name: "gp3:1TiB", Count: 12, UnitMonthlyUSD: 81.92, MonthlyUSD: 983.04},
		{Component: result.CostNetwork, Name: "cross-zone", Count: 1, MonthlyUSD: 4204.8,
			Network: &result.NetworkCost{Basis: result.NetEstimated, RF: 3, Zones: 3, CrossZoneBytesPerS: 80e6, PerGBUSD: 0.02}},
	}
	row.MonthlyUSD = 10654.08
	row.NotPriced = []string{"load generators (a plan does not size them)"}
	var b strings.Builder
	if err := WritePlanText(&b, rep); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"i3.2xlarge bill: instances $5,466.24 + storage $983.04 (12 x gp3:1TiB) + network $4,204.80 (76.3 MiB/s across zones at the target throughput, 667 B per op as estimated) = $10,654.08 a month",
		"not priced: load generators"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("plan text lacks %q:\n%s", w, b.String())
		}
	}
}

// The plan's page: the ranked table, the platform's scalability chart with
// its measured points as dots, the fitted curve, the target line and the
// chosen size marked; the notes and assumptions.
func TestWritePlanHTML(t *testing.T) {
	var b strings.Builder
	if err := WritePlanHTML(&b, uslPlan(true)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h1>Capacity plan</h1>", "Platforms, ranked", "throughput by cluster size", `class="series c1 dots"`,
		"fitted curve", "target throughput", "12 nodes", "Universal Scalability Law: λ", "Assumptions"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "http://") {
		t.Error("the page is not self-contained")
	}
	b.Reset()
	if err := WritePlanHTML(&b, uslPlan(false)); err != nil || !strings.Contains(b.String(), "(the peak, below the target)") {
		t.Errorf("an infeasible plan's chart: %v", err)
	}
}
