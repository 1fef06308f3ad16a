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
	// foreign marks columns of text that is not ours (a server's
	// message): Markdown escapes its markup too (mdLiteral).
	foreign []bool
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// Markdown escapes, in two layers so that text is escaped once:
//   - mdCell, for every table cell and list item: a pipe ends a cell, < opens
//     an HTML tag (a server's "<nil>" would vanish), & an entity;
//   - mdInline, for text that is not ours (a server's message, its notes):
//     asterisks, underscores, backticks and brackets would be emphasis, code
//     or a link ("k:__key__" in bold), and a backslash would escape what
//     follows it.
//
// CommonMark renders a backslash-escaped punctuation character as itself.
var (
	mdCell   = strings.NewReplacer("|", `\|`, "<", `\<`, "&", `\&`)
	mdInline = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)
)

// mdLiteral is untrusted text (a server's message) for a table cell, which
// adds the cell's own escapes.
func mdLiteral(s string) string { return mdInline.Replace(s) }

// mdEscape is untrusted text as a line of Markdown outside a table.
func mdEscape(s string) string { return mdCell.Replace(mdInline.Replace(s)) }

// markdown writes a GitHub-flavoured table; in every cell a pipe, a < and
// an & are escaped (mdCell): a server's message stays in its cell and shows.
func (t *table) markdown(w io.Writer) {
	line := func(cells []string) {
		parts := make([]string, len(t.head))
		for i := range t.head {
			if i < len(cells) {
				c := cells[i]
				if i < len(t.foreign) && t.foreign[i] {
					c = mdLiteral(c)
				}
				parts[i] = mdCell.Replace(c)
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
	for g, cols := range columnGroups(width, termWidth) {
		if g > 0 {
			fmt.Fprintln(w)
		}
		t.textColumns(w, all, width, cols)
	}
}

// columnGroups splits a table's columns so that each group fits in room
// columns of terminal: a table that fits is one group; a wider one is
// printed as several tables one under the other, each starting with the
// first column (the row's name) and taking as many of the next columns as
// fit (at least one), so no line runs past the terminal and no cell is cut.
func columnGroups(width []int, room int) [][]int {
	total := -2
	for _, x := range width {
		total += x + 2
	}
	if total <= room || len(width) <= 2 {
		all := make([]int, len(width))
		for i := range all {
			all[i] = i
		}
		return [][]int{all}
	}
	var out [][]int
	cur, used := []int{0}, width[0]
	for i := 1; i < len(width); i++ {
		if len(cur) > 1 && used+2+width[i] > room {
			out = append(out, cur)
			cur, used = []int{0}, width[0]
		}
		cur, used = append(cur, i), used+2+width[i]
	}
	return append(out, cur)
}

// textColumns writes the columns cols of the rows all (the head first),
// padded to width, the head underlined.
func (t *table) textColumns(w io.Writer, all [][]string, width []int, cols []int) {
	for n, r := range all {
		var b strings.Builder
		for k, i := range cols {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if k > 0 {
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
			for _, i := range cols {
				total += width[i] + 2
			}
			fmt.Fprintln(w, strings.Repeat("-", total-2))
		}
	}
}
