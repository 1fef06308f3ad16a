package report

import (
	"reflect"
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

// A table wider than the terminal is printed as several tables one under
// the other, each led by the first column and as wide as fits (at least
// one column more); one that fits, or of two columns, is left whole.
func TestColumnGroups(t *testing.T) {
	for _, c := range []struct {
		width []int
		room  int
		want  [][]int
	}{
		{[]int{10, 20, 30}, 100, [][]int{{0, 1, 2}}},
		{[]int{10, 20, 30}, 64, [][]int{{0, 1, 2}}},
		{[]int{10, 20, 30}, 63, [][]int{{0, 1}, {0, 2}}},
		{[]int{10, 20, 30, 5, 5}, 50, [][]int{{0, 1}, {0, 2, 3}, {0, 4}}},
		{[]int{10, 200, 300}, 40, [][]int{{0, 1}, {0, 2}}},
		{[]int{10, 300}, 40, [][]int{{0, 1}}},
	} {
		if got := columnGroups(c.width, c.room); !reflect.DeepEqual(got, c.want) {
			t.Errorf("columnGroups(%v, %d) = %v, want %v", c.width, c.room, got, c.want)
		}
	}
	tb := &table{head: []string{"node", "a", "b"}}
	tb.add("n1", strings.Repeat("x", 33), "y")
	defer SetWidth(40)()
	var b strings.Builder
	tb.text(&b)
	want := "node  a\n" + strings.Repeat("-", 39) + "\nn1    " + strings.Repeat("x", 33) + "\n\nnode  b\n-------\nn1    y\n"
	if b.String() != want {
		t.Errorf("split table:\n%s\nwant:\n%s", b.String(), want)
	}
}
