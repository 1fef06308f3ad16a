package analysis

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
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

// A JVM server whose JMX counters say it spent a third of the time in GC
// is named, node and share; one at 2% is not the limit.
func TestBottleneckJVMGC(t *testing.T) {
	run := func(gc float64) *result.Bottleneck {
		samples := make([]result.DBMetricsSample, 10)
		for i := range samples {
			samples[i] = result.DBMetricsSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, Values: map[string]float64{"gc_seconds_per_s": gc}}
		}
		samples[3].Values["gc_seconds_per_s"] = 2 * gc
		r := &result.Result{Target: vocab.Info{Kind: "cql"},
			Config: result.Config{Concurrency: 8},
			Phases: []result.Phase{{Name: "run", Mode: "closed", DurationNs: 10e9, Ops: []result.OpTotal{{Op: "READ", Count: 1000}}}},
			DBMetrics: &result.DBMetrics{Source: "jmx", Server: "cassandra",
				Nodes: []result.DBMetricsSeries{{Node: "10.0.0.5:7199", IntervalNs: 1e9, Samples: samples}}}}
		return BottleneckOf(r)
	}
	b := run(1.0 / 3)
	if b.Limit != LimitGC || b.Where != "node 10.0.0.5:7199 (its JVM)" || b.Says == nil || b.Says.Summary.Kind != PhraseGC {
		t.Fatalf("a third of the time in GC: %+v", b)
	}
	if f := b.Says.Summary.F; len(f) != 2 || f[0] < 0.36 || f[0] > 0.37 || f[1] < 0.66 {
		t.Errorf("GC share %v, want the mean 0.367 and the peak 0.667", f)
	}
	if b := run(0.02); b.Limit == LimitGC {
		t.Errorf("2%% of the time in GC named the limit: %+v", b)
	}
}

// The GC share is the main phase's: a load phase that collected half the
// time, then a run phase at 2%, is not GC-limited; the same recording read
// over the run phase at 30% is, with that phase's share.
func TestBottleneckJVMGCMainPhase(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 3, 0, 0, 0, time.UTC)
	run := func(load, main float64) *result.Bottleneck {
		samples := make([]result.DBMetricsSample, 20)
		for i := range samples {
			v := load
			if i >= 10 {
				v = main
			}
			samples[i] = result.DBMetricsSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, Values: map[string]float64{"gc_seconds_per_s": v}}
		}
		r := &result.Result{Target: vocab.Info{Kind: "cql"},
			Config: result.Config{Concurrency: 8},
			Phases: []result.Phase{
				{Name: "load", Mode: "closed", StartedAt: t0, DurationNs: 10e9, Ops: []result.OpTotal{{Op: "INSERT", Count: 1000}}},
				{Name: "run", Mode: "closed", StartedAt: t0.Add(10 * time.Second), DurationNs: 10e9, Ops: []result.OpTotal{{Op: "READ", Count: 1000}}}},
			DBMetrics: &result.DBMetrics{Source: "jmx", Server: "cassandra",
				Nodes: []result.DBMetricsSeries{{Node: "10.0.0.5:7199", StartedAt: t0, IntervalNs: 1e9, Samples: samples}}}}
		return BottleneckOf(r)
	}
	if b := run(0.5, 0.02); b.Limit == LimitGC {
		t.Errorf("GC in the load phase only named the run's limit: %+v", b)
	}
	b := run(0.02, 0.3)
	if b.Limit != LimitGC {
		t.Fatalf("30%% of the run phase in GC: %+v", b)
	}
	if f := b.Says.Summary.F; len(f) != 2 || f[0] < 0.29 || f[0] > 0.31 {
		t.Errorf("GC share %v, want the run phase's 0.30", f)
	}
}
