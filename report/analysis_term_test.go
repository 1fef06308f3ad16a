package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// regulatedDisk is a 30 s closed-loop write run whose first 10 s run at half
// speed and whose 100 ms buckets show the Redpanda report's i3.large pattern:
// 200 ms of work, then 800 ms of nothing, every second.
func regulatedDisk() *result.Result {
	p := result.Phase{Name: "run", Mode: "closed", Concurrency: 16, DurationNs: int64(30 * time.Second)}
	var counts []uint32
	var bytes []uint64
	var out []bool
	for s := 0; s < 30; s++ {
		n := uint64(20000)
		if s < 10 {
			n = 10000
		}
		p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(s) * int64(time.Second), DurationNs: int64(time.Second),
			Ops: []result.IntervalOp{{Op: "WRITE", Count: n, Bytes: n * 16384}}})
		for b := 0; b < 10; b++ {
			c := uint32(0)
			if b < 2 {
				c = uint32(n / 2)
			}
			counts = append(counts, c)
			bytes = append(bytes, uint64(c)*16384)
			out = append(out, true)
		}
	}
	p.Ops = []result.OpTotal{{Op: "WRITE", Count: 500000, Bytes: 500000 * 16384}}
	p.Buckets = result.Buckets{WidthNs: int64(100 * time.Millisecond), Counts: map[string][]uint32{"WRITE": counts},
		Bytes: map[string][]uint64{"WRITE": bytes}, Outstanding: out}
	r := &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{p}}
	r.Target.Kind = "disk"
	r.Dataset = result.Dataset{LogicalBytes: 100e9, HostRAMBytes: 16e9}
	return r
}

// TestAnalysisTextGolden renders the analysis sections of a few results and
// compares them with testdata/golden/analysis-*.txt (-update rewrites them).
func TestAnalysisTextGolden(t *testing.T) {
	cases := []struct {
		name string
		r    func(t testing.TB) *result.Result
		opt  analysis.Options
		want []string // must appear, whatever the golden file says
	}{
		{"i3-16xlarge", func(t testing.TB) *result.Result { return loadFixture(t, "i3-16xlarge") },
			analysis.Options{Platform: "i3.16xlarge", Nodes: 3},
			[]string{"raw (whole phase)", "steady (used)", "Stability of the 1 s throughput", "3 x aws i3.16xlarge", "$10,932.48/month"}},
		{"graviton-write", func(t testing.TB) *result.Result { return loadFixture(t, "graviton-write") },
			analysis.Options{Warmup: "5s", PricePerHour: 0.616},
			[]string{"--warmup 5s, method forced", "first 5 s trimmed", "1 x node at $0.616/h"}},
		{"regulated-disk", func(testing.TB) *result.Result { return regulatedDisk() },
			analysis.Options{Platform: "i3.large"},
			[]string{"method mser", "detected a warm-up of 10s", "30 stall(s), longest 800 ms", "periodic: 200ms of work then 800ms of nothing, every 1s", "at most 16% of it can be cached", "GB per $"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.r(t)
			a, err := analysis.Analyze(r, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			if err := WriteAnalysisText(&b, r, a); err != nil {
				t.Fatal(err)
			}
			for _, w := range c.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, b.String())
				}
			}
			golden(t, "analysis-"+c.name+".txt", b.Bytes())
		})
	}
}

func TestAnalysisTextNil(t *testing.T) {
	var b bytes.Buffer
	if err := WriteAnalysisText(&b, &result.Result{}, nil); err != nil || b.Len() != 0 {
		t.Errorf("nil analysis wrote %q, %v", b.String(), err)
	}
}
