package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// withThresholds evaluates exprs on r (as run does) and stores the outcomes.
func withThresholds(t *testing.T, r *result.Result, exprs ...string) *result.Result {
	t.Helper()
	ths, err := analysis.ParseThresholds(exprs)
	if err != nil {
		t.Fatal(err)
	}
	if r.Thresholds, err = analysis.Thresholds(r, ths); err != nil {
		t.Fatal(err)
	}
	return r
}

// The pass/fail table in the terminal, Markdown and HTML, with a figure not
// measured (lag of a closed loop) and one op type's rule.
func TestThresholdsGolden(t *testing.T) {
	r := withThresholds(t, loadFixture(t, "i3-16xlarge"),
		"p99<10ms", "read.p99.9<50ms", "errors<0.1%", "sustained>40k", "stalls==0", "lag.p99<1ms")
	var txt bytes.Buffer
	if err := WriteThresholdsText(&txt, r); err != nil {
		t.Fatal(err)
	}
	golden(t, "thresholds.txt", txt.Bytes())
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(md.String(), "### Thresholds")
	j := strings.Index(md.String(), "### Throughput")
	if i < 0 || j < i {
		t.Fatalf("Markdown: no thresholds section before the throughput:\n%s", md.String())
	}
	golden(t, "thresholds.md", md.Bytes()[i:j])
	var h bytes.Buffer
	if err := WriteHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<a href="#thresholds">`, `<section id="thresholds"><h2>Thresholds: `, `<td class="worse">FAIL (not measured: lag is measured`} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// No thresholds: nothing.
	var none bytes.Buffer
	if err := WriteThresholdsText(&none, loadFixture(t, "i3-metal")); err != nil || none.Len() != 0 {
		t.Errorf("no thresholds: %q, %v", none.String(), err)
	}
}

// compare shows a row per rule and a column per run, and counts the passes.
func TestCompareThresholdsGolden(t *testing.T) {
	a := withThresholds(t, loadFixture(t, "i3-16xlarge"), "p99<10ms", "sustained>19k")
	b := withThresholds(t, loadFixture(t, "i3-metal"), "p99<10ms", "sustained>19k", "read.p99<2ms")
	c, err := Compare([]*result.Result{a, b}, CompareOptions{Files: []string{"a.json", "b.json"}})
	if err != nil {
		t.Fatal(err)
	}
	var txt bytes.Buffer
	if err := WriteCompareText(&txt, c); err != nil {
		t.Fatal(err)
	}
	s := txt.String()
	i := strings.Index(s, "Thresholds\n")
	if i < 0 {
		t.Fatalf("no thresholds table:\n%s", s)
	}
	golden(t, "compare-thresholds.txt", []byte(s[i:]))
	var h bytes.Buffer
	if err := WriteCompareHTML(&h, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(h.String(), `<section id="thresholds"><h2>Thresholds</h2>`) {
		t.Error("compare HTML lacks the thresholds section")
	}
}
