package host

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSample is the cost of one host sample (all /proc and /sys reads,
// platbench's own process with its threads, the deltas): at one a second it
// is the sampler's whole overhead.
func BenchmarkSample(b *testing.B) {
	s := Start(context.Background(), time.Hour) // the ticker never fires
	defer s.Stop()
	b.ReportAllocs()
	now := time.Now()
	for i := 0; i < b.N; i++ {
		now = now.Add(time.Second)
		s.read(now)
	}
}
