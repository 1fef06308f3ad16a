package report

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// synthDay writes a streamed result of a day-long run phase as `platbench
// run` leaves it (issue 34): the result file with the stored series (1 s
// for an hour, then 10 s, then 1 min), fine buckets of all ops together and
// a thinned host series, beside its seconds file with every second's
// histograms. ops op types, each completing perSecond times a second. It
// returns the result's path.
func synthDay(tb testing.TB, dir string, seconds int, ops []string, perSecond int) string {
	out := filepath.Join(dir, "day.json")
	synthStreamed(tb, out, "day", seconds, ops, perSecond)
	return out
}

// synthStreamed writes at out a streamed result labelled label, as
// synthDay describes, and its seconds file.
func synthStreamed(tb testing.TB, out, label string, seconds int, ops []string, perSecond int) {
	j, err := result.CreateJournal(out + result.JournalSuffix)
	if err != nil {
		tb.Fatal(err)
	}
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	r := &result.Result{Schema: result.SchemaVersion, Tool: result.Tool{Name: "platbench", Version: "synth"}, StartedAt: start,
		EndedAt: start.Add(time.Duration(seconds) * time.Second), Label: label,
		Config: result.Config{Target: "null", Concurrency: 8, RateOpsPerS: float64(perSecond * len(ops))}}
	r.Config.Workload.Name = "synth"
	r.Target.Kind = "null"
	j.Begin(r)
	vs := synthSeconds(len(ops), perSecond)
	p := result.Phase{Name: "run", Mode: "open", RateOpsPerS: r.Config.RateOpsPerS, Concurrency: 8, StartedAt: start,
		DurationNs: int64(seconds) * 1e9, Buckets: result.Buckets{WidthNs: 100e6}}
	var c result.Coarsener
	host := result.HostThin()
	for s := range seconds {
		iv := result.Interval{StartNs: int64(s) * 1e9, DurationNs: 1e9, IntendedOpsPerS: r.Config.RateOpsPerS}
		whole := c.Open(iv.StartNs)
		for k, op := range ops {
			v := &vs[k][(s*7+k)%len(vs[k])]
			v.uses++
			if !whole {
				for _, x := range v.vals {
					_ = c.Hist(op).RecordValues(x, int64(perSecond/8))
				}
			}
			iv.Ops = append(iv.Ops, result.IntervalOp{Op: op, Count: uint64(perSecond/8) * 8, Latency: v.sum, Hist: v.enc})
		}
		j.Interval("run", iv)
		c.AddCounted(iv)
		for range 10 {
			p.Buckets.All = append(p.Buckets.All, uint32(perSecond*len(ops)/10))
			p.Buckets.Outstanding = append(p.Buckets.Outstanding, true)
		}
		host.Add(result.HostSample{OffsetNs: int64(s) * 1e9, DurationNs: 1e9, CPUUser: 0.3, CPUIdle: 0.7, CPUMaxCoreID: -1,
			Disks: map[string]result.DiskIO{"nvme0n1": {Reads: 100, Writes: 50}}, Nets: map[string]result.NetIO{"eth0": {RxBytes: 1e6, TxBytes: 1e6}}})
	}
	p.Intervals = c.Finish()
	for k, op := range ops {
		h := result.NewHist()
		var n uint64
		for _, v := range vs[k] {
			for _, x := range v.vals {
				_ = h.RecordValues(x, int64(perSecond/8)*v.uses)
			}
			n += uint64(perSecond/8) * 8 * uint64(v.uses)
		}
		t := result.OpTotal{Op: op, Count: n, Latency: result.Summarize(h), Hist: result.EncodeHist(h)}
		t.Service, t.ServiceHist = t.Latency, t.Hist
		p.Ops = append(p.Ops, t)
	}
	j.PhaseDone(&p)
	r.Phases = []result.Phase{p}
	r.Host = &result.HostSeries{StartedAt: start, IntervalNs: 1e9, Samples: host.Samples()}
	if err := result.Write(out, r); err != nil {
		tb.Fatal(err)
	}
	if err := j.Keep(result.SecondsPath(out)); err != nil {
		tb.Fatal(err)
	}
}

// synthSecond is one second's latencies of an op: 8 values, each perSecond/8
// times, encoded and summarized once; uses counts the seconds it stood for.
type synthSecond struct {
	vals []int64
	enc  string
	sum  result.Summary
	uses int64
}

// synthSeconds makes 64 seconds' worth of histograms per op, which synthDay
// cycles (encoding a fresh one every second of a day would take minutes):
// the latency drifts with the variant, and the day's totals are the
// variants' times their uses.
func synthSeconds(nOps, perSecond int) [][]synthSecond {
	rng := rand.New(rand.NewPCG(1, 2))
	vs := make([][]synthSecond, nOps)
	for k := range vs {
		for v := range 64 {
			h := result.NewHist()
			var vals []int64
			for range 8 {
				x := int64((200_000 + 5_000*float64(v)) * (0.5 + rng.Float64()))
				vals = append(vals, x)
				_ = h.RecordValues(x, int64(perSecond/8))
			}
			vs[k] = append(vs[k], synthSecond{vals: vals, enc: result.EncodeHist(h), sum: result.Summarize(h)})
		}
	}
	return vs
}

// BenchmarkReportDay is `platbench report` of a day-long streamed result
// of ten op types (issue 34): read the file, analyse it (the steady
// window's latency read back from the seconds file) and write the terminal
// report. The files are synthesized first, outside the timing (a minute or
// so; the seconds file is about 100 MB); PLATBENCH_SYNTH_HOURS sets a
// shorter day. Besides time it reports the largest live heap seen
// (peak-heap-MB, sampled every 5 ms) and the files' sizes.
func BenchmarkReportDay(b *testing.B) {
	hours := 24
	if v := os.Getenv("PLATBENCH_SYNTH_HOURS"); v != "" {
		if _, err := fmt.Sscan(v, &hours); err != nil || hours <= 0 {
			b.Fatalf("PLATBENCH_SYNTH_HOURS=%q: want a number of hours", v)
		}
	}
	ops := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "WRITE", "DELETE", "SET", "GET", "INCR"}
	out := synthDay(b, b.TempDir(), hours*3600, ops, 10_000)
	runtime.GC()
	var peak atomic.Uint64
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		var ms runtime.MemStats
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				runtime.ReadMemStats(&ms)
				peak.Store(max(peak.Load(), ms.HeapAlloc))
			}
		}
	}()
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
	close(stop)
	<-done
	b.ReportMetric(float64(peak.Load())/1e6, "peak-heap-MB")
	for name, path := range map[string]string{"result-MB": out, "seconds-MB": result.SecondsPath(out)} {
		if st, err := os.Stat(path); err == nil {
			b.ReportMetric(float64(st.Size())/1e6, name)
		}
	}
}
