package report

import (
	"fmt"
	"io"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteDiskProbe writes a disk probe's terminal report: the settings, one
// line per test (per op in a read/write mix) as fio reports it, then each
// test's stalls and regulation verdict, then the notes.
func WriteDiskProbe(w io.Writer, r *result.Result) {
	x := r.Config.Extra
	fs := x["filesystem"]
	if x["device"] != "" {
		fs += " on " + x["device"]
	}
	fmt.Fprintf(w, "disk probe of %s (%s, %s bytes, engine %s, direct=%s, jobs %s x iodepth %s)\n",
		x["path"], fs, x["size"], x["engine"], x["direct"], x["jobs"], x["iodepth"])
	if x["scramble_buffers"] == "false" {
		fmt.Fprintln(w, "scramble_buffers=false: every write of a buffer carried the same bytes (a deduplicating device can fold them)")
	}
	if x["iodepth_batch_submit"] != "" { // io_uring modes, by fio's option names
		fmt.Fprintf(w, "io_uring modes: iodepth_batch_submit=%s iodepth_batch_complete_min=%s registerfiles=%s fixedbufs=%s\n",
			x["iodepth_batch_submit"], x["iodepth_batch_complete_min"], x["registerfiles"], x["fixedbufs"])
	}
	fmt.Fprintln(w)
	t := table{head: []string{"test", "MB/s", "IOPS", "lat mean", "p50", "p99", "p99.9", "max", "bucket min..max MB/s", "errors"},
		right: []bool{false, true, true, true, true, true, true, true, true, true}}
	for i := range r.Phases {
		p := &r.Phases[i]
		f := analysis.DiskPhaseFigures(p)
		for _, s := range []struct {
			op         string
			sum        result.Summary
			mbps, iops float64
		}{{"READ", f.Read, f.ReadMBPerS, f.ReadIOPS}, {"WRITE", f.Write, f.WriteMBPerS, f.WriteIOPS}} {
			if s.sum.Count == 0 {
				continue
			}
			name, mbps, iops := p.Name, f.MBPerS, f.IOPS
			if f.Reads > 0 && f.Writes > 0 { // a mix: each op's own rate
				name += " " + s.op
				mbps, iops = s.mbps, s.iops
			}
			t.add(name, units.Fixed(mbps, 1), units.Int(iops), units.Latency(s.sum.MeanNs),
				units.Latency(float64(s.sum.P50Ns)), units.Latency(float64(s.sum.P99Ns)),
				units.Latency(float64(s.sum.P999Ns)), units.Latency(float64(s.sum.MaxNs)),
				units.Int(f.MinBucketMB)+".."+units.Int(f.PeakBucketMB), units.Int(float64(f.Errors)))
		}
	}
	t.text(w)
	for i := range r.Phases {
		p := &r.Phases[i]
		s := analysis.Stalls(p)
		line := p.Name + ": "
		if s.Count == 0 {
			line += fmt.Sprintf("no stall in %d buckets of %v", s.Buckets, time.Duration(s.BucketWidthNs))
		} else {
			line += fmt.Sprintf("%d stalls (%v buckets with I/O outstanding and none completed), longest %s, %s in all",
				s.Count, time.Duration(s.BucketWidthNs), units.Latency(float64(s.LongestNs)), units.Latency(float64(s.TotalNs)))
		}
		fmt.Fprintln(w, line+"; "+s.Regulation.Reason)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}
