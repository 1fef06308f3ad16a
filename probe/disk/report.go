package disk

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/platbench/platbench/result"
)

// Figures are the headline numbers of one test (one phase).
type Figures struct {
	Name         string
	Seconds      float64
	Reads        uint64
	Writes       uint64
	ReadBytes    uint64
	WriteBytes   uint64
	Errors       uint64
	IOPS         float64 // completed I/Os per second over the phase
	MBPerS       float64 // MB/s (10^6 bytes, as fio's MB/s)
	MiBPerS      float64
	Read, Write  result.Summary
	PeakBucketMB float64 // best fine bucket, MB/s
	MinBucketMB  float64 // worst fine bucket, MB/s
}

// PhaseFigures computes the headline numbers of a phase from its totals.
func PhaseFigures(p *result.Phase) Figures {
	f := Figures{Name: p.Name, Seconds: float64(p.DurationNs) / 1e9}
	for _, o := range p.Ops {
		var errs uint64
		for _, n := range o.Errors {
			errs += n
		}
		f.Errors += errs
		switch o.Op {
		case "READ":
			f.Reads, f.ReadBytes, f.Read = o.Count, o.Bytes, o.Latency
		case "WRITE":
			f.Writes, f.WriteBytes, f.Write = o.Count, o.Bytes, o.Latency
		}
	}
	if f.Seconds > 0 {
		f.IOPS = float64(f.Reads+f.Writes) / f.Seconds
		f.MBPerS = float64(f.ReadBytes+f.WriteBytes) / f.Seconds / 1e6
		f.MiBPerS = float64(f.ReadBytes+f.WriteBytes) / f.Seconds / (1 << 20)
	}
	b := p.Buckets
	if b.WidthNs > 0 {
		n := len(b.Outstanding)
		full := int(p.DurationNs / b.WidthNs) // skip the final partial bucket
		f.MinBucketMB = -1
		for i := 0; i < n && i < full; i++ {
			var sum uint64
			for _, s := range b.Bytes {
				if i < len(s) {
					sum += s[i]
				}
			}
			mb := float64(sum) / (float64(b.WidthNs) / 1e9) / 1e6
			f.PeakBucketMB = max(f.PeakBucketMB, mb)
			if f.MinBucketMB < 0 || mb < f.MinBucketMB {
				f.MinBucketMB = mb
			}
		}
		f.MinBucketMB = max(f.MinBucketMB, 0)
	}
	return f
}

// PrintReport writes the probe's table: one line per test, then the
// regulation verdict of each test.
func PrintReport(w io.Writer, r *result.Result) {
	x := r.Config.Extra
	fmt.Fprintf(w, "disk probe of %s (%s, %s bytes, engine %s, direct=%s, jobs %s x iodepth %s)\n\n",
		x["path"], x["filesystem"], x["size"], x["engine"], x["direct"], x["jobs"], x["iodepth"])
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "test\tMB/s\tIOPS\tlat mean\tp50\tp99\tp99.9\tmax\tbucket min..max MB/s\terrors\t")
	for i := range r.Phases {
		p := &r.Phases[i]
		f := PhaseFigures(p)
		for _, s := range []struct {
			op       string
			sum      result.Summary
			n, bytes uint64
		}{{"READ", f.Read, f.Reads, f.ReadBytes}, {"WRITE", f.Write, f.Writes, f.WriteBytes}} {
			if s.sum.Count == 0 {
				continue
			}
			name, mbps, iops := p.Name, f.MBPerS, f.IOPS
			if f.Reads > 0 && f.Writes > 0 { // a mix: each op's own rate
				name += " " + s.op
				mbps, iops = float64(s.bytes)/f.Seconds/1e6, float64(s.n)/f.Seconds
			}
			fmt.Fprintf(tw, "%s\t%.1f\t%.0f\t%s\t%s\t%s\t%s\t%s\t%.0f..%.0f\t%d\t\n", name, mbps, iops,
				dur(int64(s.sum.MeanNs)), dur(s.sum.P50Ns), dur(s.sum.P99Ns), dur(s.sum.P999Ns), dur(s.sum.MaxNs),
				f.MinBucketMB, f.PeakBucketMB, f.Errors)
		}
	}
	tw.Flush()
	for _, l := range regulationLines(r) {
		fmt.Fprintln(w, l)
	}
	for _, n := range r.Notes {
		fmt.Fprintln(w, "note:", n)
	}
}

func dur(ns int64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/1e6)
	}
	return fmt.Sprintf("%.0f µs", float64(d)/1e3)
}
