package runner

import (
	"context"
	"math"
	"sort"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter/null"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/recorder"
	"github.com/platbench/platbench/result"
)

// The pacer with a clock the test moves: operations that come due within
// one wakeup are released together, each keeping its own intended start, and
// only those due by then; an idle worker is woken for each while there is one.
func TestPacerReleasesDueOpsWithTheirOwnIntendedStarts(t *testing.T) {
	const rate = 10000.0 // one op every 100 µs
	p := newPacer(4)
	sch := newSchedule([]Stream{{Profile: Constant(rate)}}, false, 0, 1, 1)
	s := &sched{}
	var released uint64
	idle := make([]chan struct{}, 2)
	for i := range idle {
		idle[i] = make(chan struct{}, 1)
		p.idle = append(p.idle, idle[i])
		p.since = append(p.since, int64(i)*500_000) // free since 0 and 0.5 ms
	}
	// Woken at 1 ms + 50 µs: ops 0..10 are due (0, 100 µs, ..., 1 ms).
	if fin, full := p.release(1_050_000, sch, s, &released, false); fin || full {
		t.Fatalf("finished %v full %v", fin, full)
	}
	if p.n != 11 || released != 11 {
		t.Fatalf("released %d (queue %d), want the 11 ops due by 1.05 ms", released, p.n)
	}
	for i := range p.n {
		d := p.q[(p.head+i)%len(p.q)]
		if want := int64(i) * 100_000; d.intended != want || d.released != 1_050_000 {
			t.Errorf("op %d: intended %d released %d, want intended %d released 1050000", i, d.intended, d.released, want)
		}
		// Two workers were idle: the first two ops woke them; the rest
		// found none idle.
		if d.noIdle != (i >= 2) {
			t.Errorf("op %d: noIdle %v", i, d.noIdle)
		}
		// Op 0 (due at 0) could start at once: a worker was free since 0;
		// op 1 (due at 100 µs) only when the second worker was free, at
		// 0.5 ms, whichever worker the pacer woke for it.
		if want := map[int]int64{0: 0, 1: 500_000}; i < 2 && d.could != want[i] {
			t.Errorf("op %d: could start at %d, want %d", i, d.could, want[i])
		}
	}
	for i, c := range idle {
		select {
		case <-c:
		default:
			t.Errorf("idle worker %d was not woken", i)
		}
	}
	// A second wakeup 20 µs later releases nothing new.
	p.release(1_070_000, sch, s, &released, false)
	if released != 11 {
		t.Errorf("released %d after a wakeup with nothing due", released)
	}
	// The op bound stops the schedule and tells the workers.
	s.maxOps = 15
	fin, _ := p.release(10_000_000, sch, s, &released, false)
	if !fin || released != 15 || !p.done {
		t.Errorf("finished %v, released %d, done %v: want the bound of 15 and done", fin, released, p.done)
	}
}

// The two kinds of late start, each produced on purpose:
//   - a target that holds every worker (200 ms per op, 2 workers, 50 op/s:
//     8 of the 10 ops that start in 1 s wait for a worker)
//     delays ops for want of a worker: Delayed, not LateClient;
//   - a pacer that wakes only every 20 ms (a starved pacer, by its tick)
//     releases ops up to 20 ms late with idle workers: LateClient, not Delayed,
//     and the lag histogram shows the lateness (about half a tick on average).
func TestLateStartsAreToldApart(t *testing.T) {
	testenv.SkipShort(t, "2 s of runs")
	s, ks := spec(t, "ycsb-c")
	held, _, err := Run(context.Background(), openFake(t, "latency=200ms"), s, ks, Config{Duration: time.Second, Rate: 50, Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held: delayed %d, late client %d, ops %d", held.Delayed, held.LateClient, totalOps(held))
	if held.Delayed < 5 || held.LateClient > held.Delayed/4 {
		t.Errorf("target holding every worker: delayed %d, late client %d; want the waits counted as delayed", held.Delayed, held.LateClient)
	}

	starved, _, err := Run(context.Background(), &null.Target{}, s, ks, Config{Duration: time.Second, Rate: 2000, Concurrency: 8, PaceTick: 20 * time.Millisecond, DelayThreshold: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	o := starved.Ops[0]
	t.Logf("starved pacer: delayed %d, late client %d, ops %d, lag p50 %v p99 %v", starved.Delayed, starved.LateClient, o.Count,
		time.Duration(o.Lag.P50Ns), time.Duration(o.Lag.P99Ns))
	if starved.LateClient < o.Count/2 || starved.Delayed > starved.LateClient/10 {
		t.Errorf("starved pacer: late client %d, delayed %d of %d ops; want most ops late by the client", starved.LateClient, starved.Delayed, o.Count)
	}
	if o.Lag == nil || o.Lag.P50Ns < 5e6 || o.Lag.P99Ns < 15e6 {
		t.Errorf("lag %+v: want p50 about 10 ms and p99 near 20 ms (ops released once per 20 ms tick)", o.Lag)
	}
	if o.Service.P99Ns > 5e6 {
		t.Errorf("service p99 %v: the pacer's lateness leaked into service time", time.Duration(o.Service.P99Ns))
	}
	// The lateness was the client's (workers idle): it is latency, not
	// server-attributable latency.
	if o.Attributable == nil || o.Attributable.P50Ns > 2e6 || o.Attributable.P99Ns > 5e6 {
		t.Errorf("attributable %+v: want it free of the pacer's 20 ms ticks (p50 of latency %v)", o.Attributable, time.Duration(o.Latency.P50Ns))
	}
}

// A stall in the middle of a ramp is charged to exactly the operations it
// delayed: latency from each op's intended start on the ramp's schedule,
// checked against the hand computation (as the constant-rate test does).
func TestStallDuringRampIsChargedToTheOpsItDelayed(t *testing.T) {
	testenv.SkipShort(t, "3 s run")
	const stallAt, stallFor, runFor = 1.0, 0.5, 3.0
	prof := mustProfile(t, "ramp(500, 1500, 3s)")
	s, ks := spec(t, "ycsb-c")
	tg := openFake(t, "stall_at=1s&stall_for=500ms")
	p, _, err := Run(context.Background(), tg, s, ks, Config{Duration: 3 * time.Second, Streams: []Stream{{Profile: prof}}, Concurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	// The fake's clock starts at its first op (t ≈ 0 of the phase).
	var want []float64
	for k := 0.0; ; k++ {
		at := prof.Inv(k)
		if at >= runFor {
			break
		}
		lat := 0.0
		if at >= stallAt && at < stallAt+stallFor {
			lat = stallAt + stallFor - at
		}
		want = append(want, lat)
	}
	sort.Float64s(want)
	wantP99 := want[int(0.99*float64(len(want)))] * 1e9
	wantP90 := want[int(0.90*float64(len(want)))] * 1e9
	o := p.Ops[0]
	t.Logf("ops %d (schedule %d), latency p90 %.1f ms (hand %.1f), p99 %.1f ms (hand %.1f); intended rate per second %v",
		o.Count, len(want), float64(o.Latency.P90Ns)/1e6, wantP90/1e6, float64(o.Latency.P99Ns)/1e6, wantP99/1e6, intendedRates(p))
	if math.Abs(float64(o.Latency.P99Ns)-wantP99) > 40e6 || math.Abs(float64(o.Latency.P90Ns)-wantP90) > 40e6 {
		t.Errorf("latency p90/p99 = %.1f/%.1f ms, hand computation gives %.1f/%.1f ms", float64(o.Latency.P90Ns)/1e6, float64(o.Latency.P99Ns)/1e6, wantP90/1e6, wantP99/1e6)
	}
	if n := totalOps(p); n > uint64(len(want)) || n < uint64(len(want))*95/100 {
		t.Errorf("%d ops, the schedule has %d", n, len(want))
	}
	// The intended rate of each second is stored: the ramp's mean over it.
	for i, iv := range p.Intervals {
		if iv.DurationNs < 9e8 {
			continue
		}
		t0 := float64(iv.StartNs) / 1e9
		t1 := t0 + float64(iv.DurationNs)/1e9
		want := (prof.Cum(t1) - prof.Cum(t0)) / (t1 - t0)
		if math.Abs(iv.IntendedOpsPerS-want) > 1 {
			t.Errorf("interval %d: intended %.1f op/s, want %.1f", i, iv.IntendedOpsPerS, want)
		}
	}
	if len(p.Streams) != 1 || p.Streams[0] != "ramp(500, 1500, 3s)" || p.Arrival != "uniform" {
		t.Errorf("streams %q arrival %q", p.Streams, p.Arrival)
	}
}

func intendedRates(p *result.Phase) []float64 {
	var out []float64
	for _, iv := range p.Intervals {
		out = append(out, math.Round(iv.IntendedOpsPerS))
	}
	return out
}

// After the queue was full (every worker busy), ops released later are
// counted as waiting for a worker, and still wake the workers that have
// become idle (a regression: forcing their classification once also kept
// idle workers asleep, and a 1M op/s run stalled after 1,024 ops).
func TestPacerWakesIdleWorkersAfterAFullQueue(t *testing.T) {
	p := newPacer(2)
	p.q = make([]due, 4)
	sch := newSchedule([]Stream{{Profile: Constant(1e6)}}, false, 0, 1, 1) // an op every µs
	s := &sched{}
	var released uint64
	if _, full := p.release(10_000, sch, s, &released, false); !full || released != 4 {
		t.Fatalf("released %d, full %v: want the queue of 4 full", released, full)
	}
	// The workers take the queue and go idle.
	p.head, p.n = 0, 0
	wake := []chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}
	p.idle = append(p.idle, wake...)
	p.since = append(p.since, 15_000, 15_000)
	p.release(20_000, sch, s, &released, false)
	for i, c := range wake {
		select {
		case <-c:
		default:
			t.Errorf("idle worker %d was not woken after the queue had been full", i)
		}
	}
	if d := p.q[p.head]; !d.noIdle || d.released != d.intended {
		t.Errorf("the first op released after the full queue: %+v, want it counted as waiting for a worker", d)
	}
}

// Where the latency of an open-loop op goes, computed by hand, on the paths
// the runner takes (the pacer's release, a worker taking the op, the
// recorder's split); times in µs from the op's intended start:
//   - the client late by X with a worker free: X is latency, not
//     server-attributable latency;
//   - a target holding every worker: the wait for one is charged to both
//     (the coordinated-omission case: a stall keeps its whole queue);
//   - both at once are split exactly.
func TestServerAttributableLatencySplit(t *testing.T) {
	const us = int64(1000)
	for _, tc := range []struct {
		name              string
		idleSince         int64 // a worker idle at release since then; or none (-1)
		free              int64 // with none idle: when the worker that takes it became free
		sent, service     int64
		wantLat, wantAttr int64
	}{
		{"client late by 60 µs, a worker idle since before", -500 * us, 0, 60 * us, 90 * us, 150 * us, 90 * us},
		{"target held every worker for 5 ms", -1, 5000 * us, 5000 * us, 90 * us, 5090 * us, 5090 * us},
		{"held 5 ms, then the client 40 µs late", -1, 5000 * us, 5040 * us, 90 * us, 5130 * us, 5090 * us},
		{"a worker idle, but only from 300 µs on", 300 * us, 0, 350 * us, 90 * us, 440 * us, 390 * us},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newPacer(1)
			if tc.idleSince != -1 {
				p.idle = append(p.idle, make(chan struct{}, 1))
				p.since = append(p.since, tc.idleSince)
			}
			sch := newSchedule([]Stream{{Profile: Constant(1)}}, false, 0, 1, 1) // one op, due at 0
			var released uint64
			p.release(tc.sent, sch, &sched{maxOps: 1}, &released, false)
			d := p.q[p.head]
			if d.intended != 0 || d.noIdle != (tc.idleSince == -1) {
				t.Fatalf("released %+v", d)
			}
			could := couldStart(d, tc.free)
			lat := tc.sent + tc.service - d.intended
			attr := recorder.Attributable(d.intended, could, tc.sent, tc.sent+tc.service)
			if lat != tc.wantLat || attr != tc.wantAttr {
				t.Errorf("latency %d µs, attributable %d µs; want %d and %d", lat/us, attr/us, tc.wantLat/us, tc.wantAttr/us)
			}
		})
	}
}

// checkQueuedWait checks how long the ops a stall of stallFor seconds held
// at 1,000 op/s queued behind it (Phase.DelayedWaitNs, DelayedWaitMaxNs).
// By hand: op n due at n ms inside the stall waits until its end, so the
// longest wait is about the stall and the total about 500 x 250 ms = 125 s.
// Bounds only from below by the stall's own sleep (a busy machine makes
// waits longer, never shorter) and from above by the phase's length.
func checkQueuedWait(t *testing.T, p *result.Phase, stallFor float64) {
	t.Helper()
	t.Logf("queued behind the target: %d ops, waiting %.1f s in all, longest %.1f ms", p.Delayed, float64(p.DelayedWaitNs)/1e9, float64(p.DelayedWaitMaxNs)/1e6)
	if p.DelayedWaitMaxNs < int64(0.6*stallFor*1e9) || p.DelayedWaitMaxNs > p.DurationNs {
		t.Errorf("longest wait behind the target %.1f ms; want about the %.0f ms stall", float64(p.DelayedWaitMaxNs)/1e6, stallFor*1e3)
	}
	if p.DelayedWaitNs < int64(0.4*125e9*stallFor/0.5) || p.DelayedWaitNs > int64(p.Delayed)*p.DelayedWaitMaxNs {
		t.Errorf("total wait behind the target %.1f s over %d ops (longest %.1f ms); want about 125 s", float64(p.DelayedWaitNs)/1e9, p.Delayed, float64(p.DelayedWaitMaxNs)/1e6)
	}
}

// The wait of the ops queued behind the target adds up and keeps its
// longest, per worker and over the workers of a phase.
func TestQueuedWaitAddsUp(t *testing.T) {
	var a, b lateness
	a.queued(3e6)
	a.queued(1e6)
	a.client++
	b.queued(5e6)
	var all lateness
	all.add(a)
	all.add(b)
	if want := (lateness{slots: 3, client: 1, waitNs: 9e6, waitMaxNs: 5e6}); all != want {
		t.Errorf("got %+v, want %+v", all, want)
	}
	p := &result.Phase{}
	describePhase(p, &Config{Rate: 10, Phase: "run"}, nil, []lateness{a, b})
	if p.Delayed != 3 || p.LateClient != 1 || p.DelayedWaitNs != 9e6 || p.DelayedWaitMaxNs != 5e6 {
		t.Errorf("phase: delayed %d late %d wait %d max %d", p.Delayed, p.LateClient, p.DelayedWaitNs, p.DelayedWaitMaxNs)
	}
}
