package self

import (
	"runtime"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

var sink []byte

func TestBeginEndMeasuresGCAndAlloc(t *testing.T) {
	b := Begin()
	for i := 0; i < 50; i++ {
		sink = make([]byte, 1<<20)
	}
	runtime.GC()
	u := b.End([]result.ProcSample{{MaxThreadCores: 0.4}, {MaxThreadCores: 0.7}})
	if u.AllocBytes < 50<<20 {
		t.Errorf("alloc %d bytes, want >= 50 MiB", u.AllocBytes)
	}
	if u.NumGC < 1 || u.GCPauseTotalNs <= 0 || u.GCPauseMaxNs <= 0 {
		t.Errorf("GC: %d cycles, pause total %d ns, max %d ns: want > 0", u.NumGC, u.GCPauseTotalNs, u.GCPauseMaxNs)
	}
	if u.CPUSeconds <= 0 || u.WallSeconds <= 0 || u.GOMAXPROCS < 1 {
		t.Errorf("cpu %.3f s wall %.3f s gomaxprocs %d", u.CPUSeconds, u.WallSeconds, u.GOMAXPROCS)
	}
	if u.MaxCoreBusy != 0.7 {
		t.Errorf("max core busy %.2f, want 0.7", u.MaxCoreBusy)
	}
}

func TestJudge(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	hot := func(n int, v float64) []result.ProcSample {
		s := make([]result.ProcSample, n)
		for i := range s {
			s[i].MaxThreadCores = v
		}
		return s
	}
	openPhase := func(delayed, late, ok uint64) []result.Phase {
		return []result.Phase{{Name: "run", Mode: "open", Delayed: delayed, LateClient: late, DelayThresholdNs: 1e6,
			Ops: []result.OpTotal{{Op: "READ", Count: ok}}}}
	}
	// A sweep: the load (closed loop) and three steps.
	sweepPhases := []result.Phase{{Name: "load", Mode: "closed", Ops: []result.OpTotal{{Op: "INSERT", Count: 1000}}}}
	for _, st := range []struct {
		name          string
		delayed, late uint64
	}{{"rate-1000", 0, 500}, {"rate-2000", 0, 1000}, {"rate-4000", 5000, 0}} {
		p := openPhase(st.delayed, st.late, 100000)[0]
		p.Name = st.name
		sweepPhases = append(sweepPhases, p)
	}
	cases := []struct {
		name  string
		in    Input
		bound bool
		say   string // in the reason or notes
	}{
		{"idle client", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 1, GOMAXPROCS: procs}, SelfSamples: hot(10, 0.3)}, false, ""},
		{"all cores used", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 9.5 * float64(procs), GOMAXPROCS: procs}}, true, "usable cores"},
		{"all cores used by an in-process store is not client-bound", Input{InProcess: true, Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 9.5 * float64(procs), GOMAXPROCS: procs}}, false, "CPU-bound"},
		{"one hot thread", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 1, GOMAXPROCS: procs}, SelfSamples: hot(10, 0.99)}, true, "kept a core"},
		{"two hot seconds of ten is noise", Input{SelfSamples: append(hot(8, 0.2), hot(2, 1)...)}, false, ""},
		{"the target held every worker: target-bound, not the client", Input{Phases: openPhase(500, 0, 100000)}, false, "target-bound: 500 of 100000 operations (0.50%) of phase run started more than 1ms late because the target held every worker"},
		{"the target held every worker: more workers", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 1, GOMAXPROCS: procs}, Phases: openPhase(500, 0, 100000)}, false, "raise --concurrency"},
		{"the client was late", Input{Phases: openPhase(0, 500, 100000)}, true, "500 of 100000 operations (0.50%) of phase run started more than 1ms late although a worker (or in-flight slot) was free"},
		{"the client was late with CPU to spare: cores of its own", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 1, GOMAXPROCS: procs}, Phases: openPhase(0, 500, 100000)}, true, "wakeups were late"},
		{"the client was late with its cores saturated: more cores", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 9.5 * float64(procs), GOMAXPROCS: procs}, Phases: openPhase(0, 500, 100000)}, true, "more cores"},
		{"a few late ops", Input{Phases: openPhase(5, 5, 100000)}, false, ""},
		{"the client was late on a saturated host: cores of its own", Input{Self: &result.SelfUsage{WallSeconds: 10, CPUSeconds: 1, GOMAXPROCS: procs}, Phases: openPhase(0, 500, 100000), Host: []result.HostSample{{CPUIdle: 0.01}}}, true, "cores of its own"},
		{"a sweep's steps: one sentence per cause, not one per step", Input{Phases: sweepPhases}, true, "in 2 of 3 open-loop phases at least 0.1% of operations started more than 1ms late although a worker (or in-flight slot) was free: the load generator itself was late (most: 1.00% of phase rate-2000; the sweep's table of notes has each step)"},
		{"a sweep's steps held by the target: one note", Input{Phases: sweepPhases}, true, "target-bound: in 1 of 3 open-loop phases at least 0.1% of operations started more than 1ms late because the target held every worker (or in-flight slot) (most: 5.00% of phase rate-4000;"},
		{"saturated host is a note", Input{Host: []result.HostSample{{CPUIdle: 0.01}, {CPUIdle: 0.02}, {CPUIdle: 0.5}}}, false, "98% busy"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bound, reason, notes := Judge(c.in)
			if bound != c.bound {
				t.Errorf("bound = %v (%s), want %v", bound, reason, c.bound)
			}
			if bound && !strings.Contains(reason, "fix:") {
				t.Errorf("reason without a fix: %s", reason)
			}
			all := reason + " | " + strings.Join(notes, " | ")
			if n := strings.Count(strings.Join(notes, " | "), "of phase rate-"); len(c.in.Phases) > 1 && n > 2 {
				t.Errorf("a sentence per step (%d): %s", n, all)
			}
			if c.say != "" && !strings.Contains(all, c.say) {
				t.Errorf("want %q in %q", c.say, all)
			}
			if c.in.Self != nil && c.in.Self.ClientBound != bound {
				t.Errorf("Self.ClientBound not set")
			}
		})
	}
}
