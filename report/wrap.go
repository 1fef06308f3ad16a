package report

import (
	"bytes"
	"io"
	"strings"
	"unicode/utf8"
)

// fitWidth wraps every line of text wider than width, except the rows of
// a table (tableRow), the lines it adds indented under the line's value:
// after its first " : " or ": " (a labelled line, "latency p99   : 9.05 ms
// [READ: 9.27 ms, ...]"), after its key ("  platbench  0.38 cores ..."), or
// under its own indentation. A line breaks after a list's ", " first (an
// op's figure stays with its name), at a space when one item is wider than
// the room, and never inside a word: cells are wrapped, never cut.
func fitWidth(text string, width int) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/8)
	for line := range strings.SplitAfterSeq(text, "\n") {
		body := strings.TrimSuffix(line, "\n")
		if utf8.RuneCountInString(body) <= width || tableRow(body) {
			b.WriteString(line)
			continue
		}
		label, indent := labelOf(body, width)
		b.WriteString(label)
		room := width - utf8.RuneCountInString(label)
		for i, l := range wrapItems(body[len(label):], room, max(width-indent, 10)) {
			if i > 0 {
				b.WriteString("\n" + strings.Repeat(" ", indent))
			}
			b.WriteString(l)
		}
		if strings.HasSuffix(line, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// labelOf is line's label and the column its continuation lines start
// at, the first of: through its first " : " ("latency p99   : "); through
// its first ": " after a short key ("note: ", "caveat    : "); through its
// key and the spaces after it ("  cpu        user ..."); its indentation
// (at least two spaces). A label past half the width is none.
func labelOf(line string, width int) (string, int) {
	fits := func(at int) bool { return at > 0 && utf8.RuneCountInString(line[:at]) <= width/2 }
	if i := strings.Index(line, " : "); i >= 0 && fits(i+3) {
		return line[:i+3], utf8.RuneCountInString(line[:i+3])
	}
	if i := strings.Index(line, ": "); i >= 0 && fits(i+2) && utf8.RuneCountInString(strings.TrimSpace(line[:i])) <= shortKey {
		return line[:i+2], utf8.RuneCountInString(line[:i+2])
	}
	if at := keyEnd(line); fits(at) {
		return line[:at], utf8.RuneCountInString(line[:at])
	}
	lead := len(line) - len(strings.TrimLeft(line, " "))
	if lead > 0 && lead <= width/2 {
		return line[:lead], lead
	}
	return "", 2
}

// shortKey is the longest key a ": " ends as a label ("perf counters"):
// a longer text before one is a sentence's.
const shortKey = 20

// keyEnd is where the value of "  key  value" starts: after the first run
// of two or more spaces past the line's indentation (0: none).
func keyEnd(line string) int {
	lead := len(line) - len(strings.TrimLeft(line, " "))
	i := strings.Index(line[lead:], "  ")
	if i < 0 {
		return 0
	}
	i += lead
	return i + len(line[i:]) - len(strings.TrimLeft(line[i:], " "))
}

// tableRow says whether line is a row (or rule) of a table: columns apart
// by two or more spaces, three times or more past its indentation; a
// table is not wrapped (its columns would part).
func tableRow(line string) bool {
	t := strings.TrimSpace(line)
	if t != "" && strings.Trim(t, "-=| ") == "" {
		return true
	}
	return strings.Count(collapseRuns(t), "\x00") >= 3
}

// collapseRuns marks each run of two or more spaces in s with one NUL.
func collapseRuns(s string) string {
	var b strings.Builder
	run := 0
	for _, r := range s {
		if r == ' ' {
			run++
			continue
		}
		switch {
		case run >= 2:
			b.WriteByte(0)
		case run == 1:
			b.WriteByte(' ')
		}
		run = 0
		b.WriteRune(r)
	}
	return b.String()
}

// listItem is the longest item of a list kept whole on one line ("READ-
// MODIFY-WRITE: 10,283 op/s,"); a longer one is prose, wrapped at its
// spaces.
const listItem = 32

// wrapItems fills lines of first (the first line) and then rest
// characters with s's items (its text split after each ", "), an item
// longer than listItem split at its spaces.
func wrapItems(s string, first, rest int) []string {
	var lines []string
	line, n, room := "", 0, first
	put := func(word string, sep string) {
		w := utf8.RuneCountInString(word)
		if line != "" && n+len(sep)+w > room {
			lines = append(lines, line)
			line, n, room, sep = "", 0, rest, ""
		}
		if line == "" {
			sep = ""
		}
		line += sep + word
		n += len(sep) + w
	}
	for item := range strings.SplitAfterSeq(strings.TrimSpace(s), ", ") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if utf8.RuneCountInString(item) <= min(listItem, rest) {
			put(item, " ")
			continue
		}
		for _, word := range strings.Fields(item) {
			put(word, " ")
		}
	}
	return append(lines, line)
}

// fitted writes what write writes to w, each line within termWidth
// (fitWidth: table rows are left to table.text, which splits a wide
// table by columns).
func fitted(w io.Writer, write func(io.Writer)) {
	var buf bytes.Buffer
	write(&buf)
	io.WriteString(w, fitWidth(buf.String(), termWidth))
}
