package recorder

import (
	"runtime"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// soakOps is the op types of the simulated soak: ten, as a profile with ten
// named operations records.
var soakOps = func() []vocab.Op {
	var ops []vocab.Op
	for op := vocab.OpNamed0; op < vocab.OpNamed0+10; op++ {
		ops = append(ops, op)
	}
	return ops
}()

// simulate drives r as its collector would, on a clock the test sets
// instead of the machine's: seconds [from, to) of the phase, each op
// completing perBucket times in each 100 ms bucket with a latency that
// wanders, then the bucket harvested and every tenth bucket the interval
// closed and handed to OnInterval. Hours pass in a fraction of a second.
func simulate(r *Recorder, from, to int64, perBucket int) {
	sh := r.Shard(0)
	bw := int64(r.cfg.BucketWidth)
	for s := from; s < to; s++ {
		for k := int64(0); k < int64(time.Second)/bw; k++ {
			t0 := s*1e9 + k*bw
			for i := 0; i < perBucket; i++ {
				for j, op := range soakOps {
					lat := int64(50_000 + (s*7919+int64(i*131+j*17))%400_000)
					sh.Begin()
					sh.Record(op, t0, t0, t0+lat, 100, vocab.ClassNone)
				}
			}
			r.mu.Lock()
			r.bucketTick()
			r.mu.Unlock()
		}
		r.mu.Lock()
		r.intervalTick((s + 1) * 1e9)
		iv := r.lastIv
		r.mu.Unlock()
		if r.cfg.OnInterval != nil {
			r.cfg.OnInterval(iv)
		}
	}
}

// heapAfterGC is the live heap, and the bytes allocated so far.
func heapAfterGC() (live, allocated uint64) {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc, m.TotalAlloc
}

// A streamed recorder's memory does not grow with the length of the phase
// (issue 34): hours simulated on a fake clock, ten op types. Past the first
// hour (1 s intervals) the heap grows by the stored series alone (10 s
// intervals without histograms, fine bucket totals): well under the bound,
// which the per-second histograms and per-op buckets a recorder without a
// journal keeps exceed several times over (checked below, so the bound is
// not one that nothing could break). The bytes allocated per simulated
// hour stay level: the work of a second does not grow with the seconds
// before it.
func TestStreamedMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates five hours and a half (about 15 s)")
	}
	if raceOn {
		// scripts/test.sh runs this package again under the race detector,
		// for its goroutines: there this test took 400 s in CI and its heap
		// figures would be the detector's.
		t.Skip("heap figures are not the program's under the race detector")
	}
	const perHourBound = 2 << 20 // bytes of live heap a simulated hour may add
	var seconds, ops uint64
	r := New(Config{Shards: 1, OnInterval: func(iv result.Interval) {
		seconds++
		for _, o := range iv.Ops {
			ops += o.Count
		}
	}})
	simulate(r, 0, 7200, 1) // the 1 s tier, and the first hour of 10 s
	live2, alloc2 := heapAfterGC()
	simulate(r, 7200, 3*3600, 1)
	_, alloc3 := heapAfterGC()
	simulate(r, 3*3600, 5*3600, 1)
	live6, alloc6 := heapAfterGC()

	perHour := (int64(live6) - int64(live2)) / 3
	t.Logf("live heap: %d B at 2 h, %d B at 5 h: %d B per simulated hour; allocated %d B in hour 3, %d B per hour in hours 4-5",
		live2, live6, perHour, alloc3-alloc2, (alloc6-alloc3)/2)
	if perHour > perHourBound {
		t.Errorf("the live heap grows %d B per simulated hour past the first, want under %d", perHour, perHourBound)
	}
	if a3, a := alloc3-alloc2, (alloc6-alloc3)/2; a > a3+a3/2 {
		t.Errorf("allocation per simulated hour grows with the hours: %d B in hour 3, %d B per hour in hours 4-5", a3, a)
	}
	// What it kept is the run: every second handed over, every op counted.
	series := r.coarse.Finish()
	var kept uint64
	for _, iv := range series {
		for _, o := range iv.Ops {
			kept += o.Count
			if o.Hist != "" {
				t.Fatal("a stored interval carries a histogram: it belongs in the seconds file")
			}
		}
	}
	if want := uint64(5 * 3600 * 10 * len(soakOps)); seconds != 5*3600 || ops != want || kept != want {
		t.Errorf("%d seconds handed over with %d ops, %d ops in the stored series; want %d seconds and %d ops", seconds, ops, kept, 5*3600, want)
	}
	if want := 3600 + 4*360; len(series) != want {
		t.Errorf("%d stored intervals for 5 h, want %d (1 s for an hour, then 10 s)", len(series), want)
	}
	if want := 5 * 3600 * 10; len(r.all) != want || len(r.allB) != want {
		t.Errorf("%d fine buckets (%d with bytes), want %d", len(r.all), len(r.allB), want)
	}
	runtime.KeepAlive(r)

	// Without a journal the recorder keeps every second whole: its growth
	// over one simulated hour breaks the bound.
	w := New(Config{Shards: 1})
	simulate(w, 0, 1200, 1)
	a, _ := heapAfterGC()
	simulate(w, 1200, 3000, 1)
	b, _ := heapAfterGC()
	if grew := 2 * (int64(b) - int64(a)); grew < perHourBound {
		t.Errorf("a recorder keeping every second grew %d B in a simulated hour: the bound of %d would not catch it", grew, perHourBound)
	} else {
		t.Logf("keeping every second: %d B per simulated hour", grew)
	}
	runtime.KeepAlive(w)
}
