package report

import (
	"io"
	"testing"

	"github.com/platbench/platbench/result"
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
