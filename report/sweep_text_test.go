package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// The sweep's terminal report: header, platform, the load phase's line (the
// figures of analysis.PhaseFiguresOf, failed inserts counted), the sweep
// section and the notes.
func TestWriteSweepTerm(t *testing.T) {
	r := sweepResult("x", 2)
	r.Tool.Version, r.Target.Kind = "1.2.3", "null"
	r.Config.Workload.Name = "ycsb-a"
	r.Config.Extra = map[string]string{"sweep": "rates 1k,2k,4k step 30s"}
	r.Platform.Arch = "arm64"
	r.Phases[0] = result.Phase{Name: "load", DurationNs: int64(4 * time.Second), Concurrency: 8,
		Ops: []result.OpTotal{{Op: "INSERT", Count: 1000, Errors: map[string]uint64{"timeout": 3}}}}
	r.Notes = []string{"a note"}
	var b bytes.Buffer
	if err := WriteSweepTerm(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"platbench 1.2.3 · null · workload ycsb-a · sweep rates 1k,2k,4k step 30s\n",
		"platform : arm64\n",
		"load     : 1,000 records in 4 s (", "8 workers), 3 errors\n",
		"Rate sweep (rates, 30s steps)", "=> highest rate that met",
		"note: a note\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	// Without a load phase (--no-load) there is no load line.
	r.Phases = r.Phases[1:]
	b.Reset()
	if err := WriteSweepTerm(&b, r); err != nil || strings.Contains(b.String(), "load     :") {
		t.Errorf("no load phase: %v\n%s", err, b.String())
	}
}

func TestWriteSweepStep(t *testing.T) {
	r := sweepResult("x", 2)
	var b bytes.Buffer
	for _, st := range r.Sweep.Steps[:2] {
		if err := WriteSweepStep(&b, st); err != nil {
			t.Fatal(err)
		}
	}
	want := "step rate-4000    sustained 3,100 op/s  p99 900 ms  fails: sustained 3100 op/s is below 95% of the rate\n" +
		"step rate-1000    sustained 999 op/s  p99 2.00 ms  meets\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// The rate notes of a fixed-rate phase: a met rate's waits are bursts
// queued behind the target, told with how long they queued; a missed
// rate is called missed; a file from before the waits were kept says only
// how many.
func TestWriteRateNote(t *testing.T) {
	ms := int64(time.Millisecond)
	for _, c := range []struct {
		name string
		f    analysis.PhaseFigures
		want string
	}{
		{"met, queued with waits", analysis.PhaseFigures{Concurrency: 16, Delayed: 40, DelayedWaitNs: 200 * ms, DelayedWaitMaxNs: 30 * ms, Rate: &analysis.RateCheck{IntendedOpsPerS: 30000, SustainedOpsPerS: 29999, Met: true}},
			"note: the rate was met (29,999 op/s of 30,000 op/s sustained); 40 operations queued in bursts behind the target (all 16 workers or in-flight slots busy), waiting 200 ms in all (mean 5.00 ms, longest 30.0 ms): their wait is in latency and in the server-attributable latency.\n"},
		{"met, an older file without waits", analysis.PhaseFigures{Concurrency: 16, Delayed: 40, Rate: &analysis.RateCheck{IntendedOpsPerS: 30000, SustainedOpsPerS: 29999, Met: true}},
			"note: the rate was met (29,999 op/s of 30,000 op/s sustained); 40 operations queued in bursts behind the target (all 16 workers or in-flight slots busy): their wait"},
		{"missed", analysis.PhaseFigures{Concurrency: 4, Delayed: 900, DelayedWaitNs: 450_000 * ms, DelayedWaitMaxNs: 900 * ms, Rate: &analysis.RateCheck{IntendedOpsPerS: 4000, SustainedOpsPerS: 3100}},
			"note: the rate was not met: 3,100 op/s of 4,000 op/s sustained (77.5%); 900 operations started late because all 4 workers were busy with the target, waiting 450 s in all (mean 500 ms, longest 900 ms). "},
	} {
		var b bytes.Buffer
		writeRateNote(&b, &c.f)
		if !strings.HasPrefix(b.String(), c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.name, b.String(), c.want)
		}
	}
}

// The report of a sweep's result: the steps' figures, but their notes
// only in the sweep's table, not a paragraph per step.
func TestWriteTermOfASweepHasNoNotesPerStep(t *testing.T) {
	r := sweepResult("x", 2)
	r.Phases = r.Phases[1:] // the steps only
	var b bytes.Buffer
	if err := WriteTerm(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "Results (rate-4000 phase") || !strings.Contains(out, "delayed operations") {
		t.Errorf("no step figures:\n%s", out)
	}
	if strings.Contains(out, "note: the rate") || strings.Contains(out, "note: 600 operations started late") {
		t.Errorf("a note per step:\n%s", out)
	}
	// The same phase outside a sweep keeps its notes.
	r.Sweep = nil
	b.Reset()
	if err := WriteTerm(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "note: the rate was not met: 3,100 op/s of 4,000 op/s sustained (77.5%)") {
		t.Errorf("no rate note outside a sweep:\n%s", b.String())
	}
}

// A real sweep (the fake target with a 100 ms stall every 2 s, on a loaded
// 2-core machine): its terminal report and its Markdown, with the table of
// notes, as goldens (go test ./report -update rewrites them).
func TestSweepGolden(t *testing.T) {
	r := loadFixture(t, "sweep-fake")
	var txt, md bytes.Buffer
	if err := WriteSweepTerm(&txt, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep-fake.txt", txt.Bytes())
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "sweep-fake.md", md.Bytes())
}
