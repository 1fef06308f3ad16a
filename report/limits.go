package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// limitLines are the run's bottleneck (analysis.BottleneckOf, kept in the
// analysis) in a few labelled lines for the top of a report: what limited
// it and how sure, the evidence, what makes the figures not the platform's
// alone, what had room, what to do next, what telemetry would tell more.
// None without an analysis that has one.
func limitLines(a *result.Analysis) [][2]string {
	if a == nil || a.Bottleneck == nil {
		return nil
	}
	b := WordsOf(a.Bottleneck)
	out := [][2]string{{"limited by", fmt.Sprintf("%s (%s evidence)", b.Summary, a.Bottleneck.Strength)}}
	if len(b.Evidence) > 0 {
		out = append(out, [2]string{"because", strings.Join(b.Evidence, "; ")})
	}
	for _, c := range b.Caveats {
		out = append(out, [2]string{"caveat", c})
	}
	if len(b.Headroom) > 0 {
		out = append(out, [2]string{"headroom", strings.Join(b.Headroom, "; ")})
	}
	if b.Next != "" {
		out = append(out, [2]string{"next", b.Next})
	}
	if len(b.Missing) > 0 {
		out = append(out, [2]string{"would tell", strings.Join(b.Missing, "; ")})
	}
	return out
}

// writeLimitsText prints limitLines under the header.
func writeLimitsText(w io.Writer, a *result.Analysis) {
	if ls := limitLines(a); len(ls) > 0 {
		fmt.Fprintln(w)
		writeLabelledText(w, ls)
	}
}

// writeLimitsMarkdown prints limitLines as a list under the headline.
func writeLimitsMarkdown(w io.Writer, a *result.Analysis) {
	if ls := limitLines(a); len(ls) > 0 {
		fmt.Fprintln(w)
		writeLabelledMarkdown(w, ls)
	}
}

// answerLines are the comparison's answer (analysis.AnswerOf) as labelled
// lines, for the top of compare's output: the headline figures, then each
// group's limit, then what makes it unfair.
func answerLines(c *analysis.CompareModel) [][2]string {
	a := c.Answer
	if a == nil {
		return nil
	}
	var out [][2]string
	for _, h := range a.Headline {
		out = append(out, [2]string{"answer", h})
	}
	for _, l := range a.Limits {
		runs := ""
		if l.Of > 1 {
			runs = fmt.Sprintf(" (%d of %d runs)", l.Runs, l.Of)
		}
		out = append(out, [2]string{"limited by", fmt.Sprintf("%s%s: %s", l.Group, runs, limitSummary(l))})
	}
	for _, u := range a.Unfair {
		out = append(out, [2]string{"unfair", u})
	}
	return out
}

// limitSummary is a group's limit in words: the line of the bottleneck it
// names (an older file's own).
func limitSummary(l analysis.GroupLimit) string {
	if l.Summary == "" && l.Bottleneck != nil {
		return BottleneckSummary(l.Bottleneck)
	}
	return l.Summary
}

// fillAnswer words the comparison's answer where it holds numbers: each
// group's limit (analysis.AnswerOf keeps the bottleneck it names).
func fillAnswer(c *analysis.CompareModel) {
	if c.Answer == nil {
		return
	}
	for i := range c.Answer.Limits {
		c.Answer.Limits[i].Summary = limitSummary(c.Answer.Limits[i])
	}
}

// writeLabelledText prints labelled lines (writeLabelled), then a blank
// line.
func writeLabelledText(w io.Writer, ls [][2]string) {
	if len(ls) == 0 {
		return
	}
	writeLabelled(w, ls)
	fmt.Fprintln(w)
}

// writeLabelled prints labelled lines, each wrapped to termWidth under its
// label.
func writeLabelled(w io.Writer, ls [][2]string) {
	for _, l := range ls {
		label := fmt.Sprintf("%-10s: ", l[0])
		for i, line := range wrap(l[1], termWidth-len(label)) {
			if i > 0 {
				label = strings.Repeat(" ", len(label))
			}
			fmt.Fprintf(w, "%s%s\n", label, line)
		}
	}
}

// writeLabelledMarkdown prints labelled lines as a list.
func writeLabelledMarkdown(w io.Writer, ls [][2]string) {
	if len(ls) == 0 {
		return
	}
	for _, l := range ls {
		fmt.Fprintf(w, "- **%s**: %s\n", l[0], mdEscape(l[1]))
	}
}
