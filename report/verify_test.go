package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// A verified run: the section in every format; lost writes at the top of
// the report, in the failure line and in each event's cost table.
func TestVerificationRendered(t *testing.T) {
	r := synthResult(synthOptions{Seconds: 40, Ops: []string{"READ", "UPDATE"}, Seed: 3, IntervalHists: true, Events: true})
	r.Verification = &result.Verification{Version: 1, Acked: [][2]uint64{{0, 1000}}, AckedKeys: 1000,
		Checked: 1000, Missing: 3, Wrong: 1, Consistency: "QUORUM", MissingKeys: []uint64{4, 5, 6}, WrongKeys: []uint64{7}}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	var term, md, html bytes.Buffer
	if err := WriteTerm(&term, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteEventsText(&term, r, analysis.EventImpacts(r)); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	top := "every acknowledged write (1,000 keys) at QUORUM read back: 4 lost (0.40%), 3 missing, 1 wrong"
	for name, c := range map[string]struct {
		got  string
		want []string
	}{
		"term": {term.String(), []string{"ACKNOWLEDGED WRITES LOST: " + top, "acknowledged writes lost", "whole run"}},
		"md":   {md.String(), []string{"Acknowledged writes lost: " + top, "| lost (missing + wrong) | 4 (0.40%) |", "| acknowledged writes lost |"}},
		"html": {html.String(), []string{"Acknowledged writes lost: ", "Acknowledged writes, read back after the run", "acknowledged keys"}},
	} {
		for _, w := range c.want {
			if !strings.Contains(c.got, w) {
				t.Errorf("%s report lacks %q", name, w)
			}
		}
	}
	h := analysis.HealthOf(r)
	if !h.RunFailed(analysis.DefaultMaxErrors) || !strings.Contains(RunFailureText(h, analysis.DefaultMaxErrors), "4 acknowledged writes were missing or wrong") {
		t.Errorf("failure: %v %q", h.RunFailed(analysis.DefaultMaxErrors), RunFailureText(h, analysis.DefaultMaxErrors))
	}
	// A clean verification: one line, no alarm, the run not failed by it.
	r.Verification.Missing, r.Verification.Wrong = 0, 0
	term.Reset()
	if err := WriteTerm(&term, r); err != nil {
		t.Fatal(err)
	}
	if s := term.String(); strings.Contains(s, "LOST") || !strings.Contains(s, "verified : every acknowledged write (1,000 keys) at QUORUM read back: none lost") {
		t.Errorf("clean verification:\n%s", s)
	}
	if analysis.HealthOf(r).LostWrites != 0 {
		t.Error("a clean verification counts lost writes")
	}
}
