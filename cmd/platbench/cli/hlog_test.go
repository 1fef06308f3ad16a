package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/result"
)

// report --format hlog makes the HdrHistogram log of a run from its
// seconds file: the same seconds, line for line, as the log the run
// streamed (its StartTime is the phase's recorded start, where the
// streamed one estimates it from the first second).
func TestReportFormatHlog(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	if code, _, stderr := run(t, "run", "--hlog", "--target", "null", "--records", "100", "--duration", "2s", "--rate", "2000", "--mix", "read=1,update=1", "--out", out, "--quiet"); code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	made := filepath.Join(dir, "made.hlog")
	if code, _, stderr := run(t, "report", out, "--format", "hlog", "--out", made); code != 0 {
		t.Fatalf("report --format hlog: exit %d: %s", code, stderr)
	}
	body := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		lines := bytes.SplitAfterN(b, []byte("\n"), 5)
		if len(lines) < 5 || !bytes.HasPrefix(lines[3], []byte(`"StartTimestamp"`)) {
			t.Fatalf("%s: no HdrHistogram log header:\n%.300s", p, b)
		}
		return lines[4]
	}
	got, want := body(made), body(result.HlogPath(out))
	if !bytes.Equal(got, want) || bytes.Count(got, []byte("Tag=READ,")) < 2 || bytes.Count(got, []byte("Tag=UPDATE,")) < 2 {
		t.Errorf("made from the seconds file (%d bytes) is not the streamed log (%d bytes), or lacks an op's seconds:\n%.400s", len(got), len(want), got)
	}
	if code, _, stderr := run(t, "report", out, "--format", "hlog", "--out", made); code != exitUsage || stderr == "" {
		t.Errorf("an existing --out: exit %d, %q; want it refused", code, stderr)
	}
}
