package analysis

import (
	"math/rand"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// hourPhase is a one-hour closed-loop run of two op types: 3,600 intervals
// and 36,000 100 ms buckets, a 60 s warm-up at half speed.
func hourPhase() *result.Result {
	rng := rand.New(rand.NewSource(1))
	p := result.Phase{Name: "run", Mode: "closed", DurationNs: int64(time.Hour)}
	reads, writes := make([]uint32, 36000), make([]uint32, 36000)
	out := make([]bool, 36000)
	for s := 0; s < 3600; s++ {
		level := 50000.0
		if s < 60 {
			level = 25000
		}
		r := uint64(level * (0.95 + 0.1*rng.Float64()))
		w := uint64(level * (0.95 + 0.1*rng.Float64()))
		p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(s) * int64(time.Second), DurationNs: int64(time.Second),
			Ops: []result.IntervalOp{{Op: "READ", Count: r}, {Op: "UPDATE", Count: w}}})
		for b := 0; b < 10; b++ {
			reads[s*10+b], writes[s*10+b], out[s*10+b] = uint32(r/10), uint32(w/10), true
		}
	}
	p.Ops = []result.OpTotal{{Op: "READ"}, {Op: "UPDATE"}}
	p.Buckets = result.Buckets{WidthNs: int64(100 * time.Millisecond), Counts: map[string][]uint32{"READ": reads, "UPDATE": writes}, Outstanding: out}
	return &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{p}}
}

// BenchmarkAnalyzeOneHour is the cost of analysing a one-hour result (what
// `platbench report` pays per file).
func BenchmarkAnalyzeOneHour(b *testing.B) {
	r := hourPhase()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		a, err := Analyze(r, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if a.SteadyState.WarmupNs != int64(60*time.Second) {
			b.Fatalf("warm-up %s, want 60s", time.Duration(a.SteadyState.WarmupNs))
		}
	}
}

// BenchmarkRegulation10ms is the disk probe's use: 60 s of 10 ms buckets.
func BenchmarkRegulation10ms(b *testing.B) {
	xs := make([]float64, 6000)
	for i := range xs {
		if i%100 < 20 {
			xs[i] = 1e7
		}
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if !Regulation(xs, 10*time.Millisecond).Periodic {
			b.Fatal("not periodic")
		}
	}
}
