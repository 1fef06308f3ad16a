package result

import (
	"encoding/base64"
	"math/rand/v2"
	"slices"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// addCountsSeeds are encoded histograms: empty, one value, the edges of
// the range, dense and sparse ones, and one of another layout.
func addCountsSeeds() []string {
	rng := rand.New(rand.NewPCG(5, 6))
	var seeds []string
	for _, vals := range [][]int64{
		{1}, {0, 1, 2047, 2048, 2049}, {HistHighestNs}, {123_456_789, 123_456_789},
	} {
		h := NewHist()
		for _, v := range vals {
			h.RecordValue(v)
		}
		seeds = append(seeds, EncodeHist(h))
	}
	for k := range 6 {
		h := NewHist()
		for range 1 + rng.IntN(5000) {
			h.RecordValue(rng.Int64N(HistHighestNs>>(k*6) + 1))
		}
		seeds = append(seeds, EncodeHist(h))
	}
	other := hdr.New(1, 1e9, 2)
	other.RecordValue(5000)
	enc, _ := other.Encode(hdr.V2CompressedEncodingCookieBase)
	return append(seeds, string(enc), "", "AAAA", base64.StdEncoding.EncodeToString([]byte{0x1c, 0x84, 0x93, 0x14, 0, 0, 0, 9}))
}

// addCounts adds what DecodeHist decodes, and only that: a histogram it
// does not add (another layout, malformed) leaves the counts untouched.
func TestAddCountsIsDecodeHists(t *testing.T) {
	c := make([]uint64, histCountsLen())
	want := make([]uint64, histCountsLen())
	added := 0
	for i, s := range addCountsSeeds() {
		hi, ok := addCounts(c, s)
		h, err := DecodeHist(s)
		switch {
		case ok && err != nil:
			t.Errorf("seed %d: added, but DecodeHist refuses it: %v", i, err)
		case ok:
			added++
			top := -1
			for j, n := range h.Export().Counts {
				want[j] += uint64(n)
				if n > 0 {
					top = j
				}
			}
			if hi != top {
				t.Errorf("seed %d: highest index %d, DecodeHist's %d", i, hi, top)
			}
		}
		if !slices.Equal(c, want) {
			t.Fatalf("seed %d (added %v): counts differ from DecodeHist's", i, ok)
		}
	}
	if added != 11 {
		t.Errorf("%d of the seeds added, want the 10 of NewHist's layout and the empty one", added)
	}
}

// FuzzAddCounts: whatever addCounts adds, DecodeHist reads the same; what
// it does not, it leaves alone.
func FuzzAddCounts(f *testing.F) {
	for _, s := range addCountsSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c := make([]uint64, histCountsLen())
		hi, ok := addCounts(c, s)
		if !ok {
			if slices.ContainsFunc(c, func(n uint64) bool { return n != 0 }) || hi != -1 {
				t.Fatal("a histogram not added changed the counts")
			}
			return
		}
		h, err := DecodeHist(s)
		if err != nil {
			t.Fatalf("added, but DecodeHist refuses it: %v", err)
		}
		got := h.Export().Counts
		for j := range c {
			var n int64
			if j < len(got) {
				n = got[j]
			}
			if uint64(n) != c[j] {
				t.Fatalf("index %d: added %d, DecodeHist reads %d", j, c[j], n)
			}
		}
	})
}
