package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// withMessages gives the fixture's main phase what a target said: two
// classes, a message with a pipe and markup in it.
func withMessages(t *testing.T) *result.Result {
	r := loadFixture(t, "i3-16xlarge")
	p := r.MainPhase()
	p.ErrorMessages = []result.ErrorMessage{
		{Class: "timeout", Op: "READ", Message: "Operation timed out - received only 0 responses."},
		{Class: "rejected", Op: "UPDATE", Message: "Cannot include a counter statement in a logged batch | <b>"},
		{Class: "other", Op: "UPDATE", Message: "ERR no such key k:__key__ *x* `y` [a](b) &lt; C:\\tmp"},
	}
	r.Notes = append(r.Notes, "the load failed: first error: other: ERR no such key k:__key__ <nil> | x")
	return r
}

// The target's messages in the terminal report (after the phases), the
// Markdown report (a section of its own) and the HTML
// (escaped), and the first one in the one-line failure.
func TestErrorMessagesGolden(t *testing.T) {
	r := withMessages(t)
	var txt bytes.Buffer
	writeErrorMessages(&txt, r)
	golden(t, "error-messages.txt", txt.Bytes())
	var term bytes.Buffer
	if err := WriteTerm(&term, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(term.String(), txt.String()) {
		t.Errorf("the terminal report lacks the messages:\n%s", term.String())
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	i := strings.Index(md.String(), "### Errors, in the target's words")
	if i < 0 {
		t.Fatalf("Markdown: no messages section:\n%s", md.String())
	}
	j := i + 4 + strings.Index(md.String()[i+4:], "### ")
	golden(t, "error-messages.md", md.Bytes()[i:j])
	// Markdown renders each escaped character as itself: the message's
	// markup is text, its pipe stays in its cell, and a note's too.
	for _, want := range []string{
		"| run | other | UPDATE | ERR no such key k:\\_\\_key\\_\\_ \\*x\\* \\`y\\` \\[a\\](b) \\&lt; C:\\\\tmp |",
		"- the load failed: first error: other: ERR no such key k:\\_\\_key\\_\\_ \\<nil> \\| x\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	var h bytes.Buffer
	if err := WriteHTML(&h, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`Errors, in the target&#39;s words`, `Cannot include a counter statement in a logged batch | &lt;b&gt;`, "k:__key__ *x* `y` [a](b) &amp;lt; C:\\tmp", "k:__key__ &lt;nil&gt; | x"} {
		if !strings.Contains(h.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	h2 := analysis.HealthOf(r)
	line := RunFailureText(h2, 0)
	if !strings.HasSuffix(line, ": first error (READ, timeout): Operation timed out - received only 0 responses.") || strings.Contains(line, "\n") {
		t.Errorf("failure line: %s", line)
	}
}
