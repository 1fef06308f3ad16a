package analysis

import (
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/result"
)

// Real results of two platforms (testdata/platforms/README.md): each run's
// limit named as a careful reader names it by hand.
func TestBottleneckPlatforms(t *testing.T) {
	for _, c := range []struct {
		file, limit, where, summary string
		first                       float64 // the summary's first figure
	}{
		// 2 cores ~95% busy, the loader and the embedded store in one process.
		{"epyc2.r01.json", LimitCPU, "platbench and its in-process store", PhraseCPUInProcess, 2},
		{"epyc2.r02.json", LimitCPU, "platbench and its in-process store", PhraseCPUInProcess, 2},
		// 16 cores ~30% busy: the closed loop's 16 requests in flight.
		{"device16.r01.json", LimitConcurrency, "the workload", PhraseConcurrency, 16},
		{"device16.r03.json", LimitConcurrency, "the workload", PhraseConcurrency, 16},
		// The host 100% busy, platbench given 0.7 of 2 cores: other processes.
		{"epyc2-makerun.json", LimitNeighbours, "loader host", PhraseNeighbours, 2},
	} {
		t.Run(c.file, func(t *testing.T) {
			r, err := result.Read(filepath.Join("testdata", "platforms", c.file))
			if err != nil {
				t.Fatal(err)
			}
			b := BottleneckOf(r)
			if b == nil {
				t.Fatal("no bottleneck")
			}
			s := b.Says
			t.Logf("%s (%s, %s): %+v", b.Limit, b.Where, b.Strength, s)
			if b.Limit != c.limit || b.Where != c.where || s.Summary.Kind != c.summary || len(s.Summary.F) == 0 || s.Summary.F[0] != c.first {
				t.Errorf("limit %q where %q summary %+v, want %q, %q, %s of %v", b.Limit, b.Where, s.Summary, c.limit, c.where, c.summary, c.first)
			}
			if b.Strength == "" || len(s.Evidence) == 0 || s.Next == nil {
				t.Errorf("strength %q, evidence %+v, next %+v: each limit says how sure, why and what next", b.Strength, s.Evidence, s.Next)
			}
			if b.Summary != "" || len(b.Evidence) > 0 || b.Next != "" {
				t.Errorf("sentences stored (%q, %q, %q): the result keeps numbers, report words them", b.Summary, b.Evidence, b.Next)
			}
		})
	}
}

// CommonLimit: the limit most runs had, worded by its first run; a tie
// keeps the limit that came first.
func TestCommonLimit(t *testing.T) {
	b := func(limit, summary string) *result.Bottleneck {
		return &result.Bottleneck{Limit: limit, Summary: summary}
	}
	if top, n := CommonLimit(nil); top != nil || n != 0 {
		t.Errorf("none: %v %d", top, n)
	}
	top, n := CommonLimit([]*result.Bottleneck{b("cpu", "c1"), b("disk", "d1"), b("disk", "d2"), b("cpu", "c2"), b("disk", "d3")})
	if top.Summary != "d1" || n != 3 {
		t.Errorf("most: %+v %d, want d1 in 3", top, n)
	}
	if top, n = CommonLimit([]*result.Bottleneck{b("cpu", "c1"), b("disk", "d1"), b("disk", "d2"), b("cpu", "c2")}); top.Summary != "c1" || n != 2 {
		t.Errorf("tie: %+v %d, want c1 in 2", top, n)
	}
}
