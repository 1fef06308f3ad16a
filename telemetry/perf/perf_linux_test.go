package perf

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
	"golang.org/x/sys/unix"
)

func rusageNs(t *testing.T) int64 {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func spin(d time.Duration) {
	end := time.Now().Add(d)
	x := 0
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			x += i
		}
	}
	_ = x
}

// Counters either count plausibly or say they are not available and why.
func TestProcessCounters(t *testing.T) {
	cpu0 := rusageNs(t)
	s, err := Open("process")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Work on a thread created after the counters opened, to check inherit.
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread() // a fresh M may be created here
		defer close(done)
		spin(400 * time.Millisecond)
		for i := 0; i < 50; i++ {
			time.Sleep(time.Millisecond) // context switches
		}
		b := make([]byte, 8<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1 // page faults
		}
		runtime.KeepAlive(b)
	}()
	time.Sleep(200 * time.Millisecond)
	s.Cut(time.Now())
	<-done
	s.Cut(time.Now())
	c := s.Stop()
	cpu := rusageNs(t) - cpu0

	t.Logf("values %v; unavailable %v (%s)", c.Values, c.Unavailable, c.UnavailableReason)

	if c.Scope != "process" {
		t.Errorf("scope %q", c.Scope)
	}
	for _, name := range result.PerfOrder() {
		_, counted := c.Values[name]
		listed := false
		for _, u := range c.Unavailable {
			listed = listed || strings.HasPrefix(u, name)
		}
		if counted == listed {
			t.Errorf("%s: counted %v, listed unavailable %v: want exactly one", name, counted, listed)
		}
	}
	if len(c.Unavailable) > 0 && c.UnavailableReason == "" {
		t.Errorf("unavailable counters without a reason")
	}
	if task, ok := c.Values[result.PerfTaskClock]; ok {
		// task-clock counts the same CPU time getrusage does (ours, since open).
		if float64(task) < 0.5*float64(cpu) || float64(task) > 1.3*float64(cpu) {
			t.Errorf("task-clock %d ns, getrusage %d ns", task, cpu)
		}
		if len(c.Intervals) != 2 {
			t.Fatalf("%d intervals, want 2", len(c.Intervals))
		}
		sum := c.Intervals[0][result.PerfTaskClock] + c.Intervals[1][result.PerfTaskClock]
		if sum > task || sum < task/2 {
			t.Errorf("intervals' task-clock %d vs total %d", sum, task)
		}
	} else if c.UnavailableReason == "" {
		t.Errorf("no task-clock and no reason")
	}
	if n, ok := c.Values[result.PerfContextSwitches]; ok && n < 25 {
		t.Errorf("context-switches %d after 50 sleeps, want >= 25", n)
	}
	if n, ok := c.Values[result.PerfPageFaults]; ok && n < 4 {
		t.Errorf("page-faults %d after touching 8 MiB, want >= 4 (even with 2 MiB huge pages)", n)
	}
	if ipc, ok := analysis.IPC(c); ok && (ipc < 0.05 || ipc > 8) {
		t.Errorf("IPC %.3f implausible", ipc)
	}
	if cyc, ok := c.Values[result.PerfCycles]; ok && cyc < 1e7 {
		t.Errorf("cycles %d for ~0.4 s of spinning", cyc)
	}
}

// System scope needs privilege: it counts every CPU, or says it may not.
func TestSystemCounters(t *testing.T) {
	s, err := Open("system")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	time.Sleep(300 * time.Millisecond)
	c := s.Stop()
	el := time.Since(start)
	clk, ok := c.Values[result.PerfTaskClock]
	if !ok {
		if c.UnavailableReason == "" {
			t.Fatalf("cpu-clock not counted and no reason given")
		}
		testenv.Skip(t, testenv.Host, "system scope not permitted here: %s", c.UnavailableReason)
	}
	// cpu-clock on every CPU runs with wall time (idle included).
	want := float64(el.Nanoseconds()) * float64(len(onlineCPUs()))
	if float64(clk) < 0.8*want || float64(clk) > 1.2*want {
		t.Errorf("system cpu-clock %d ns over %v on %d CPUs, want ~%.0f", clk, el, len(onlineCPUs()), want)
	}
}

func TestOpenBadScope(t *testing.T) {
	if _, err := Open("cluster"); err == nil || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("Open(cluster) = %v, want an error with a fix", err)
	}
}

// The linux counter table prints in Order.
func TestSpecsInOrder(t *testing.T) {
	if len(specs) != len(result.PerfOrder()) {
		t.Fatalf("%d specs, %d names", len(specs), len(result.PerfOrder()))
	}
	for i, sp := range specs {
		if sp.name != result.PerfOrder()[i] {
			t.Errorf("spec %d is %s, order says %s", i, sp.name, result.PerfOrder()[i])
		}
	}
}

// A day of 1 s cuts keeps at most maxIntervals intervals of one width,
// every count kept, in the array allocated at the first cut (issue 34:
// memory independent of the run's length).
func TestIntervalsBounded(t *testing.T) {
	s := &Session{ivNs: 1e9, events: []*event{{name: result.PerfTaskClock}}}
	row := []uint64{2, 1}
	s.keep(row)
	capAt := cap(s.ivs)
	if n := testing.AllocsPerRun(86400-3, func() { s.keep(row) }); n != 0 {
		t.Errorf("keep allocates %v times a cut", n)
	}
	s.keep(row)
	var sum uint64
	for r := 0; r < len(s.ivs); r += 2 {
		sum += s.ivs[r]
		if s.ivs[r+1] != 1 {
			t.Fatalf("row %d lost its mask: %d", r/2, s.ivs[r+1])
		}
	}
	// (AllocsPerRun calls keep once more than it is told.)
	// 86400 cuts: 128 per interval after seven halvings (at 1024, 2048, …,
	// 65536 cuts), 675 intervals.
	if n := len(s.ivs) / 2; n > maxIntervals || s.per != 128 || s.ivNs != 128e9 || sum+s.pend[0]*uint64(min(s.pendN, 1)) != 2*86400 {
		t.Errorf("%d intervals of %d cuts (%d ns), %d counted of %d", n, s.per, s.ivNs, sum, 2*86400)
	}
	if cap(s.ivs) != capAt {
		t.Errorf("the series grew from %d to %d words", capAt, cap(s.ivs))
	}
	ivs := s.intervals()
	if len(ivs) != len(s.ivs)/2 || ivs[0][result.PerfTaskClock] != 256 {
		t.Errorf("intervals: %d, first %v", len(ivs), ivs[0])
	}
}
