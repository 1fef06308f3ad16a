package report

import (
	"html/template"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

func sweepResult(label string, best int) *result.Result {
	ms := int64(time.Millisecond)
	return &result.Result{
		Schema: result.SchemaVersion, Label: label,
		Phases: []result.Phase{{Name: "load"},
			stepPhase("rate-1000", 1000, 29970, 30, 600, 150*ms, 12*ms),
			stepPhase("rate-2000", 2000, 59940, 0, 20, 0, 0),
			stepPhase("rate-4000", 4000, 93000, 9000, 0, 450_000*ms, 900*ms)},
		Sweep: &result.Sweep{
			Mode: "rates", StepNs: int64(30 * time.Second), ObjectiveP99Ns: 10 * ms,
			MinAchievedRatio: 0.95, MaxDelayedRatio: 0.05, MaxErrorRatio: 0.001, Best: best, MaxOpsPerS: 1998,
			Verdict: "highest rate that met p99 <= 10ms: 1998 op/s sustained (step rate-2000, p99 4ms)",
			Steps: []result.SweepStep{
				// Out of throughput order on purpose: the curve sorts by sustained rate.
				{Phase: "rate-4000", TargetOpsPerS: 4000, SustainedOpsPerS: 3100, P50Ns: 30 * ms, P99Ns: 900 * ms, P999Ns: 1200 * ms, ServiceP99Ns: 2 * ms, Delayed: 9000, Reason: "sustained 3100 op/s is below 95% of the rate"},
				{Phase: "rate-1000", TargetOpsPerS: 1000, SustainedOpsPerS: 999, P50Ns: ms / 2, P99Ns: 2 * ms, P999Ns: 3 * ms, ServiceP99Ns: ms, MeetsObjective: true},
				{Phase: "rate-2000", TargetOpsPerS: 2000, SustainedOpsPerS: 1998, P50Ns: ms, P99Ns: 4 * ms, P999Ns: 8 * ms, ServiceP99Ns: 2 * ms, MeetsObjective: true},
			},
		},
	}
}

// stepPhase is a 30 s step at rate with ops done, delayed of them queued
// behind the target (waiting wait in all, longest max) and late started
// late by the loader.
func stepPhase(name string, rate float64, ops, delayed, late uint64, wait, longest int64) result.Phase {
	return result.Phase{Name: name, Mode: "open", RateOpsPerS: rate, DurationNs: int64(30 * time.Second), DelayThresholdNs: int64(time.Millisecond),
		Delayed: delayed, LateClient: late, DelayedWaitNs: wait, DelayedWaitMaxNs: longest, Ops: []result.OpTotal{{Op: "READ", Count: ops}}}
}

func TestSweepSectionHTML(t *testing.T) {
	h := mustHTML(t)(sweepSectionHTML(sweepResult("pebble on c6g", 2)))
	// Three series (p50, p99, p99.9) of three points each, an objective line and the best ring.
	if !strings.Contains(h, `data-series="3"`) {
		t.Errorf("want 3 series:\n%s", h)
	}
	if n := strings.Count(h, `data-points="3"`); n != 3 {
		t.Errorf("%d series with 3 points, want 3", n)
	}
	if !strings.Contains(h, `class="tick objective"`) || !strings.Contains(h, `class="best"`) {
		t.Error("no objective line or best-step ring")
	}
	// Points go left to right: the p99 path's x coordinates increase.
	m := regexp.MustCompile(`<path class="series c1" data-points="3" d="M([\d.]+) [\d.]+L([\d.]+) [\d.]+L([\d.]+) `).FindStringSubmatch(h)
	if m == nil || !(len(m[1]) > 0 && atof(m[1]) < atof(m[2]) && atof(m[2]) < atof(m[3])) {
		t.Errorf("p99 path not in throughput order: %v", m)
	}
	for _, w := range []string{"rate-4000", "<td>fails</td>", "<li>rate-4000 fails: sustained 3100 op/s is below 95% of the rate</li>", "yes *", "objective p99 10.0 ms", "<h3>Notes, a row per step</h3>", "<td>meets *</td>"} {
		if !strings.Contains(h, w) {
			t.Errorf("section lacks %q", w)
		}
	}
	if mustHTML(t)(sweepSectionHTML(&result.Result{})) != "" {
		t.Error("a result without a sweep has a sweep section")
	}
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

func TestSweepCompareHTMLOverlays(t *testing.T) {
	a, b := sweepResult("x86", 2), sweepResult("arm", -1)
	h := mustHTML(t)(sweepCompareHTML([]*result.Result{a, {Schema: result.SchemaVersion}, b}))
	if !strings.Contains(h, `data-series="2"`) || !strings.Contains(h, "x86 p99") || !strings.Contains(h, "arm p99") {
		t.Errorf("want one p99 curve per platform:\n%s", h)
	}
	if !strings.Contains(h, "none") {
		t.Error("a platform with no step meeting the objective is not shown as none")
	}
	if mustHTML(t)(sweepCompareHTML([]*result.Result{{}})) != "" {
		t.Error("no sweep, yet a section")
	}
}

func TestWriteSweepTextAndMarkdown(t *testing.T) {
	defer SetWidth(500)() // the notes' rows whole, whatever the terminal
	r := sweepResult("x", 2)
	var b strings.Builder
	if err := WriteSweepText(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"Rate sweep (rates, 30s steps)", "rate-2000", "2,000 op/s", "1,998 op/s", "4.00 ms", "yes *", "=> highest rate", "\n\n  Notes, a row per step:\n"} {
		if !strings.Contains(out, w) {
			t.Errorf("text lacks %q:\n%s", w, out)
		}
	}
	// The notes: one row per step, none of the paragraphs per step.
	rows := map[string][]string{
		"rate-4000": {"4,000 op/s", "3,100 op/s", "no (77.5%)", "0 (0.00%)", "9,000 (9.68%)", "50.0 ms", "900 ms", "no", "fails"},
		"rate-1000": {"1,000 op/s", "999 op/s", "yes (99.9%)", "600 (2.00%)", "30 (0.10%)", "5.00 ms", "12.0 ms", "yes", "meets"},
		"rate-2000": {"2,000 op/s", "1,998 op/s", "yes (99.9%)", "20 (0.03%)", "0 (0.00%)", "-", "-", "no", "meets *"},
	}
	notes := out[strings.Index(out, "Notes, a row per step"):]
	for step, cells := range rows {
		i := strings.Index(notes, "  "+step+" ")
		if i < 0 {
			t.Fatalf("no notes row for %s:\n%s", step, notes)
		}
		row := strings.Fields(strings.ReplaceAll(notes[i:i+strings.Index(notes[i:], "\n")], " op/s", "_op/s"))
		got := strings.Join(row, " ")
		for _, c := range cells {
			if !strings.Contains(got, strings.ReplaceAll(c, " op/s", "_op/s")) {
				t.Errorf("%s's row lacks %q: %s", step, c, got)
			}
		}
	}
	if strings.Contains(out, "  rate-4000: sustained") {
		t.Errorf("a paragraph per failed step beside the table:\n%s", out)
	}
	// A failed step's reason, once, under the table; none for a step that met it.
	if !strings.Contains(out, "\n  - rate-4000 fails: sustained 3100 op/s is below 95% of the rate") || strings.Contains(out, "rate-1000 fails") {
		t.Errorf("the failed step's reason is not under the table, or a step that met has one:\n%s", out)
	}
	b.Reset()
	if err := WriteSweepMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "| rate-1000 |") || !strings.Contains(b.String(), "## Rate sweep") ||
		!strings.Contains(b.String(), "### Sweep notes\n\n| step | rate asked |") || !strings.Contains(b.String(), "| 9,000 (9.68%) | 50.0 ms | 900 ms | no | fails |") ||
		!strings.Contains(b.String(), "\n- rate-4000 fails: sustained 3100 op/s is below 95% of the rate") {
		t.Errorf("markdown:\n%s", b.String())
	}
}

func TestWriteEventsText(t *testing.T) {
	r := &result.Result{Events: []result.Event{
		{AtNs: int64(10 * time.Second), Kind: "kill", Arg: "4242", Output: "sent killed to pid 4242"},
		{AtNs: int64(20 * time.Second), Kind: "exec", Arg: "false", Error: "exit status 1"},
	}}
	imps := []result.EventImpact{{
		Index: 0, Kind: "kill", Arg: "4242", AtNs: int64(10 * time.Second), BaselineIntervals: 5,
		BaselineOpsPerS: 1000, BaselineP99Ns: int64(time.Millisecond), Min1sOpsPerS: 0, DipPercent: 100,
		FineWidthNs: int64(100 * time.Millisecond), P99Ns: int64(2 * time.Second), Errors: 12, ErrorRate: 0.01,
		ErrorsByClass: map[string]uint64{"unavailable": 10, "timeout": 2}, LongestStallNs: int64(900 * time.Millisecond),
		Recovered: true, RecoveryNs: int64(3 * time.Second), Verdict: "the verdict",
	}}
	var b strings.Builder
	if err := WriteEventsText(&b, r, imps); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, w := range []string{"[1] 10 s  kill 4242", "-100%", "x2000", "900 ms", "3 s", "timeout 2, unavailable 10", "the verdict", "[2] 20 s  exec false  FAILED: exit status 1"} {
		if !strings.Contains(out, w) {
			t.Errorf("events text lacks %q:\n%s", w, out)
		}
	}
	b.Reset()
	writeEventsMarkdown(&b, r, imps)
	for _, w := range []string{"### Fault events", "**[1] 10 s: kill 4242**", "| latency p99 | 1.00 ms | 2.00 s | x2000 |", "(failed: exit status 1)"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("events markdown lacks %q:\n%s", w, b.String())
		}
	}
	h := mustHTML(t)(eventsSectionHTML(r, imps))
	for _, w := range []string{`<section id="events">`, "[2] 20 s: exec false", "failed: exit status 1", "the verdict", "<table"} {
		if !strings.Contains(h, w) {
			t.Errorf("events html lacks %q:\n%s", w, h)
		}
	}
	if mustHTML(t)(eventsSectionHTML(&result.Result{}, nil)) != "" {
		t.Error("no events, yet a section")
	}
	b.Reset()
	if err := WriteEventsText(&b, &result.Result{}, nil); err != nil || b.Len() != 0 {
		t.Errorf("no events wrote %q", b.String())
	}
}

// mustHTML returns the HTML of a section renderer, failing the test on an error.
func mustHTML(t *testing.T) func(template.HTML, error) string {
	return func(h template.HTML, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return string(h)
	}
}
