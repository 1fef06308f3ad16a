package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The fixtures are the report package's synthetic result files.
func fixture(name string) string {
	return filepath.Join("..", "..", "..", "report", "testdata", name+".result.json")
}

// runCLI runs platbench with args and returns the exit code and both streams.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &Env{Stdout: &out, Stderr: &errb})
	return code, out.String(), errb.String()
}

func TestReportFormats(t *testing.T) {
	in := fixture("i3-16xlarge")
	cases := []struct {
		format string
		want   []string // substrings of the output
	}{
		{"term", []string{"i3.16xlarge", "p99"}},
		{"md", []string{"| Op rate (sustained) |", "### Latency", "| READ |"}},
		{"html", []string{"<!DOCTYPE html>", `<svg class="chart"`, "prefers-color-scheme"}},
		{"json", []string{`"schema": "platbench.report/v2"`, `"sustained_ops_per_s"`}},
		{"csv", []string{"phase,start_s,duration_s,op,count,ops_per_s", "\nrun,0,1,READ,"}},
	}
	for _, c := range cases {
		t.Run(c.format, func(t *testing.T) {
			code, out, errs := runCLI(t, "report", in, "--format", c.format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
		})
	}
}

// TestReportOut writes to --out atomically and leaves stdout empty.
func TestReportOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.html")
	code, out, errs := runCLI(t, "report", "--format", "html", "--out", path, fixture("i3-metal"))
	if code != 0 || out != "" {
		t.Fatalf("exit %d, stdout %d bytes, stderr %s", code, len(out), errs)
	}
	b, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(b, []byte("<!DOCTYPE html>")) || !bytes.HasSuffix(b, []byte("</html>\n")) {
		t.Fatalf("%s: %v, %d bytes", path, err, len(b))
	}
}

// TestReportBadInput: one clear line on stderr and a non-zero exit.
func TestReportBadInput(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.json")
	os.WriteFile(garbage, []byte("{not json"), 0o644)
	other := filepath.Join(dir, "other.json")
	os.WriteFile(other, []byte(`{"schema":"something/else","phases":[]}`), 0o644)
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing file", []string{"report", filepath.Join(dir, "nope.json")}, 2, "cannot read result"},
		{"not json", []string{"report", garbage}, 2, "not a valid platbench result"},
		{"not a result", []string{"report", other}, 2, "is not a platbench result"},
		{"bad format", []string{"report", fixture("i3-metal"), "--format", "pdf"}, 2, `unknown --format "pdf"`},
		{"two files", []string{"report", fixture("i3-metal"), fixture("i3-metal")}, 2, "exactly one result file"},
		{"no file", []string{"report"}, 2, "exactly one result file"},
		{"out is the input", []string{"report", fixture("i3-metal"), "--format", "json", "--out", fixture("i3-metal")}, 2, "is the result file itself"},
		{"out dir missing", []string{"report", fixture("i3-metal"), "--out", filepath.Join(dir, "no", "x.md"), "--format", "md"}, 1, "cannot write"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runCLI(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, c.code, errs)
			}
			if out != "" {
				t.Errorf("stdout not empty: %q", out[:min(len(out), 80)])
			}
			if strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
				t.Errorf("stderr %q: want one line containing %q", errs, c.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	a, b := fixture("i3-16xlarge"), fixture("i3-metal")
	code, out, errs := runCLI(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, w := range []string{"i3.16xlarge (baseline)", "Against i3.16xlarge", "inconcl.*", "Method: each run is one value", "run-to-run noise is unknown"} {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q", w)
		}
	}
	// --baseline by group name flips the direction of every ratio.
	code, out, errs = runCLI(t, "compare", a, b, "--baseline", "i3.metal", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var c struct {
		Baseline int
		Rows     []struct {
			Figure   string
			Verdicts []struct{ Phrase, Text string }
		}
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatal(err)
	}
	if c.Baseline != 1 {
		t.Fatalf("baseline %d, want 1", c.Baseline)
	}
	for _, r := range c.Rows {
		if r.Figure == "Sustained throughput" && r.Verdicts[0].Phrase != "worse" {
			t.Errorf("i3.16xlarge against i3.metal: %q, want worse", r.Verdicts[0].Phrase)
		}
	}
}

func TestCompareRefusals(t *testing.T) {
	a, g := fixture("i3-16xlarge"), fixture("graviton-write")
	code, _, errs := runCLI(t, "compare", a, g)
	if code != 2 || !strings.Contains(errs, "different workloads") || !strings.Contains(errs, "--force") {
		t.Errorf("exit %d, stderr %q: want a refusal naming --force", code, errs)
	}
	code, out, errs := runCLI(t, "compare", a, g, "--force", "--format", "md")
	if code != 0 || !strings.Contains(out, "Different workloads compared (--force)") {
		t.Errorf("--force: exit %d, stderr %q", code, errs)
	}
	code, _, errs = runCLI(t, "compare", a)
	if code != 2 || !strings.Contains(errs, "at least two") {
		t.Errorf("one file: exit %d, %q", code, errs)
	}
	code, _, errs = runCLI(t, "compare", a, a, "--baseline", "nope")
	if code != 2 || !strings.Contains(errs, `--baseline "nope" is none of the groups`) {
		t.Errorf("bad baseline: exit %d, %q", code, errs)
	}
	// Each bad value of the grouping and interval flags: one line naming the
	// flag and the fix, exit 2.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--group-by", "host"}, `--group-by "host" is not a way to group runs (fix: one of label, platform, target, file)`},
		{[]string{"--group-by", "target"}, "--group-by by target puts all 2 runs in one group"},
		{[]string{"--min-effect", "0"}, `--min-effect "0" is not a percentage between 0 and 100`},
		{[]string{"--run-spread", "x"}, `--run-spread "x" is not a percentage`},
		{[]string{"--run-spread", "3%", "--run-spread-from", a}, "give one"},
		{[]string{"--run-spread-from", a}, "--run-spread-from has 1 run, which cannot measure run-to-run noise"},
		{[]string{"--run-spread-from", "history:"}, `--run-spread-from "history:": an empty path`},
		{[]string{"--run-spread-from", a + ",history:" + a}, "a history: inside the list"},
		{[]string{"--run-spread-from", "history:" + a}, "no commit was run twice in one setup among its 1 results (0 with a commit)"},
		{[]string{"--run-spread-from", "history:" + a + "-none"}, "no such file or directory (fix: result files, or directories that hold them)"},
	} {
		code, out, errs := runCLI(t, append([]string{"compare", a, fixture("i3-metal")}, c.args...)...)
		if code != 2 || out != "" || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, c.want) {
			t.Errorf("compare %v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errs, c.want)
		}
	}
}
