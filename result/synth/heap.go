package synth

import (
	"runtime"
	"sync/atomic"
	"time"
)

// PeakHeap samples the live heap every 5 ms until the stop it returns is
// called, which returns the largest heap seen, in bytes: the benchmarks'
// peak-heap-MB.
func PeakHeap() (stop func() uint64) {
	var peak atomic.Uint64
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				peak.Store(max(peak.Load(), ms.HeapAlloc))
			}
		}
	}()
	return func() uint64 {
		close(quit)
		<-done
		return peak.Load()
	}
}
