package analysis

import "github.com/platbench/platbench/result"

// DiskFigures are the headline numbers of one disk-probe test (one phase):
// what fio reports per job, from the phase's totals and fine buckets.
type DiskFigures struct {
	Name       string
	Seconds    float64
	Reads      uint64
	Writes     uint64
	ReadBytes  uint64
	WriteBytes uint64
	Errors     uint64
	IOPS       float64 // completed I/Os per second over the phase
	MBPerS     float64 // MB/s (10^6 bytes, as fio's MB/s)
	// Each op's own rates, for a read/write mix (fio reports them apart).
	ReadIOPS, WriteIOPS     float64
	ReadMBPerS, WriteMBPerS float64
	MiBPerS                 float64
	Read, Write             result.Summary
	PeakBucketMB            float64 // best fine bucket, MB/s
	MinBucketMB             float64 // worst fine bucket, MB/s
}

// DiskPhaseFigures computes the headline numbers of a probe phase from its totals.
func DiskPhaseFigures(p *result.Phase) DiskFigures {
	f := DiskFigures{Name: p.Name, Seconds: float64(p.DurationNs) / 1e9}
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
		f.ReadIOPS, f.WriteIOPS = float64(f.Reads)/f.Seconds, float64(f.Writes)/f.Seconds
		f.ReadMBPerS, f.WriteMBPerS = float64(f.ReadBytes)/f.Seconds/1e6, float64(f.WriteBytes)/f.Seconds/1e6
		f.MBPerS = float64(f.ReadBytes+f.WriteBytes) / f.Seconds / 1e6
		f.MiBPerS = float64(f.ReadBytes+f.WriteBytes) / f.Seconds / (1 << 20)
	}
	b := p.Buckets
	if b.WidthNs > 0 {
		n := len(b.Outstanding)
		full := int(p.DurationNs / b.WidthNs) // skip the final partial bucket
		f.MinBucketMB = -1
		for i := 0; i < n && i < full; i++ {
			sum := b.BytesAt(i)
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
