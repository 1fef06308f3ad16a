package report

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/synth"
)

// synthStart is when the synthetic runs began.
var synthStart = time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)

// synthDay writes a streamed result of a day-long run phase as `platbench
// run` leaves it (synth.Streamed) in dir and returns its path.
func synthDay(tb testing.TB, dir string, seconds int, ops []string, perSecond int) string {
	out := filepath.Join(dir, "day.json")
	if err := synth.Streamed(out, "day", synthStart, seconds, ops, perSecond); err != nil {
		tb.Fatal(err)
	}
	return out
}

// BenchmarkReportDay is `platbench report` of a day-long streamed result
// of ten op types (issue 34): read the file, analyse it (the steady
// window's latency read back from the seconds file) and write the terminal
// report. The files are synthesized first, outside the timing (a minute or
// so; the seconds file is about 100 MB); PLATBENCH_SYNTH_HOURS sets a
// shorter day. Besides time it reports the largest live heap seen
// (peak-heap-MB, sampled every 5 ms) and the files' sizes.
func BenchmarkReportDay(b *testing.B) {
	hours, err := synth.Hours()
	if err != nil {
		b.Fatal(err)
	}
	ops := synth.DayOps
	out := synthDay(b, b.TempDir(), hours*3600, ops, 10_000)
	runtime.GC()
	peak := synth.PeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	for b.Loop() {
		r, err := result.Read(out)
		if err != nil {
			b.Fatal(err)
		}
		if r.Analysis, err = analysis.Analyze(r, analysis.Options{}); err != nil {
			b.Fatal(err)
		}
		if err := WriteTerm(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		if err := WriteAnalysisText(io.Discard, r, r.Analysis); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
	for name, path := range map[string]string{"result-MB": out, "seconds-MB": result.SecondsPath(out)} {
		if st, err := os.Stat(path); err == nil {
			b.ReportMetric(float64(st.Size())/1e6, name)
		}
	}
}
