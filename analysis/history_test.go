package analysis

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

func TestParseMetrics(t *testing.T) {
	ms, err := ParseMetrics(" sustained, read.p99.9 ,lag.p99,errors,cost,SUSTAINED, update.service.p50")
	if err != nil {
		t.Fatal(err)
	}
	want := []Metric{
		{Name: "sustained", Figure: "sustained", Unit: result.UnitOpsPerS, HigherIsBetter: true},
		{Name: "read.p99.9", Op: "READ", Figure: "p99.9", Unit: result.UnitNs},
		{Name: "lag.p99", Figure: "lag.p99", Unit: result.UnitNs},
		{Name: "errors", Figure: "errors", Unit: result.UnitFraction},
		{Name: "cost", Figure: "cost", Unit: UnitUSDPerMillionOps},
		{Name: "update.service.p50", Op: "UPDATE", Figure: "service.p50", Unit: result.UnitNs},
	}
	if len(ms) != len(want) {
		t.Fatalf("%+v, want %+v", ms, want)
	}
	for i := range want {
		if ms[i] != want[i] {
			t.Errorf("metric %d: %+v, want %+v", i, ms[i], want[i])
		}
	}
	// *.FIGURE: one metric per op type, expanded against a run's op types.
	ms, err = ParseMetrics("*.p99,read.p99,sustained")
	if err != nil || ms[0].Op != AnyOp || ms[0].Name != "*.p99" {
		t.Fatalf("*.p99: %+v %v", ms, err)
	}
	got := ExpandMetrics(ms, []string{"READ", "UPDATE"})
	if len(got) != 3 || got[0].Name != "read.p99" || got[0].Op != "READ" || got[1].Name != "update.p99" || got[2].Name != "sustained" {
		t.Errorf("expanded %+v; want read.p99, update.p99, sustained (read.p99 once)", got)
	}
	for _, bad := range []string{"", "p99,,sustained", "bogus", "read.cost", "read.stalls", "p99<1ms", "*.cost", "*.stalls", "*.read.p99", "*."} {
		if _, err := ParseMetrics(bad); err == nil || !usererr.Is(err) {
			t.Errorf("%q: %v, want a user error", bad, err)
		}
	}
}

func TestMetricValues(t *testing.T) {
	r, err := result.Read("../report/testdata/graviton-write.result.json")
	if err != nil {
		t.Fatal(err)
	}
	ms, _ := ParseMetrics("sustained,write.p99,read.p99,lag.p99,errors")
	vals, ok, err := MetricValues(r, ms)
	if err != nil {
		t.Fatal(err)
	}
	ths, _ := ParseThresholds([]string{"sustained>0", "write.p99<1h", "lag.p99<1h", "errors<1%"})
	outs, err := Thresholds(r, ths)
	if err != nil {
		t.Fatal(err)
	}
	if !ok[0] || vals[0] != outs[0].Value || !ok[1] || vals[1] != outs[1].Value || !ok[3] || vals[3] != outs[2].Value || !ok[4] || vals[4] != outs[3].Value {
		t.Errorf("values %v %v; the thresholds see %+v", vals, ok, outs)
	}
	if ok[2] {
		t.Errorf("read.p99 of a write-only run measured: %v", vals[2])
	}
}

// FuzzParseMetrics: any --figures value parses or is refused with a user
// error, never a panic; what parses names known figures.
func FuzzParseMetrics(f *testing.F) {
	for _, s := range []string{DefaultHistoryMetrics, "read.p99.9,service.p50", "a.b.c", ",", "cost.cost", "lag.lag.p99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseMetrics(s)
		if err != nil {
			if !usererr.Is(err) {
				t.Fatalf("%q: %v is not a user error", s, err)
			}
			return
		}
		for _, m := range ms {
			if m.Figure == "" || m.Unit == "" || strings.ContainsAny(m.Name, ", ") {
				t.Fatalf("%q: %+v", s, m)
			}
		}
	})
}

// FuzzChangePoints: any series (values from a store are user input) gives
// change points inside it, in increasing order, without a panic.
func FuzzChangePoints(f *testing.F) {
	f.Add([]byte{}, uint8(0))
	f.Add(make([]byte, 8*40), uint8(5))
	b := make([]byte, 0, 8*60)
	for i := range 60 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i/30*10+i%3)))
	}
	f.Add(b, uint8(10))
	f.Fuzz(func(t *testing.T, data []byte, window uint8) {
		var xs []float64
		for i := 0; i+8 <= len(data) && len(xs) < 200; i += 8 {
			xs = append(xs, math.Float64frombits(binary.LittleEndian.Uint64(data[i:])))
		}
		last := 0
		for _, c := range ChangePoints(xs, ChangePointOptions{Window: int(window)}) {
			if c.Index <= last || c.Index >= len(xs) {
				t.Fatalf("change point at %d after %d in %d points", c.Index, last, len(xs))
			}
			last = c.Index
		}
	})
}
