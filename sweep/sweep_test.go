package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// capacity is a system that meets the objective up to c ops/s.
func capacity(c float64, tried *[]float64) func(float64) (bool, error) {
	seen := map[string]bool{}
	return func(r float64) (bool, error) {
		if seen[PhaseName(r)] {
			return false, errRepeat
		}
		seen[PhaseName(r)] = true
		*tried = append(*tried, r)
		return r <= c, nil
	}
}

func TestFindMaxSearch(t *testing.T) {
	cases := []struct {
		name       string
		capacity   float64
		start, max float64
		bisect     int
		want       string
		comment    string
	}{
		{"double then bisect", 37000, 1000, 1e7, 3, "1000 2000 4000 8000 16000 32000 64000 48000 40000 36000",
			"64k fails: bisect 32k..64k -> 48k (bad), 40k (bad), 36k (good)"},
		{"start fails", 500, 1000, 1e7, 3, "1000", "nothing to bisect: the verdict asks for a lower start"},
		{"max reached", 1e9, 1000, 5000, 3, "1000 2000 4000 5000", "capped at --max and stops there"},
		{"no bisection", 37000, 1000, 1e7, -1, "1000 2000 4000 8000 16000 32000 64000", "--bisect 0"},
		{"bisection stops at 2%", 1010, 1000, 1e7, 10, "1000 2000 1500 1250 1130 1070 1040 1020 1010",
			"rates keep 3 digits (1125 -> 1130); after 1010 (good) and 1020 (bad) the gap is under 2%: stop with bisections left"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var tried []float64
			cfg := Config{FindMax: true, ObjectiveP99: time.Millisecond, Start: c.start, Max: c.max, Bisect: c.bisect}
			cfg.EnsureDefaults()
			if err := findMax(context.Background(), &cfg, capacity(c.capacity, &tried)); err != nil {
				t.Fatal(err)
			}
			parts := make([]string, len(tried))
			for i, r := range tried {
				parts[i] = fmt.Sprint(r)
			}
			if got := strings.Join(parts, " "); got != c.want {
				t.Errorf("tried %s, want %s (%s)", got, c.want, c.comment)
			}
		})
	}
}

// stepPhase is a fixed-rate step of n 1 s intervals at ops/s each, every
// op taking lat, with delayed ops and errors.
func stepPhase(t *testing.T, name string, ops []uint64, lat time.Duration, delayed, errs uint64) *result.Phase {
	t.Helper()
	p := &result.Phase{Name: name, Mode: "open", Delayed: delayed}
	total := result.NewHist()
	var n uint64
	for i, k := range ops {
		h := result.NewHist()
		if k > 0 {
			if err := h.RecordValues(int64(lat), int64(k)); err != nil {
				t.Fatal(err)
			}
		}
		total.Merge(h)
		n += k
		io := result.IntervalOp{Op: "READ", Count: k, Hist: result.EncodeHist(h)}
		if i == 0 && errs > 0 {
			io.Errors = map[string]uint64{"timeout": errs}
		}
		p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(i) * int64(time.Second), DurationNs: int64(time.Second), Ops: []result.IntervalOp{io}})
	}
	p.DurationNs = int64(len(ops)) * int64(time.Second)
	svc := result.NewHist()
	if err := svc.RecordValues(int64(lat/2), int64(n)); err != nil {
		t.Fatal(err)
	}
	ot := result.OpTotal{Op: "READ", Count: n, Hist: result.EncodeHist(total), ServiceHist: result.EncodeHist(svc)}
	if errs > 0 {
		ot.Errors = map[string]uint64{"timeout": errs}
	}
	p.Ops = []result.OpTotal{ot}
	return p
}

func repeat(v uint64, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func TestMeasureJudges(t *testing.T) {
	cases := []struct {
		name    string
		ops     []uint64
		lat     time.Duration
		delayed uint64
		errs    uint64
		meets   bool
		reason  string
	}{
		{"kept up", repeat(1000, 5), time.Millisecond, 0, 0, true, ""},
		{"fell behind", repeat(900, 5), time.Millisecond, 0, 0, false, "below 95.0% of the rate"},
		{"over objective", repeat(1000, 5), 20 * time.Millisecond, 0, 0, false, "over the 10ms objective"},
		{"delayed", repeat(1000, 5), time.Millisecond, 300, 0, false, "queued behind the target"}, // 6% > 5%
		{"few delayed", repeat(1000, 5), time.Millisecond, 200, 0, true, ""},                      // 4%
		{"errors", repeat(1000, 5), time.Millisecond, 0, 20, false, "errors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Config{ObjectiveP99: 10 * time.Millisecond, Warmup: "0"}
			st, err := Measure(stepPhase(t, "rate-1000", c.ops, c.lat, c.delayed, c.errs), 1000, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.MeetsObjective != c.meets || !strings.Contains(report.SweepStepReason(&st), c.reason) {
				t.Errorf("meets %v (%q), want %v (%q)", st.MeetsObjective, report.SweepStepReason(&st), c.meets, c.reason)
			}
			var sum uint64
			for _, k := range c.ops {
				sum += k
			}
			if st.Ops != sum || math.Abs(st.SustainedOpsPerS-float64(sum)/5) > 1e-9 {
				t.Errorf("ops %d sustained %.1f, want %d and %.1f", st.Ops, st.SustainedOpsPerS, sum, float64(sum)/5)
			}
			if d := math.Abs(float64(st.P99Ns)-float64(c.lat)) / float64(c.lat); d > 0.001 {
				t.Errorf("p99 %s, want %s", time.Duration(st.P99Ns), c.lat)
			}
			if d := math.Abs(float64(st.ServiceP99Ns)-float64(c.lat/2)) / float64(c.lat/2); d > 0.001 {
				t.Errorf("service p99 %s, want %s", time.Duration(st.ServiceP99Ns), c.lat/2)
			}
		})
	}
}

// The steady window of a step leaves out its warm-up: a slow first 5 s of
// 20 does not lower the sustained rate or raise the p99.
func TestMeasureUsesSteadyWindow(t *testing.T) {
	ops := repeat(1000, 20)
	p := stepPhase(t, "rate-1000", ops, time.Millisecond, 0, 0)
	// A forced 5 s warm-up with a different first 5 s.
	for i := 0; i < 5; i++ {
		h := result.NewHist()
		_ = h.RecordValues(int64(500*time.Millisecond), 300)
		p.Intervals[i].Ops[0] = result.IntervalOp{Op: "READ", Count: 300, Hist: result.EncodeHist(h)}
	}
	// The phase totals hold what the intervals hold, as in a recorded file
	// (the whole phase's latency comes from the totals).
	total := result.NewHist()
	for _, iv := range p.Intervals {
		ih, err := result.DecodeHist(iv.Ops[0].Hist)
		if err != nil {
			t.Fatal(err)
		}
		total.Merge(ih)
	}
	p.Ops[0].Hist = result.EncodeHist(total)
	cfg := Config{ObjectiveP99: 10 * time.Millisecond, Warmup: "5s"}
	st, err := Measure(p, 1000, &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if st.SteadyFromNs != 5*int64(time.Second) || st.SteadyMethod != "forced" || st.SustainedOpsPerS != 1000 || !st.MeetsObjective {
		t.Errorf("steady from %s (%s): %.0f op/s, meets %v %q", time.Duration(st.SteadyFromNs), st.SteadyMethod, st.SustainedOpsPerS, st.MeetsObjective, report.SweepStepReason(&st))
	}
	cfg.Warmup = "0"
	st, _ = Measure(p, 1000, &cfg)
	if st.MeetsObjective || st.P99Ns < int64(400*time.Millisecond) {
		t.Errorf("whole step: p99 %s meets %v; want the slow start to count", time.Duration(st.P99Ns), st.MeetsObjective)
	}
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"nothing", Config{}, "rates are missing: a sweep needs steps"},
		{"both", Config{FindMax: true, Rates: []float64{1}, ObjectiveP99: time.Millisecond}, "exclude each other"},
		{"no objective", Config{FindMax: true}, "objective_p99 is needed"},
		{"bad rate", Config{Rates: []float64{-1}}, "not a positive rate"},
		{"short step", Config{Rates: []float64{10}, Step: time.Second}, "too short"},
		{"start above max", Config{FindMax: true, ObjectiveP99: time.Millisecond, Start: 10, Max: 5}, "0 < start <= max"},
		{"events", Config{Rates: []float64{10}, Bench: bench.Config{Open: registry.Open, Runner: runner.Config{Events: []runner.Event{{}}}}}, "events cannot be run in a sweep"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.cfg.EnsureDefaults()
			err := c.cfg.Validate()
			var ce *usererr.Error
			if !errors.As(err, &ce) || ce.Field == "" || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "--") {
				t.Errorf("error %v, want a user error naming fields (not flags) with %q", err, c.want)
			}
		})
	}
}

func tinyBench(t *testing.T, url string) bench.Config {
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 500
	spec.EnsureDefaults()
	return bench.Config{Open: registry.Open, Target: url, Workload: spec, Load: true, Runner: runner.Config{Concurrency: 4, Seed: 1}}
}

// A real sweep against the null target: one load phase, one phase per rate,
// each step's figures recomputable from its phase in the file.
func TestRunRatesNull(t *testing.T) {
	var steps []string
	cfg := Config{Bench: tinyBench(t, "null"), Rates: []float64{200, 400}, Step: 3 * time.Second,
		OnStep: func(s result.SweepStep) { steps = append(steps, s.Phase) }}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range r.Phases {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, " "); got != "load rate-200 rate-400" {
		t.Fatalf("phases %s", got)
	}
	if strings.Join(steps, " ") != "rate-200 rate-400" {
		t.Errorf("OnStep saw %v", steps)
	}
	sw := r.Sweep
	if sw == nil || sw.Mode != "rates" || len(sw.Steps) != 2 || sw.StepNs != int64(3*time.Second) {
		t.Fatalf("sweep %+v", sw)
	}
	for i, st := range sw.Steps {
		p := r.Phase(st.Phase)
		if p.Mode != "open" || p.RateOpsPerS != st.TargetOpsPerS {
			t.Errorf("%s: mode %s rate %v", st.Phase, p.Mode, p.RateOpsPerS)
		}
		again, err := Measure(p, st.TargetOpsPerS, &Config{})
		if err != nil || !reflect.DeepEqual(again, st) {
			t.Errorf("%s: figures not recomputable from the file: %+v vs %+v (%v)", st.Phase, again, st, err)
		}
		// The null target keeps up with a few hundred ops/s even on a busy machine.
		if st.SustainedOpsPerS < 0.8*st.TargetOpsPerS || st.SustainedOpsPerS > 1.2*st.TargetOpsPerS {
			t.Errorf("step %d: sustained %.0f op/s at a rate of %.0f", i, st.SustainedOpsPerS, st.TargetOpsPerS)
		}
	}
	if sw.Best >= 0 && !sw.Steps[sw.Best].MeetsObjective {
		t.Errorf("best step %d does not meet the objective", sw.Best)
	}
	if r.Config.Extra["sweep"] != "rates 200,400 step 3s" || r.Config.RateOpsPerS != 0 {
		t.Errorf("config extra %q rate %v", r.Config.Extra["sweep"], r.Config.RateOpsPerS)
	}
}

// find-max against a target with a physical ceiling: the fake target takes
// at least 4 ms per op and 8 workers serve at most 2000 op/s, so no step at
// 4000 op/s or more can meet the objective and no step sustains more than
// 2000 op/s. (Whether the lower steps pass depends on how busy the machine
// is; the search's order is checked in TestFindMaxSearch.)
func TestRunFindMaxFake(t *testing.T) {
	bc := tinyBench(t, "fake://?latency=4ms")
	bc.Runner.Concurrency = 8
	cfg := Config{Bench: bc, FindMax: true, ObjectiveP99: 200 * time.Millisecond, Start: 250, Max: 16000, Bisect: 1, Step: 2 * time.Second}
	r, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw := r.Sweep
	if sw.Mode != "find-max" || len(sw.Steps) == 0 || len(r.Phases) != len(sw.Steps)+1 {
		t.Fatalf("sweep %+v with %d phases", sw, len(r.Phases))
	}
	firstBad := -1
	for i, st := range sw.Steps {
		if st.TargetOpsPerS >= 4000 && st.MeetsObjective {
			t.Errorf("%s meets the objective above the 2000 op/s ceiling: %+v", st.Phase, st)
		}
		if st.SustainedOpsPerS > 2000*1.04 {
			t.Errorf("%s sustained %.0f op/s, above the 2000 op/s ceiling", st.Phase, st.SustainedOpsPerS)
		}
		if !st.MeetsObjective && firstBad < 0 {
			firstBad = i
		}
	}
	if firstBad < 0 {
		t.Fatal("no step failed: the doubling must stop at the ceiling")
	}
	// Doubling until the first failure, then at most one bisection step between.
	for i := 1; i <= firstBad; i++ {
		if sw.Steps[i].TargetOpsPerS != 2*sw.Steps[i-1].TargetOpsPerS {
			t.Errorf("step %d at %.0f op/s does not double %.0f", i, sw.Steps[i].TargetOpsPerS, sw.Steps[i-1].TargetOpsPerS)
		}
	}
	if extra := len(sw.Steps) - firstBad - 1; extra > 1 || (firstBad == 0 && extra != 0) {
		t.Errorf("%d steps after the first failure (bisect 1)", extra)
	}
	if sw.Best >= 0 && !strings.Contains(report.SweepVerdict(sw), sw.Steps[sw.Best].Phase) {
		t.Errorf("verdict %q does not name the best step", report.SweepVerdict(sw))
	}
	if sw.Best < 0 && !strings.Contains(report.SweepVerdict(sw), "no step met") {
		t.Errorf("verdict %q", report.SweepVerdict(sw))
	}
}

// Ctrl-C during a step: the steps that ran are kept, the interrupted one is
// marked and fails, no later step runs, and the verdict says so.
func TestRunInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cfg := Config{Bench: tinyBench(t, "null"), Rates: []float64{100, 200, 300}, Step: 2 * time.Second,
		OnStep: func(s result.SweepStep) {
			if s.Phase == "rate-100" {
				go func() { time.Sleep(500 * time.Millisecond); cancel() }()
			}
		}}
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sw := r.Sweep
	if len(sw.Steps) != 2 || sw.Steps[1].Phase != "rate-200" {
		t.Fatalf("steps %+v", sw.Steps)
	}
	if !r.Phase("rate-200").Interrupted || sw.Steps[1].MeetsObjective || !strings.Contains(report.SweepStepReason(&sw.Steps[1]), "interrupted") {
		t.Errorf("interrupted step: %+v", sw.Steps[1])
	}
	if !strings.Contains(report.SweepVerdict(sw), "interrupted") {
		t.Errorf("verdict %q", report.SweepVerdict(sw))
	}
}

// The objective judges the server-attributable p99 by default: a step whose
// latency p99 (20 ms) is over the objective only by the loader's own
// lateness (attributable p99 5 ms) meets it, unless the loader was late on
// more ops than the delayed limit (client-bound), or the judge is latency.
func TestMeasureJudgesAttributable(t *testing.T) {
	for _, c := range []struct {
		name       string
		judge      string
		lateClient uint64
		meets      bool
		reason     string
	}{
		{"attributable by default", "", 100, true, ""},
		{"the loader late on 6% of ops", "", 300, false, "client-bound"},
		{"judged on latency", analysis.JudgeLatency, 100, false, "p99 20.0 ms is over the 10ms objective"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := stepPhase(t, "rate-1000", repeat(1000, 5), 20*time.Millisecond, 0, 0)
			p.Mode, p.LateClient = "open", c.lateClient
			attr := result.NewHist()
			if err := attr.RecordValues(int64(5*time.Millisecond), 5000); err != nil {
				t.Fatal(err)
			}
			s := result.Summarize(attr)
			p.Ops[0].Attributable, p.Ops[0].AttributableHist = &s, result.EncodeHist(attr)
			cfg := Config{ObjectiveP99: 10 * time.Millisecond, Warmup: "0", Judge: c.judge}
			st, err := Measure(p, 1000, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			if st.MeetsObjective != c.meets || !strings.Contains(report.SweepStepReason(&st), c.reason) {
				t.Errorf("meets %v (%q), want %v (%q)", st.MeetsObjective, report.SweepStepReason(&st), c.meets, c.reason)
			}
			if d := math.Abs(float64(st.AttributableP99Ns) - 5e6); d > 0.001*5e6 {
				t.Errorf("attributable p99 %s, want 5ms", time.Duration(st.AttributableP99Ns))
			}
		})
	}
}
