package recorder

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
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
// (issue 34): hours simulated on a fake clock, ten op types. It keeps no
// interval series (the result's is read back from the journal when the
// phase ends: TestStreamedSeriesIsTheJournals), so the heap grows by the
// fine bucket totals alone, from the first second: the first hour (1 s
// intervals in the result) grows it no more than the later ones. Bounds
// are checked against a recorder keeping every second (below), so they are
// not ones nothing could break. The bytes allocated per simulated hour stay
// level: the work of a second does not grow with the seconds before it.
func TestStreamedMemoryIsFlat(t *testing.T) {
	testenv.SkipShort(t, "simulates five hours (about 15 s)")
	if raceOn {
		// scripts/test.sh runs this package again under the race detector,
		// for its goroutines: there this test took 400 s in CI and its heap
		// figures would be the detector's.
		testenv.Skip(t, testenv.Race, "heap figures are not the program's under the race detector")
	}
	const perHourBound = 1 << 20 // bytes of live heap a simulated hour may add: the goal
	var seconds, ops uint64
	r := New(Config{Shards: 1, FinePath: filepath.Join(t.TempDir(), "r.fine"), OnInterval: func(iv result.Interval) {
		seconds++
		for _, o := range iv.Ops {
			ops += o.Count
		}
	}})
	if r.fine == nil {
		t.Fatal("no spill for the fine buckets")
	}
	simulate(r, 0, 600, 1)
	live10m, _ := heapAfterGC()
	simulate(r, 600, 3600, 1) // the rest of the result's 1 s tier
	live1h, _ := heapAfterGC()
	simulate(r, 3600, 2*3600, 1)
	live2h, alloc2 := heapAfterGC()
	simulate(r, 2*3600, 3*3600, 1)
	live3h, alloc3 := heapAfterGC()
	simulate(r, 3*3600, 5*3600, 1)
	live5h, alloc5 := heapAfterGC()

	first := (int64(live1h) - int64(live10m)) * 6 / 5 // per hour, over 50 min
	later := (int64(live5h) - int64(live2h)) / 3
	t.Logf("live heap: %d B at 10 min, %d B at 1 h, %d B at 3 h, %d B at 5 h: %d B per simulated hour in the first hour, %d B past it; allocated %d B in hour 3, %d B per hour in hours 4-5",
		live10m, live1h, live3h, live5h, first, later, alloc3-alloc2, (alloc5-alloc3)/2)
	if first > perHourBound || later > perHourBound {
		t.Errorf("the live heap grows %d B per simulated hour in the first hour and %d B past it, want under %d", first, later, perHourBound)
	}
	if a3, a := alloc3-alloc2, (alloc5-alloc3)/2; a > a3+a3/2 {
		t.Errorf("allocation per simulated hour grows with the hours: %d B in hour 3, %d B per hour in hours 4-5", a3, a)
	}
	// What it handed over is the run: every second, every op counted; what
	// it kept is the fine series, on disk, and no interval.
	if want := uint64(5 * 3600 * 10 * len(soakOps)); seconds != 5*3600 || ops != want {
		t.Errorf("%d seconds handed over with %d ops; want %d seconds and %d ops", seconds, ops, 5*3600, want)
	}
	if n := len(r.Intervals()); n != 0 {
		t.Errorf("the streamed recorder kept %d intervals, want none", n)
	}
	all, allB, outst, err := r.fine.read()
	if want := 5 * 3600 * 10; err != nil || len(all) != want || len(allB) != want || len(outst) != want || len(r.all) != 0 {
		t.Errorf("%d fine buckets (%d with bytes, %d outstanding flags; %d in memory), want %d: %v", len(all), len(allB), len(outst), len(r.all), want, err)
	}
	runtime.KeepAlive(r)

	// Without a journal the recorder keeps every second whole: its growth
	// over 50 simulated minutes of the first hour breaks the bound.
	w := New(Config{Shards: 1})
	simulate(w, 0, 600, 1)
	a, _ := heapAfterGC()
	simulate(w, 600, 3600, 1)
	b, _ := heapAfterGC()
	if grew := (int64(b) - int64(a)) * 6 / 5; grew < perHourBound {
		t.Errorf("a recorder keeping every second grew %d B in a simulated hour: the bound of %d would not catch it", grew, perHourBound)
	} else {
		t.Logf("keeping every second: %d B per simulated hour", grew)
	}
	runtime.KeepAlive(w)
}

// The interval series a streamed phase gets when it ends, read back from
// its journal (result.Journal.Series), is the stored series a recorder
// keeping it in memory makes (KeepWindow): the result file is the same as
// when the first hour's seconds were held in memory. An hour and a minute
// simulated past the first: both tiers, 1 s and 10 s.
func TestStreamedSeriesIsTheJournals(t *testing.T) {
	testenv.SkipShort(t, "simulates an hour and a half, through a journal on disk")
	j, err := result.CreateJournal(filepath.Join(t.TempDir(), "r.json.partial"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close(true)
	j.Begin(&result.Result{Schema: result.SchemaVersion})
	r := New(Config{Shards: 1, OnInterval: func(iv result.Interval) { j.Interval("run", iv) }})
	r.KeepWindow(0)
	simulate(r, 0, 3660, 1)
	kept := r.Intervals()
	got, err := j.Series("run")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3600+6 || !reflect.DeepEqual(got, kept) {
		t.Fatalf("read back %d intervals, the recorder kept %d (want %d); equal: %v", len(got), len(kept), 3600+6, reflect.DeepEqual(got, kept))
	}
	// A second phase of the same name reads its own seconds.
	j.PhaseDone(&result.Phase{Name: "run"})
	if got, err := j.Series("run"); err != nil || len(got) != 0 {
		t.Fatalf("the next phase named run: %d intervals (%v), want none yet", len(got), err)
	}
}

// The recorder's live heap from the first second, in the soak's shape: ten
// op types in an open loop (latency, service time, lag and attributable
// latency per shard, twice for the swap) on four shards, latencies over
// seven octaves. Whole 270 KB arrays per shard and phase histogram made it 98.5 MB
// (a heap profile, issue 34), and the collector lets the heap double past
// that before it collects.
func TestStartHeapIsSmall(t *testing.T) {
	if raceOn {
		testenv.Skip(t, testenv.Race, "heap figures are not the program's under the race detector")
	}
	const bound = 16 << 20
	before, _ := heapAfterGC()
	r := New(Config{Shards: 4, ServiceTime: true, OnInterval: func(result.Interval) {}})
	fill := func() {
		for s := 0; s < 4; s++ {
			sh := r.Shard(s)
			for i := 0; i < 5000; i++ {
				for _, op := range soakOps {
					lat := int64(20_000 + (i*7919)%2_000_000)
					sh.RecordOpen(op, 0, 0, 100, 100+lat, 100, vocab.ClassNone)
				}
			}
		}
	}
	fill()
	r.mu.Lock()
	r.intervalTick(1e9)
	r.mu.Unlock()
	fill()
	after, _ := heapAfterGC()
	grew := int64(after) - int64(before)
	t.Logf("live heap of the recorder after a second: %d B", grew)
	if grew > bound {
		t.Errorf("the recorder holds %d B after one second of ten op types on four shards, want under %d", grew, bound)
	}
	runtime.KeepAlive(r)
}

// The fine buckets a spill keeps on disk (Config.FinePath) are the ones a
// recorder keeping them in memory makes, bucket for bucket; the file is
// gone once they are read back; a spill that cannot be written is an
// error, not a phase without buckets.
func TestFineSpillIsTheMemorys(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json.partial"+result.FineSuffix)
	onDisk := New(Config{Shards: 1, Phase: "run", FinePath: path, OnInterval: func(result.Interval) {}})
	inMem := New(Config{Shards: 1, OnInterval: func(result.Interval) {}})
	if onDisk.fine == nil || inMem.fine != nil {
		t.Fatalf("spill: %v with a path, %v without", onDisk.fine != nil, inMem.fine != nil)
	}
	for _, r := range []*Recorder{onDisk, inMem} {
		simulate(r, 0, 30, 1)
		simulate(r, 30, 31, 0) // a second with no completion
		simulate(r, 31, 60, 2)
	}
	// What a loader killed now leaves: the file, every bucket flushed.
	onDisk.fine.flush()
	phase, left, err := result.ReadFine(path)
	if err != nil || phase != "run" || !reflect.DeepEqual(left.All, inMem.all) || !reflect.DeepEqual(left.Outstanding, inMem.outst) || left.WidthNs != 100e6 {
		t.Errorf("the file a kill leaves: phase %q, %d buckets of %d ns (%v)", phase, len(left.All), left.WidthNs, err)
	}
	all, allB, outst, err := onDisk.fine.read()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the fine-bucket file is still there after it was read back: %v", err)
	}
	if len(all) != 600 || !reflect.DeepEqual(all, inMem.all) || !reflect.DeepEqual(allB, inMem.allB) || !reflect.DeepEqual(outst, inMem.outst) {
		t.Errorf("on disk %d buckets (%v ... ), in memory %d (%v ...)", len(all), all[:3], len(inMem.all), inMem.all[:3])
	}
	if outst[300] || !outst[299] || all[300] != 0 || all[310] != uint32(2*len(soakOps)) || allB[310] != 100*uint64(2*len(soakOps)) {
		t.Errorf("buckets 299, 300, 310: %v %v %v (bytes %v), outstanding %v %v %v", all[299], all[300], all[310], allB[310], outst[299], outst[300], outst[310])
	}

	// A spill whose file fails: Err says so, naming it.
	bad := New(Config{Shards: 1, FinePath: filepath.Join(dir, "bad.fine"), OnInterval: func(result.Interval) {}})
	simulate(bad, 0, 2, 1)
	bad.fine.f.Close()
	if _, _, _, err := bad.fine.read(); err == nil || !strings.Contains(err.Error(), "fine buckets, kept on disk in "+dir) {
		t.Errorf("a spill that cannot be read: %v", err)
	}
}
