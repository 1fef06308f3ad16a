package report

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Lines past the width are wrapped under their value, with every word kept
// and in order; lines within it are left as they are.
func TestFitWidth(t *testing.T) {
	in := "op rate          : 99,813 op/s [READ: 9,967 op/s, UPDATE: 9,965 op/s, INSERT: 9,981 op/s, SCAN: 9,978 op/s, READ-MODIFY-WRITE: 9,960 op/s]\n" +
		"short : fits\n" +
		"no label here, only words: and a long tail that goes past the width of the terminal by some margin for sure yes\n" +
		"latency mean     : 438 µs [READ: 441 µs, UPDATE: 436 µs, INSERT: 432 µs, SCAN: 440 µs, DELETE: 437 µs]"
	for _, width := range []int{40, 80, 100} {
		out := fitWidth(in, width)
		for _, l := range strings.Split(out, "\n") {
			if utf8.RuneCountInString(l) > width {
				t.Errorf("width %d: %q is %d wide", width, l, utf8.RuneCountInString(l))
			}
		}
		if strings.Join(strings.Fields(out), " ") != strings.Join(strings.Fields(in), " ") {
			t.Errorf("width %d: words lost or moved:\n%s", width, out)
		}
		if !strings.Contains(out, "\nshort : fits\n") {
			t.Errorf("width %d: a line that fits was changed:\n%s", width, out)
		}
		first := strings.Split(out, "\n")[0]
		col := strings.Index(first, ": ") + 2
		if !strings.Contains(out, "\n"+strings.Repeat(" ", col)+"INSERT") && !strings.Contains(out, "\n"+strings.Repeat(" ", col)+"SCAN") {
			t.Errorf("width %d: no continuation under the value column %d:\n%s", width, col, out)
		}
		if strings.Contains(out, "SCAN:\n") {
			t.Errorf("width %d: an op's name parted from its figure:\n%s", width, out)
		}
	}
	if got := fitWidth("x\n", 40); got != "x\n" {
		t.Errorf("%q", got)
	}
}
