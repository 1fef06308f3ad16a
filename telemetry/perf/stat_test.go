package perf

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// The seed report's ARM counters (Cassandra under cassandra-stress) print
// with the ratios perf stat printed.
func TestWriteStatSeedFigures(t *testing.T) {
	c := &result.Counters{
		Scope:      "system",
		DurationNs: 7403_420_000_000, // 711069.6 ms task clock at 96.046 CPUs utilized
		Values: map[string]uint64{
			TaskClock: 711069602520_000 / 1000, ContextSwitches: 14802, CPUMigrations: 137, PageFaults: 7207,
			Cycles: 7422259052720, StalledFront: 3929716281, StalledBack: 7384719523004,
			Instructions: 43938297479, Branches: 6114998824, BranchMisses: 375388710,
		},
		Unavailable:       []string{CacheRefs, CacheMisses},
		UnavailableReason: "hardware counters: test",
	}
	c.Values[TaskClock] = 711069602520 // ns
	c.DurationNs = int64(float64(c.Values[TaskClock]) / 96.046)
	var buf bytes.Buffer
	WriteStat(&buf, c)
	out := buf.String()
	for _, want := range []string{
		"711,069.60 msec task-clock",
		"96.046 CPUs utilized",
		"7,422,259,052,720      cycles",
		"0.05% frontend cycles idle",
		"99.49% backend cycles idle",
		"0.01 insns per cycle",
		"168.07 stalled cycles per insn",
		"6.14% of all branches",
		"<not supported>      cache-misses",
		"Not available: hardware counters: test.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if os.Getenv("PERF_STAT_SHOW") != "" {
		t.Log(out)
	}
}
