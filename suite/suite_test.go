package suite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/result/summary"
)

func TestParseMalformed(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // every fragment must be in the error
	}{
		// A typo at the top level names the field, its line and the known ones.
		{"unknown top field", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nduraton: 10s\n", []string{"line 3", `unknown field "duraton"`, "duration"}},
		{"unknown top field near repeat", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nrepeet: 3\n", []string{"line 3", `unknown field "repeet"`, "thresholds, repeat, targets"}},
		{"unknown target field", "targets:\n  - url: embedded\n    option: {a: b}\nworkloads: [ycsb-a]\n", []string{"line 3", `"option"`, "opts"}},
		// Workload maps are decoded by hand: they must be as strict.
		{"unknown workload field", "targets: [{url: embedded}]\nworkloads:\n  - preset: ycsb-a\n    ratio: read=1\n", []string{"line 4", `"ratio"`, "mix"}},
		{"bad records", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nrecords: [10q]\n", []string{"line 3", `"10q"`, "100k"}},
		{"bad rate", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nrate: fast\n", []string{`"fast"`, "20k"}},
		{"bad mix", "targets: [{url: embedded}]\nworkloads:\n  - {preset: ycsb-a, mix: read=x}\n", []string{"line 3"}},
		{"empty", "", []string{"empty"}},
		{"no axes", "name: x\n", []string{"targets are missing", "workloads are missing"}},
		{"yaml null url", "targets: [{url: null}]\nworkloads: [ycsb-a]\n", []string{"has no url", `"null"`}},
		{"preset and file", "targets: [{url: embedded}]\nworkloads: [{preset: ycsb-a, file: w.yaml}]\n", []string{"exactly one of preset and file"}},
		{"bad duration", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nduration: soon\n", []string{`line 3: duration "soon" is not a duration`}},
		{"size for a count", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nconcurrency: 4KiB\n", []string{`line 3: concurrency "4KiB"`}},
		{"negative concurrency", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nconcurrency: -3\n", []string{`concurrency "-3"`}},
		// 0 is not silently the default.
		{"zero duration", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nduration: 0s\n", []string{"duration is 0 (fix: a positive duration"}},
		{"zero concurrency", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nconcurrency: 0\n", []string{"concurrency is 0"}},
		{"zero field length", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nfield_length: 0B\n", []string{"field_length is 0"}},
		{"zero records", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nrecords: [1k, 0]\n", []string{"records is 0"}},
		{"bad warmup", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nwarmup: soon\n", []string{`warmup "soon" is not auto, 0 or a duration`}},
		{"duration and ops", "targets: [{url: embedded}]\nworkloads: [ycsb-a]\nduration: 5s\nops: 1M\n", []string{"duration and ops exclude each other"}},
		{"duplicate cells", "targets: [{url: embedded}, {url: 'embedded://x'}]\nworkloads: [ycsb-a]\n", []string{"two cells", "embedded.ycsb-a"}},
		{"unquoted mix in a flow map", "targets: [{url: embedded}]\nworkloads:\n  - {preset: ycsb-a, mix: read=1,update=9}\n", []string{"line 3", "must be quoted"}},
		{"not a map", "- a\n- b\n", []string{"not a valid suite"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if !usererr.Is(err) {
				t.Errorf("error %q is not a user error", err)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error has several lines: %q", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestCellsExpandMatrix(t *testing.T) {
	f, err := Parse([]byte(`
duration: 5s
concurrency: 3
rate: 2k
seed: 7
load: false
records: [1k, 2M]
distribution: uniform
targets:
  - {url: "null", opts: {a: b}}
  - {url: "embedded:///tmp/x", name: pebble}
workloads:
  - ds-100r
  - {name: mostly-write, preset: ycsb-a, mix: "read=1,update=9"}
`))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range cells {
		names = append(names, c.Name)
	}
	want := "null.ds-100r.1k null.ds-100r.2M null.mostly-write.1k null.mostly-write.2M pebble.ds-100r.1k pebble.ds-100r.2M pebble.mostly-write.1k pebble.mostly-write.2M"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("cells\n got %s\nwant %s", got, want)
	}
	c := cells[3] // null, mostly-write, 2M
	if c.Config.Workload.Records != 2_000_000 || c.Config.Workload.Mix.String() != "read=1,update=9" || c.Config.Workload.Distribution != "uniform" {
		t.Errorf("workload %+v", c.Config.Workload)
	}
	rc := c.Config.Runner
	if rc.Duration.Seconds() != 5 || rc.Concurrency != 3 || rc.Rate != 2000 || rc.Seed != 7 || c.Config.Load {
		t.Errorf("runner %+v load %v", rc, c.Config.Load)
	}
	if c.Config.TargetOpts["a"] != "b" || c.Config.Target != "null" {
		t.Errorf("target %q opts %v", c.Config.Target, c.Config.TargetOpts)
	}
	// Cells do not share maps: a change to one does not reach another.
	cells[0].Config.TargetOpts["a"] = "changed"
	if cells[1].Config.TargetOpts["a"] != "b" {
		t.Error("cells share their target options")
	}
}

func TestCellsBadPreset(t *testing.T) {
	f, err := Parse([]byte("targets: [{url: embedded}]\nworkloads: [ycsb-z]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Cells(); err == nil || !strings.Contains(err.Error(), "ycsb-z") {
		t.Errorf("error %v does not name the preset", err)
	}
}

// A tiny real suite against the null and embedded targets: every cell writes
// a result file whose figures match the summary, and summary.md lists them.
func TestRunTinySuite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "tiny.yaml")
	yml := `name: tiny
duration: 1s
concurrency: 2
records: [500, 1k]
targets:
  - url: "null"
  - {url: "embedded://` + filepath.Join(dir, "db") + `", name: pebble}
workloads:
  - ds-80-20
  - {name: writes, preset: ycsb-a, mix: update=1}
`
	if err := os.WriteFile(path, []byte(yml), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if f.OutDir() != filepath.Join(dir, "tiny-results") {
		t.Errorf("out dir %s", f.OutDir())
	}
	var seen []string
	s, err := Run(context.Background(), f, Options{Open: registry.Open, OnCell: func(r summary.Row) { seen = append(seen, r.Cell) }})
	if err != nil {
		t.Fatal(err)
	}
	writeSummary(t, s)
	if len(s.Rows) != 8 || len(seen) != 8 || s.Failed() != 0 {
		t.Fatalf("%d rows, %d reported, %d failed: %+v", len(s.Rows), len(seen), s.Failed(), s.Rows)
	}
	for _, row := range s.Rows {
		r, err := result.Read(filepath.Join(f.OutDir(), row.File))
		if err != nil {
			t.Fatalf("%s: %v", row.Cell, err)
		}
		if r.Analysis == nil || r.Analysis.Steady.SustainedOpsPerS != row.SustainedOpsPerS || row.SustainedOpsPerS <= 0 {
			t.Errorf("%s: summary %v op/s, file %+v", row.Cell, row.SustainedOpsPerS, r.Analysis)
		}
		if r.Config.Extra["cell"] != row.Cell || r.Config.Extra["suite"] != "tiny" {
			t.Errorf("%s: config extra %v", row.Cell, r.Config.Extra)
		}
		wantRecs := uint64(500)
		if strings.HasSuffix(row.Cell, ".1k") {
			wantRecs = 1000
		}
		if r.Dataset.Records != wantRecs || r.Phases[0].Name != "load" || r.Phases[0].Ops[0].Count != wantRecs {
			t.Errorf("%s: dataset %d records, load phase %+v", row.Cell, r.Dataset.Records, r.Phases[0].Name)
		}
		// The per-op p99 of the summary is the file's steady-window
		// histogram: the cell streamed, so its seconds are in the seconds
		// file beside it, which Read found.
		p := r.MainPhase()
		if !p.HasSeconds() || p.HasIntervalHists() {
			t.Errorf("%s: the cell did not stream (seconds file %v, interval histograms %v)", row.Cell, p.HasSeconds(), p.HasIntervalHists())
		}
		for _, op := range row.OpOrder {
			h, err := p.MergedHist(r.Analysis.SteadyState.WarmupIntervals, len(p.Intervals), result.HistLatency, op)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.ValueAtQuantile(99); got != row.OpP99Ns[op] || got <= 0 {
				t.Errorf("%s %s: summary p99 %d, file %d", row.Cell, op, row.OpP99Ns[op], got)
			}
		}
		wantOps := "READ UPDATE"
		if strings.Contains(row.Cell, "writes") {
			wantOps = "UPDATE"
		}
		if strings.Join(row.OpOrder, " ") != wantOps {
			t.Errorf("%s: ops %v, want %s", row.Cell, row.OpOrder, wantOps)
		}
	}
	md, err := os.ReadFile(filepath.Join(f.OutDir(), "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"# Suite tiny", "| null.ds-80-20.500 |", "| pebble.writes.1k |", "[READ: ", "UPDATE: "} {
		if !strings.Contains(string(md), w) {
			t.Errorf("summary.md lacks %q:\n%s", w, md)
		}
	}
	js, err := os.ReadFile(filepath.Join(f.OutDir(), "summary.json"))
	if err != nil || !strings.Contains(string(js), `"cell": "pebble.writes.1k"`) || !strings.Contains(string(js), `"op_p99_ns"`) {
		t.Errorf("summary.json: %v\n%s", err, js)
	}
	var txt strings.Builder
	if err := report.WriteSuiteText(&txt, s); err != nil {
		t.Fatal(err)
	}
	if strings.Count(txt.String(), "\n") != 11 || strings.Contains(txt.String(), " \n") {
		t.Errorf("text summary: want a title, a header, a rule and 8 rows, no trailing spaces:\n%s", txt.String())
	}
}

// writeSummary writes s's summary.md and summary.json as the CLI does.
func writeSummary(t *testing.T, s *summary.Summary) {
	t.Helper()
	var md strings.Builder
	if err := report.WriteSuiteMarkdown(&md, s); err != nil {
		t.Fatal(err)
	}
	if err := WriteSummary(s, []byte(md.String())); err != nil {
		t.Fatal(err)
	}
}

// A cell that cannot run is recorded and the suite goes on.
func TestRunRecordsFailedCell(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse([]byte("duration: 2s\ntargets: [{url: 'nosuch://x'}, {url: 'null'}]\nworkloads: [ycsb-c]\nrecords: [100]\n"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Run(context.Background(), f, Options{Open: registry.Open, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	writeSummary(t, s)
	if len(s.Rows) != 2 || s.Failed() != 1 || s.Rows[0].Error == "" || s.Rows[1].Error != "" {
		t.Fatalf("rows %+v", s.Rows)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	if !strings.Contains(string(md), "FAILED: ") {
		t.Errorf("summary.md does not show the failure:\n%s", md)
	}
}

// Ctrl-C between cells stops the suite; the summary of what ran is written.
func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse([]byte("duration: 2s\ntargets: [{url: 'null'}]\nworkloads: [ycsb-c, ycsb-b, ycsb-a]\nrecords: [100]\n"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	s, err := Run(ctx, f, Options{Open: registry.Open, OutDir: dir, Runner: func(ctx context.Context, cfg bench.Config) (*result.Result, error) {
		n++
		r, err := bench.Run(ctx, cfg)
		cancel() // Ctrl-C during the first cell
		return r, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	writeSummary(t, s)
	if n != 1 || len(s.Rows) != 1 {
		t.Errorf("%d cells ran, %d rows; want 1", n, len(s.Rows))
	}
	if _, err := os.Stat(filepath.Join(dir, "summary.md")); err != nil {
		t.Error(err)
	}
}

// repeat: 3 runs three rounds, each every cell once in its own random
// order, each run to <cell>.rNN.json with the cell's label, so that
// compare groups the runs of a cell; repeat: 0 is an error naming the field.
func TestRunRepeated(t *testing.T) {
	dir := t.TempDir()
	f, err := Parse([]byte("duration: 1s\nrepeat: 3\nseed: 5\ntargets: [{url: 'null'}]\nworkloads: [ycsb-c, ycsb-a]\nrecords: [100]\n"))
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	s, err := Run(context.Background(), f, Options{Open: registry.Open, OutDir: dir, Runner: func(ctx context.Context, cfg bench.Config) (*result.Result, error) {
		labels = append(labels, cfg.Label)
		return bench.Run(ctx, cfg)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Rows) != 6 {
		t.Fatalf("%d rows, want 6", len(s.Rows))
	}
	want := Rounds(3, 2, 5)
	cells := []string{"null.ycsb-c.100", "null.ycsb-a.100"}
	for k, row := range s.Rows {
		round, pos := k/2, k%2
		if row.Round != round+1 || row.Cell != cells[want[round][pos]] || row.File != RepeatName(row.Cell, round, 3)+".json" {
			t.Errorf("row %d: %s round %d file %s; want %s round %d", k, row.Cell, row.Round, row.File, cells[want[round][pos]], round+1)
		}
		r, err := result.Read(filepath.Join(dir, row.File))
		if err != nil || r.Label != labels[k] {
			t.Errorf("%s: %v, label %q want %q", row.File, err, r.Label, labels[k])
		}
	}
	if _, err := Parse([]byte("repeat: 0\ntargets: [{url: embedded}]\nworkloads: [ycsb-a]\n")); err == nil || !strings.Contains(err.Error(), "repeat") {
		t.Errorf("repeat: 0: %v", err)
	}
}

// A suite file's problems in the cells (a workload's bad distribution) are
// found when the matrix expands, naming the workload and the field.
func TestCellsInvalidWorkload(t *testing.T) {
	f, err := Parse([]byte("targets: [{url: embedded}]\nworkloads: [{preset: ycsb-a, distribution: pareto}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Cells()
	if err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), `workload 1 (ycsb-a): distribution "pareto" is unknown`) {
		t.Errorf("error %v", err)
	}
}

// The suite file parser never panics, its errors are one-line user errors,
// and a file it accepts names its axes.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"targets: [{url: embedded}]\nworkloads: [ycsb-a]\n",
		"duration: 5s\nconcurrency: 3\nrate: 2k\nseed: 7\nload: false\nrecords: [1k, 2M]\ntargets:\n  - {url: \"null\", opts: {a: b}}\nworkloads:\n  - ds-100r\n  - {name: w, preset: ycsb-a, mix: \"read=1,update=9\"}\n",
		"targets: [{url: embedded}]\nworkloads: [ycsb-a]\nrecords: [10q]\n", "- a\n", "", "workloads:\n  - {preset: ycsb-a, mix: read=1,update=9}\n",
		"field_length: 4KiB\nfield_count: 1k\nops: 1.5M\n",
		"repeat: 5\ntargets: [{url: embedded}]\nworkloads: [ycsb-a]\n", "repeat: 0\n", "repeat: -1\n",
		"scale: 0.001\nduration: 40m\nrate: 250k\nwarmup: 75s\ntargets: [{url: embedded}]\nworkloads: [ycsb-a]\n", "scale: 0\n", "scale: .inf\n", "events: [\"1s:exec:true\", \"x\"]\ntargets: [{url: embedded}]\nworkloads: [ycsb-a]\n", "scale: 1e-300\nops: 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			if !usererr.Is(err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %q: want a one-line user error", err)
			}
			return
		}
		if len(file.Targets) == 0 || len(file.Workloads) == 0 {
			t.Fatalf("accepted a suite without axes: %+v", file)
		}
		for _, w := range file.Workloads {
			if w.File != "" {
				return // the expansion would read files named by the input
			}
		}
		// The expansion (scale included) never panics; its errors are one line.
		if _, err := file.Cells(); err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("cells error %q: want one line", err)
		}
	})
}

// A suite's rate may be a profile or a list of per-operation streams, as
// --rate; an operation a cell's workload lacks is refused with its name.
func TestSuiteRateProfilesAndStreams(t *testing.T) {
	f, err := Parse([]byte(`
duration: 5s
rate: ["read=ramp(100, 300, 2s)", update=50]  # quoted: YAML splits a flow list at commas
targets: [{url: "null"}]
workloads: [ycsb-a]
`))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil {
		t.Fatal(err)
	}
	rc := cells[0].Config.Runner
	if rc.Rate != 0 || len(rc.Streams) != 2 || !rc.Streams[0].HasOp || rc.Streams[1].String() != "update=50" || !rc.Open() {
		t.Fatalf("runner %+v", rc)
	}
	f, err = Parse([]byte("duration: 5s\nrate: sacn=1k\ntargets: [{url: \"null\"}]\nworkloads: [ycsb-a]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Cells(); err == nil || !strings.Contains(err.Error(), `"sacn" is not an operation of workload ycsb-a`) {
		t.Errorf("an operation the workload lacks: %v", err)
	}
	if _, err := Parse([]byte("rate: {a: 1}\ntargets: [{url: \"null\"}]\nworkloads: [ycsb-a]\n")); err == nil || !strings.Contains(err.Error(), "rate is a rate, a profile or a list") {
		t.Errorf("a map as rate: %v", err)
	}
}
