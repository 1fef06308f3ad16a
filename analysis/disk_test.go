package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
)

// diskPhase is a hand-built probe phase whose figures are known.
func diskPhase() result.Phase {
	return result.Phase{
		Name:       "randrw-4k",
		DurationNs: 2e9,
		Ops: []result.OpTotal{
			{Op: "READ", Count: 7000, Bytes: 7000 * 4096, Latency: result.Summary{Count: 7000, MeanNs: 250e3, P50Ns: 200e3, P99Ns: 1e6, P999Ns: 2e6, MaxNs: 5e6}},
			{Op: "WRITE", Count: 3000, Bytes: 3000 * 4096, Errors: map[string]uint64{"other": 2}, Latency: result.Summary{Count: 3000, MeanNs: 1.5e6, P50Ns: 1e6, P99Ns: 4e6, P999Ns: 8e6, MaxNs: 12e6}},
		},
		// Four 500 ms buckets: 0, 2, 4 and 4 MB.
		Buckets: result.Buckets{WidthNs: 500e6, Outstanding: []bool{true, true, true, true},
			Bytes: map[string][]uint64{"READ": {0, 1e6, 3e6, 4e6}, "WRITE": {0, 1e6, 1e6, 0}}},
	}
}

// The headline figures are plain arithmetic on the phase.
func TestDiskPhaseFigures(t *testing.T) {
	p := diskPhase()
	f := DiskPhaseFigures(&p)
	if f.IOPS != 5000 || f.Errors != 2 || f.Reads != 7000 {
		t.Errorf("IOPS %v errors %d reads %d; want 5000, 2, 7000", f.IOPS, f.Errors, f.Reads)
	}
	if f.ReadIOPS != 3500 || f.WriteIOPS != 1500 || f.ReadMBPerS != 7000*4096/2.0/1e6 {
		t.Errorf("per-op rates: read %v IOPS %v MB/s, write %v IOPS; want 3500, %v, 1500", f.ReadIOPS, f.ReadMBPerS, f.WriteIOPS, 7000*4096/2.0/1e6)
	}
	if want := 10000 * 4096 / 2.0 / 1e6; f.MBPerS != want {
		t.Errorf("MB/s %v, want %v", f.MBPerS, want)
	}
	if f.MinBucketMB != 0 || f.PeakBucketMB != 8 {
		t.Errorf("bucket range %v..%v MB/s, want 0..8", f.MinBucketMB, f.PeakBucketMB)
	}
}
