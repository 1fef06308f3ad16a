package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

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
