package analysis

import (
	"errors"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

const sec = int64(time.Second)

// phaseOf builds a run phase of 1 s intervals; ops[op][i] is op's count in
// interval i.
func phaseOf(ops map[string][]float64, order ...string) result.Phase {
	p := result.Phase{Name: "run", Mode: "closed"}
	n := len(ops[order[0]])
	for i := 0; i < n; i++ {
		iv := result.Interval{StartNs: int64(i) * sec, DurationNs: sec}
		for _, op := range order {
			iv.Ops = append(iv.Ops, result.IntervalOp{Op: op, Count: uint64(math.Round(ops[op][i]))})
		}
		p.Intervals = append(p.Intervals, iv)
	}
	for _, op := range order {
		var c uint64
		for _, v := range ops[op] {
			c += uint64(math.Round(v))
		}
		p.Ops = append(p.Ops, result.OpTotal{Op: op, Count: c})
	}
	p.DurationNs = int64(n) * sec
	return p
}

func resultOf(p result.Phase) *result.Result {
	return &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{p}}
}

// noisy is n values around level with uniform noise of +-frac, seeded.
func noisy(seed int64, n int, level, frac float64) []float64 {
	rng := rand.New(rand.NewSource(seed))
	out := make([]float64, n)
	for i := range out {
		out[i] = level * (1 + frac*(2*rng.Float64()-1))
	}
	return out
}

func TestSteadyStateFindsKnownWarmup(t *testing.T) {
	// 20 s ramp from 10k to 48k ops/s, then 100 s at 50k +-1%: the kind of
	// JIT/cache warm-up the Hazelcast report trimmed by hand.
	ys := noisy(1, 120, 50000, 0.01)
	for i := 0; i < 20; i++ {
		ys[i] = 10000 + 2000*float64(i)
	}
	p := phaseOf(map[string][]float64{"READ": ys}, "READ")
	a, err := Analyze(resultOf(p), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if a.SteadyState.Method != "mser-5" {
		t.Errorf("method = %q, want mser-5", a.SteadyState.Method)
	}
	if got := time.Duration(a.SteadyState.WarmupNs); got != 20*time.Second {
		t.Errorf("warm-up = %s, want 20s (reason: %s)", got, a.SteadyState.Reason)
	}
	if a.Steady.Intervals != 100 || a.Raw.Intervals != 120 {
		t.Errorf("windows: raw %d steady %d intervals, want 120 and 100", a.Raw.Intervals, a.Steady.Intervals)
	}
	// Trimming raises the sustained figure and shrinks the spread.
	if !(a.Steady.SustainedOpsPerS > a.Raw.SustainedOpsPerS) || !(a.Steady.Stability.CVPercent < a.Raw.Stability.CVPercent) {
		t.Errorf("steady %v/%v%% vs raw %v/%v%%", a.Steady.SustainedOpsPerS, a.Steady.Stability.CVPercent, a.Raw.SustainedOpsPerS, a.Raw.Stability.CVPercent)
	}
	if !strings.Contains(a.SteadyState.Reason, "MSER-5 detected a warm-up of 20s: its throughput averaged") {
		t.Errorf("reason = %q", a.SteadyState.Reason)
	}
}

func TestSteadyStateShortRunUsesMSER1(t *testing.T) {
	// 30 s run: too short for batches of 5; a 4 s warm-up at a third of the rate.
	ys := noisy(2, 30, 9000, 0.02)
	for i := 0; i < 4; i++ {
		ys[i] = 3000
	}
	st, err := SteadyStateOf(ptr(phaseOf(map[string][]float64{"WRITE": ys}, "WRITE")), "auto")
	if err != nil {
		t.Fatal(err)
	}
	if st.Method != "mser" || st.First != 4 || st.WarmupNs != 4*sec {
		t.Errorf("got method %s first %d warm-up %s, want mser 4 4s (%s)", st.Method, st.First, time.Duration(st.WarmupNs), st.Reason)
	}
}

func ptr[T any](v T) *T { return &v }

func TestFlatSeriesHasNoWarmup(t *testing.T) {
	// An exactly flat series, then stationary noisy series with many seeds:
	// none of them has a warm-up.
	cases := [][]float64{noisy(0, 120, 40000, 0)}
	for seed := int64(10); seed < 410; seed++ {
		cases = append(cases, noisy(seed, 120, 40000, 0.03))
	}
	for seed := int64(1000); seed < 1200; seed++ {
		cases = append(cases, noisy(seed, 25, 40000, 0.03)) // short: MSER with 1 s batches
	}
	for i, ys := range cases {
		st, err := SteadyStateOf(ptr(phaseOf(map[string][]float64{"READ": ys}, "READ")), "")
		if err != nil {
			t.Fatal(err)
		}
		if st.WarmupNs != 0 || st.First != 0 {
			t.Errorf("case %d (%d s): warm-up %s, want none (%s)", i, len(ys), time.Duration(st.WarmupNs), st.Reason)
		}
	}
}

func TestWarmupForcedAndOff(t *testing.T) {
	ys := noisy(3, 120, 1000, 0.01)
	p := phaseOf(map[string][]float64{"SET": ys}, "SET")
	a, err := Analyze(resultOf(p), Options{Warmup: "75s"})
	if err != nil {
		t.Fatal(err)
	}
	if a.SteadyState.Method != "forced" || a.SteadyState.WarmupNs != 75*sec || a.Steady.Intervals != 45 || a.Steady.StartNs != 75*sec {
		t.Errorf("forced: %+v, steady %d intervals from %d", a.SteadyState, a.Steady.Intervals, a.Steady.StartNs)
	}
	a, err = Analyze(resultOf(p), Options{Warmup: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if a.SteadyState.Method != "none" || a.Steady.Intervals != 120 {
		t.Errorf("--warmup 0: %+v", a.SteadyState)
	}
	// Bad values: one clear error naming the fix. A bare number is seconds,
	// as everywhere a duration is typed (internal/units).
	for _, w := range []string{"abc", "-5s", "10x"} {
		_, err := Analyze(resultOf(p), Options{Warmup: w})
		if err == nil || !isConfigErr(err) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("--warmup %q: err = %v", w, err)
		}
	}
	if a, err := Analyze(resultOf(p), Options{Warmup: "10"}); err != nil || a.SteadyState.WarmupNs != 10*sec {
		t.Errorf("warmup 10 (seconds): %v, %+v", err, a)
	}
	_, err = Analyze(resultOf(p), Options{Warmup: "5m"})
	if err == nil || !strings.Contains(err.Error(), "not shorter than") {
		t.Errorf("--warmup longer than the phase: err = %v", err)
	}
}

func TestStabilityMatchesHandComputation(t *testing.T) {
	// 1 s throughput 10, 12, 14, 16, 18 ops/s.
	// min 10, max 18, mean 14, sample variance (16+4+0+4+16)/4 = 10,
	// std-dev sqrt(10) = 3.16228, CV = 3.16228/14 = 22.588%.
	p := phaseOf(map[string][]float64{"READ": {10, 12, 14, 16, 18}}, "READ")
	a, err := Analyze(resultOf(p), Options{Warmup: "0"})
	if err != nil {
		t.Fatal(err)
	}
	s := a.Steady.Stability
	want := result.Stability{Intervals: 5, MinOpsPerS: 10, MaxOpsPerS: 18, MeanOpsPerS: 14, StdDevOpsPerS: math.Sqrt(10), CVPercent: math.Sqrt(10) / 14 * 100}
	if s.Intervals != want.Intervals || !near(s.MinOpsPerS, 10) || !near(s.MaxOpsPerS, 18) || !near(s.MeanOpsPerS, 14) ||
		!near(s.StdDevOpsPerS, 3.16227766) || !near(s.CVPercent, 22.5876976) {
		t.Errorf("stability = %+v, want %+v", s, want)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }

func TestPeakAndSustainedPerOp(t *testing.T) {
	p := phaseOf(map[string][]float64{
		"READ":   {100, 300, 200, 200},
		"UPDATE": {50, 50, 150, 50},
	}, "READ", "UPDATE")
	// A last, partial interval of 0.5 s with 400 READs: 800 ops/s for half a
	// second is not a 1 s peak, but its ops count in the sustained figure.
	p.Intervals = append(p.Intervals, result.Interval{StartNs: 4 * sec, DurationNs: sec / 2, Ops: []result.IntervalOp{{Op: "READ", Count: 400, Bytes: 4000}, {Op: "UPDATE", Count: 0}}})
	p.Intervals[1].Ops[0].Errors = map[string]uint64{"timeout": 3}
	p.DurationNs = 4*sec + sec/2
	a, err := Analyze(resultOf(p), Options{Warmup: "0"})
	if err != nil {
		t.Fatal(err)
	}
	s := a.Steady
	// Totals per interval: 150, 350, 350, 250 (+ 400 in 0.5 s).
	if s.PeakOpsPerS != 350 || s.PeakAtNs != 1*sec {
		t.Errorf("peak %v at %d, want 350 at 1 s", s.PeakOpsPerS, s.PeakAtNs)
	}
	if s.Ops != 1500 || !near(s.SustainedOpsPerS, 1500/4.5) || s.Errors != 3 {
		t.Errorf("ops %d sustained %v errors %d, want 1500, %v, 3", s.Ops, s.SustainedOpsPerS, s.Errors, 1500/4.5)
	}
	if len(s.PerOp) != 2 || s.PerOp[0].Op != "READ" || s.PerOp[0].PeakOpsPerS != 300 || !near(s.PerOp[0].SustainedOpsPerS, 1200/4.5) ||
		s.PerOp[1].PeakOpsPerS != 150 || !near(s.PerOp[1].SustainedOpsPerS, 300/4.5) {
		t.Errorf("per op = %+v", s.PerOp)
	}
	if s.Bytes != 4000 || !near(s.SustainedBytesPerS, 4000/4.5) || s.PerOp[0].Bytes != 4000 {
		t.Errorf("bytes %d, %v/s", s.Bytes, s.SustainedBytesPerS)
	}
	if s.Stability.Intervals != 4 {
		t.Errorf("stability over %d intervals, want the 4 full ones", s.Stability.Intervals)
	}
}

// bucketsOf sets a phase's 100 ms buckets from per-bucket totals.
func withBuckets(p *result.Phase, width time.Duration, counts []uint32, outstanding []bool) {
	p.Buckets = result.Buckets{WidthNs: int64(width), Counts: map[string][]uint32{"READ": counts}, Outstanding: outstanding}
	p.DurationNs = int64(len(counts)) * int64(width)
}

func TestStallsKnown(t *testing.T) {
	p := phaseOf(map[string][]float64{"READ": noisy(4, 5, 500, 0)}, "READ")
	counts := make([]uint32, 50)
	out := make([]bool, 50)
	for i := range counts {
		counts[i], out[i] = 10, true
	}
	// Stalls: bucket 5 (100 ms), 20-22 (300 ms), 40-41 (200 ms).
	for _, i := range []int{5, 20, 21, 22, 40, 41} {
		counts[i] = 0
	}
	// Idle, not a stall: nothing was outstanding.
	counts[30], out[30] = 0, false
	withBuckets(&p, 100*time.Millisecond, counts, out)
	s := Stalls(&p)
	if s.Count != 3 || s.LongestNs != int64(300*time.Millisecond) || s.LongestAtNs != int64(2*time.Second) || s.TotalNs != int64(600*time.Millisecond) || s.Buckets != 50 {
		t.Errorf("stalls = %+v, want 3, longest 300ms at 2s, total 600ms over 50 buckets", s)
	}
	if s.Regulation.Periodic {
		t.Errorf("irregular stalls reported periodic: %s", s.Regulation.Reason)
	}
}

func TestPeriodicStallDetected(t *testing.T) {
	// The Redpanda report's i3.large disk: ~200 ms of work then 800 ms of
	// nothing, every second. 100 ms buckets over 20 s.
	var counts []uint32
	var out []bool
	for s := 0; s < 20; s++ {
		for b := 0; b < 10; b++ {
			c := uint32(0)
			if b < 2 {
				c = 6000 + uint32(s*37%200)
			}
			counts = append(counts, c)
			out = append(out, true)
		}
	}
	p := phaseOf(map[string][]float64{"WRITE": noisy(5, 20, 1200, 0)}, "WRITE")
	withBuckets(&p, 100*time.Millisecond, counts, out)
	a, err := Analyze(resultOf(p), Options{Warmup: "0"})
	if err != nil {
		t.Fatal(err)
	}
	s := a.Stalls
	if s.Count != 20 || s.LongestNs != int64(800*time.Millisecond) || s.TotalNs != int64(16*time.Second) {
		t.Errorf("stalls = %d longest %s total %s, want 20, 800ms, 16s", s.Count, time.Duration(s.LongestNs), time.Duration(s.TotalNs))
	}
	r := s.Regulation
	if !r.Periodic || r.PeriodNs != int64(time.Second) || r.OnNs != int64(200*time.Millisecond) || r.OffNs != int64(800*time.Millisecond) || !near(r.DutyCycle, 0.2) {
		t.Errorf("regulation = %+v", r)
	}
}

func TestRegulationTenMillisecondBuckets(t *testing.T) {
	// A disk probe's bandwidth series in 10 ms buckets: ~1 GB/s (10 MB per
	// bucket, with jitter) for 190 ms, then zero for 810 ms, for 8 s.
	rng := rand.New(rand.NewSource(6))
	var bw []float64
	for s := 0; s < 8; s++ {
		for b := 0; b < 100; b++ {
			v := 0.0
			if b < 19 {
				v = 10e6 * (0.8 + 0.4*rng.Float64())
			}
			bw = append(bw, v)
		}
	}
	r := Regulation(bw, 10*time.Millisecond)
	if !r.Periodic || r.PeriodNs != int64(time.Second) || r.OnNs != int64(190*time.Millisecond) || r.Cycles != 6 || math.Abs(r.DutyCycle-0.19) > 1e-9 {
		t.Errorf("regulation = %+v", r)
	}
	if r.OnLevel < 9e6 || r.OnLevel > 11e6 {
		t.Errorf("on level %v, want about 10e6", r.OnLevel)
	}
	// A smooth series (Is4gen: steady just under 200 MB/s) is not periodic.
	smooth := noisy(7, 800, 2e6, 0.1)
	if r := Regulation(smooth, 10*time.Millisecond); r.Periodic || !strings.HasPrefix(r.Reason, "smooth") {
		t.Errorf("smooth series: %+v", r)
	}
	// Random gaps of random length are not periodic.
	gaps := noisy(8, 800, 2e6, 0.1)
	for i := 0; i < 800; {
		i += 5 + rng.Intn(120)
		for k := 0; k < 1+rng.Intn(30) && i < 800; k++ {
			gaps[i] = 0
			i++
		}
	}
	if r := Regulation(gaps, 10*time.Millisecond); r.Periodic {
		t.Errorf("random gaps reported periodic: %+v", r)
	}
}

// TestPageCacheVerdict: the case the report phrases (report tests the words).
func TestPageCacheVerdict(t *testing.T) {
	p := phaseOf(map[string][]float64{"READ": {10, 10}}, "READ")
	r := resultOf(p)
	r.Target.Kind = "embedded"
	r.Dataset = result.Dataset{Records: 1000000, RecordBytes: 1000, LogicalBytes: 1e9, DiskBytes: 1.2e9, HostRAMBytes: 24 << 30}
	check := func(what, wantCase string, fits bool) {
		t.Helper()
		a, err := Analyze(r, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if a.PageCache == nil || a.PageCache.Case != wantCase || a.PageCache.FitsInRAM != fits || !a.PageCache.Reads {
			t.Errorf("%s: %+v, want case %s, fits %v, reads", what, a.PageCache, wantCase, fits)
		}
	}
	check("fits", result.PageCacheFits, true)
	r.Dataset.DiskBytes = 250e9
	r.Dataset.HostRAMBytes = 122e9
	check("does not fit", result.PageCacheExceeds, false)
	r.Config.Extra = map[string]string{"direct": "true"}
	check("O_DIRECT", result.PageCacheDirectIO, false)
	r.Config.Extra = nil
	r.Target.Kind = "redis"
	check("in-memory target", result.PageCacheInMemory, false)
	r.Target.Kind = "embedded"
	r.Dataset.HostRAMBytes = 0
	check("RAM unknown", result.PageCacheRAMUnknown, false)
	r.Target.Kind = "null"
	if a, _ := Analyze(r, Options{}); a.PageCache != nil {
		t.Errorf("null target stores nothing, got a page-cache verdict: %+v", a.PageCache)
	}
	r.Dataset = result.Dataset{}
	if a, _ := Analyze(r, Options{}); a.PageCache != nil {
		t.Errorf("no dataset: %+v", a.PageCache)
	}
}

// TestDataStaxTable3 reproduces the DataStax report's Table 3 exactly: the
// monthly cost of 3, 6 and 9 nodes of i3.2xlarge ($455.52/month) and of
// i3.16xlarge ($3,644.16/month), from the catalog's hourly prices and a
// 730 h month.
func TestDataStaxTable3(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"i3.2xlarge":  {"455.52", "1366.56", "2733.12", "4099.68"},
		"i3.16xlarge": {"3644.16", "10932.48", "21864.96", "32797.44"},
	}
	for typ, w := range want {
		in, err := cat.Lookup(typ)
		if err != nil {
			t.Fatal(err)
		}
		for i, nodes := range []int{1, 3, 6, 9} {
			if got := fmtCents(catalog.MonthlyUSD(in.PricePerHourUSD, nodes)); got != w[i] {
				t.Errorf("%d x %s: $%s/month, want $%s", nodes, typ, got, w[i])
			}
		}
		// The same through Analyze on a result, as `platbench report --platform` does.
		r := resultOf(phaseOf(map[string][]float64{"READ": {1000, 1000, 1000}}, "READ"))
		a, err := Analyze(r, Options{Platform: typ, Nodes: 3, Catalog: cat})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmtCents(a.Cost.MonthlyUSD); got != w[1] {
			t.Errorf("Analyze 3 x %s: $%s/month, want $%s", typ, got, w[1])
		}
	}
}

func fmtCents(v float64) string { return fmt.Sprintf("%.2f", v) }

func TestCostFigures(t *testing.T) {
	// 10,000 ops/s of 1 kB messages on 3 x $1.248/h:
	// $3.744/h; 36,000,000 ops/h -> 9,615,384.6 ops/$, $0.104 per million ops;
	// 36 GB/h -> 9.615 GB/$; $2,733.12 a month.
	p := phaseOf(map[string][]float64{"PRODUCE": {10000, 10000, 10000, 10000}}, "PRODUCE")
	for i := range p.Intervals {
		p.Intervals[i].Ops[0].Bytes = 10000 * 1000
	}
	a, err := Analyze(resultOf(p), Options{Warmup: "0", Platform: "i3.4xlarge", Nodes: 3})
	if err != nil {
		t.Fatal(err)
	}
	c := a.Cost
	if c == nil || !near(c.ClusterPerHourUSD, 3.744) || !near(c.OpsPerUSD, 36e6/3.744) || !near(c.USDPerMillionOps, 0.104) || !near(c.GBPerUSD, 36/3.744) || c.MonthlyUSD != 2733.12 {
		t.Errorf("cost = %+v", c)
	}
	if !strings.Contains(c.PriceSource, "seed 000") {
		t.Errorf("price source %q should cite the seed", c.PriceSource)
	}
	// --price-per-hour wins over the catalog.
	a, _ = Analyze(resultOf(p), Options{Warmup: "0", PricePerHour: 2, Nodes: 1})
	if a.Cost.PricePerHourUSD != 2 || a.Cost.PriceSource != PriceGiven || a.Cost.MonthlyUSD != 1460 {
		t.Errorf("price override: %+v", a.Cost)
	}
	// An unknown --platform is a clear error.
	_, err = Analyze(resultOf(p), Options{Platform: "i9.huge"})
	if err == nil || !errors.Is(err, catalog.ErrUnknown) || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("unknown platform: %v", err)
	}
	// The fingerprint's instance type is used when the target ran on this host.
	r := resultOf(p)
	r.Target.Kind = "embedded"
	r.Platform.InstanceType = "m7g.large"
	a, err = Analyze(r, Options{Warmup: "0"})
	if err != nil || a.Cost == nil || a.Cost.InstanceType != "m7g.large" || a.Cost.Nodes != 1 {
		t.Errorf("fingerprint: %+v %v", a.Cost, err)
	}
	// ... but not for a remote target: the loader's instance is not the server's.
	r.Target = vocab.Info{Kind: "cql", URL: "cql://10.0.0.5:9042", Nodes: []string{"10.0.0.5", "10.0.0.6", "10.0.0.7"}}
	a, _ = Analyze(r, Options{Warmup: "0"})
	if a.Cost != nil || len(a.Notes) == 0 || !strings.Contains(strings.Join(a.Notes, " "), "load generator") {
		t.Errorf("remote: cost %+v notes %q", a.Cost, a.Notes)
	}
}

func isConfigErr(err error) bool {
	var ce *adapter.ConfigError
	return errors.As(err, &ce)
}

// TestWarmupAccuracy checks the detector on many noisy runs: a 30 s ramp from
// 30% of the steady rate, +-3% noise, 300 s runs. MSER-5 cuts at batch
// boundaries, so the cut should be within one batch (5 s) of the truth.
func TestWarmupAccuracy(t *testing.T) {
	within := 0
	for seed := int64(0); seed < 100; seed++ {
		ys := noisy(seed+9000, 300, 40000, 0.03)
		for i := 0; i < 30; i++ {
			ys[i] *= 0.3 + 0.7*float64(i)/30
		}
		st, err := SteadyStateOf(ptr(phaseOf(map[string][]float64{"READ": ys}, "READ")), "")
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Duration(st.WarmupNs); d >= 25*time.Second && d <= 35*time.Second {
			within++
		}
	}
	if within < 95 {
		t.Errorf("warm-up within 5 s of the true 30 s in %d of 100 runs, want at least 95", within)
	}
}

func TestRegulationShapes(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	cases := []struct {
		name     string
		series   func() []float64
		width    time.Duration
		periodic bool
		periodNs int64 // 0: not checked
		duty     float64
	}{
		// A throttle's slice: 10 ms of work every 100 ms (10% duty cycle).
		{"sparse", func() []float64 {
			xs := make([]float64, 300)
			for i := range xs {
				if i%10 == 3 {
					xs[i] = 2e6
				}
			}
			return xs
		}, 10 * time.Millisecond, true, int64(100 * time.Millisecond), 0.1},
		// 200 ms on / 800 ms off with each burst's start jittered by up to
		// +-20 ms: jitter that does not accumulate keeps the period.
		{"jittered", func() []float64 {
			xs := make([]float64, 3000)
			for s := 0; s < 30; s++ {
				start := s*100 + rng.Intn(5) - 2
				for i := max(start, 0); i < start+20; i++ {
					xs[i] = 1e7
				}
			}
			return xs
		}, 10 * time.Millisecond, true, int64(time.Second), 0},
		// A period that is not a whole number of buckets: 1.05 s at 100 ms.
		{"fractional", func() []float64 {
			xs := make([]float64, 630)
			for i := range xs {
				if math.Mod(float64(i)*0.1, 1.05) < 0.3 {
					xs[i] = 500
				}
			}
			return xs
		}, 100 * time.Millisecond, true, int64(1050 * time.Millisecond), 0},
		// A 100 ms pause every 10 s (a GC or a checkpoint): a 99% duty cycle.
		{"pause", func() []float64 {
			xs := make([]float64, 1200)
			for i := range xs {
				if i%100 != 50 {
					xs[i] = 3000 + float64(rng.Intn(300))
				}
			}
			return xs
		}, 100 * time.Millisecond, true, int64(10 * time.Second), 0.99},
		// Gaps at random times with a typical spacing: not periodic.
		{"random", func() []float64 {
			xs := make([]float64, 3000)
			for i := range xs {
				xs[i] = 1e6
			}
			for i := 0; i < 3000; i += 60 + rng.Intn(80) {
				xs[i] = 0
			}
			return xs
		}, 10 * time.Millisecond, false, 0, 0},
	}
	for _, tc := range cases {
		r := Regulation(tc.series(), tc.width)
		if r.Periodic != tc.periodic || (tc.periodNs != 0 && math.Abs(float64(r.PeriodNs-tc.periodNs)) > float64(tc.width)/2) ||
			(tc.duty != 0 && math.Abs(r.DutyCycle-tc.duty) > 0.01) {
			t.Errorf("%s: %+v", tc.name, r)
		}
		if !r.Periodic && (r.PeriodNs != 0 || r.Cycles != 0) {
			t.Errorf("%s: a period that did not hold is reported: %+v", tc.name, r)
		}
	}
}

func TestIsLocal(t *testing.T) {
	for _, tc := range []struct {
		kind, url string
		want      bool
	}{
		{"embedded", "embedded:///var/tmp/pb", true},
		{"redis", "redis://127.0.0.1:6379", true},
		{"redis", "redis://[::1]:6379/0", true},
		{"cql", "cql://localhost,127.0.0.2:9042/ks", true},
		{"cql", "cql://127.0.0.1,10.0.0.2:9042/ks", false},
		{"kafka", "kafka://broker-1:9092", false},
		{"kafka", "not a url", false},
	} {
		r := &result.Result{Target: vocab.Info{Kind: tc.kind, URL: tc.url}}
		if got := isLocal(r); got != tc.want {
			t.Errorf("%s %s: local %v, want %v", tc.kind, tc.url, got, tc.want)
		}
	}
}

// TestOpenLoopWarmupInLatency: at a fixed rate the throughput is flat, and a
// cold start shows only in latency (the ScyllaDB report's fixed 250k reads/s).
func TestOpenLoopWarmupInLatency(t *testing.T) {
	p := phaseOf(map[string][]float64{"READ": noisy(21, 120, 1000, 0)}, "READ")
	p.Mode = "open"
	lat := noisy(22, 120, 1e6, 0.05) // 1 ms +-5%
	for i := range p.Intervals {
		if i < 30 {
			lat[i] = 20e6 - float64(i)*0.5e6 // 20 ms falling to 5.5 ms
		}
		p.Intervals[i].Ops[0].Latency.MeanNs = lat[i]
	}
	st, err := SteadyStateOf(&p, "auto")
	if err != nil {
		t.Fatal(err)
	}
	if st.WarmupNs != 30*sec || !strings.Contains(st.Reason, "its mean latency averaged") || !strings.Contains(st.Reason, "open loop") {
		t.Errorf("open loop: warm-up %s, %s", time.Duration(st.WarmupNs), st.Reason)
	}
	// The same series in a closed loop: throughput is the signal there.
	p.Mode = "closed"
	if st, _ := SteadyStateOf(&p, "auto"); st.WarmupNs != 0 {
		t.Errorf("closed loop: warm-up %s (%s)", time.Duration(st.WarmupNs), st.Reason)
	}
	// A flat open-loop run has no warm-up on either series.
	for i := range p.Intervals {
		p.Intervals[i].Ops[0].Latency.MeanNs = 1e6
	}
	p.Mode = "open"
	if st, _ := SteadyStateOf(&p, "auto"); st.WarmupNs != 0 {
		t.Errorf("flat open loop: %s, %s", time.Duration(st.WarmupNs), st.Reason)
	}
}
