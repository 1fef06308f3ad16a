package report

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// The memory sentences (issue 45) are worded with their figures, never
// shown as their kind, and the limit says what to do.
func TestMemoryWords(t *testing.T) {
	b := &result.Bottleneck{Limit: analysis.LimitMemory, Says: &result.BottleneckPhrases{
		Summary: result.Phrase{Kind: analysis.PhrasePaging, F: []float64{200, 500, 0.05, 3}, S: []string{"10.0.0.7:9100"}},
		Evidence: []result.Phrase{
			{Kind: analysis.PhrasePagingSamples, F: []float64{200, 300, 500, 3, 100 << 20, 1 << 30, 2 << 30}, S: []string{"10.0.0.7:9100"}},
			{Kind: analysis.PhraseCacheMissed, F: []float64{90 << 20, 4608}, S: []string{"loader host"}},
		},
		Headroom: []result.Phrase{{Kind: analysis.PhraseMemRoom, F: []float64{100 << 20, 8 << 30, 0, 2}, S: []string{"loader host"}}},
		Next:     &result.Phrase{Kind: analysis.PhraseNext, S: []string{analysis.LimitMemory}},
	}}
	w := WordsOf(b)
	for got, want := range map[string]string{
		w.Summary:     "memory on node 10.0.0.7:9100: it swapped in 200 pages/s, took 500 major faults/s (0.05 per operation), made allocations wait for reclaim 3 times/s, pages read back from disk instead of memory",
		w.Evidence[0]: "node 10.0.0.7:9100: swap in 200 pages/s, out 300 pages/s, 500 major faults/s, 3 direct reclaims/s; memory available 100 MiB at the least, swap 1.00 GiB used of 2.00 GiB",
		w.Evidence[1]: "reads missed the page cache on the loader host: 90.0 MiB/s from storage, 4.50 KiB per read",
		w.Headroom[0]: "the loader host: memory available 100 MiB at the least of 8.00 GiB, swap in 0 pages/s, 2 major faults/s",
	} {
		if got != want {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
	if !strings.HasPrefix(w.Next, "give the server more memory") {
		t.Errorf("next: %q", w.Next)
	}
	miss := WordsOf(&result.Bottleneck{Says: &result.BottleneckPhrases{
		Summary: result.Phrase{Kind: analysis.PhraseCacheMiss, F: []float64{90 << 20, 4608}, S: []string{"loader host"}}}}).Summary
	if want := "memory (the page cache) on the loader host: the reads went to storage, 90.0 MiB/s, 4.50 KiB per read, so each waited for the disk (seed 003's limit)"; miss != want {
		t.Errorf("got  %q\nwant %q", miss, want)
	}
}
