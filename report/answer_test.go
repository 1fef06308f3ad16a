package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// platforms reads the real results of two platforms (analysis/testdata/platforms).
func platforms(t *testing.T, names ...string) ([]*result.Result, []string) {
	t.Helper()
	var rs []*result.Result
	var files []string
	for _, n := range names {
		f := filepath.Join("..", "analysis", "testdata", "platforms", n+".json")
		r, err := result.Read(f)
		if err != nil {
			t.Fatal(err)
		}
		rs, files = append(rs, r), append(files, f)
	}
	return rs, files
}

// The comparison answers first: the throughput ratio with its interval,
// what limited each side (epyc2 its CPU, device16 its requests in flight)
// and that device16's throughput is a floor of its capacity; in every
// format, before the first table.
func TestCompareAnswerFirst(t *testing.T) {
	rs, files := platforms(t, "epyc2.r01", "epyc2.r02", "epyc2.r03", "device16.r01", "device16.r02", "device16.r03")
	c, err := Compare(rs, CompareOptions{Files: files, Baseline: "epyc2"})
	if err != nil {
		t.Fatal(err)
	}
	a := c.Answer
	if a == nil || len(a.Headline) == 0 || !strings.HasPrefix(a.Headline[0], "device16's sustained throughput is 1.") || !strings.Contains(a.Headline[0], "x [1.") || !strings.Contains(a.Headline[0], "epyc2's (better)") {
		t.Fatalf("answer %+v, want device16's throughput as a ratio of epyc2's with its interval, better", a)
	}
	limits := map[string]string{}
	for _, l := range a.Limits {
		limits[l.Group] = l.Limit
		if l.Runs != 3 || l.Of != 3 {
			t.Errorf("%s: limit in %d of %d runs, want 3 of 3", l.Group, l.Runs, l.Of)
		}
	}
	if limits["epyc2"] != analysis.LimitCPU || limits["device16"] != analysis.LimitConcurrency {
		t.Errorf("limits %v, want epyc2 cpu and device16 requests in flight", limits)
	}
	if len(a.Unfair) != 1 || !strings.HasPrefix(a.Unfair[0], "device16: 3 of 3 runs were limited by the closed loop's requests in flight") {
		t.Errorf("unfair %q", a.Unfair)
	}
	// The two platforms ran half an hour apart on two hosts: the fix a
	// person can follow is alternating in time, not a suite's repeat:.
	if w := strings.Join(c.Warnings, "\n"); !strings.Contains(w, "not interleaved") || !strings.Contains(w, "alternate rounds in time") || strings.Contains(w, "a suite's repeat:") {
		t.Errorf("warnings %q, want the not-interleaved warning with the two-host fix", c.Warnings)
	}
	var text, md, html, js bytes.Buffer
	for _, w := range []struct {
		f   func(*bytes.Buffer) error
		buf *bytes.Buffer
	}{
		{func(b *bytes.Buffer) error { return WriteCompareText(b, c) }, &text},
		{func(b *bytes.Buffer) error { return WriteCompareMarkdown(b, c) }, &md},
		{func(b *bytes.Buffer) error { return WriteCompareHTML(b, c) }, &html},
		{func(b *bytes.Buffer) error { return WriteCompareJSON(b, c) }, &js},
	} {
		if err := w.f(w.buf); err != nil {
			t.Fatal(err)
		}
	}
	for name, out := range map[string]string{"terminal": text.String(), "markdown": md.String(), "html": html.String()} {
		ans, table := strings.Index(out, "sustained throughput is 1."), strings.Index(out, "Groups")
		if name == "html" {
			table = strings.Index(out, "<table")
		}
		if ans < 0 || table < 0 || ans > table {
			t.Errorf("%s: the answer (at %d) is not before the first table (at %d)", name, ans, table)
		}
	}
	if lines := strings.Split(text.String(), "\n"); !strings.HasPrefix(lines[0], "answer    : device16's sustained throughput") {
		t.Errorf("the terminal comparison starts %q, want the answer", lines[0])
	}
	var back struct {
		Schema string                  `json:"schema"`
		Answer *analysis.CompareAnswer `json:"answer"`
	}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if back.Schema != analysis.CompareSchema || back.Answer == nil || len(back.Answer.Limits) != 2 {
		t.Errorf("JSON schema %q answer %+v", back.Schema, back.Answer)
	}
}

// A run measured beside a busy test suite is called contended, at the top
// of its report, and its report says what to do.
func TestReportLimitsFirst(t *testing.T) {
	rs, _ := platforms(t, "epyc2-makerun")
	r := rs[0]
	// Its file was analysed before limits were kept: the report must find
	// the limit all the same (it once showed it only in Markdown and HTML).
	if r.Analysis == nil || r.Analysis.Bottleneck != nil {
		t.Fatalf("the fixture should carry an analysis without a bottleneck: %+v", r.Analysis)
	}
	var b bytes.Buffer
	if err := WriteTerm(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lim, first := strings.Index(out, "limited by: other processes"), strings.Index(out, "load     :")
	if lim < 0 || first < 0 || lim > first {
		t.Errorf("the limit (at %d) is not above the first figures (at %d):\n%s", lim, first, out)
	}
	if !strings.Contains(out, "next      : run again on a quiet host") {
		t.Errorf("no next step:\n%s", out)
	}
	b.Reset()
	if err := WriteMarkdown(&b, r); err != nil {
		t.Fatal(err)
	}
	if md := b.String(); !strings.Contains(md, "- **limited by**: other processes") || strings.Index(md, "limited by") > strings.Index(md, "###") {
		t.Errorf("markdown without the limit before its first section:\n%s", md)
	}
}

// The goldens are written at 120 columns whatever the test's terminal.
func init() { termWidth = 120 }

func TestWidthOf(t *testing.T) {
	for in, want := range map[string]int{"": 120, "80": 80, " 200 ": 200, "12": 120, "wide": 120, "100000": 120} {
		if got := widthOf(in); got != want {
			t.Errorf("widthOf(%q) = %d, want %d", in, got, want)
		}
	}
}

// Sides that differ in more than the platform say so in the answer: the
// contended run lasted 30 s against device16's 20 s, and measured its
// neighbours.
func TestAnswerSetupDiff(t *testing.T) {
	rs, files := platforms(t, "device16.r01", "epyc2-makerun")
	c, err := Compare(rs, CompareOptions{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	u := strings.Join(c.Answer.Unfair, "\n")
	if !strings.Contains(u, "differs from device16 in more than the platform (duration 30s against 20s)") || !strings.Contains(u, "measured their neighbours") {
		t.Errorf("unfair lines:\n%s", u)
	}
	// The platforms' own runs differ in the platform alone.
	rs, files = platforms(t, "device16.r01", "epyc2.r01")
	if c, err = Compare(rs, CompareOptions{Files: files}); err != nil {
		t.Fatal(err)
	}
	if u := strings.Join(c.Answer.Unfair, "\n"); strings.Contains(u, "in more than the platform") {
		t.Errorf("same setup called different:\n%s", u)
	}
}

// The comparison of the two real platforms as a terminal 80, 100 and 160
// columns wide: goldens, and the answer's prose within the width.
func TestCompareWidths(t *testing.T) {
	rs, files := platforms(t, "epyc2.r01", "epyc2.r02", "epyc2.r03", "device16.r01", "device16.r02", "device16.r03")
	for i := range files {
		files[i] = filepath.Base(files[i]) // goldens independent of the checkout's path
	}
	c, err := Compare(rs, CompareOptions{Files: files, Baseline: "epyc2"})
	if err != nil {
		t.Fatal(err)
	}
	defer func(w int) { termWidth = w }(termWidth)
	for _, w := range []int{80, 100, 160} {
		termWidth = w
		var b bytes.Buffer
		if err := WriteCompareText(&b, c); err != nil {
			t.Fatal(err)
		}
		golden(t, fmt.Sprintf("compare-platforms-%d.txt", w), b.Bytes())
		for _, l := range strings.Split(b.String(), "\n") {
			if strings.HasPrefix(l, "Groups:") {
				break // the answer ends here; the tables follow
			}
			if len([]rune(l)) > w {
				t.Errorf("%d columns: the answer's line is %d wide: %q", w, len([]rune(l)), l)
			}
		}
	}
}
