package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/synth"
)

// BenchmarkHTMLHour renders the HTML report of a one-hour result with four
// op types: 3600 intervals x 4 ops and 36000 fine buckets per op.
func BenchmarkHTMLHour(b *testing.B) {
	r := synthResult(synthOptions{Seconds: 3600, Ops: []string{"READ", "UPDATE", "INSERT", "SCAN"}, Errors: true, Host: true, Seed: 7})
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	for b.Loop() {
		if err := WriteHTML(io.Discard, r); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time is the figure to quote on a shared machine, where wall time
	// also counts the time other processes held the CPUs.
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCompareHour compares two one-hour results (noise tests included)
// and renders the HTML.
func BenchmarkCompareHour(b *testing.B) {
	ops := []string{"READ", "UPDATE", "INSERT", "SCAN"}
	x := synthResult(synthOptions{Seconds: 3600, Ops: ops, Seed: 8, Instance: "i3.16xlarge"})
	y := synthResult(synthOptions{Seconds: 3600, Ops: ops, Seed: 9, Instance: "i3.metal", LatScale: 0.5})
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	for b.Loop() {
		c, err := Compare([]*result.Result{x, y}, CompareOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteCompareHTML(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
}

// BenchmarkCompareGroupsHour is compare of 6 groups x 5 runs of one-hour
// results, as the command does it: read the 30 result files, group and
// compare them, and write the terminal tables. The files are synthesized
// first, outside the timing, in two shapes: interval-hists, an HDR
// histogram in every interval, fine buckets per op type and no stored
// analysis (results of schema v1, merged ones: the heavier to read); and
// streamed, as run writes them since schema v2 (intervals without
// histograms, fine buckets of all ops together, the analysis stored, a
// seconds file beside each). Besides time and allocations it reports the
// largest live heap seen while comparing (peak-heap-MB, sampled every 5 ms).
func BenchmarkCompareGroupsHour(b *testing.B) {
	const groups, runs = 6, 5
	b.Run("interval-hists", func(b *testing.B) {
		dir := b.TempDir()
		var files []string
		for g := range groups {
			for k := range runs {
				r := synthResult(synthOptions{Seconds: 3600, Ops: []string{"READ", "UPDATE"}, Seed: uint64(10*g + k + 1),
					Label: fmt.Sprintf("group-%d", g+1), Rate: 20000 * (1 + 0.05*float64(g)), IntervalHists: true})
				f := filepath.Join(dir, fmt.Sprintf("group-%d.r%02d.json", g+1, k+1))
				if err := result.Write(f, r); err != nil {
					b.Fatal(err)
				}
				files = append(files, f)
			}
		}
		benchCompareFiles(b, files, groups)
	})
	b.Run("streamed", func(b *testing.B) {
		dir := b.TempDir()
		var files []string
		for g := range groups {
			for k := range runs {
				f := filepath.Join(dir, fmt.Sprintf("group-%d.r%02d.json", g+1, k+1))
				if err := synth.Streamed(f, fmt.Sprintf("group-%d", g+1), synthStart, 3600, []string{"READ", "UPDATE"}, 10_000+500*g+10*k); err != nil {
					b.Fatal(err)
				}
				r, err := result.Read(f)
				if err != nil {
					b.Fatal(err)
				}
				if r.Analysis, err = analysis.Analyze(r, analysis.Options{}); err != nil {
					b.Fatal(err)
				}
				if err := result.Write(f, r); err != nil {
					b.Fatal(err)
				}
				files = append(files, f)
			}
		}
		benchCompareFiles(b, files, groups)
	})
}

// benchCompareFiles times compare of files, in groups groups.
func benchCompareFiles(b *testing.B, files []string, groups int) {
	runtime.GC()
	peak := synth.PeakHeap()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuNs()
	for b.Loop() {
		rs, err := result.ReadFiles(files, nil)
		if err != nil {
			b.Fatal(err)
		}
		c, err := Compare(rs, CompareOptions{Files: files})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Groups) != groups {
			b.Fatalf("%d groups", len(c.Groups))
		}
		if err := WriteCompareText(io.Discard, c); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(peak())/1e6, "peak-heap-MB")
	if st, err := os.Stat(files[0]); err == nil {
		b.ReportMetric(float64(st.Size())/1e6, "file-MB")
	}
}
