package result

import (
	"math"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The one-pass summary equals the hdr methods' figures exactly (Mean and
// StdDev too: the same sums in the same order), and EncodeCounts writes
// what EncodeHist writes, for histograms of every shape: one value, values
// at bucket edges, narrow and wide spreads, a long tail, the range's ends;
// so does one Encoder used for all of them in turn.
func TestSummarizeCountsMatchesHdr(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	enc := NewEncoder()
	shapes := map[string]func() int64{
		"one value":  func() int64 { return 42_000 },
		"small ints": func() int64 { return rng.Int64N(3000) },
		"narrow":     func() int64 { return 90_000 + rng.Int64N(20_000) },
		"log-wide":   func() int64 { return rng.Int64N(HistHighestNs>>rng.IntN(42) + 1) },
		"tail": func() int64 {
			if rng.IntN(1000) == 0 {
				return 50_000_000 + rng.Int64N(1e9)
			}
			return 100_000 + rng.Int64N(50_000)
		},
		"edges": func() int64 { return []int64{0, 1, 2047, 2048, 2049, 4095, 4096, HistHighestNs}[rng.IntN(8)] },
	}
	for name, gen := range shapes {
		for _, n := range []int{1, 2, 3, 10, 1000, 100_000} {
			h := NewHist()
			for i := 0; i < n; i++ {
				if err := h.RecordValue(gen()); err != nil {
					t.Fatal(err)
				}
			}
			got, want := Summarize(h), summarizeHdr(h)
			if got != want {
				t.Fatalf("%s, %d values: one pass %+v, hdr %+v", name, n, got, want)
			}
			snap := h.Export()
			c := make([]uint64, len(snap.Counts))
			for i, v := range snap.Counts {
				c[i] = uint64(v)
			}
			if SummarizeCounts(c) != want {
				t.Fatalf("%s, %d values: SummarizeCounts differs", name, n)
			}
			if EncodeCounts(c) != EncodeHist(h) {
				t.Fatalf("%s, %d values: EncodeCounts differs from EncodeHist", name, n)
			}
			if enc.Counts(c) != EncodeHist(h) {
				t.Fatalf("%s, %d values: Encoder.Counts differs from EncodeHist", name, n)
			}
		}
	}
	if SummarizeCounts(make([]uint64, 10)) != (Summary{}) || EncodeCounts(make([]uint64, 10)) != "" || enc.Counts(make([]uint64, 10)) != "" {
		t.Error("empty counts give a summary or an encoding")
	}
	// Another layout goes through the hdr methods.
	other := hdr.New(1000, 1e9, 2)
	for i := int64(1); i <= 500; i++ {
		other.RecordValue(i * 7919)
	}
	if s := Summarize(other); s != summarizeHdr(other) || s.Count != 500 {
		t.Errorf("other layout: %+v", s)
	}
}

// BenchmarkSummarize: one pass against the hdr methods' eleven walks.
func BenchmarkSummarize(b *testing.B) {
	h := NewHist()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 100_000; i++ {
		h.RecordValue(20_000 + rng.Int64N(140_000))
	}
	b.Run("one-pass", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = Summarize(h)
		}
	})
	b.Run("hdr-methods", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = summarizeHdr(h)
		}
	})
}

// BenchmarkSummarizeCounts summarizes a second of a merged day (2,000
// values, log-normal around 200 µs) as merge does, the counts array cut
// at its highest index.
func BenchmarkSummarizeCounts(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	h := NewHist()
	for range 2000 {
		_ = h.RecordValue(int64(200_000 * math.Exp(rng.NormFloat64()*0.5)))
	}
	c := make([]uint64, histCountsLen())
	hi := 0
	for i, n := range h.Export().Counts {
		if n > 0 {
			c[i], hi = uint64(n), i
		}
	}
	c = c[:hi+1]
	for b.Loop() {
		SummarizeCounts(c)
	}
}
