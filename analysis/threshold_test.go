package analysis

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// thresholdPhase is an open-loop phase of 20 full 1 s intervals: READ at
// 1000 ops/s taking 2 ms (1 ms of it service), UPDATE at 100 ops/s taking
// 20 ms (10 ms service), 10 READ timeouts a second, 100 delayed ops, and one
// stall of 300 ms.
func thresholdPhase() result.Phase {
	p := result.Phase{Name: "run", Mode: "open", DurationNs: 20 * sec, Delayed: 100}
	type op struct {
		name           string
		n, errs        uint64
		lat, svc, attr int64
	}
	ops := []op{{"READ", 1000, 10, 2e6, 1e6, 1.5e6}, {"UPDATE", 100, 0, 20e6, 10e6, 12e6}}
	for i := 0; i < 20; i++ {
		iv := result.Interval{StartNs: int64(i) * sec, DurationNs: sec}
		for _, o := range ops {
			h := result.NewHist()
			_ = h.RecordValues(o.lat, int64(o.n))
			io := result.IntervalOp{Op: o.name, Count: o.n, Hist: result.EncodeHist(h), Latency: result.Summarize(h)}
			if o.errs > 0 {
				io.Errors = map[string]uint64{"timeout": o.errs}
			}
			iv.Ops = append(iv.Ops, io)
		}
		p.Intervals = append(p.Intervals, iv)
	}
	for _, o := range ops {
		lat, svc := result.NewHist(), result.NewHist()
		_ = lat.RecordValues(o.lat, int64(o.n*20))
		_ = svc.RecordValues(o.svc, int64(o.n*20))
		t := result.OpTotal{Op: o.name, Count: o.n * 20, Hist: result.EncodeHist(lat), ServiceHist: result.EncodeHist(svc),
			Latency: result.Summarize(lat), Service: result.Summarize(svc)}
		if o.errs > 0 {
			t.Errors = map[string]uint64{"timeout": o.errs * 20}
		}
		attr := result.NewHist()
		_ = attr.RecordValues(o.attr, int64(o.n*20))
		as := result.Summarize(attr)
		t.Attributable, t.AttributableHist = &as, result.EncodeHist(attr)
		p.Ops = append(p.Ops, t)
	}
	counts := make([]uint32, 200)
	outstanding := make([]bool, 200)
	for i := range counts {
		counts[i], outstanding[i] = 111, true
	}
	counts[50], counts[51], counts[52] = 0, 0, 0
	withBuckets(&p, 100*time.Millisecond, counts, outstanding)
	return p
}

func mustThreshold(t *testing.T, s string) Threshold {
	t.Helper()
	th, err := ParseThreshold(s)
	if err != nil {
		t.Fatalf("ParseThreshold(%q): %v", s, err)
	}
	return th
}

// Every figure, per op type and for all ops, with every comparison.
func TestThresholdsEvaluate(t *testing.T) {
	p := thresholdPhase()
	cases := []struct {
		expr  string
		pass  bool
		value float64
	}{
		{"p99<10ms", false, 20e6},  // all ops: UPDATE's 20 ms is in the top 9%
		{"p50<=2.01ms", true, 2e6}, // READ dominates the median (HDR keeps 3 digits)
		{"read.p99<10ms", true, 2e6},
		{"READ.p99.9 < 50ms", true, 2e6},
		{"update.p999>=20ms", true, 20e6},
		{"update.max==20ms", false, 20e6}, // HDR rounds 20 ms to its bucket's top
		{"update.mean!=0s", true, 20e6},
		{"service.p99<15ms", true, 10e6},
		{"read.service.p99<=1.001ms", true, 1e6},
		{"lag.p99<1ms", false, 10e6},
		{"read.lag.p99<2ms", true, 1e6},
		{"attributable.p99<10ms", false, 12e6}, // UPDATE's 12 ms is in the top 9%
		{"read.attributable.p99<2ms", true, 1.5e6},
		{"sustained>1k", true, 1100}, // 19,800 ops over 18 s
		{"sustained>40k", false, 1100},
		{"read.sustained>=1000", true, 1000},
		{"update.peak<100", false, 100},
		{"errors<1%", true, 180.0 / (19800 + 180)}, // over the steady window: 18 s
		{"errors==0", false, 180},
		{"read.errors<=180", true, 180},
		{"update.errors==0", true, 0},
		{"stalls==0", false, 1},
		{"stalls<2", true, 1},
		{"stalled<=300ms", true, 300e6},
		{"delayed<100", false, 100},
		{"delayed<1%", true, 100.0 / 22200},
		{"cv<1%", true, 0},
	}
	for _, c := range cases {
		th := mustThreshold(t, c.expr)
		out, err := EvaluateThresholds(&p, 2, []Threshold{th})
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		o := out[0]
		if !o.Measured || o.Pass != c.pass {
			t.Errorf("%s: measured %v pass %v (value %v, reason %q), want pass %v", c.expr, o.Measured, o.Pass, o.Value, o.Reason, c.pass)
		}
		if c.value != 0 && (o.Value < c.value*0.99 || o.Value > c.value*1.01) || c.value == 0 && o.Value != 0 {
			t.Errorf("%s: value %v, want %v", c.expr, o.Value, c.value)
		}
	}
}

// A figure the run lacks fails, saying it was not measured.
func TestThresholdsNotMeasured(t *testing.T) {
	p := thresholdPhase()
	closed := thresholdPhase()
	closed.Mode = "closed"
	for _, c := range []struct {
		p    *result.Phase
		expr string
		why  string
	}{
		{&p, "scan.p99<1ms", "no SCAN operations"},
		{&closed, "lag.p99<1ms", "open-loop"},
		{&closed, "attributable.p99<1ms", "open-loop"},
		{&closed, "delayed==0", "open-loop"},
	} {
		out, err := EvaluateThresholds(c.p, 0, []Threshold{mustThreshold(t, c.expr)})
		if err != nil {
			t.Fatal(err)
		}
		if o := out[0]; o.Measured || o.Pass || !strings.HasPrefix(o.Reason, "not measured") || !strings.Contains(o.Reason, c.why) {
			t.Errorf("%s: %+v, want not measured (%s)", c.expr, o, c.why)
		}
	}
}

// A sweep's thresholds are judged on its best step; with none, they fail.
func TestThresholdsOfSweep(t *testing.T) {
	p := thresholdPhase()
	p.Name = "rate-1100"
	r := resultOf(p)
	r.Sweep = &result.Sweep{Best: 0, Steps: []result.SweepStep{{Phase: "rate-1100", SteadyFromNs: 2 * sec}}}
	ths := []Threshold{mustThreshold(t, "sustained>1k")}
	out, err := Thresholds(r, ths)
	if err != nil || !out[0].Pass || out[0].Phase != "rate-1100" {
		t.Fatalf("best step: %+v, %v", out, err)
	}
	r.Sweep.Best = -1
	out, _ = Thresholds(r, ths)
	if out[0].Pass || !strings.Contains(out[0].Reason, "no step") {
		t.Errorf("no best step: %+v", out[0])
	}
}

// Malformed expressions are refused with one line naming them and the fix.
func TestParseThresholdRefuses(t *testing.T) {
	for _, c := range []struct{ expr, want string }{
		{"p99", "no comparison"},
		{"p99=10ms", "not a comparison"},
		{"p99<10", "has no unit"},
		{"p98<10ms", "unknown figure"},
		{"p99<fast", "not a duration"},
		{"sustained>lots", "not a rate"},
		{"errors<lots", "neither a count nor a percentage"},
		{"read.stalls==0", "whole run"},
		{"cv<5", "not a percentage"},
		{"p99<", "no value"},
		{"1<p99<2", "more than one comparison"},
		{"p99<1ms<2ms", "more than one comparison"},
		{"a.b.p99<1ms", "unknown figure"},
	} {
		_, err := ParseThreshold(c.expr)
		var ue *usererr.Error
		if !errors.As(err, &ue) || ue.Field != "threshold" || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseThreshold(%q) = %v, want a threshold error containing %q", c.expr, err, c.want)
		}
		if err != nil && !strings.Contains(err.Error(), "fix") && c.want != "not a duration" && c.want != "not a rate" && c.want != "not a percentage" {
			t.Errorf("ParseThreshold(%q) = %v: no fix", c.expr, err)
		}
	}
	if _, err := ParseThresholds([]string{"p99", "p99<1ms", "x<1"}); err == nil || strings.Count(err.Error(), "threshold") < 2 {
		t.Errorf("ParseThresholds: every problem at once, got %v", err)
	}
	ths, _ := ParseThresholds([]string{"read.p99<1ms", "p99<1ms"})
	if err := CheckThresholdOps(ths, []string{"UPDATE"}); err == nil || !strings.Contains(err.Error(), "no READ operations") {
		t.Errorf("CheckThresholdOps: %v", err)
	}
}

// A run fails when more than the allowed share of its operations failed:
// 1% by default. 200 errors in 22,200 operations (0.9%) pass at 1% and fail
// at 0.5%; the Redis case, 49.5% failing, fails (it passed the old
// "more than half" rule). The first message the phase kept is the one
// the failure line shows.
func TestRunHealth(t *testing.T) {
	p := thresholdPhase()
	if h := HealthOf(resultOf(p)); h.RunFailed(DefaultMaxErrors) || h.Failed != 200 || h.Completed != 22000 {
		t.Errorf("healthy run: %+v", h)
	}
	if h := HealthOf(resultOf(p)); !h.RunFailed(0.005) || math.Abs(h.ErrorShare()-200.0/22200) > 1e-12 {
		t.Errorf("0.9%% failed, 0.5%% allowed: %+v", h)
	}
	p.ErrorMessages = []result.ErrorMessage{{Class: "not_found", Op: "READ", Message: "key not found"}}
	p.Ops[0].Errors["not_found"] = 21600 // 21,800 of 44,000: 49.5%
	if h := HealthOf(resultOf(p)); !h.RunFailed(DefaultMaxErrors) || h.ErrorsByClass["not_found"] != 21600 || h.FirstError.Message != "key not found" {
		t.Errorf("half failed: %+v", h)
	}
	empty := result.Phase{Name: "run"}
	if !HealthOf(resultOf(empty)).RunFailed(1) {
		t.Error("a run with no operation is a failed run")
	}
}

// The parser never panics, and what it accepts is a well-formed rule.
func FuzzThreshold(f *testing.F) {
	for _, s := range []string{"p99<10ms", "read.p99.9<50ms", "errors<0.1%", "sustained>40k", "stalls==0", "lag.p99<1ms", "a.b<1", "<", "p99<<1", "x.!=3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if th.Figure == "" || th.Unit == "" || th.Limit < 0 || th.Limit != th.Limit {
			t.Fatalf("%q parsed to %+v", s, th)
		}
		if !strings.Contains("< <= > >= == !=", th.Cmp) {
			t.Fatalf("%q: comparison %q", s, th.Cmp)
		}
	})
}

// Live checks: nothing fails before three intervals past the warm-up; a
// figure the intervals hold fails the run; a figure kept for the whole phase
// only (service time) is not measured and does not.
func TestLiveThresholds(t *testing.T) {
	iv := func(i int, p99 int64) result.Interval {
		h := result.NewHist()
		for range 100 {
			h.RecordValue(p99)
		}
		return result.Interval{StartNs: int64(i) * 1e9, DurationNs: 1e9,
			Ops: []result.IntervalOp{{Op: "READ", Count: 100, Hist: result.EncodeHist(h), Latency: result.Summarize(h)}}}
	}
	ths, err := ParseThresholds([]string{"service.p99<1ms", "p99<10ms"})
	if err != nil {
		t.Fatal(err)
	}
	var ivs []result.Interval
	for i := range 6 {
		ivs = append(ivs, iv(i, 50e6)) // 50 ms: over the 10 ms rule
	}
	warm, err := LiveWarmup("2s", 0)
	if err != nil || warm != 2*time.Second {
		t.Fatalf("LiveWarmup(2s) = %v, %v", warm, err)
	}
	if o, err := LiveThresholds("run", "closed", ivs[:4], warm, ths); err != nil || o != nil {
		t.Errorf("two intervals past the warm-up: %+v %v, want no verdict yet", o, err)
	}
	o, err := LiveThresholds("run", "closed", ivs, warm, ths)
	if err != nil || o == nil || o.Expr != "p99<10ms" || !o.Measured || o.Value < 49e6 {
		t.Fatalf("four intervals at 50 ms: %+v %v, want p99<10ms failed (service time not measured live)", o, err)
	}
	if w, _ := LiveWarmup("auto", 100*time.Second); w != 20*time.Second {
		t.Errorf("auto warm-up of a 100 s run = %v, want a fifth", w)
	}
	if w, _ := LiveWarmup("auto", 0); w != MinLiveWarmup {
		t.Errorf("auto warm-up of an op-bound run = %v", w)
	}
}
