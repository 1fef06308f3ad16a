// Package suite runs a matrix of benchmarks described in a YAML file:
// workloads (presets, files or mixes) x dataset sizes x targets, with common
// run settings, as the DataStax study ran five read/write ratios on several
// dataset sizes and storage types. Each cell is one ordinary run (load, then
// run, then analysis) written to its own result file; a summary table (cell,
// sustained ops/s, p99 per op, errors) comes out as text and Markdown.
//
// The file is strict: an unknown field is an error naming it and the line.
// Types that matter: File (Load, Parse), Cell (File.Cells), Run, Summary.
// The package prints nothing; Run reports each finished cell through OnCell.
package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// File is a suite file. Every field but targets and workloads is optional.
type File struct {
	// Name names the suite (default: the file name without extension).
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Out is the output directory, relative to the suite file (default
	// "<name>-results" next to it; the command's --out overrides it).
	Out string `yaml:"out"`
	// Common run settings of every cell (the run command's flags).
	Duration    string `yaml:"duration"`    // run phase length per cell, default 30s
	Ops         Count  `yaml:"ops"`         // run phase length in ops instead of a duration
	Concurrency int    `yaml:"concurrency"` // workers, default 16
	Rate        Rate   `yaml:"rate"`        // fixed rate in ops/s (open loop); 0 closed loop
	Seed        *int64 `yaml:"seed"`        // default 1
	Warmup      string `yaml:"warmup"`      // auto (default), a duration, or 0
	Load        *bool  `yaml:"load"`        // run the load phase in each cell, default true
	FieldCount  int    `yaml:"field_count"` // overrides the workloads'
	FieldLength int    `yaml:"field_length"`
	// Distribution overrides the workloads' key distribution.
	Distribution string `yaml:"distribution"`
	// Records are the dataset sizes (default: each workload's own).
	Records []Count `yaml:"records"`
	// Targets and Workloads are the other two axes of the matrix.
	Targets   []Target   `yaml:"targets"`
	Workloads []Workload `yaml:"workloads"`

	dir string // directory of the file: relative paths start there
}

// Target is one target axis value.
type Target struct {
	// URL is the target URL or name, as --target takes it.
	URL string `yaml:"url"`
	// Name names the target in cell names (default: the URL's scheme).
	Name string `yaml:"name"`
	// Opts are --target-opt key=value options.
	Opts map[string]string `yaml:"opts"`
	// Label is the label of its results in comparisons (default: Name).
	Label string `yaml:"label"`
}

// Workload is one workload axis value: a preset name, a workload file, or
// either with a mix (ratios) of its own. Written as a preset name alone
// ("ds-80-20") or as a map.
type Workload struct {
	Name         string           `yaml:"name"`   // in cell names; default the preset or file name
	Preset       string           `yaml:"preset"` // a preset (see 'platbench workloads')
	File         string           `yaml:"file"`   // or a workload YAML file, relative to the suite file
	Mix          workload.MixList `yaml:"mix"`    // overrides the mix: read=0.8,update=0.2
	Distribution string           `yaml:"distribution"`
}

var workloadFields = []string{"name", "preset", "file", "mix", "distribution"}

// UnmarshalYAML takes a preset name or a map with the fields above only.
func (w *Workload) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*w = Workload{Preset: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &fieldError{line: n.Line, msg: "a workload is a preset name or a map (fix: - ds-80-20, or - {preset: ycsb-a, mix: \"read=0.8,update=0.2\"})"}
	}
	// node.Decode does not check for unknown fields: do it here.
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !contains(workloadFields, k.Value) && strings.Contains(k.Value, "=") {
			return &fieldError{line: k.Line, msg: fmt.Sprintf("%q looks like part of a mix: inside {...} a mix with commas must be quoted (fix: mix: \"read=0.8,update=0.2\")", k.Value)}
		}
		if !contains(workloadFields, k.Value) {
			return &fieldError{line: k.Line, msg: fmt.Sprintf("unknown field %q in a workload (fix: use %s)", k.Value, strings.Join(workloadFields, ", "))}
		}
	}
	type plain Workload
	var p plain
	if err := n.Decode(&p); err != nil {
		return err
	}
	*w = Workload(p)
	return nil
}

// Count is a whole number that accepts k, M, G suffixes (100k, 1M).
type Count uint64

// UnmarshalYAML parses 100000, 100k or 1M.
func (c *Count) UnmarshalYAML(n *yaml.Node) error {
	v, err := suffixed(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 || v != math.Trunc(v) {
		return &fieldError{line: n.Line, msg: fmt.Sprintf("%q is not a whole number (fix: e.g. 100000, 100k or 1M)", n.Value)}
	}
	*c = Count(v)
	return nil
}

// Rate is ops/s and accepts k and M suffixes.
type Rate float64

// UnmarshalYAML parses 20000 or 20k.
func (r *Rate) UnmarshalYAML(n *yaml.Node) error {
	v, err := suffixed(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil || v < 0 || math.IsInf(v, 0) {
		return &fieldError{line: n.Line, msg: fmt.Sprintf("rate %q is not a rate in ops/s (fix: e.g. 20000 or 20k; 0 for as fast as possible)", n.Value)}
	}
	*r = Rate(v)
	return nil
}

func suffixed(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty")
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult, s = 1e3, s[:len(s)-1]
	case 'M':
		mult, s = 1e6, s[:len(s)-1]
	case 'G':
		mult, s = 1e9, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return f * mult, err
}

type fieldError struct {
	line int
	msg  string
}

func (e *fieldError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// yaml.v3 reports unknown fields as "line N: field X not found in type T".
var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type suite\.(\w+)`)

// Load reads and checks a suite file.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, usererr.New("cannot read suite %s: %v (fix: the path of a suite YAML file)", path, err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("suite %s: %w", path, err)
	}
	f.dir = filepath.Dir(path)
	if f.Name == "" {
		f.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	return f, nil
}

// Parse decodes a suite strictly (unknown fields are errors) and validates it.
func Parse(data []byte) (*File, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, usererr.New("the suite file is empty (fix: see examples/suites/datastax-ratios.yaml)")
		}
		var fe *fieldError
		if errors.As(err, &fe) {
			return nil, usererr.New("%s", fe.Error())
		}
		msg := err.Error()
		if m := unknownField.FindStringSubmatch(msg); m != nil {
			known := knownFields(m[3])
			return nil, usererr.New("line %s: unknown field %q (fix: remove it or use one of %s)", m[1], m[2], known)
		}
		return nil, usererr.New("not a valid suite: %s (fix: see examples/suites/datastax-ratios.yaml)", oneLine(strings.TrimPrefix(msg, "yaml: ")))
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

func knownFields(typ string) string {
	var names []string
	switch typ {
	case "File":
		names = []string{"name", "description", "out", "duration", "ops", "concurrency", "rate", "seed", "warmup", "load", "field_count", "field_length", "distribution", "records", "targets", "workloads"}
	case "Target":
		names = []string{"url", "name", "opts", "label"}
	default:
		names = workloadFields
	}
	return strings.Join(names, ", ")
}

// Validate reports every problem of f at once.
func (f *File) Validate() error {
	var probs []string
	if len(f.Targets) == 0 {
		probs = append(probs, "no targets (fix: targets: [{url: embedded}])")
	}
	if len(f.Workloads) == 0 {
		probs = append(probs, "no workloads (fix: workloads: [ds-100w, ds-80-20])")
	}
	for i, t := range f.Targets {
		if strings.TrimSpace(t.URL) == "" {
			probs = append(probs, fmt.Sprintf("target %d has no url (fix: url: embedded, or a server URL; quote names YAML reads as null: url: \"null\")", i+1))
		}
	}
	for i, w := range f.Workloads {
		if (w.Preset == "") == (w.File == "") {
			probs = append(probs, fmt.Sprintf("workload %d needs exactly one of preset and file (fix: preset: ycsb-a)", i+1))
		}
	}
	if f.Duration != "" {
		if d, err := time.ParseDuration(f.Duration); err != nil || d <= 0 {
			probs = append(probs, fmt.Sprintf("duration %q is not a positive duration (fix: e.g. 60s)", f.Duration))
		}
	}
	if f.Duration != "" && f.Ops > 0 {
		probs = append(probs, "duration and ops exclude each other (fix: one of them)")
	}
	if f.Concurrency < 0 {
		probs = append(probs, fmt.Sprintf("concurrency %d is negative (fix: workers, e.g. 16)", f.Concurrency))
	}
	if f.FieldCount < 0 || f.FieldLength < 0 {
		probs = append(probs, "field_count and field_length must be positive")
	}
	for _, r := range f.Records {
		if r == 0 {
			probs = append(probs, "records 0 is not a dataset size (fix: e.g. 100k)")
		}
	}
	// Cell names must be unique: they name the result files.
	seen := map[string]bool{}
	for _, c := range f.cellNames() {
		if seen[c] {
			probs = append(probs, fmt.Sprintf("two cells are named %q (fix: give targets or workloads distinct names)", c))
		}
		seen[c] = true
	}
	if len(probs) > 0 {
		return usererr.New("%s", strings.Join(probs, "; "))
	}
	return nil
}

func (t Target) name() string {
	if t.Name != "" {
		return t.Name
	}
	u := t.URL
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[:i]
	} else if i := strings.IndexAny(u, ":/?"); i >= 0 {
		u = u[:i]
	}
	return u
}

func (w Workload) name() string {
	switch {
	case w.Name != "":
		return w.Name
	case w.Preset != "":
		if len(w.Mix) > 0 {
			return w.Preset + "-" + w.Mix.String()
		}
		return w.Preset
	}
	return strings.TrimSuffix(filepath.Base(w.File), filepath.Ext(w.File))
}

// Cell is one run of the matrix.
type Cell struct {
	Name     string // file-safe: target.workload.records
	Target   string // the target's name
	Workload string // the workload's name
	Records  uint64 // 0: the workload's own
	Config   bench.Config
	Warmup   string
}

func (f *File) cellNames() []string {
	var out []string
	for _, t := range f.Targets {
		for _, w := range f.Workloads {
			recs := f.Records
			if len(recs) == 0 {
				recs = []Count{0}
			}
			for _, r := range recs {
				out = append(out, cellName(t.name(), w.name(), uint64(r)))
			}
		}
	}
	return out
}

func cellName(t, w string, records uint64) string {
	n := safe(t) + "." + safe(w)
	if records > 0 {
		n += "." + shortCount(records)
	}
	return n
}

// Cells expands the matrix: targets, then workloads, then dataset sizes.
func (f *File) Cells() ([]Cell, error) {
	rc := runner.Config{Concurrency: f.Concurrency, Rate: float64(f.Rate), Ops: uint64(f.Ops), Seed: 1}
	if f.Seed != nil {
		rc.Seed = *f.Seed
	}
	switch {
	case f.Duration != "":
		rc.Duration, _ = time.ParseDuration(f.Duration)
	case f.Ops == 0:
		rc.Duration = 30 * time.Second
	}
	load := f.Load == nil || *f.Load
	warm := f.Warmup
	if warm == "" {
		warm = "auto"
	}
	var cells []Cell
	for _, t := range f.Targets {
		for wi, w := range f.Workloads {
			base, err := f.spec(w)
			if err != nil {
				return nil, fmt.Errorf("workload %d (%s): %w", wi+1, w.name(), err)
			}
			recs := f.Records
			if len(recs) == 0 {
				recs = []Count{0}
			}
			for _, r := range recs {
				spec := base
				spec.Options = cloneMap(base.Options)
				spec.Mix = append(workload.MixList(nil), base.Mix...)
				if r > 0 {
					spec.Records = uint64(r)
				}
				spec.EnsureDefaults()
				if err := spec.Validate(); err != nil {
					return nil, usererr.New("workload %d (%s): %v", wi+1, w.name(), err)
				}
				label := t.Label
				if label == "" {
					label = t.name()
				}
				name := cellName(t.name(), w.name(), uint64(r))
				cells = append(cells, Cell{
					Name: name, Target: t.name(), Workload: w.name(), Records: spec.Records, Warmup: warm,
					Config: bench.Config{
						Target: t.URL, TargetOpts: cloneMap(t.Opts), Workload: spec, Runner: rc,
						Load: load, Run: true, Shards: 1, Label: label + " " + w.name() + " " + shortCount(spec.Records),
						Warmup: warm, Extra: map[string]string{"suite": f.Name, "cell": name},
					},
				})
			}
		}
	}
	return cells, nil
}

func (f *File) spec(w Workload) (workload.Spec, error) {
	var spec workload.Spec
	var err error
	if w.File != "" {
		p := w.File
		if !filepath.IsAbs(p) && f.dir != "" {
			p = filepath.Join(f.dir, p)
		}
		spec, err = workload.LoadFile(p)
	} else {
		spec, err = workload.Preset(w.Preset)
	}
	if err != nil {
		return spec, err
	}
	if w.Name != "" {
		spec.Name = w.Name
	}
	if len(w.Mix) > 0 {
		spec.Mix = w.Mix
	}
	if f.Distribution != "" {
		spec.Distribution = workload.Dist(f.Distribution)
	}
	if w.Distribution != "" {
		spec.Distribution = workload.Dist(w.Distribution)
	}
	if f.FieldCount > 0 {
		spec.FieldCount = f.FieldCount
	}
	if f.FieldLength > 0 {
		spec.FieldLength = f.FieldLength
	}
	return spec, nil
}

// OutDir is where the results go: the file's out field relative to the
// file, else <name>-results next to it.
func (f *File) OutDir() string {
	o := f.Out
	if o == "" {
		o = safe(f.Name) + "-results"
	}
	if !filepath.IsAbs(o) && f.dir != "" {
		o = filepath.Join(f.dir, o)
	}
	return o
}

// Options are how to run a suite.
type Options struct {
	// OutDir receives one <cell>.json per cell and summary.md (created).
	OutDir string
	// OnCell is called after each cell with its summary row.
	OnCell func(Row)
	// Runner, if set, replaces bench.Run (tests).
	Runner func(ctx context.Context, cfg bench.Config) (*result.Result, error)
	// Configure, if set, may adjust each cell's config before it runs
	// (the CLI sets progress output).
	Configure func(c *Cell)
}

// Row is one cell of the summary.
type Row struct {
	Cell             string           `json:"cell"`
	Target           string           `json:"target"`
	Workload         string           `json:"workload"`
	Records          uint64           `json:"records"`
	File             string           `json:"file,omitempty"`
	SustainedOpsPerS float64          `json:"sustained_ops_per_s"`
	P99Ns            int64            `json:"p99_ns"`
	OpP99Ns          map[string]int64 `json:"op_p99_ns,omitempty"`
	OpOrder          []string         `json:"op_order,omitempty"`
	Ops              uint64           `json:"ops"`
	Errors           uint64           `json:"errors"`
	// Error is why the cell produced no result.
	Error string `json:"error,omitempty"`
	// Interrupted is true when Ctrl-C stopped the cell.
	Interrupted bool `json:"interrupted,omitempty"`
}

// Summary is the suite's outcome.
type Summary struct {
	Name   string `json:"name"`
	OutDir string `json:"out_dir"`
	Rows   []Row  `json:"rows"`
}

// Failed counts the cells without a result.
func (s *Summary) Failed() int {
	n := 0
	for _, r := range s.Rows {
		if r.Error != "" {
			n++
		}
	}
	return n
}

// Run runs every cell in order, writing each result as it finishes and the
// summary (summary.md, and summary.json with the rows) at the end. A cell that fails is recorded and the
// suite goes on; Ctrl-C stops after writing what ran.
func Run(ctx context.Context, f *File, o Options) (*Summary, error) {
	cells, err := f.Cells()
	if err != nil {
		return nil, err
	}
	if o.OutDir == "" {
		o.OutDir = f.OutDir()
	}
	if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot create the output directory %s: %w (fix: another --out)", o.OutDir, err)
	}
	run := o.Runner
	if run == nil {
		run = bench.Run
	}
	s := &Summary{Name: f.Name, OutDir: o.OutDir}
	for i := range cells {
		c := &cells[i]
		if ctx.Err() != nil {
			break
		}
		if o.Configure != nil {
			o.Configure(c)
		}
		row := Row{Cell: c.Name, Target: c.Target, Workload: c.Workload, Records: c.Records}
		r, err := run(ctx, c.Config)
		if err == nil {
			err = finishCell(r, c, o.OutDir, &row)
		}
		if err != nil {
			row.Error = oneLine(err.Error())
		}
		s.Rows = append(s.Rows, row)
		if o.OnCell != nil {
			o.OnCell(row)
		}
	}
	var md bytes.Buffer
	if err := s.WriteMarkdown(&md); err != nil {
		return s, err
	}
	if err := result.WriteFileAtomic(filepath.Join(o.OutDir, "summary.md"), md.Bytes()); err != nil {
		return s, err
	}
	js, err := json.MarshalIndent(s, "", " ")
	if err != nil {
		return s, err
	}
	if err := result.WriteFileAtomic(filepath.Join(o.OutDir, "summary.json"), append(js, '\n')); err != nil {
		return s, err
	}
	return s, nil
}

// finishCell analyses a cell's result, writes it and fills its row.
func finishCell(r *result.Result, c *Cell, dir string, row *Row) error {
	a, err := analysis.Analyze(r, analysis.Options{Warmup: c.Warmup})
	if err != nil {
		return err
	}
	r.Analysis = a
	row.File = c.Name + ".json"
	if err := result.Write(filepath.Join(dir, row.File), r); err != nil {
		return err
	}
	p := r.MainPhase()
	row.Interrupted = p.Interrupted
	row.SustainedOpsPerS = a.Steady.SustainedOpsPerS
	row.Ops, row.Errors = a.Raw.Ops, a.Raw.Errors
	// p99 over the steady window, overall and per op, from merged histograms.
	first := a.SteadyState.WarmupIntervals
	all := result.NewHist()
	for _, t := range p.Ops {
		h := result.NewHist()
		for j := first; j < len(p.Intervals); j++ {
			for _, io := range p.Intervals[j].Ops {
				if io.Op != t.Op || io.Hist == "" {
					continue
				}
				ih, err := result.DecodeHist(io.Hist)
				if err != nil {
					return err
				}
				h.Merge(ih)
			}
		}
		if h.TotalCount() == 0 { // no interval histograms: the phase totals
			th, err := result.DecodeHist(t.Hist)
			if err != nil {
				return err
			}
			h = th
		}
		all.Merge(h)
		if row.OpP99Ns == nil {
			row.OpP99Ns = map[string]int64{}
		}
		row.OpP99Ns[t.Op] = h.ValueAtQuantile(99)
		row.OpOrder = append(row.OpOrder, t.Op)
	}
	row.P99Ns = all.ValueAtQuantile(99)
	return nil
}

// WriteText writes the summary table for a terminal.
func (s *Summary) WriteText(w io.Writer) error {
	rows := s.table()
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Suite %s: %d cells, results in %s\n", s.Name, len(s.Rows), s.OutDir)
	for n, r := range rows {
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 1 || i == 3 { // numbers right-aligned
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		line := strings.TrimRight(b.String(), " ")
		b.Reset()
		b.WriteString(line + "\n")
		if n == 0 {
			total := 0
			for _, x := range width {
				total += x + 2
			}
			b.WriteString(strings.Repeat("-", total-2) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMarkdown writes summary.md's content.
func (s *Summary) WriteMarkdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Suite %s\n\n%d cells. Sustained throughput is over each cell's steady window; p99 is from the merged HDR histograms of that window, overall and per op; errors are over the whole run phase.\n\n", s.Name, len(s.Rows))
	rows := s.table()
	esc := func(c string) string { return strings.ReplaceAll(c, "|", `\|`) }
	for n, r := range rows {
		for i := range r {
			r[i] = esc(r[i])
		}
		fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		if n == 0 {
			b.WriteString("|---|---:|---|---:|---|\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (s *Summary) table() [][]string {
	rows := [][]string{{"cell", "sustained ops/s", "p99 [per op]", "errors", "result"}}
	for _, r := range s.Rows {
		if r.Error != "" {
			rows = append(rows, []string{r.Cell, "", "", "", "FAILED: " + r.Error})
			continue
		}
		file := r.File
		if r.Interrupted {
			file += " (interrupted)"
		}
		rows = append(rows, []string{r.Cell, groupInt(r.SustainedOpsPerS), p99Text(r), groupInt(float64(r.Errors)), file})
	}
	return rows
}

// p99Text is "8.4 ms [READ: 8.6 ms, UPDATE: 2.7 ms]".
func p99Text(r Row) string {
	s := dur(r.P99Ns)
	if len(r.OpOrder) > 0 {
		parts := make([]string, len(r.OpOrder))
		for i, op := range r.OpOrder {
			parts[i] = op + ": " + dur(r.OpP99Ns[op])
		}
		s += " [" + strings.Join(parts, ", ") + "]"
	}
	return s
}

func dur(ns int64) string {
	switch {
	case ns <= 0:
		return "-"
	case ns < 1e3:
		return fmt.Sprintf("%d ns", ns)
	case ns < 1e6:
		return sig(float64(ns)/1e3) + " µs"
	case ns < 1e9:
		return sig(float64(ns)/1e6) + " ms"
	}
	return sig(float64(ns)/1e9) + " s"
}

func sig(v float64) string {
	switch {
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func groupInt(v float64) string {
	s := strconv.FormatInt(int64(math.Round(v)), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func shortCount(n uint64) string {
	switch {
	case n >= 1e9 && n%1e8 == 0:
		return strconv.FormatFloat(float64(n)/1e9, 'f', -1, 64) + "G"
	case n >= 1e6 && n%1e5 == 0:
		return strconv.FormatFloat(float64(n)/1e6, 'f', -1, 64) + "M"
	case n >= 1e3 && n%100 == 0:
		return strconv.FormatFloat(float64(n)/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatUint(n, 10)
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func cloneMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
