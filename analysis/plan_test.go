package analysis

import (
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// measuredPhase is a 60 s phase at rate ops/s whose every op took lat (so its
// p99 is lat), with the per-interval HDR histograms the recorder writes.
func measuredPhase(name string, rate float64, lat time.Duration) result.Phase {
	p := phaseOf(map[string][]float64{"READ": noisy(0, 60, rate, 0)}, "READ")
	p.Name = name
	for i := range p.Intervals {
		h := result.NewHist()
		if err := h.RecordValues(int64(lat), int64(rate)); err != nil {
			panic(err)
		}
		p.Intervals[i].Ops[0].Hist = result.EncodeHist(h)
	}
	return p
}

func cluster(typ string, nodes int, phases ...result.Phase) *result.Result {
	r := &result.Result{Schema: result.SchemaVersion, Phases: phases}
	r.Platform.InstanceType = typ
	r.Target = vocab.Info{Kind: "cql"}
	for i := 0; i < nodes; i++ {
		r.Target.Nodes = append(r.Target.Nodes, "10.0.0.1")
	}
	return r
}

func TestPlanKnownAnswer(t *testing.T) {
	in := []PlanInput{
		// 3 x i3.16xlarge: 600k ops/s at p99 8 ms, 900k at p99 25 ms (a sweep).
		{File: "big.json", Result: cluster("i3.16xlarge", 3, measuredPhase("load", 2e6, time.Millisecond), measuredPhase("step-1", 600000, 8*time.Millisecond), measuredPhase("step-2", 900000, 25*time.Millisecond))},
		// 3 x i3.2xlarge: 90k ops/s at p99 5 ms.
		{File: "small.json", Result: cluster("i3.2xlarge", 3, measuredPhase("run", 90000, 5*time.Millisecond))},
		// Never meets 10 ms.
		{File: "slow.json", Result: cluster("m7g.large", 3, measuredPhase("run", 50000, 50*time.Millisecond))},
	}
	rep, err := Plan(in, PlanOptions{ThroughputOpsPerS: 500000, P99: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// small: 30k/node -> ceil(16.7) = 17 -> sets of 3 -> 18 nodes x $0.624 x 730 = $8,199.36.
	// big: 200k/node (the 900k step missed the objective) -> 3 nodes = $10,932.48.
	want := []struct {
		file     string
		feasible bool
		phase    string
		perNode  float64
		nodes    int
		monthly  float64
	}{
		{"small.json", true, "run", 30000, 18, 8199.36},
		{"big.json", true, "step-1", 200000, 3, 10932.48},
		{"slow.json", false, "", 0, 0, 0},
	}
	if len(rep.Rows) != 3 {
		t.Fatalf("%d rows", len(rep.Rows))
	}
	for i, w := range want {
		r := rep.Rows[i]
		if r.Rank != i+1 || r.File != w.file || r.Feasible != w.feasible || r.Phase != w.phase || !near(r.PerNodeOps, w.perNode) || r.Nodes != w.nodes || r.MonthlyUSD != w.monthly {
			t.Errorf("rank %d = %+v, want %+v", i+1, r, w)
		}
	}
	if !strings.Contains(rep.Rows[2].Reason, "no phase met p99 <= 10ms") {
		t.Errorf("infeasible reason %q", rep.Rows[2].Reason)
	}
	if len(rep.Assumptions) < 4 || !strings.Contains(strings.Join(rep.Assumptions, " "), "sets of 3") {
		t.Errorf("assumptions %q", rep.Assumptions)
	}

	// RF 1 in steps of 1: 17 small nodes ($7,743.84), still cheaper than 3 big ones.
	rep, err = Plan(in, PlanOptions{ThroughputOpsPerS: 500000, P99: 10 * time.Millisecond, RF: 1, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Rows[0]; r.File != "small.json" || r.Nodes != 17 || r.MonthlyUSD != 7743.84 {
		t.Errorf("rf 1 step 1: %+v", r)
	}
	// A phase that failed 2% of its ops is left out, however fast it was.
	fast := measuredPhase("run", 1e6, time.Millisecond)
	for i := range fast.Intervals {
		fast.Intervals[i].Ops[0].Errors = map[string]uint64{"rejected": 20000}
	}
	rep, err = Plan([]PlanInput{{File: "flaky.json", Result: cluster("i3.2xlarge", 3, fast)}}, PlanOptions{ThroughputOpsPerS: 500000, P99: 10 * time.Millisecond})
	if err != nil || rep.Rows[0].Feasible || !strings.Contains(rep.Rows[0].Reason, "1 phase(s) left out for failing more than 1% of their ops") {
		t.Errorf("flaky: %+v %v", rep.Rows[0], err)
	}
	rep, _ = Plan([]PlanInput{{File: "flaky.json", Result: cluster("i3.2xlarge", 3, fast)}}, PlanOptions{ThroughputOpsPerS: 500000, P99: 10 * time.Millisecond, MaxErrorRatio: 0.05})
	if r := rep.Rows[0]; !r.Feasible || r.Errors != 60*20000 || !strings.Contains(r.Reason, "errors") {
		t.Errorf("flaky at 5%%: %+v", r)
	}
	// A looser objective admits the 900k step: 300k/node -> 2 -> rf 3 -> 3 nodes.
	rep, _ = Plan(in, PlanOptions{ThroughputOpsPerS: 500000, P99: 30 * time.Millisecond})
	for _, r := range rep.Rows {
		if r.File == "big.json" && (r.Phase != "step-2" || r.Nodes != 3) {
			t.Errorf("30 ms objective: %+v", r)
		}
	}
}

func TestPlanBadInput(t *testing.T) {
	in := []PlanInput{{File: "a.json", Result: cluster("i3.2xlarge", 3, measuredPhase("run", 1000, time.Millisecond))}}
	// Each problem names the field, and all of them are reported at once.
	for field, o := range map[string]PlanOptions{
		"throughput_ops_per_s": {P99: time.Millisecond},
		"p99":                  {ThroughputOpsPerS: 1000},
		"rf":                   {ThroughputOpsPerS: 1000, P99: time.Millisecond, RF: -1},
		"warmup":               {ThroughputOpsPerS: 1000, P99: time.Millisecond, Warmup: "soon"},
	} {
		if _, err := Plan(in, o); err == nil || !usererr.Is(err) || !strings.HasPrefix(err.Error(), field+" ") || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%+v: err = %v, want one naming %s", o, err, field)
		}
	}
	if err := (&PlanOptions{RF: -1, Warmup: "soon"}).Validate(); err == nil || strings.Count(usererr.Render(err, nil), ";") != 3 {
		t.Errorf("every problem at once: %v", err)
	}
	// An unknown platform is named with its file.
	in[0].Platform = "i3.9xlarge"
	if _, err := Plan(in, PlanOptions{ThroughputOpsPerS: 1000, P99: time.Millisecond}); err == nil || !strings.Contains(err.Error(), "a.json") || !strings.Contains(err.Error(), "i3.9xlarge") {
		t.Errorf("unknown platform: %v", err)
	}
	// No instance type and no price: planned, but unpriced and said so.
	in[0].Platform = ""
	in[0].Result.Platform.InstanceType = ""
	rep, err := Plan(in, PlanOptions{ThroughputOpsPerS: 1000, P99: time.Millisecond * 2})
	if err != nil || rep.Rows[0].PriceKnown || !strings.Contains(rep.Rows[0].Reason, "no price") {
		t.Errorf("unpriced: %+v %v", rep, err)
	}
}
