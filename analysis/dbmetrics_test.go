package analysis

import (
	"math"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// dbResult is a run phase of two 1 s intervals and two nodes whose clocks
// start 0.5 s and 0.4 s before it.
func dbResult() *result.Result {
	t0 := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	sec := int64(time.Second)
	lat := func(n int64, meanNs float64) []result.IntervalOp {
		return []result.IntervalOp{{Op: "READ", Count: uint64(n), Latency: result.Summary{Count: n, MeanNs: meanNs}}}
	}
	get := func(calls uint64, ns float64) map[string]result.DBCommandSample {
		return map[string]result.DBCommandSample{"get": {Calls: calls, TimeNs: ns}, "info": {Calls: 1, TimeNs: 1e9}}
	}
	return &result.Result{
		Phases: []result.Phase{{Name: "run", StartedAt: t0,
			Ops: []result.OpTotal{{Op: "READ", Count: 3000, Errors: map[string]uint64{"timeout": 2}}},
			Intervals: []result.Interval{
				{StartNs: 0, DurationNs: sec, Ops: lat(1000, 100e3)},
				{StartNs: sec, DurationNs: sec, Ops: lat(2000, 200e3)},
			}}},
		DBMetrics: &result.DBMetrics{Source: "redis INFO", Server: "redis", Nodes: []result.DBMetricsSeries{
			{Node: "a:6379", StartedAt: t0.Add(-time.Duration(sec / 2)), IntervalNs: sec, Samples: []result.DBMetricsSample{
				{OffsetNs: 0, DurationNs: sec, Commands: get(500, 1e6), Values: map[string]float64{"keyspace_hits_per_s": 300, "keyspace_misses_per_s": 100}},
				{OffsetNs: sec, DurationNs: sec, Commands: get(1500, 3e6), Values: map[string]float64{"keyspace_hits_per_s": 900, "keyspace_misses_per_s": 100}},
				{OffsetNs: 2 * sec, Missing: true, Error: "connection refused"},
				{OffsetNs: 2 * sec, DurationNs: sec, Commands: get(1000, 1e6)},
			}},
			{Node: "b:6379", StartedAt: t0.Add(-time.Duration(4 * sec / 10)), IntervalNs: sec, Samples: []result.DBMetricsSample{
				{OffsetNs: sec, DurationNs: sec, Commands: map[string]result.DBCommandSample{
					"set": {Calls: 2, TimeNs: 1.5e6, Percentiles: map[string]float64{"p50": 700, "p99": 900, "p99.9": 990}}}},
			}},
		}},
	}
}

// The server samples line up with the client intervals by wall clock,
// each taking the client operations in proportion to the overlap; the
// second node's time goes to the span holding its sample's middle.
func TestDBTimelineByHand(t *testing.T) {
	f, ok := DB(dbResult())
	if !ok {
		t.Fatal("no figures")
	}
	want := []ServerClientPoint{
		{AtS: 0, Ops: 500, ServerNs: 2e3, ClientNs: 100e3},
		{AtS: 0.5, Ops: 1500, ServerNs: 3e3, ClientNs: 250e6 / 1500},
		{AtS: 1.5, Ops: 1000, ServerNs: 1e3, ClientNs: 200e3},
	}
	if len(f.Timeline) != len(want) {
		t.Fatalf("timeline %+v", f.Timeline)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-6*math.Max(1, math.Abs(b)) }
	for i, w := range want {
		g := f.Timeline[i]
		if !near(g.AtS, w.AtS) || !near(g.Ops, w.Ops) || !near(g.ServerNs, w.ServerNs) || !near(g.ClientNs, w.ClientNs) || !near(g.GapNs, w.ClientNs-w.ServerNs) {
			t.Errorf("point %d: %+v, want %+v", i, g, w)
		}
	}
	if !near(f.ServerMeanNs, 6500e3/3000) || !near(f.ClientMeanNs, 500e6/3000) || !near(f.GapMeanNs, f.ClientMeanNs-f.ServerMeanNs) {
		t.Errorf("means: server %v, client %v, gap %v", f.ServerMeanNs, f.ClientMeanNs, f.GapMeanNs)
	}
	// INFO is the telemetry's own: not a data command.
	if f.ServerCount != 3002 || f.ClientOps != 3002 {
		t.Errorf("data calls %d, client ops %d", f.ServerCount, f.ClientOps)
	}
	a := f.Nodes[0]
	if a.Samples != 3 || a.Missing != 1 || len(a.Gaps) != 1 || a.Gaps[0].Error != "connection refused" {
		t.Errorf("node a: %+v", a)
	}
	// Hits and misses weighted by duration: 1200 / 1400.
	if !a.HasHitRatio || !near(a.HitRatio, 1200.0/1400) {
		t.Errorf("hit ratio %v", a.HitRatio)
	}
	if c := a.Commands[0]; c.Name != "get" || c.Calls != 3000 || !near(c.MeanNs, 5e6/3000) || c.HasPercentiles {
		t.Errorf("get %+v", c)
	}
	b := f.Nodes[1].Commands
	if len(b) != 1 || !b[0].HasPercentiles || b[0].P99Ns != 900 || b[0].P999Ns != 990 {
		t.Errorf("node b commands %+v", b)
	}
	if _, ok := DB(&result.Result{}); ok {
		t.Error("figures from a result without db metrics")
	}
}

func TestIsDataCommand(t *testing.T) {
	for name, want := range map[string]bool{"get": true, "hset": true, "info": false, "config|resetstat": false, "CLIENT|SETNAME": false, "incr": true} {
		if IsDataCommand(name) != want {
			t.Errorf("%s: %v", name, !want)
		}
	}
}
