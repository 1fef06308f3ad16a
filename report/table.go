package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table is a header and rows of cells, rendered as Markdown or aligned text.
type table struct {
	head  []string
	rows  [][]string
	right []bool // right-align column i (numbers)
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// markdown writes a GitHub-flavoured table; pipes in cells are escaped.
func (t *table) markdown(w io.Writer) {
	esc := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	line := func(cells []string) {
		parts := make([]string, len(t.head))
		for i := range t.head {
			if i < len(cells) {
				parts[i] = esc(cells[i])
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(parts, " | "))
	}
	line(t.head)
	seps := make([]string, len(t.head))
	for i := range seps {
		seps[i] = "---"
		if i < len(t.right) && t.right[i] {
			seps[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(seps, "|"))
	for _, r := range t.rows {
		line(r)
	}
}

// text writes the table with columns padded to their widest cell.
func (t *table) text(w io.Writer) {
	width := make([]int, len(t.head))
	all := append([][]string{t.head}, t.rows...)
	for _, r := range all {
		for i := range width {
			if i < len(r) {
				width[i] = max(width[i], utf8.RuneCountInString(r[i]))
			}
		}
	}
	for n, r := range all {
		var b strings.Builder
		for i := range width {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i < len(t.right) && t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		if n == 0 {
			total := 0
			for _, x := range width {
				total += x + 2
			}
			fmt.Fprintln(w, strings.Repeat("-", total-2))
		}
	}
}
