package analysis

import (
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// evPhase builds a run phase from a per-second throughput series: interval i
// completes rate[i] ops, each with latency lat[i], plus errs[i] errors
// ("unavailable"). Fine 100 ms buckets spread each interval's completions
// evenly; requests are always outstanding (a closed loop).
func evPhase(t *testing.T, rate []float64, lat []time.Duration, errs []uint64) *result.Phase {
	t.Helper()
	const width = 100 * time.Millisecond
	p := &result.Phase{Name: "run", Mode: "closed", Concurrency: 16}
	p.Buckets = result.Buckets{WidthNs: int64(width), Counts: map[string][]uint32{"READ": nil}}
	total := result.NewHist()
	var count uint64
	for i, r := range rate {
		h := result.NewHist()
		n := uint64(math.Round(r))
		if n > 0 {
			if err := h.RecordValues(int64(lat[i]), int64(n)); err != nil {
				t.Fatal(err)
			}
		}
		total.Merge(h)
		count += n
		io := result.IntervalOp{Op: "READ", Count: n, Hist: result.EncodeHist(h), Latency: result.Summarize(h)}
		if errs != nil && errs[i] > 0 {
			io.Errors = map[string]uint64{"unavailable": errs[i]}
		}
		p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(i) * sec, DurationNs: sec, Ops: []result.IntervalOp{io}})
		var e uint64
		if errs != nil {
			e = errs[i]
		}
		for b := 0; b < 10; b++ {
			c := (n + e) / 10
			if b < int((n+e)%10) {
				c++
			}
			p.Buckets.Counts["READ"] = append(p.Buckets.Counts["READ"], uint32(c))
			p.Buckets.Outstanding = append(p.Buckets.Outstanding, true)
		}
	}
	p.DurationNs = int64(len(rate)) * sec
	p.Ops = []result.OpTotal{{Op: "READ", Count: count, Hist: result.EncodeHist(total), Latency: result.Summarize(total)}}
	return p
}

// flat is n seconds around level with +-1% seeded noise.
func flat(seed int64, n int, level float64) []float64 {
	rng := rand.New(rand.NewSource(seed))
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + 0.01*(2*rng.Float64()-1))
	}
	return out
}

func lats(n int, d time.Duration) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d
	}
	return out
}

func evResult(p *result.Phase, evs ...result.Event) *result.Result {
	return &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{*p}, Events: evs}
}

func TestEventImpactKnownDipAndRecovery(t *testing.T) {
	// 30 s at ~1000 op/s; a member is lost at 10 s: two seconds with no
	// completion, one at half speed, then back to the level. Recovery is at
	// the start of second 13: 3 s after the event.
	rate := flat(1, 30, 1000)
	lat := lats(30, time.Millisecond)
	errs := make([]uint64, 30)
	rate[10], rate[11], rate[12] = 0, 0, 500
	lat[12] = 2 * time.Second
	errs[10], errs[11] = 40, 60
	p := evPhase(t, rate, lat, errs)
	imps := EventImpacts(evResult(p, result.Event{AtNs: 10 * sec, Kind: "kill", Arg: "4242"}))
	if len(imps) != 1 {
		t.Fatalf("got %d impacts, want 1", len(imps))
	}
	im := imps[0]
	if !im.Recovered || im.RecoveryNs != 3*sec {
		t.Errorf("recovered %v after %s, want true after 3s", im.Recovered, time.Duration(im.RecoveryNs))
	}
	if im.WindowEndNs != 13*sec {
		t.Errorf("window ends at %s, want 13s", time.Duration(im.WindowEndNs))
	}
	if im.BaselineOpsPerS < 990 || im.BaselineOpsPerS > 1010 {
		t.Errorf("baseline %.1f op/s, want ~1000", im.BaselineOpsPerS)
	}
	if im.BaselineToNs != 10*sec {
		t.Errorf("baseline ends at %s, want at the event (10s)", time.Duration(im.BaselineToNs))
	}
	if im.Min1sOpsPerS != 0 || im.Min1sAtNs != 10*sec || im.DipPercent != 100 {
		t.Errorf("dip: min %.0f at %s, %.0f%%; want 0 at 10s, 100%%", im.Min1sOpsPerS, time.Duration(im.Min1sAtNs), im.DipPercent)
	}
	// 100 errors and 500 ops in the window [10 s, 13 s).
	if im.Errors != 100 || im.Ops != 500 || math.Abs(im.ErrorRate-100.0/600) > 1e-9 {
		t.Errorf("window: %d ops %d errors rate %.4f; want 500, 100, %.4f", im.Ops, im.Errors, im.ErrorRate, 100.0/600)
	}
	if im.ErrorsByClass["unavailable"] != 100 {
		t.Errorf("errors by class %v, want unavailable: 100", im.ErrorsByClass)
	}
	// Errors count in fine buckets (completions), so 10 s..11 s had 4 per
	// bucket; the lowest fine throughput is in 11 s..12 s: 6 per 100 ms.
	if im.MinFineOpsPerS != 40 {
		t.Errorf("min fine %.0f op/s at %s, want 40 (4 errors per 100 ms)", im.MinFineOpsPerS, time.Duration(im.MinFineAtNs))
	}
	// Latency over the window is the half-speed second's 2 s; before, 1 ms.
	if d := math.Abs(float64(im.P99Ns)-2e9) / 2e9; d > 0.001 {
		t.Errorf("window p99 %s, want 2s", time.Duration(im.P99Ns))
	}
	if d := math.Abs(float64(im.BaselineP99Ns)-1e6) / 1e6; d > 0.001 {
		t.Errorf("baseline p99 %s, want 1ms", time.Duration(im.BaselineP99Ns))
	}
	if !strings.Contains(im.Verdict, "after 3s") {
		t.Errorf("verdict %q does not give the recovery time", im.Verdict)
	}
}

func TestEventImpactStallInFineBuckets(t *testing.T) {
	// A 300 ms pause inside second 10 (closed loop: requests outstanding):
	// the 1 s series dips by 30%, the fine series shows zero.
	rate := flat(2, 20, 1000)
	p := evPhase(t, rate, lats(20, time.Millisecond), nil)
	for b := 104; b < 107; b++ {
		p.Buckets.Counts["READ"][b] = 0
	}
	p.Intervals[10].Ops[0].Count = 700
	imps := EventImpacts(evResult(p, result.Event{AtNs: 10*sec + 400*int64(time.Millisecond), Kind: "stop", Arg: "1"}))
	im := imps[0]
	if im.LongestStallNs != 300*int64(time.Millisecond) {
		t.Errorf("longest stall %s, want 300ms", time.Duration(im.LongestStallNs))
	}
	if im.MinFineOpsPerS != 0 || im.MinFineAtNs != 10*sec+400*int64(time.Millisecond) {
		t.Errorf("min fine %.0f at %s, want 0 at 10.4s", im.MinFineOpsPerS, time.Duration(im.MinFineAtNs))
	}
	if im.DipPercent < 29 || im.DipPercent > 31 {
		t.Errorf("dip %.1f%%, want ~30%%", im.DipPercent)
	}
	// Second 11 on is back: recovery 600 ms after the event (1 s resolution).
	if !im.Recovered || im.RecoveryNs != 600*int64(time.Millisecond) {
		t.Errorf("recovered %v after %s, want after 600ms", im.Recovered, time.Duration(im.RecoveryNs))
	}
}

func TestEventImpactNotRecovered(t *testing.T) {
	// Half the cluster is gone for good: the level halves and stays there.
	rate := flat(3, 30, 1000)
	for i := 15; i < 30; i++ {
		rate[i] /= 2
	}
	im := EventImpacts(evResult(evPhase(t, rate, lats(30, time.Millisecond), nil), result.Event{AtNs: 15 * sec, Kind: "kill", Arg: "7"}))[0]
	if im.Recovered {
		t.Fatalf("recovered after %s, want not recovered", time.Duration(im.RecoveryNs))
	}
	if im.WindowEndNs != 30*sec {
		t.Errorf("window ends at %s, want the phase end 30s", time.Duration(im.WindowEndNs))
	}
	if im.SettledOpsPerS < 490 || im.SettledOpsPerS > 510 {
		t.Errorf("settled at %.0f op/s, want ~500", im.SettledOpsPerS)
	}
	if !strings.Contains(im.Verdict, "not recovered") {
		t.Errorf("verdict %q", im.Verdict)
	}
}

func TestEventImpactBacklogIsNotRecovery(t *testing.T) {
	// Open loop: after a 2 s pause the backlog drains at 1.5x the rate for
	// two seconds; only then is the run back at its level (4 s after).
	rate := flat(4, 30, 1000)
	rate[10], rate[11], rate[12], rate[13] = 0, 0, 1500, 1500
	im := EventImpacts(evResult(evPhase(t, rate, lats(30, time.Millisecond), nil), result.Event{AtNs: 10 * sec, Kind: "stop", Arg: "9"}))[0]
	if !im.Recovered || im.RecoveryNs != 4*sec {
		t.Errorf("recovered %v after %s, want after 4s (the catch-up is above the band)", im.Recovered, time.Duration(im.RecoveryNs))
	}
	if im.Max1sOpsPerS != 1500 || !strings.Contains(im.Verdict, "catch-up peak 1500 op/s") {
		t.Errorf("max 1 s %.0f, verdict %q; want the 1500 op/s catch-up", im.Max1sOpsPerS, im.Verdict)
	}
}

func TestEventImpactNoEffect(t *testing.T) {
	rate := flat(5, 20, 1000)
	im := EventImpacts(evResult(evPhase(t, rate, lats(20, time.Millisecond), nil), result.Event{AtNs: 8*sec + 1, Kind: "exec", Arg: "true"}))[0]
	if !im.Recovered || im.RecoveryNs != 0 || im.DipPercent > 2 {
		t.Errorf("recovered %v after %s, dip %.1f%%; want at once, no dip", im.Recovered, time.Duration(im.RecoveryNs), im.DipPercent)
	}
	if !strings.Contains(im.Verdict, "no visible effect") {
		t.Errorf("verdict %q", im.Verdict)
	}
}

func TestEventImpactSecondEventReusesBaseline(t *testing.T) {
	// stop at 10 s, cont at 12 s: the cont's baseline must not include the
	// paused seconds; it is the stop's.
	rate := flat(6, 30, 1000)
	rate[10], rate[11] = 0, 0
	imps := EventImpacts(evResult(evPhase(t, rate, lats(30, time.Millisecond), nil),
		result.Event{AtNs: 10 * sec, Kind: "stop", Arg: "9"},
		result.Event{AtNs: 12 * sec, Kind: "cont", Arg: "9"}))
	if len(imps) != 2 {
		t.Fatalf("%d impacts", len(imps))
	}
	if imps[0].RecoveryNs != 2*sec || !imps[0].Recovered {
		t.Errorf("stop: recovered %v after %s, want 2s", imps[0].Recovered, time.Duration(imps[0].RecoveryNs))
	}
	if imps[1].BaselineToNs != 10*sec || imps[1].BaselineOpsPerS != imps[0].BaselineOpsPerS {
		t.Errorf("cont baseline to %s at %.0f, want the stop's (to 10s, %.0f)", time.Duration(imps[1].BaselineToNs), imps[1].BaselineOpsPerS, imps[0].BaselineOpsPerS)
	}
	if !imps[1].Recovered || imps[1].RecoveryNs != 0 {
		t.Errorf("cont: recovered %v after %s, want at once", imps[1].Recovered, time.Duration(imps[1].RecoveryNs))
	}
}

func TestEventImpactSkipsWarmup(t *testing.T) {
	// 60 s: a 10 s warm-up at 300 op/s, then 1000; event at 45 s. The
	// baseline is the steady part only.
	rate := flat(7, 60, 1000)
	for i := 0; i < 10; i++ {
		rate[i] = 300
	}
	rate[45] = 0
	im := EventImpacts(evResult(evPhase(t, rate, lats(60, time.Millisecond), nil), result.Event{AtNs: 45 * sec, Kind: "kill", Arg: "3"}))[0]
	if im.BaselineFromNs < 10*sec {
		t.Errorf("baseline starts at %s, inside the warm-up", time.Duration(im.BaselineFromNs))
	}
	if im.BaselineOpsPerS < 990 {
		t.Errorf("baseline %.0f op/s, want ~1000", im.BaselineOpsPerS)
	}
}

func TestEventImpactBaselineIsTheLastMinute(t *testing.T) {
	// The level doubled at 100 s; an event at 200 s is measured against the
	// minute before it, not the whole run.
	rate := flat(10, 220, 500)
	for i := 100; i < 220; i++ {
		rate[i] *= 2
	}
	rate[200] = 0
	im := EventImpacts(evResult(evPhase(t, rate, lats(220, time.Millisecond), nil), result.Event{AtNs: 200 * sec, Kind: "kill", Arg: "3"}))[0]
	if im.BaselineFromNs != 140*sec || im.BaselineToNs != 200*sec || im.BaselineIntervals != 60 {
		t.Errorf("baseline %s..%s (%d intervals), want 140s..200s (60)", time.Duration(im.BaselineFromNs), time.Duration(im.BaselineToNs), im.BaselineIntervals)
	}
	if !im.Recovered || im.RecoveryNs != sec {
		t.Errorf("recovered %v after %s, want 1s (against the 1000 op/s level)", im.Recovered, time.Duration(im.RecoveryNs))
	}
}

func TestEventImpactNoBaseline(t *testing.T) {
	rate := flat(8, 10, 1000)
	im := EventImpacts(evResult(evPhase(t, rate, lats(10, time.Millisecond), nil), result.Event{AtNs: 0, Kind: "exec", Arg: "x"}))[0]
	if im.BaselineIntervals != 0 || im.Recovered || !strings.Contains(im.Verdict, "no steady interval") {
		t.Errorf("baseline %d intervals, recovered %v, verdict %q", im.BaselineIntervals, im.Recovered, im.Verdict)
	}
	if EventImpacts(evResult(evPhase(t, rate, lats(10, time.Millisecond), nil))) != nil {
		t.Error("a result without events has impacts")
	}
}

func TestMergedHistWindowEqualsDirect(t *testing.T) {
	rate := []float64{100, 200, 300}
	lat := []time.Duration{time.Millisecond, 2 * time.Millisecond, 10 * time.Millisecond}
	p := evPhase(t, rate, lat, nil)
	h, err := p.MergedHist(1, 3, result.HistLatency)
	if err != nil {
		t.Fatal(err)
	}
	// 500 values: 200 at 2 ms, 300 at 10 ms: the median is 10 ms, p30 2 ms.
	if h.TotalCount() != 500 {
		t.Fatalf("count %d, want 500", h.TotalCount())
	}
	if v := h.ValueAtQuantile(30); math.Abs(float64(v)-2e6)/2e6 > 0.001 {
		t.Errorf("p30 %s, want 2ms", time.Duration(v))
	}
	if v := h.ValueAtQuantile(50); math.Abs(float64(v)-1e7)/1e7 > 0.001 {
		t.Errorf("p50 %s, want 10ms", time.Duration(v))
	}
}

// BenchmarkEventImpactsOneHour: three events in a one-hour run with
// histograms in every interval (the baseline of the last covers most of the hour).
func BenchmarkEventImpactsOneHour(b *testing.B) {
	t := &testing.T{}
	rate := flat(9, 3600, 1000)
	rate[1000], rate[2000], rate[3000] = 0, 0, 0
	r := evResult(evPhase(t, rate, lats(3600, time.Millisecond), nil),
		result.Event{AtNs: 1000 * sec, Kind: "kill", Arg: "1"},
		result.Event{AtNs: 2000 * sec, Kind: "kill", Arg: "2"},
		result.Event{AtNs: 3000 * sec, Kind: "kill", Arg: "3"})
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if imps := EventImpacts(r); len(imps) != 3 || !imps[2].Recovered {
			b.Fatal("wrong impacts")
		}
	}
}
