package result

import (
	"math"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A day of 1 s host samples keeps the first hour whole and the rest as one
// sample per 10 s: counts summed, fractions averaged over time, the busiest
// core the busiest of the seconds, nothing of the day's I/O lost.
func TestThinHostDay(t *testing.T) {
	th := HostThin()
	var ctx, reads uint64
	for i := int64(0); i < 86400; i++ {
		s := HostSample{OffsetNs: i * 1e9, DurationNs: 1e9, CPUUser: float64(i%2) * 0.5, CPUMaxCore: float64(i%7) / 10,
			CtxSwitches: 100, Disks: map[string]DiskIO{"sda": {Reads: 10, ReadLatencyNs: 1000 * (i%2 + 1)}}}
		ctx += s.CtxSwitches
		reads += s.Disks["sda"].Reads
		th.Add(s)
	}
	ss := th.Samples()
	if want := 3600 + (86400-3600)/10; len(ss) != want {
		t.Fatalf("%d samples kept for a day, want %d", len(ss), want)
	}
	var gotCtx, gotReads uint64
	for _, s := range ss {
		gotCtx += s.CtxSwitches
		gotReads += s.Disks["sda"].Reads
	}
	if gotCtx != ctx || gotReads != reads {
		t.Errorf("kept %d context switches and %d reads, the day had %d and %d", gotCtx, gotReads, ctx, reads)
	}
	last := ss[len(ss)-1]
	if last.DurationNs != 10e9 || math.Abs(last.CPUUser-0.25) > 1e-9 || last.CPUMaxCore != 0.6 || last.Disks["sda"].ReadLatencyNs != 1500 {
		t.Errorf("a 10 s sample: %+v", last)
	}
}

// A Wide series (a collector whose samples go to the journal) keeps a
// sample a minute and at most wideMax of them: a week of 1 s samples is
// 240 or fewer, wider as the run goes, with every count kept.
func TestThinWideIsBounded(t *testing.T) {
	th := HostThin()
	th.Wide = true
	var ctx uint64
	const week = 7 * 86400
	for i := int64(0); i < week; i++ {
		th.Add(HostSample{OffsetNs: i * 1e9, DurationNs: 1e9, CtxSwitches: 3, CPUUser: float64(i%2) * 0.5})
		ctx += 3
		if n := len(th.Samples()); n > wideMax {
			t.Fatalf("%d samples kept at second %d, want at most %d", n, i, wideMax)
		}
	}
	ss := th.Samples()
	var got uint64
	var prev int64 = -1
	for _, s := range ss {
		got += s.CtxSwitches
		if s.OffsetNs <= prev || math.Abs(s.CPUUser-0.25) > 1e-9 {
			t.Fatalf("sample at %d ns after %d, CPU user %v", s.OffsetNs, prev, s.CPUUser)
		}
		prev = s.OffsetNs
	}
	// 10,080 minutes: widths double from 1 min until they fit in 16.
	if got != ctx || len(ss) < wideMax/2 || ss[0].OffsetNs != 0 || ss[0].DurationNs != 1024*60e9 {
		t.Errorf("%d samples, first %+v; %d context switches kept of %d", len(ss), ss[0], got, ctx)
	}
	// Within its bound it is a sample a minute; an hour is 15 of 4 min.
	th = HostThin()
	th.Wide = true
	for i := int64(0); i < 3600; i++ {
		th.Add(HostSample{OffsetNs: i * 1e9, DurationNs: 1e9})
		if i == 15*60-1 {
			if ss := th.Samples(); len(ss) != 15 || ss[14].DurationNs != 60e9 {
				t.Errorf("15 minutes: %d samples, want 15 of a minute", len(ss))
			}
		}
	}
	if ss := th.Samples(); len(ss) != 15 || ss[14].DurationNs != 240e9 {
		t.Errorf("an hour: %d samples, want 15 of 4 min", len(ss))
	}
}

// A missing scrape is not merged into a good sample, and a run of them
// stays one missing sample per stored slot.
func TestThinNodeMissing(t *testing.T) {
	th := NodeThin()
	for i := int64(0); i < 3600+20; i++ {
		th.Add(NodeSample{OffsetNs: i * 1e9, DurationNs: 1e9, Missing: i >= 3605, CPUUser: 0.5})
	}
	ss := th.Samples()
	// 3600 whole, then [3600, 3610): good 3600-3604 merged, missing 3605-3609
	// merged; [3610, 3620): missing.
	if len(ss) != 3603 || ss[3600].Missing || ss[3600].DurationNs != 5e9 || !ss[3601].Missing || !ss[3602].Missing {
		t.Errorf("%d samples; after the hour: %+v", len(ss), ss[3600:])
	}
}

// Past the first hour the coarsener stores 10 s intervals whose counts are
// the seconds' and whose latency is the merged histograms'; the first hour
// is kept whole, without histograms.
func TestCoarsenerTiers(t *testing.T) {
	var c Coarsener
	h := NewHist()
	want := [2]*hdr.Histogram{NewHist(), NewHist()} // the hdr merges of the seconds of the two 10 s intervals
	for i := int64(0); i < 3620; i++ {
		h.Reset()
		_ = h.RecordValues(1000*(i%10+1), 10)
		_ = h.RecordValue(1e6 + i)
		enc := EncodeHist(h)
		if i == 3605 { // another layout is merged as hdr merges it
			o := hdr.New(1, 1e10, 2)
			o.Merge(h)
			b, _ := o.Encode(hdr.V2CompressedEncodingCookieBase)
			enc = string(b)
			h, _ = DecodeHist(enc)
		}
		if i >= 3600 {
			want[(i-3600)/10].Merge(h)
		}
		iv := Interval{StartNs: i * 1e9, DurationNs: 1e9, IntendedOpsPerS: 10, Ops: []IntervalOp{{Op: "READ", Count: 11, Hist: enc, Latency: Summarize(h)}}}
		if err := c.Add(iv); err != nil {
			t.Fatal(err)
		}
		if i == 3605 {
			h = NewHist()
		}
	}
	ivs := c.Finish()
	if len(ivs) != 3602 || ivs[0].Ops[0].Hist != "" {
		t.Fatalf("%d intervals (want 3602), the first with a histogram: %v", len(ivs), ivs[0].Ops[0].Hist != "")
	}
	iv := ivs[3600]
	if iv.StartNs != 3600e9 || iv.DurationNs != 10e9 || iv.Ops[0].Count != 110 || iv.IntendedOpsPerS != 10 ||
		iv.Ops[0].Latency.MinNs != 1000 || iv.Ops[0].Latency.MaxNs < 1e6 || iv.Ops[0].Latency.Count != 110 {
		t.Errorf("a 10 s interval: %+v", iv)
	}
	for k, w := range want {
		if got := ivs[3600+k].Ops[0].Latency; got != Summarize(w) {
			t.Errorf("10 s interval %d: latency %+v, the hdr merge of its seconds %+v", k, got, Summarize(w))
		}
	}
}
