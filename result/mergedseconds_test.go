package result

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The merged seconds file adds the loaders' seconds that fall in the same
// merged second (a loader that started 2 s later lands 2 s on), histograms
// merged; a reader of the merged result finds it beside the file and reads
// a window from it.
func TestMergedSecondsFile(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	part := func(name string, start time.Time, lat int64, n int) *Phase {
		path := filepath.Join(dir, name+".seconds.jsonl")
		j, err := CreateJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		j.Begin(&Result{Schema: SchemaVersion, StartedAt: start})
		for s := 0; s < n; s++ {
			h := NewHist()
			h.RecordValues(lat, 10)
			j.Interval("run", Interval{StartNs: int64(s) * 1e9, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: 10, Hist: EncodeHist(h)}}})
		}
		if err := j.Keep(path); err != nil {
			t.Fatal(err)
		}
		p := &Phase{Name: "run"}
		p.UseSeconds(NewSecondsFile(path), 0, 0)
		return p
	}
	a, b := part("a", t0, 1000, 5), part("b", t0.Add(2*time.Second), 2_000_000, 5)
	m := &Result{Schema: SchemaVersion, StartedAt: t0, Phases: []Phase{{Name: "run", DurationNs: 7e9, Ops: []OpTotal{{Op: "READ", Count: 100}}}}}
	for k := 0; k < 7; k++ {
		m.Phases[0].Intervals = append(m.Phases[0].Intervals, Interval{StartNs: int64(k) * 1e9, DurationNs: 1e9})
	}
	m.Phases[0].UseSecondsOf(a, 0)
	m.Phases[0].UseSecondsOf(b, 2e9)
	out := filepath.Join(dir, "merged.json")
	if err := NewMergedSeconds(SecondsPath(out)).Finish(m); err != nil {
		t.Fatal(err)
	}
	var counts []uint64
	var maxes []int64
	if err := m.Phases[0].eachSecond(func(iv *Interval) error {
		counts = append(counts, iv.Ops[0].Count)
		maxes = append(maxes, iv.Ops[0].Latency.MaxNs)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []uint64{10, 10, 20, 20, 20, 10, 10}
	if len(counts) != len(want) {
		t.Fatalf("merged seconds count %v, want %v", counts, want)
	}
	for i := range want {
		if counts[i] != want[i] {
			t.Fatalf("merged seconds count %v, want %v", counts, want)
		}
	}
	if maxes[0] > 10_000 || maxes[2] < 1_000_000 || maxes[6] < 1_000_000 {
		t.Errorf("merged seconds' max latency %v: loader a's alone first, both at 2-4 s, b's alone last", maxes)
	}
	// A reader finds it beside the merged result: a window of seconds 5-6
	// is loader b's alone.
	if err := Write(out, m); err != nil {
		t.Fatal(err)
	}
	r, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	h, err := r.Phases[0].MergedHist(5, 7, HistLatency)
	if err != nil || h.TotalCount() != 20 || h.Min() < 1_000_000 {
		t.Errorf("window from the merged seconds file: %d values from %d (%v)", h.TotalCount(), h.Min(), err)
	}
	if _, err := os.Stat(SecondsPath(out)); err != nil {
		t.Error(err)
	}
}

// Every merged second is exactly the hdr merge of its loaders' seconds
// (DecodeHist and MergeHist, then Summarize and EncodeHist, as merging was
// done before addCounts), also with a loader whose histograms have another
// layout.
func TestMergedSecondsAreHdrMerges(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 27, 1, 0, 0, 0, time.UTC)
	rng := rand.New(rand.NewPCG(7, 8))
	encs := map[int64][]string{} // second -> its loaders' histograms
	part := func(name string, mk func() *hdr.Histogram) *Phase {
		path := filepath.Join(dir, name+".seconds.jsonl")
		j, err := CreateJournal(path)
		if err != nil {
			t.Fatal(err)
		}
		j.Begin(&Result{Schema: SchemaVersion, StartedAt: t0})
		for s := range int64(40) {
			h := mk()
			for range 1 + rng.IntN(1000) {
				h.RecordValue(rng.Int64N(int64(1e9)>>rng.IntN(30) + 1))
			}
			enc := EncodeHist(h)
			if h.LowestTrackableValue() != HistLowestNs || h.SignificantFigures() != HistSigFigs {
				b, _ := h.Encode(hdr.V2CompressedEncodingCookieBase)
				enc = string(b)
			}
			encs[s] = append(encs[s], enc)
			j.Interval("run", Interval{StartNs: s * 1e9, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: uint64(h.TotalCount()), Hist: enc}}})
		}
		if err := j.Keep(path); err != nil {
			t.Fatal(err)
		}
		p := &Phase{Name: "run"}
		p.UseSeconds(NewSecondsFile(path), 0, 0)
		return p
	}
	pa, pb, pc := part("a", NewHist), part("b", NewHist), part("c", func() *hdr.Histogram { return hdr.New(1, 1e10, 2) })
	for _, onePass := range []bool{false, true} {
		m := &Result{Schema: SchemaVersion, StartedAt: t0, Phases: []Phase{{Name: "run", DurationNs: 4e9}}}
		for _, q := range []*Phase{pa, pb, pc} {
			m.Phases[0].UseSecondsOf(q, 0)
		}
		// Written by the workers and read back: every second in order,
		// each the hdr merge of its loaders'; in one pass with the series
		// (as merge writes them), or after it (as a rendezvous does).
		path := filepath.Join(dir, fmt.Sprintf("m%v.seconds.jsonl", onePass))
		sw := NewMergedSeconds(path)
		if onePass {
			want, err := MergedSeries(&m.Phases[0])
			if err != nil {
				t.Fatal(err)
			}
			got, err := sw.Series(0, &m.Phases[0])
			if err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("the series made while writing the seconds differs from MergedSeries's (%v)", err)
			}
		}
		if err := sw.Finish(m); err != nil {
			t.Fatal(err)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp-*")); len(left) != 0 {
			t.Errorf("left beside the seconds file: %v", left)
		}
		checkMergedSeconds(t, m, encs)
	}
}

// checkMergedSeconds reads m's merged seconds back: 40 seconds in order,
// each the hdr merge of the loaders' histograms of its second (encs).
func checkMergedSeconds(t *testing.T, m *Result, encs map[int64][]string) {
	t.Helper()
	n := 0
	err := m.Phases[0].eachSecond(func(iv *Interval) error {
		if iv.StartNs != int64(n)*1e9 {
			t.Fatalf("second %d of the merged file starts at %d ns", n, iv.StartNs)
		}
		var h *hdr.Histogram
		for _, enc := range encs[iv.StartNs/1e9] {
			d, err := DecodeHist(enc)
			if err != nil {
				return err
			}
			if err := MergeHist(&h, d); err != nil {
				return err
			}
		}
		o := iv.Ops[0]
		got, err := DecodeHist(o.Hist) // compressed at another level: compared decoded
		if err != nil {
			return err
		}
		if EncodeHist(got) != EncodeHist(h) || o.Latency != Summarize(h) {
			t.Errorf("second %d: merged %+v, hdr's merge %+v", iv.StartNs/1e9, o.Latency, Summarize(h))
		}
		n++
		return nil
	})
	if err != nil || n != 40 {
		t.Errorf("%d merged seconds: %v", n, err)
	}
}
