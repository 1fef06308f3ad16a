// Package synth writes synthetic result files of long streamed runs, as
// `platbench run` leaves them, for the benchmarks of issue 34 (report,
// compare, merge and history of a day-long result): making a real one takes
// the day.
package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"time"

	"github.com/platbench/platbench/result"
)

// Streamed writes at out the result of a run phase of seconds seconds,
// labelled label, as a streamed run leaves it: the result file with the
// stored series (1 s for an hour, then 10 s, then 1 min), fine buckets of
// all ops together and a thinned host series, beside its seconds file with
// every second's histograms. ops op types each complete perSecond times a
// second; start is when the run began (runs of one history differ in it).
func Streamed(out, label string, start time.Time, seconds int, ops []string, perSecond int) error {
	j, err := result.CreateJournal(out + result.JournalSuffix)
	if err != nil {
		return err
	}
	r := &result.Result{Schema: result.SchemaVersion, Tool: result.Tool{Name: "platbench", Version: "synth"}, StartedAt: start,
		EndedAt: start.Add(time.Duration(seconds) * time.Second), Label: label,
		Config: result.Config{Target: "null", Concurrency: 8, RateOpsPerS: float64(perSecond * len(ops))}}
	r.Config.Workload.Name = "synth"
	r.Target.Kind = "null"
	j.Begin(r)
	vs := seconds64(len(ops), perSecond)
	p := result.Phase{Name: "run", Mode: "open", RateOpsPerS: r.Config.RateOpsPerS, Concurrency: 8, StartedAt: start,
		DurationNs: int64(seconds) * 1e9, Buckets: result.Buckets{WidthNs: 100e6}}
	var c result.Coarsener
	host := result.HostThin()
	for s := range seconds {
		iv := result.Interval{StartNs: int64(s) * 1e9, DurationNs: 1e9, IntendedOpsPerS: r.Config.RateOpsPerS}
		for k, op := range ops {
			v := &vs[k][(s*7+k)%len(vs[k])]
			v.uses++
			iv.Ops = append(iv.Ops, result.IntervalOp{Op: op, Count: uint64(perSecond/8) * 8, Latency: v.sum, Hist: v.enc})
		}
		j.Interval("run", iv)
		if err := c.Add(iv); err != nil {
			j.Close(true)
			return err
		}
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
		j.Close(true)
		return err
	}
	return j.Keep(result.SecondsPath(out))
}

// second is one second's latencies of an op: 8 values, each perSecond/8
// times, encoded and summarized once; uses counts the seconds it stood for.
type second struct {
	vals []int64
	enc  string
	sum  result.Summary
	uses int64
}

// seconds64 makes 64 seconds' worth of histograms per op, which Streamed
// cycles (encoding a fresh one every second of a day would take minutes):
// the latency drifts with the variant, and the day's totals are the
// variants' times their uses.
func seconds64(nOps, perSecond int) [][]second {
	rng := rand.New(rand.NewPCG(1, 2))
	vs := make([][]second, nOps)
	for k := range vs {
		for v := range 64 {
			h := result.NewHist()
			var vals []int64
			for range 8 {
				x := int64((200_000 + 5_000*float64(v)) * (0.5 + rng.Float64()))
				vals = append(vals, x)
				_ = h.RecordValues(x, int64(perSecond/8))
			}
			vs[k] = append(vs[k], second{vals: vals, enc: result.EncodeHist(h), sum: result.Summarize(h)})
		}
	}
	return vs
}

// DayOps is the op types of the day-long benchmarks: ten, as the soak.
var DayOps = []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "WRITE", "DELETE", "SET", "GET", "INCR"}

// Hours is the length of the day-long benchmarks' synthetic runs: 24, or
// PLATBENCH_SYNTH_HOURS.
func Hours() (int, error) {
	hours := 24
	if v := os.Getenv("PLATBENCH_SYNTH_HOURS"); v != "" {
		if _, err := fmt.Sscan(v, &hours); err != nil || hours <= 0 {
			return 0, fmt.Errorf("PLATBENCH_SYNTH_HOURS=%q: want a number of hours", v)
		}
	}
	return hours, nil
}
