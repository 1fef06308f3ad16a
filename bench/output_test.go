package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// nullBench is a short benchmark of the null target.
func nullBench() Config {
	return Config{Open: registry.Open, Target: "null", Workload: workload.Spec{Records: 100},
		Runner: runner.Config{Duration: time.Second, Concurrency: 2, Seed: DefaultSeed}}
}

// exist says which of paths are there.
func exist(paths ...string) map[string]bool {
	out := map[string]bool{}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			out[filepath.Base(p)] = true
		}
	}
	return out
}

// Benchmark owns a run's files: the result, its .hlog and seconds file are
// written, the journal's files are gone; Done sees them before the journal
// becomes the seconds file. A second run at the same path is refused by
// Check without Force and replaces them with it.
func TestBenchmarkOwnsItsFiles(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	all := []string{out, result.HlogPath(out), result.SecondsPath(out), out + result.JournalSuffix,
		result.FinePath(out + result.JournalSuffix), result.PartialHlogPath(out)}
	var seen Files
	o := Output{Path: out, Hlog: true, Analysis: &analysis.Options{}, Done: func(r *result.Result, f Files) error {
		seen = f
		if _, err := os.Stat(out + result.JournalSuffix); err != nil {
			t.Errorf("Done: the journal is not there yet: %v", err)
		}
		return nil
	}}
	if err := o.Check(result.OutFlags{Out: "out", Force: "force"}); err != nil {
		t.Fatal(err)
	}
	r, err := Benchmark(context.Background(), nullBench(), o)
	if err != nil || r == nil || r.Analysis == nil {
		t.Fatalf("result %v, error %v", r != nil, err)
	}
	want := Files{Result: out, Hlog: result.HlogPath(out), Seconds: result.SecondsPath(out)}
	if seen != want {
		t.Errorf("Done saw %+v, want %+v", seen, want)
	}
	if got := exist(all...); len(got) != 3 || !got["r.json"] || !got["r.hlog"] || !got["r.seconds.jsonl.zst"] {
		t.Errorf("files %v: want the result, its .hlog and seconds file only", got)
	}
	first, _ := os.ReadFile(out)
	err = o.Check(result.OutFlags{Out: "out", Force: "force"})
	if err == nil || !strings.Contains(err.Error(), "already exist") {
		t.Fatalf("a second run without force: %v", err)
	}
	o.Force, o.Done = true, nil
	if r, err = Benchmark(context.Background(), nullBench(), o); err != nil || r == nil {
		t.Fatal(err)
	}
	again, _ := os.ReadFile(out)
	if string(again) == string(first) {
		t.Error("force did not replace the result")
	}
	if got := exist(all...); len(got) != 3 {
		t.Errorf("files after force %v", got)
	}
}

// A run that produced nothing leaves nothing; one whose result could not be
// made (a failed analysis) leaves its journal, the record of what ran.
func TestBenchmarkFailures(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	o := Output{Path: out, Hlog: true, Run: func(context.Context, Config) (*result.Result, error) {
		return nil, errors.New("nothing ran")
	}}
	if r, err := Benchmark(context.Background(), nullBench(), o); r != nil || err == nil {
		t.Fatalf("result %v, error %v", r, err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("%d files left by a run that produced nothing", len(left))
	}
	o.Run, o.Analysis = nil, &analysis.Options{Warmup: "not a warm-up"}
	if r, err := Benchmark(context.Background(), nullBench(), o); r != nil || err == nil {
		t.Fatalf("result %v, error %v", r, err)
	}
	if got := exist(out, out+result.JournalSuffix); got["r.json"] || !got["r.json.partial"] {
		t.Errorf("files %v: want the journal, no result", got)
	}
}

// With Path "-" no file is written: Done has the result, the temporary
// journal is gone.
func TestBenchmarkStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var seen *result.Result
	r, err := Benchmark(context.Background(), nullBench(), Output{Path: "-", Hlog: true, Done: func(r *result.Result, f Files) error {
		if f != (Files{}) {
			t.Errorf("files %+v with no file", f)
		}
		seen = r
		return nil
	}})
	if err != nil || r == nil || seen != r {
		t.Fatalf("result %v, Done saw it %v, error %v", r != nil, seen == r, err)
	}
	if left, _ := os.ReadDir(dir); len(left) > 0 {
		t.Errorf("%d files written with Path -", len(left))
	}
}
