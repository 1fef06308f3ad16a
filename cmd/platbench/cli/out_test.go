package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/platbench/platbench/result"
)

// snapshot is every file under dir and its bytes.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		files[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// sameFiles fails the test unless dir holds exactly the files of before,
// byte for byte.
func sameFiles(t *testing.T, what, dir string, before map[string][]byte) {
	t.Helper()
	after := snapshot(t, dir)
	for p, b := range before {
		if a, ok := after[p]; !ok {
			t.Errorf("%s: %s was removed", what, p)
		} else if !bytes.Equal(a, b) {
			t.Errorf("%s: %s changed: %d bytes, %d before", what, p, len(a), len(b))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s was written", what, p)
		}
	}
}

// --out over an existing, unrelated result, .hlog and seconds file, for
// every command that writes: refused before anything runs, one line, exit
// 2, naming the file and the fix; every byte intact and nothing written.
func TestOutNeverReplacesAFile(t *testing.T) {
	dir := t.TempDir()
	// Real results to merge, report and compare, in a directory of their own.
	src := t.TempDir()
	a, b := filepath.Join(src, "a.json"), filepath.Join(src, "b.json")
	for _, p := range []string{a, b} {
		if code, _, stderr := run(t, "run", "--hlog", "--target", "fake", "--records", "100", "--ops", "500", "--concurrency", "2", "--out", p, "--quiet"); code != 0 {
			t.Fatalf("run: exit %d: %s", code, stderr)
		}
	}
	notes := filepath.Join(dir, "notes.json")
	for i, p := range []string{notes, result.HlogPath(notes), result.SecondsPath(notes)} {
		os.WriteFile(p, fmt.Appendf(nil, "the user's own file %d\n", i), 0o644)
	}
	suiteFile := filepath.Join(src, "s.yaml")
	os.WriteFile(suiteFile, []byte("name: s\nops: 200\nconcurrency: 2\nrecords: [100]\ntargets: [{url: fake}]\nworkloads: [ds-100r]\n"), 0o644)
	suiteDir := filepath.Join(dir, "suite")
	os.Mkdir(suiteDir, 0o755)
	os.WriteFile(filepath.Join(suiteDir, "summary.md"), []byte("an earlier summary\n"), 0o644)
	repeated := filepath.Join(dir, "rep.json")
	// Only the second round's log is there: the first round must not run.
	os.WriteFile(filepath.Join(dir, "rep.r02.hlog"), []byte("round two's log\n"), 0o644)
	before := snapshot(t, dir)
	runFlags := []string{"--target", "fake", "--records", "100", "--concurrency", "2", "--quiet"}
	for _, c := range []struct {
		name string
		args []string
		file string // the file the refusal names
	}{
		{"run", append([]string{"run", "--hlog", "--ops", "500", "--out", notes}, runFlags...), notes},
		{"load", append([]string{"load", "--out", notes}, runFlags...), notes},
		{"run --repeat", append([]string{"run", "--hlog", "--ops", "500", "--repeat", "2", "--out", repeated}, runFlags...), "rep.r02.hlog"},
		{"sweep", append([]string{"sweep", "--rates", "1k", "--step", "2s", "--out", notes}, runFlags...), notes},
		{"merge", []string{"merge", a, b, "--out", notes, "--quiet"}, notes},
		{"report --out", []string{"report", a, "--out", notes}, notes},
		{"compare --out", []string{"compare", a, b, "--out", notes}, notes},
		{"history --out", []string{"history", a, b, "--out", notes}, notes},
		{"suite", []string{"suite", suiteFile, "--out", suiteDir, "--quiet"}, "summary.md"},
	} {
		code, stdout, stderr := run(t, c.args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.file) ||
			!strings.Contains(stderr, "--force") || !strings.Contains(stderr, "never replaces a file silently") {
			t.Errorf("%s: exit %d, stderr %q, stdout %.200q", c.name, code, stderr, stdout)
		}
		sameFiles(t, c.name, dir, before)
	}
	// With --force the run replaces all three: the new result reads whole,
	// with its own seconds file and .hlog.
	if code, _, stderr := run(t, append([]string{"run", "--hlog", "--ops", "500", "--out", notes, "--force"}, runFlags...)...); code != 0 {
		t.Fatalf("run --force: exit %d: %s", code, stderr)
	}
	r, err := result.Read(notes)
	if err != nil || !r.MainPhase().HasSeconds() {
		t.Fatalf("the result --force wrote: %v", err)
	}
	if _, err := r.MainPhase().MergedHist(0, len(r.MainPhase().Intervals), result.HistLatency); err != nil {
		t.Errorf("its seconds: %v", err)
	}
	if hl, _ := os.ReadFile(result.HlogPath(notes)); !bytes.Contains(hl, []byte("Histogram log format")) {
		t.Errorf("the .hlog --force wrote: %.100q", hl)
	}
	for _, p := range []string{notes + result.JournalSuffix, result.PartialHlogPath(notes)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s left after the run", p)
		}
	}
	// report --force replaces its --out.
	if code, _, stderr := run(t, "report", a, "--out", notes, "--force", "--format", "md"); code != 0 {
		t.Errorf("report --force: exit %d: %s", code, stderr)
	}
}

// A journal in the way (a run killed earlier) is refused even with
// --force, naming the command that reads it; report of the result that
// was never written names the journal.
func TestJournalInTheWay(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	journal := []byte(`{"journal":"platbench.journal/v2","result":{"schema":"platbench.result/v2"}}` + "\n")
	os.WriteFile(out+result.JournalSuffix, journal, 0o644)
	before := snapshot(t, dir)
	for _, force := range []bool{false, true} {
		args := []string{"run", "--hlog", "--target", "fake", "--records", "100", "--ops", "500", "--out", out, "--quiet"}
		if force {
			args = append(args, "--force")
		}
		code, _, stderr := run(t, args...)
		if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "platbench report "+out+".partial") {
			t.Errorf("--force %v: exit %d, %q", force, code, stderr)
		}
		sameFiles(t, fmt.Sprintf("run (--force %v)", force), dir, before)
	}
	code, _, stderr := run(t, "report", out)
	if code != exitUsage || !strings.Contains(stderr, out+" does not exist, but "+out+".partial does") || !strings.Contains(stderr, "platbench report "+out+".partial") {
		t.Errorf("report of the result: exit %d, %q", code, stderr)
	}
	code, _, stderr = run(t, "compare", out, out)
	if code != exitUsage || !strings.Contains(stderr, "platbench report "+out+".partial") {
		t.Errorf("compare: exit %d, %q", code, stderr)
	}
}

// A suite run twice into one directory: refused before any cell runs the
// second time; --force replaces every cell's files.
func TestSuiteRerun(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	os.WriteFile(file, []byte("name: s\nops: 300\nconcurrency: 2\nrecords: [100]\ntargets: [{url: fake}]\nworkloads: [ds-100r, ds-50-50]\n"), 0o644)
	out := filepath.Join(dir, "out")
	if code, _, stderr := run(t, "suite", file, "--out", out, "--quiet"); code != 0 {
		t.Fatalf("first: exit %d: %s", code, stderr)
	}
	before := snapshot(t, out)
	code, _, stderr := run(t, "suite", file, "--out", out, "--quiet")
	if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--force") {
		t.Errorf("second: exit %d, %q", code, stderr)
	}
	sameFiles(t, "suite again", out, before)
	if code, _, stderr := run(t, "suite", file, "--out", out, "--quiet", "--force"); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, stderr)
	}
	after := snapshot(t, out)
	names := slices.Sorted(func(yield func(string) bool) {
		for p := range after {
			if !yield(filepath.Base(p)) {
				return
			}
		}
	})
	for p, b := range before {
		if strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "summary.json") && bytes.Equal(after[p], b) {
			t.Errorf("--force left %s as it was", p)
		}
		if strings.HasSuffix(p, ".json") && !strings.HasSuffix(p, "summary.json") {
			if _, err := result.Read(p); err != nil {
				t.Errorf("%s after --force: %v (files %v)", p, err, names)
			}
		}
	}
}

// sweep --out - writes the result's JSON to standard output (it once
// wrote a file named "-", replacing one there).
func TestSweepOutStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, stdout, stderr := run(t, "sweep", "--target", "fake", "--records", "100", "--rates", "1k", "--step", "2s", "--out", "-", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := result.Decode(strings.NewReader(stdout)); err != nil {
		t.Errorf("stdout is not a result: %v\n%.300s", err, stdout)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files written in the current directory: %v", ents)
	}
}

// report of a result with a journal beside it (a later --force run that
// did not finish) reports the result and warns of the journal.
func TestReportWarnsOfAJournalBeside(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if code, _, stderr := run(t, "run", "--target", "fake", "--records", "100", "--ops", "500", "--concurrency", "2", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := run(t, "report", out); code != 0 || stderr != "" || !strings.Contains(stdout, "op rate") {
		t.Fatalf("report: exit %d, stderr %q", code, stderr)
	}
	os.WriteFile(out+result.JournalSuffix, []byte(`{"journal":"platbench.journal/v2","result":{}}`+"\n"), 0o644)
	code, stdout, stderr := run(t, "report", out)
	if code != 0 || !strings.Contains(stdout, "op rate") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 ||
		!strings.Contains(stderr, "warning: "+out+".partial is beside "+out) || !strings.Contains(stderr, "platbench report "+out+".partial") {
		t.Errorf("report with a journal beside: exit %d, stderr %q", code, stderr)
	}
}

// An --out whose directory is missing is bad input:
// exit 2 before anything runs, one line naming --out, and not the name
// of the probe that found it.
func TestOutDirectoryMissing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "none", "r.json")
	code, _, stderr := run(t, "run", "--target", "fake", "--records", "100", "--ops", "200", "--quiet", "--out", out)
	if code != exitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--out") || strings.Contains(stderr, ".platbench-check") {
		t.Errorf("--out %s: exit %d, %q; want %d and one line naming --out", out, code, stderr, exitUsage)
	}
}
