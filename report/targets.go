package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/platbench/platbench/adapter"
)

// WriteTargets lists the targets, one line each with an example URL.
func WriteTargets(w io.Writer, entries []adapter.Entry) {
	for _, e := range entries {
		fmt.Fprintf(w, "%-10s %-58s e.g. %s\n", e.Name, e.Summary, e.Example)
	}
}

// WriteTargetOptions prints a target's option table generated from the target's
// declarations, so that it cannot drift from what the target accepts.
func WriteTargetOptions(w io.Writer, e adapter.Entry) {
	fmt.Fprintf(w, "%s: %s\ne.g. %s\n\n", e.Name, e.Summary, e.Example)
	var opts []*adapter.Option
	if e.Options != nil {
		opts = e.Options().Options()
	}
	if len(opts) == 0 {
		fmt.Fprintln(w, "It takes no options.")
		return
	}
	fmt.Fprintln(w, "Options, from the URL query or --target-opt key=value (--target-opt wins; a repeated key takes its last value):")
	var table strings.Builder
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "OPTION\tTYPE\tDEFAULT\tUNIT\tALSO\tMEANING")
	var fromWorkload []string
	for _, o := range opts {
		typ, doc := o.Type(), o.Doc
		if o.Kind == adapter.KindEnum && len(o.Values) > 3 {
			typ, doc = "enum", doc+" ("+strings.Join(o.Values, ", ")+")"
		}
		cells := [][]string{{o.Name}, {typ}, wrap(o.DefaultText(), 24), {o.Unit}, {strings.Join(o.Aliases, ", ")}, wrap(doc, 60)}
		for line := 0; line < max(len(cells[2]), len(cells[5])); line++ {
			row := make([]string, len(cells))
			for c, lines := range cells {
				if line < len(lines) {
					row[c] = lines[line]
				}
			}
			fmt.Fprintln(tw, strings.Join(row, "\t"))
		}
		if o.Workload {
			fromWorkload = append(fromWorkload, o.Name)
		}
	}
	tw.Flush()
	for _, l := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
		fmt.Fprintln(w, strings.TrimRight(l, " "))
	}
	if len(fromWorkload) > 0 {
		fmt.Fprintf(w, "\nA workload's options: may also set %s (the URL and --target-opt win).\n", strings.Join(fromWorkload, ", "))
	}
}

// wrap splits s into lines of at most width characters, at spaces.
func wrap(s string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return append(lines, line)
}
