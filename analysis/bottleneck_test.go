package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// Real results of two platforms (testdata/platforms/README.md): each run's
// limit named as a careful reader names it by hand.
func TestBottleneckPlatforms(t *testing.T) {
	for _, c := range []struct {
		file, limit, where, summary string
	}{
		// 2 cores ~95% busy, the loader and the embedded store in one process.
		{"epyc2.r01.json", LimitCPU, "platbench and its in-process store", "all 2 cores busy"},
		{"epyc2.r02.json", LimitCPU, "platbench and its in-process store", "all 2 cores busy"},
		// 16 cores ~30% busy: the closed loop's 16 requests in flight.
		{"device16.r01.json", LimitConcurrency, "the workload", "16 requests in flight"},
		{"device16.r03.json", LimitConcurrency, "the workload", "16 requests in flight"},
		// The host 100% busy, platbench given 0.7 of 2 cores.
		{"epyc2-makerun.json", LimitNeighbours, "loader host", "other processes"},
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
			t.Logf("%s (%s, %s): %s; evidence %q; headroom %q; caveats %q; next %q", b.Limit, b.Where, b.Strength, b.Summary, b.Evidence, b.Headroom, b.Caveats, b.Next)
			if b.Limit != c.limit || b.Where != c.where || !strings.Contains(b.Summary, c.summary) {
				t.Errorf("limit %q where %q summary %q, want %q, %q, containing %q", b.Limit, b.Where, b.Summary, c.limit, c.where, c.summary)
			}
			if b.Strength == "" || len(b.Evidence) == 0 || b.Next == "" {
				t.Errorf("strength %q, evidence %q, next %q: each limit says how sure, why and what next", b.Strength, b.Evidence, b.Next)
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
