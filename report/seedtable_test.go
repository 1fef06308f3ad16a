package report

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// A seed table has every line with a value, the op types in brackets as
// cassandra-stress prints them.
func TestWriteSeedTable(t *testing.T) {
	lat := result.Summary{Count: 10, MeanNs: 3.3e6, P50Ns: 1.9e6, P95Ns: 5.7e6, P99Ns: 71.2e6, P999Ns: 92.5e6, MaxNs: 254.9e6}
	s := &analysis.SeedFigures{SustainedOpsPerS: 272544, PeakOpsPerS: 310000, Latency: lat,
		Stability: result.Stability{Intervals: 60, MinOpsPerS: 2512, MaxOpsPerS: 3071, MeanOpsPerS: 2894.3, StdDevOpsPerS: 91.6},
		Ops:       []analysis.SeedOp{{Op: "read", SustainedOpsPerS: 200000, Latency: lat}, {Op: "write", SustainedOpsPerS: 72544, Latency: lat}}}
	var b strings.Builder
	if err := WriteSeedTable(&b, "cell", s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"Op rate (sustained)       : 272,544 op/s [READ: 200,000 op/s, WRITE: 72,544 op/s]",
		"Peak op rate (best 1 s)   : 310,000 op/s", "min 2,512, max 3,071, mean 2,894, std-dev 92 (60 s)",
		"Payload written           : 0 B/s", "Latency 99th percentile   : 71.2 ms [READ: 71.2 ms, WRITE: 71.2 ms]"} {
		if !strings.Contains(out, w) {
			t.Errorf("lacks %q:\n%s", w, out)
		}
	}
	if !strings.Contains(func() string {
		var b strings.Builder
		_ = WriteSeedTable(&b, "c", &analysis.SeedFigures{})
		return b.String()
	}(), "Peak op rate (best 1 s)   : n/a") {
		t.Error("a figure the run lacks is not n/a")
	}
}

// A group's change reads as the seeds' Diff column: the change, its 95%
// interval, the verdict.
func TestSeedDiff(t *testing.T) {
	for _, c := range []struct {
		v    analysis.CompareVerdict
		want string
	}{
		{analysis.CompareVerdict{Ratio: 1.31, Low: 1.2, High: 1.4, Verdict: "different"}, "+31.0% [+20.0%, +40.0%] different"},
		{analysis.CompareVerdict{Ratio: 0.25}, "-75.0%"},
		{analysis.CompareVerdict{Missing: true, Phrase: "not measured"}, "not measured"},
	} {
		if got := seedDiff(c.v); got != c.want {
			t.Errorf("seedDiff(%+v) = %q, want %q", c.v, got, c.want)
		}
	}
}
