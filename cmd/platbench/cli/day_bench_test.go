package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/synth"
)

// BenchmarkDayTools is what a user does with day-long results (issue 34:
// "report, compare, merge, history of a 24 h result finish in seconds and
// stay within a few hundred MB"): each command whole, as `platbench` runs
// it (Main in this process: read the files, analyse, write), timed with the
// largest live heap it reached (peak-heap-MB, sampled every 5 ms). Two
// streamed results of ten op types at 10,000 op/s each, a day long
// (PLATBENCH_SYNTH_HOURS sets fewer hours), are synthesized first, outside
// the timing (about a minute each). merge takes them as two loaders' parts
// of one run and writes the merged result and seconds file.
func BenchmarkDayTools(b *testing.B) {
	hours, err := synth.Hours()
	if err != nil {
		b.Fatal(err)
	}
	ops := synth.DayOps
	dir := b.TempDir()
	a, c, m := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json"), filepath.Join(dir, "merged.json")
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for i, f := range []string{a, c} {
		if err := synth.Streamed(f, "day", start.Add(time.Duration(i)*time.Second), hours*3600, ops, 10_000); err != nil {
			b.Fatal(err)
		}
	}
	for _, f := range []string{a, result.SecondsPath(a)} {
		if st, err := os.Stat(f); err == nil {
			b.Logf("%s: %.1f MB", filepath.Base(f), float64(st.Size())/1e6)
		}
	}
	for _, cmd := range []struct {
		name string
		args []string
	}{
		{"report", []string{"report", a}},
		{"compare", []string{"compare", a, c}},
		{"merge", []string{"merge", "--out", m, a, c}},
		{"history", []string{"history", a, c}},
	} {
		b.Run(cmd.name, func(b *testing.B) {
			runtime.GC()
			peak := synth.PeakHeap()
			for b.Loop() {
				var stderr bytes.Buffer
				if code := Main(cmd.args, &Env{Stdout: io.Discard, Stderr: &stderr}); code != 0 {
					b.Fatalf("platbench %v: exit %d: %s", cmd.args, code, stderr.String())
				}
			}
			b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
		})
	}
}
