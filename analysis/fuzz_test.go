package analysis

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// FuzzAnalyze feeds Analyze and Plan odd result files (result files are user
// input): any series lengths, zero or odd widths and durations, partial
// intervals, outstanding flags of another length. They must never panic and
// never produce NaN or infinite figures. `go test` runs the seeds;
// `go test -fuzz FuzzAnalyze ./analysis` explores.
func FuzzAnalyze(f *testing.F) {
	f.Add([]byte{}, uint8(0), int64(0))
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, uint8(3), int64(1e9))
	f.Add([]byte{0, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 1}, uint8(7), int64(-5))
	f.Add(make([]byte, 400), uint8(100), int64(1e8))
	f.Fuzz(func(t *testing.T, data []byte, width uint8, durNs int64) {
		p := result.Phase{Name: "run", Mode: "closed", DurationNs: durNs}
		if len(data)%2 == 1 {
			p.Mode = "open"
		}
		var counts []uint32
		var out []bool
		for i := 0; i+4 <= len(data); i += 4 {
			v := binary.LittleEndian.Uint32(data[i:])
			iv := result.Interval{StartNs: int64(i/4) * int64(time.Second), DurationNs: int64(v % 3 * 500_000_000)}
			iv.Ops = []result.IntervalOp{{Op: "READ", Count: uint64(v >> 8), Bytes: uint64(v >> 4), Errors: map[string]uint64{"timeout": uint64(v & 3)}}}
			p.Intervals = append(p.Intervals, iv)
			counts = append(counts, v>>20)
			out = append(out, v&1 == 1)
		}
		if len(out) > 2 {
			out = out[:len(out)-2]
		}
		p.Ops = []result.OpTotal{{Op: "READ", Count: uint64(len(data))}}
		p.Buckets = result.Buckets{WidthNs: int64(width) * int64(time.Millisecond), Counts: map[string][]uint32{"READ": counts}, Outstanding: out}
		r := &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{p}}
		r.Dataset = result.Dataset{LogicalBytes: int64(len(data)), HostRAMBytes: durNs}
		for _, w := range []string{"auto", "0", "2s"} {
			a, err := Analyze(r, Options{Warmup: w, PricePerHour: 1})
			if err != nil {
				continue
			}
			for _, v := range []float64{a.Raw.SustainedOpsPerS, a.Steady.SustainedOpsPerS, a.Steady.PeakOpsPerS, a.Steady.Stability.CVPercent,
				a.Steady.Stability.StdDevOpsPerS, a.Stalls.Regulation.DutyCycle, a.Stalls.Regulation.PhaseCoherence, a.Cost.OpsPerUSD, a.Cost.USDPerMillionOps} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("warmup %s: non-finite figure in %+v", w, a)
				}
			}
		}
		Regulation(func() []float64 {
			xs := make([]float64, len(data))
			for i, b := range data {
				xs[i] = float64(b)
			}
			return xs
		}(), time.Duration(width)*time.Millisecond)
		Plan([]PlanInput{{File: "f.json", Result: r}}, PlanOptions{ThroughputOpsPerS: 1000, P99: time.Millisecond, PricePerHour: 1})
	})
}

// FuzzWarmup: any warm-up a person types either parses to auto, none or a
// non-negative duration, or is one error naming the warmup field.
func FuzzWarmup(f *testing.F) {
	for _, s := range []string{"", "auto", "0", "off", "75s", "90", "2m30s", "-5s", "soon", "1e9", " 10s "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		auto, d, err := parseWarmup(s)
		switch {
		case err != nil:
			if err.Field != "warmup" || !strings.Contains(err.Msg, "fix:") || auto || d != 0 {
				t.Fatalf("%q: %v (auto %v, %v)", s, err, auto, d)
			}
		case d < 0 || (auto && d != 0):
			t.Fatalf("%q: auto %v, duration %v", s, auto, d)
		}
	})
}
