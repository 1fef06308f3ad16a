package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

func TestSweepCommandNull(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.json")
	// Every step is a fixed-rate run: the open loop's flags apply to each
	// (they were once refused as "give --rate too").
	code, stdout, stderr := run(t, "sweep", "--target", "null", "--records", "500", "--rates", "100,200", "--step", "2s", "--concurrency", "4",
		"--pace-tick", "2ms", "--arrival", "poisson", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, w := range []string{"sweep rates 100,200 step 2s", "Rate sweep (rates, 2s steps)", "rate-100", "rate-200", "=> ", "result   : " + out} {
		if !strings.Contains(stdout, w) {
			t.Errorf("output lacks %q:\n%s", w, stdout)
		}
	}
	// Progress: one line per finished step on stderr.
	if strings.Count(stderr, "step rate-") != 2 {
		t.Errorf("stderr: %s", stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sweep == nil || len(r.Sweep.Steps) != 2 || len(r.Phases) != 3 {
		t.Fatalf("sweep %+v, %d phases", r.Sweep, len(r.Phases))
	}
	for _, p := range r.Phases[1:] {
		if p.PaceTickNs != 2e6 || p.Arrival != "poisson" {
			t.Errorf("step %s: pace tick %d ns, arrival %q; want 2 ms and poisson", p.Name, p.PaceTickNs, p.Arrival)
		}
	}
	// The steps streamed (issue 34): their seconds are in the seconds file,
	// not in the result, and the journal is gone.
	for _, p := range r.Phases[1:] {
		if !p.HasSeconds() || len(p.Intervals) < 2 {
			t.Errorf("step %s: %d intervals, seconds file attached %v", p.Name, len(p.Intervals), p.HasSeconds())
		}
		for _, iv := range p.Intervals {
			for _, o := range iv.Ops {
				if o.Hist != "" {
					t.Fatalf("step %s keeps a second's histogram in the result", p.Name)
				}
			}
		}
	}
	if _, err := os.Stat(out + result.JournalSuffix); !os.IsNotExist(err) {
		t.Errorf("the journal is left: %v", err)
	}
}

func TestSweepCommandBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--target", "null"}, "--rates are missing: a sweep needs steps"},
		{[]string{"--find-max"}, "--p99 is needed by a find-max search"},
		{[]string{"--rates", "10k,abc"}, `"abc" is not a positive rate`},
		{[]string{"--rates", "10k,0"}, `"0" is not a positive rate`},
		{[]string{"--rates", "10k", "--rate", "5k"}, "--rate does not apply to a sweep"},
		{[]string{"--rates", "10k", "--duration", "10s"}, "fix: --step"},
		{[]string{"--rates", "10k", "--event", "1s:kill:4242"}, "--event does not apply"},
		{[]string{"--rates", "10k", "--step", "1s"}, "too short"},
		{[]string{"--rates", "10k", "--step", "fast"}, `--step: "fast" is not a duration`},
		{[]string{"--find-max", "--p99", "ten"}, `--p99: "ten" is not a duration`},
		{[]string{"--find-max", "--p99", "0"}, "--p99 is 0"},
		{[]string{"--find-max", "--p99", "10ms", "--start", "0"}, "--start is 0"},
		{[]string{"--rates", "1k", "--step", "0s"}, "--step is 0"},
		{[]string{"--rates", "10k", "--step", "1s", "--bisect", "30"}, "--step 1s is too short"}, // every problem at once
		{[]string{"--rates", "10k", "--step", "1s", "--bisect", "30"}, "--bisect 30 is out of range"},
		{[]string{"--find-max", "--p99", "10ms", "--start", "10k", "--max", "1k"}, "0 < start <= max"},
		{[]string{"--rates", "1k", "--find-max", "--p99", "1ms"}, "exclude each other"},
		{[]string{"--rates", "1k", "--bisect", "-1"}, "--bisect -1 is negative"},
		{[]string{"--rates", "1k", "extra"}, `unexpected argument "extra"`},
	}
	for _, c := range cases {
		code, _, stderr := run(t, append([]string{"sweep"}, c.args...)...)
		if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("sweep %v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A run with --out - streams too: its seconds go to a temporary journal,
// removed at the end, and the result printed has the stored series (no
// second's histogram), as a result file has.
func TestOutDashStreams(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, stdout, stderr := run(t, "run", "--target", "null", "--records", "200", "--duration", "2s", "--concurrency", "2", "--out", "-", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Decode(strings.NewReader(stdout))
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	if len(p.Intervals) < 2 {
		t.Fatalf("%d intervals in the run phase, want its seconds", len(p.Intervals))
	}
	var n uint64
	for _, iv := range p.Intervals {
		for _, o := range iv.Ops {
			n += o.Count
			if o.Hist != "" {
				t.Fatal("the printed result keeps a second's histogram: the run did not stream")
			}
		}
	}
	var total uint64
	for _, o := range p.Ops {
		total += o.Count
	}
	if n == 0 || n != total {
		t.Errorf("the intervals count %d ops, the totals %d", n, total)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the temporary journal is left: %v", left)
	}
}
