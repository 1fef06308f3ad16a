package runner

import (
	"context"
	"syscall"
	"testing"

	"github.com/platbench/platbench/adapter/null"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/workload"
)

// BenchmarkRunnerNull is platbench's own overhead per operation: generator,
// runner, two clock reads and the recorder, against the null target.
// Compare with BenchmarkBaselineLoop (the same loop without recording) in the
// same run: the ratio is what recording costs. workers=16's ops/s over
// workers=1's is the closed loop's scaling on a machine of 16 cores or more
// (issue 47's goal: at least 13x; -cpu 16 on a smaller one says nothing).
func BenchmarkRunnerNull(b *testing.B) {
	for _, w := range []struct {
		name string
		n    int
	}{{"workers=1", 1}, {"workers=2", 2}, {"workers=16", 16}} {
		b.Run(w.name, func(b *testing.B) {
			s, ks := spec(b, "ycsb-a")
			b.ReportAllocs()
			b.ResetTimer()
			p, _, err := Run(context.Background(), &null.Target{}, s, ks, Config{Ops: uint64(b.N), Concurrency: w.n})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			_ = p
		})
	}
}

// BenchmarkBaselineLoop generates and executes ops with no timing or recording.
func BenchmarkBaselineLoop(b *testing.B) {
	s, ks := spec(b, "ycsb-a")
	gen := workload.NewGenerator(s, ks, 1, 0)
	var req workload.Request
	w, _ := (&null.Target{}).NewWorker(0)
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		gen.Next(&req)
		w.Do(ctx, &req)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// The closed loop takes op numbers in blocks; the op bound stays exact for
// bounds below, at and off a block, and with more workers than ops.
func TestClosedLoopOpBoundExact(t *testing.T) {
	for _, ops := range []uint64{1, 63, 64, 65, 1007} {
		for _, workers := range []int{1, 3, 16} {
			s, ks := spec(t, "ycsb-a")
			p, _, err := Run(context.Background(), &null.Target{}, s, ks, Config{Ops: ops, Concurrency: workers})
			if err != nil {
				t.Fatal(err)
			}
			var n uint64
			for _, o := range p.Ops {
				n += o.Count
			}
			if n != ops {
				t.Errorf("ops=%d workers=%d: %d ops ran", ops, workers, n)
			}
		}
	}
}

// BenchmarkRunnerNullUniform is BenchmarkRunnerNull/workers=1 with YCSB A's
// mix over uniform keys: the cheapest generator, so the runner, clock and
// recorder are most of what it measures.
func BenchmarkRunnerNullUniform(b *testing.B) {
	s, ks := spec(b, "ycsb-a")
	s.Distribution = workload.DistUniform
	b.ReportAllocs()
	b.ResetTimer()
	if _, _, err := Run(context.Background(), &null.Target{}, s, ks, Config{Ops: uint64(b.N), Concurrency: 1}); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

// BenchmarkOpenLoopNull is the open loop's own cost per operation at fixed
// rates, beside the closed loop in the same run: client CPU per op (user +
// system, from getrusage: the open loop's wall time is the schedule's), the
// schedule lag p50/p99 and allocations per op. `go test -bench OpenLoop
// -benchtime 200000x` on one pinned core (taskset -c 1) gives the table in
// docs/benchmarks.md; scripts/bench-pacing.sh does the same with the binary.
func BenchmarkOpenLoopNull(b *testing.B) {
	for _, c := range []struct {
		name string
		rate float64
	}{{"closed", 0}, {"rate=10k", 1e4}, {"rate=100k", 1e5}, {"rate=1M", 1e6}} {
		b.Run(c.name, func(b *testing.B) {
			s, ks := spec(b, "ycsb-a")
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuNs()
			p, _, err := Run(context.Background(), &null.Target{}, s, ks, Config{Ops: uint64(b.N), Concurrency: 16, Rate: c.rate})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(cpuNs()-cpu0)/float64(b.N), "cpu-ns/op")
			if c.rate > 0 {
				lag, err := p.MergedHist(0, len(p.Intervals), result.HistLag)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(lag.ValueAtQuantile(50))/1e3, "lag-p50-µs")
				b.ReportMetric(float64(lag.ValueAtQuantile(99))/1e3, "lag-p99-µs")
			}
		})
	}
}

// cpuNs is this process's user + system CPU time so far.
func cpuNs() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
