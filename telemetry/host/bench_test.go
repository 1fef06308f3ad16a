//go:build linux

package host

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkSample is the cost of one host sample (all /proc and /sys reads,
// platbench's own process with its threads, the deltas): at one a second it
// is the sampler's whole overhead.
func BenchmarkSample(b *testing.B) {
	s := Start(context.Background(), time.Hour) // the ticker never fires
	defer s.Stop()
	b.ReportAllocs()
	now := time.Now()
	var ru0, ru1 unix.Rusage
	unix.Getrusage(unix.RUSAGE_SELF, &ru0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now = now.Add(time.Second)
		s.read(now)
	}
	b.StopTimer()
	unix.Getrusage(unix.RUSAGE_SELF, &ru1)
	// CPU time, unlike ns/op, does not grow with other processes' load.
	cpu := (ru1.Utime.Nano() + ru1.Stime.Nano()) - (ru0.Utime.Nano() + ru0.Stime.Nano())
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
}
