package report

import (
	"bytes"
	"path/filepath"
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
	if !strings.HasPrefix(w.Next, "give that machine more memory") {
		t.Errorf("next: %q", w.Next)
	}
	miss := WordsOf(&result.Bottleneck{Says: &result.BottleneckPhrases{
		Summary: result.Phrase{Kind: analysis.PhraseCacheMiss, F: []float64{90 << 20, 4608}, S: []string{"loader host"}}}}).Summary
	if want := "memory (the page cache) on the loader host: the reads went to storage, 90.0 MiB/s, 4.50 KiB per read, so each waited for the disk (seed 003's limit)"; miss != want {
		t.Errorf("got  %q\nwant %q", miss, want)
	}
}

// A real run (this VM, 2 CPUs, issue 45): the embedded store's 286 MiB
// dataset read by a platbench in a 48 MiB memory cgroup, with a 1 MiB block
// cache, while other work kept the host's CPUs busy. Its report names the
// neighbours (the host's CPU saturated first), lists the reads that
// missed the page cache beside them, and shows the host's paging.
func TestReportMemoryCgroupRun(t *testing.T) {
	r, err := result.Read(filepath.Join("testdata", "memcg48-embedded.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	r.Analysis = nil // analysed by this version
	var b bytes.Buffer
	if err := WriteTerm(&b, r); err != nil {
		t.Fatal(err)
	}
	WriteHostText(&b, r)
	out := b.String()
	for _, want := range []string{
		"caveat    : reads missed the page cache on the loader host: 88.8 MiB/s from storage, 4.54 KiB per read",
		"  paging     swap in 0 pages/s, out 0 pages/s; 12 major faults/s; 0 direct reclaims/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}

// A node whose exporter read the paging counters gets a paging row; one
// without them (an exporter without its vmstat collector) none.
func TestNodePagingRow(t *testing.T) {
	node := func(name string, p result.Paging) result.NodeSeries {
		s := result.NodeSeries{Node: name, IntervalNs: 1e9}
		for i := range 4 {
			s.Samples = append(s.Samples, result.NodeSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUIdle: 1, Paging: p})
		}
		return s
	}
	r := &result.Result{Nodes: []result.NodeSeries{
		node("a:9100", result.Paging{VMStat: true, SwapInPages: 300, MajorFaults: 1200, SwapTotalBytes: 1 << 30, SwapUsedBytes: 256 << 20}),
		node("b:9100", result.Paging{})}}
	var b bytes.Buffer
	WriteNodesText(&b, r)
	out := strings.Join(strings.Fields(b.String()), " ") // the rows wrap
	if n := strings.Count(out, "paging"); n != 1 || !strings.Contains(out, "swap in 300 pages/s, out 0 pages/s; 1,200 major faults/s; 0 direct reclaims/s; swap 256 MiB used max of 1.00 GiB") {
		t.Errorf("%d paging rows, want node a's only:\n%s", n, out)
	}
}
