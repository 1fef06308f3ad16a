package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
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
