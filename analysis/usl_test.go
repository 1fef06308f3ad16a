package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func uslPoints(l, s, k float64, ns ...float64) []USLPoint {
	var pts []USLPoint
	for _, n := range ns {
		pts = append(pts, USLPoint{N: n, X: uslX(l, s, k, n)})
	}
	return pts
}

func within(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Abs(want) }

func TestFitUSLRecoversKnownParameters(t *testing.T) {
	// λ = 20,000 ops/s per node, σ = 0.05, κ = 0.002: the peak is at
	// N* = sqrt(0.95/0.002) = 21.79 nodes.
	f, err := FitUSL(uslPoints(20000, 0.05, 0.002, 3, 6, 9, 12, 18, 24, 30))
	if err != nil {
		t.Fatal(err)
	}
	if !within(f.Lambda, 20000, 1e-4) || !within(f.Sigma, 0.05, 1e-3) || !within(f.Kappa, 0.002, 1e-3) || f.R2 < 0.999999 {
		t.Errorf("fit %+v, want λ 20000 σ 0.05 κ 0.002 R² 1", f)
	}
	if !within(f.PeakNodes, math.Sqrt(0.95/0.002), 1e-3) || f.Sizes != 7 || !strings.Contains(f.Method, "Levenberg") {
		t.Errorf("peak %g sizes %d method %q", f.PeakNodes, f.Sizes, f.Method)
	}
	// Contention only (κ = 0): the fit keeps κ at its bound.
	f, err = FitUSL(uslPoints(5000, 0.1, 0, 1, 2, 4, 8, 16))
	if err != nil || !within(f.Sigma, 0.1, 1e-3) || f.Kappa > 1e-7 || !within(f.PeakOpsPerS, 5000/f.Sigma, 1e-3) {
		t.Errorf("contention-only fit %+v %v", f, err)
	}
}

func TestFitUSLNoisy(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 2))
	var pts []USLPoint
	for _, n := range []float64{1, 2, 4, 8, 12, 16, 24, 32, 48} {
		for range 3 {
			pts = append(pts, USLPoint{N: n, X: uslX(10000, 0.03, 0.0005, n) * (1 + 0.02*rng.NormFloat64())})
		}
	}
	f, err := FitUSL(pts)
	if err != nil {
		t.Fatal(err)
	}
	// 2% noise on each of 27 points: the parameters within 10% (σ, λ) and
	// 25% (κ), the peak within 10%.
	if !within(f.Lambda, 10000, 0.1) || !within(f.Sigma, 0.03, 0.25) || !within(f.Kappa, 0.0005, 0.25) ||
		!within(f.PeakNodes, math.Sqrt(0.97/0.0005), 0.1) || f.R2 < 0.95 {
		t.Errorf("noisy fit %+v, want λ 10000 σ 0.03 κ 0.0005, N* %.1f", f, math.Sqrt(0.97/0.0005))
	}
}

func TestFitUSLFewSizes(t *testing.T) {
	// Three sizes: λ pinned through the smallest, σ and κ solved exactly.
	f, err := FitUSL(uslPoints(20000, 0.05, 0.002, 3, 6, 12))
	if err != nil || !within(f.Lambda, 20000, 1e-4) || !within(f.Sigma, 0.05, 1e-3) || !within(f.Kappa, 0.002, 1e-3) ||
		!strings.Contains(f.Method, "three sizes") {
		t.Errorf("three sizes: %+v %v", f, err)
	}
	// Two sizes: κ cannot be told apart, so it is 0 and σ takes the loss.
	f, err = FitUSL(uslPoints(20000, 0.05, 0, 3, 9))
	if err != nil || !within(f.Sigma, 0.05, 1e-3) || f.Kappa != 0 || !strings.Contains(f.Method, "κ cannot be estimated") {
		t.Errorf("two sizes: %+v %v", f, err)
	}
	if _, err := FitUSL(uslPoints(20000, 0.05, 0, 3, 3)); err == nil {
		t.Error("one size fitted")
	}
}

func TestUSLSize(t *testing.T) {
	f, _ := FitUSL(uslPoints(20000, 0.05, 0.002, 3, 6, 9, 12, 18, 24, 30))
	// X(12) = 240000/(1+0.55+0.264) = 132,304; X(9) = 180000/1.544 = 116,580.
	if n, ok := uslSize(f, 120000, 3, 3); !ok || n != 12 {
		t.Errorf("120k: %d %v, want 12 nodes", n, ok)
	}
	// The peak is at 21.8 nodes: X(21) = 420000/(1+1+0.84) = 147,887 is the
	// most a multiple of 3 reaches.
	if n, ok := uslSize(f, 150000, 3, 3); ok || n != 21 {
		t.Errorf("150k: %d %v, want unreachable, best 21", n, ok)
	}
	// Contention only: ceiling λ/σ = 400k.
	g := &USLFit{Lambda: 20000, Sigma: 0.05}
	// Just under it: N >= 399000*0.95/(20000-19950) = 7,581, a multiple of 3.
	if n, ok := uslSize(g, 399000, 3, 3); !ok || n != 7581 {
		t.Errorf("just under the ceiling: %d nodes %v", n, ok)
	}
	if _, ok := uslSize(g, 400000, 3, 3); ok {
		t.Error("the ceiling itself reached")
	}
	// X(N) = 20000N/(1+0.05(N−1)) >= 100k at N >= 6.33 -> 9 in sets of 3.
	if n, ok := uslSize(g, 100000, 3, 3); !ok || n != 9 {
		t.Errorf("100k: %d %v, want 9", n, ok)
	}
}

func TestPlanFromUSL(t *testing.T) {
	x := func(n int) float64 { return uslX(20000, 0.05, 0.002, float64(n)) }
	var in []PlanInput
	for _, n := range []int{3, 6, 9, 12} {
		in = append(in, PlanInput{File: "c" + string(rune('0'+n%10)) + ".json", Result: cluster("i3.2xlarge", n, measuredPhase("run", x(n), 5*time.Millisecond))})
	}
	in = append(in, PlanInput{File: "one.json", Result: cluster("i3.16xlarge", 3, measuredPhase("run", 300000, 5*time.Millisecond))})
	rep, err := Plan(in, PlanOptions{ThroughputOpsPerS: 120000, P99: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 2 {
		t.Fatalf("%d rows, want 2 (the four sizes of i3.2xlarge merged)", len(rep.Rows))
	}
	u := rep.Rows[0]
	// 12 x i3.2xlarge ($0.624/h) = $5,466.24 a month, under 3 x i3.16xlarge.
	if u.Model != "usl" || u.Fit == nil || u.Nodes != 12 || !within(u.MonthlyUSD, 12*0.624*730, 1e-9) || len(u.Points) != 4 || len(u.Curve) != 4 {
		t.Errorf("usl row %+v", u)
	}
	if !within(u.Fit.Sigma, 0.05, 0.05) || !within(u.Fit.Kappa, 0.002, 0.05) || !within(u.PlannedOps, x(12), 0.01) {
		t.Errorf("fit %+v planned %g", u.Fit, u.PlannedOps)
	}
	if l := rep.Rows[1]; l.Model != "linear" || !strings.Contains(l.Reason, "one cluster size measured (3 nodes)") {
		t.Errorf("linear row %+v", l)
	}
	// Above the peak: no size reaches it.
	rep, err = Plan(in[:4], PlanOptions{ThroughputOpsPerS: 200000, P99: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.Feasible || !strings.Contains(r.Reason, "above the fitted curve's peak") || r.MonthlyUSD != 0 {
		t.Errorf("above the peak: %+v", r)
	}
}

// A published data set with published fitted parameters: the SPEC SDM91
// benchmark of a 16-CPU Sun SPARCcenter 2000 (script executions per hour by
// simulated users), from Neil J. Gunther, Guerrilla Capacity Planning
// (Springer, 2007; doi:10.1007/978-3-540-31010-5), shipped as the specsdm91
// data set of the R package usl (CRAN; github.com/smoeding/usl), whose
// README prints the fit of usl(throughput ~ load, specsdm91):
// alpha (σ) 0.0277285, beta (κ) 0.0001044, gamma (λ) 89.9952330.
func TestFitUSLPublishedSPECSDM91(t *testing.T) {
	pts := []USLPoint{{N: 1, X: 64.9}, {N: 18, X: 995.9}, {N: 36, X: 1652.4}, {N: 72, X: 1853.2},
		{N: 108, X: 1828.9}, {N: 144, X: 1775.0}, {N: 216, X: 1702.2}}
	f, err := FitUSL(pts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		rel       float64
	}{{"σ", f.Sigma, 0.0277285, 1e-4}, {"κ", f.Kappa, 0.0001044, 1e-3}, {"λ", f.Lambda, 89.9952330, 1e-5}} {
		if math.Abs(c.got-c.want) > c.rel*c.want {
			t.Errorf("%s = %v, the published fit gives %v", c.name, c.got, c.want)
		}
	}
	// N* = sqrt((1-σ)/κ): about 96.5 users.
	if f.PeakNodes < 96 || f.PeakNodes > 97 {
		t.Errorf("peak at %v users, want about 96.5", f.PeakNodes)
	}
}

// Every size run twice (3% below and above the curve): the USL plan carries
// the runs' spread into NodesAtLow, as one size's repeated runs do. By hand:
// each size's logs are ±0.030, sd 0.0424, se 0.0300, t(0.975, 1) = 12.706:
// the low end is 0.99955 x e^-0.3813 = 0.683 of the curve at every size, so
// the low-end fit is the same curve scaled. 80k ops/s: the curve reaches it
// at 5 nodes (x(5) = 80.6k); scaled by 0.683 it needs x(n) >= 117.1k:
// x(9) = 116.6k, x(10) = 122.7k: 10 nodes. 120k is above the scaled curve's
// peak (0.683 x 147.9k = 101k).
func TestPlanFromUSLRepeatedRuns(t *testing.T) {
	x := func(n int) float64 { return uslX(20000, 0.05, 0.002, float64(n)) }
	var in []PlanInput
	for _, n := range []int{3, 6, 9, 12} {
		for i, f := range []float64{0.97, 1.03} {
			in = append(in, PlanInput{File: fmt.Sprintf("c%d-%d.json", n, i), Result: cluster("i3.2xlarge", n, measuredPhase("run", f*x(n), 5*time.Millisecond))})
		}
	}
	rep, err := Plan(in, PlanOptions{ThroughputOpsPerS: 80000, P99: 10 * time.Millisecond, RF: 1, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 1 {
		t.Fatalf("%d rows, want one USL row", len(rep.Rows))
	}
	u := rep.Rows[0]
	if u.Model != "usl" || u.Nodes != 5 || u.NodesAtLow != 10 || !strings.Contains(u.Reason, "4 of 4 sizes run more than once") {
		t.Errorf("usl row: %d nodes, %d at the low end, reason %q: want 5, 10", u.Nodes, u.NodesAtLow, u.Reason)
	}
	rep, err = Plan(in, PlanOptions{ThroughputOpsPerS: 120000, P99: 10 * time.Millisecond, RF: 1, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if u := rep.Rows[0]; !u.Feasible || u.NodesAtLow != 0 || !strings.Contains(u.Reason, "the target is above the curve's peak") {
		t.Errorf("120k: feasible %v, %d at the low end, reason %q: want feasible, none at the low end", u.Feasible, u.NodesAtLow, u.Reason)
	}
	// Sizes run once each: no low end (their spread is unknown).
	if u := mustPlan(t, in[0:1], in[2:3], in[4:5]); u.NodesAtLow != 0 || strings.Contains(u.Reason, "run more than once") {
		t.Errorf("single runs: %d at the low end, reason %q", u.NodesAtLow, u.Reason)
	}
}

func mustPlan(t *testing.T, parts ...[]PlanInput) PlanRow {
	t.Helper()
	var in []PlanInput
	for _, p := range parts {
		in = append(in, p...)
	}
	rep, err := Plan(in, PlanOptions{ThroughputOpsPerS: 80000, P99: 10 * time.Millisecond, RF: 1, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep.Rows[0]
}
