package cli

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/platbench/platbench/report"
)

// The text output fits the terminal's width when stdout is one (Env.Width,
// from the terminal itself: a shell's COLUMNS is seldom exported), and
// COLUMNS, when it is set, wins: compare of the two platforms' real runs
// at 80 columns has no line wider than 80; with COLUMNS=160 it has.
func TestTerminalWidth(t *testing.T) {
	defer report.SetWidth(120)() // restore the width the other tests run at
	var files []string
	for _, n := range []string{"epyc2.r01", "epyc2.r02", "epyc2.r03", "device16.r01", "device16.r02", "device16.r03"} {
		files = append(files, filepath.Join("..", "..", "..", "analysis", "testdata", "platforms", n+".json"))
	}
	widest := func(columns string) int {
		t.Setenv("COLUMNS", columns)
		var out, errb bytes.Buffer
		if code := Main(append([]string{"compare"}, files...), &Env{Stdout: &out, Stderr: &errb, Width: 80}); code != 0 {
			t.Fatalf("COLUMNS %q: exit %d: %s", columns, code, errb.String())
		}
		w := 0
		for _, l := range strings.Split(out.String(), "\n") {
			w = max(w, utf8.RuneCountInString(l))
		}
		return w
	}
	if w := widest(""); w > 80 {
		t.Errorf("a terminal of 80 columns: a line of %d", w)
	}
	report.SetWidth(160) // what COLUMNS=160 gave at the process's start
	if w := widest("160"); w <= 80 {
		t.Errorf("COLUMNS=160 over a terminal of 80: the widest line is %d, as if the terminal won", w)
	}
}
