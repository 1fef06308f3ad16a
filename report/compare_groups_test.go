package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// groupRuns are n groups of runs runs each, as `run --repeat` names and
// labels them, interleaved by round: a 40 s synthetic run per file, each
// group on its own instance type with its own level (the last group 20%
// faster), each run with its own seed.
func groupRuns(t testing.TB, n, runs, seconds int) ([]*result.Result, []string) {
	instances := []string{"c7i.2xlarge", "m7i.2xlarge", "r7i.2xlarge", "c7g.2xlarge", "m7g.2xlarge", "i4i.2xlarge"}
	var rs []*result.Result
	var files []string
	for round := range runs {
		for g := range n {
			scale := 1 + 0.01*float64(g%3)
			if g == n-1 {
				scale = 1.2
			}
			r := synthResult(synthOptions{Seconds: seconds, Instance: instances[g%len(instances)], Label: instances[g%len(instances)],
				Rate: 20000 * scale, LatScale: 1 / scale, Seed: uint64(100*g + round + 1), Ops: []string{"READ", "UPDATE"}})
			rs = append(rs, r)
			files = append(files, fmt.Sprintf("%s.r%02d.json", r.Label, round+1))
		}
	}
	return rs, files
}

// TestGoldenCompareGroups: four groups of three runs; every line of the
// terminal output fits 120 columns; the goldens of every format.
func TestGoldenCompareGroups(t *testing.T) {
	rs, files := groupRuns(t, 4, 3, 40)
	c, err := Compare(rs, CompareOptions{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Groups) != 4 || len(c.Groups[0].Runs) != 3 || c.Grouping != "by label" {
		t.Fatalf("groups %+v (%s)", c.Groups, c.Grouping)
	}
	for f, w := range map[string]func(*bytes.Buffer, *analysis.CompareModel) error{
		"txt":  func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareText(b, c) },
		"md":   func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareMarkdown(b, c) },
		"json": func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareJSON(b, c) },
		"html": func(b *bytes.Buffer, c *analysis.CompareModel) error { return WriteCompareHTML(b, c) },
	} {
		t.Run(f, func(t *testing.T) {
			var b bytes.Buffer
			if err := w(&b, c); err != nil {
				t.Fatal(err)
			}
			golden(t, "compare-groups."+f, b.Bytes())
			if f != "txt" {
				return
			}
			for i, l := range strings.Split(b.String(), "\n") {
				if n := utf8.RuneCountInString(l); n > termWidth {
					t.Errorf("line %d is %d columns wide: %q", i+1, n, l)
				}
			}
		})
	}
	// The faster group is called better on throughput with an interval above 1.
	v := row(c, "Sustained throughput").Cells[3]
	if v.Verdict != analysis.Different || v.Phrase != "better" || v.Low <= 1 {
		t.Errorf("20%% faster group: %+v", v)
	}
}

// Runs platbench judged client-bound are named per group in a warning,
// which the terminal output carries.
func TestCompareWarnsClientBound(t *testing.T) {
	rs, files := groupRuns(t, 2, 3, 20)
	for _, i := range []int{1, 3, 5} { // m7i's three runs, and no c7i run
		if rs[i].Host == nil {
			rs[i].Host = &result.HostSeries{}
		}
		rs[i].Host.Self = &result.SelfUsage{ClientBound: true, Reason: "client-bound: platbench used 1.9 of its 2 usable cores"}
	}
	rs[0].Host = nil // a run without host figures is not client-bound
	c, err := Compare(rs, CompareOptions{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	want := "Client-bound runs (m7i.2xlarge 3 of 3): platbench, not only the target, limited their figures"
	if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], want) {
		t.Fatalf("warnings %q, want one starting %q", c.Warnings, want)
	}
	var b bytes.Buffer
	if err := WriteCompareText(&b, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
		t.Errorf("the terminal output lacks the warning:\n%s", b.String())
	}
}

// The warning of runs not interleaved says when each group ran: times of
// day, with the dates when the runs span two days.
func TestBlockText(t *testing.T) {
	an := &analysis.GroupComparison{Grouping: analysis.Grouping{Groups: []analysis.Group{{Name: "a", Runs: []int{0, 1}}, {Name: "b", Runs: []int{2, 3, 4}}}}}
	at := func(h, m int) time.Time { return time.Date(2026, 11, 27, h, m, 0, 0, time.UTC) }
	got := blockText(an, analysis.Block{Group: 1, After: true, BaseFrom: at(16, 50), BaseTo: at(16, 51), From: at(16, 52), To: at(16, 54)}, false)
	if !strings.HasPrefix(got, "b's 3 runs all ran after a's 2 (a 16:50:00–16:51:00, b 16:52:00–16:54:00 UTC), not interleaved") {
		t.Errorf("same day: %s", got)
	}
	if !strings.Contains(got, "a suite's repeat:") {
		t.Errorf("one host: the fix is a suite's interleaved rounds: %s", got)
	}
	got = blockText(an, analysis.Block{Group: 1, After: false, BaseFrom: at(24, 10), BaseTo: at(24, 20), From: at(23, 50), To: at(23, 59)}, true)
	if !strings.HasPrefix(got, "b's 3 runs all ran before a's 2 (a 2026-11-28 00:10:00–2026-11-28 00:20:00, b 2026-11-27 23:50:00–2026-11-27 23:59:00 UTC)") {
		t.Errorf("across midnight: %s", got)
	}
	if !strings.Contains(got, "alternate rounds in time") || strings.Contains(got, "suite") {
		t.Errorf("two hosts: the fix is alternating in time: %s", got)
	}
}
