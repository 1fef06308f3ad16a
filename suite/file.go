package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/bounded"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// File is a suite file. Every field but targets and workloads is optional;
// a setting left out takes the default of 'platbench run' (package bench).
// Settings that are pointers are so that a 0 written in the file is told
// from one left out: 0 is an error there, not silently the default.
type File struct {
	// Name names the suite (default: the file name without extension).
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	// Out is the output directory, relative to the suite file (default
	// "<name>-results" next to it; the command may override it).
	Out string `yaml:"out"`
	// Duration is each cell's run phase length (default 30 s, unless ops).
	Duration *units.Duration `yaml:"duration"`
	// Ops is each cell's run phase length in operations instead.
	Ops *units.Count `yaml:"ops"`
	// Concurrency is the number of workers (default 16).
	Concurrency *units.Count `yaml:"concurrency"`
	// Rate is a fixed total rate in ops/s (open loop), a rate profile, or a
	// list of OP=RATE streams (runner.Streams, as --rate); 0 or absent:
	// closed loop.
	Rate runner.Streams `yaml:"rate"`
	// Seed is the random seed (default 1).
	Seed *int64 `yaml:"seed"`
	// Warmup is the steady-state rule: auto (default), a duration, or 0.
	Warmup string `yaml:"warmup"`
	// Load runs the load phase in each cell (default true).
	Load *bool `yaml:"load"`
	// FieldCount and FieldLength override the workloads' record shape.
	FieldCount  *units.Count `yaml:"field_count"`
	FieldLength *units.Size  `yaml:"field_length"`
	// Distribution overrides the workloads' key distribution.
	Distribution string `yaml:"distribution"`
	// Records are the dataset sizes (default: each workload's own).
	Records []units.Count `yaml:"records"`
	// Thresholds are pass/fail rules every cell is judged by, as
	// 'platbench run --threshold' takes them: p99<10ms, errors<0.1%.
	Thresholds []string `yaml:"thresholds"`
	// Repeat runs every cell this many times (default 1), in randomized
	// interleaved rounds (Rounds): each round runs every cell once, in a
	// fresh random order drawn from Seed. Each run is written to
	// <cell>.rNN.json with the cell's label, so compare groups them.
	Repeat *units.Count `yaml:"repeat"`
	// Targets and Workloads are the other two axes of the matrix.
	Targets   []Target   `yaml:"targets"`
	Workloads []Workload `yaml:"workloads"`
	// Events are fault events run in every cell's run phase, as 'platbench
	// run --event' takes them: OFFSET:KIND:ARG (60s:exec:nodetool
	// stopdaemon). A study that takes a node down and tests again says it
	// here, in a suite of its own or beside the same suite without them.
	Events []string `yaml:"events"`
	// Scale sizes the whole suite by one factor (default 1): records, ops,
	// duration, a warm-up duration and a fixed rate are multiplied by it
	// (scale.go), so a study written at its published size runs small.
	Scale *float64 `yaml:"scale"`

	dir  string // directory of the file: relative paths start there
	only string // a glob of the cells to run (Only); "" for all
}

// Target is one target axis value.
type Target struct {
	// URL is the target URL or name, as 'platbench run' takes it.
	URL string `yaml:"url"`
	// Name names the target in cell names (default: the URL's scheme).
	Name string `yaml:"name"`
	// Opts are the target's options, key: value.
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
	// Rate is this workload's rate, overriding the file's (as the file's
	// rate is written; scaled as it is): a study that writes at full speed
	// and reads at a fixed client rate says both in one file.
	Rate runner.Streams `yaml:"rate"`
}

// The fields of each map, as unknown-field errors list them.
var (
	fileFields     = yamlFields(File{})
	targetFields   = yamlFields(Target{})
	workloadFields = yamlFields(Workload{})
)

// yamlFields are the yaml names of a struct's fields, in their order: the
// fields an unknown-field error offers are the ones the struct reads.
func yamlFields(v any) []string {
	t := reflect.TypeOf(v)
	var out []string
	for i := range t.NumField() {
		if name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); name != "" && name != "-" {
			out = append(out, name)
		}
	}
	return out
}

// UnmarshalYAML takes a preset name or a map with the fields above only.
func (w *Workload) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		*w = Workload{Preset: n.Value}
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return &lineError{line: n.Line, msg: "a workload is a preset name or a map (fix: - ds-80-20, or - {preset: ycsb-a, mix: \"read=0.8,update=0.2\"})"}
	}
	// node.Decode does not check for unknown fields: do it here.
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if !slices.Contains(workloadFields, k.Value) && strings.Contains(k.Value, "=") {
			return &lineError{line: k.Line, msg: fmt.Sprintf("%q looks like part of a mix: inside {...} a mix with commas must be quoted (fix: mix: \"read=0.8,update=0.2\")", k.Value)}
		}
		if !slices.Contains(workloadFields, k.Value) {
			return &lineError{line: k.Line, msg: fmt.Sprintf("unknown field %q in a workload (fix: use %s)", k.Value, strings.Join(workloadFields, ", "))}
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

// lineError is a problem at a line of the file.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// yaml.v3 reports unknown fields as "line N: field X not found in type T".
var unknownField = regexp.MustCompile(`line (\d+): field (\S+) not found in type suite\.(\w+)`)

// MaxFileBytes bounds a suite file: a suite is a few KB of YAML (the
// largest example, a few hundred lines); past this one is refused before
// it is read, and a FIFO or device that never ends is read no further.
const MaxFileBytes = 4 << 20

// Load reads and checks a suite file.
func Load(path string) (*File, error) {
	data, err := bounded.ReadUpTo(path, MaxFileBytes)
	if err != nil {
		return nil, usererr.New("%v (fix: the path of a suite YAML file, which is a few KB)", err)
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

// Parse decodes a suite strictly (unknown fields are errors) and validates
// it. Every error is a usererr.Error on one line.
func Parse(data []byte) (*File, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, decodeError(data, err)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	}
	return &f, nil
}

// decodeError turns a decoding error into one line that names the line of
// the file and the fix.
func decodeError(data []byte, err error) error {
	if errors.Is(err, io.EOF) {
		return usererr.New("the suite file is empty (fix: see examples/suites/datastax-ratios.yaml)")
	}
	var le *lineError
	if errors.As(err, &le) {
		return usererr.New("%s", le.Error())
	}
	var ue *units.Error
	if errors.As(err, &ue) {
		// The units grammar does not know where the value was: find it.
		line, key := locate(data, ue.Input)
		return usererr.New("line %d: %s %v", line, key, ue)
	}
	msg := err.Error()
	if m := unknownField.FindStringSubmatch(msg); m != nil {
		known := map[string][]string{"File": fileFields, "Target": targetFields}[m[3]]
		if known == nil {
			known = workloadFields
		}
		return usererr.New("line %s: unknown field %q (fix: remove it or use one of %s)", m[1], m[2], strings.Join(known, ", "))
	}
	return usererr.New("not a valid suite: %s (fix: see examples/suites/datastax-ratios.yaml)", oneLine(strings.TrimPrefix(msg, "yaml: ")))
}

// locate finds the first scalar value equal to v in the YAML data: its line
// and the key it belongs to.
func locate(data []byte, v string) (int, string) {
	var doc yaml.Node
	if yaml.Unmarshal(data, &doc) != nil {
		return 0, ""
	}
	var find func(n *yaml.Node, key string) (int, string)
	find = func(n *yaml.Node, key string) (int, string) {
		if n.Kind == yaml.ScalarNode && n.Value == v {
			return n.Line, key
		}
		for i, c := range n.Content {
			k := key
			if n.Kind == yaml.MappingNode && i%2 == 1 {
				k = n.Content[i-1].Value
			}
			if line, at := find(c, k); line > 0 {
				return line, at
			}
		}
		return 0, ""
	}
	return find(&doc, "")
}

// Validate reports every problem of f at once, each naming its field (a
// key of the file).
func (f *File) Validate() error {
	var l usererr.List
	if len(f.Targets) == 0 {
		l.Add("targets", "are missing (fix: targets: [{url: embedded}])")
	}
	if len(f.Workloads) == 0 {
		l.Add("workloads", "are missing (fix: workloads: [ds-100w, ds-80-20])")
	}
	for i, t := range f.Targets {
		if strings.TrimSpace(t.URL) == "" {
			l.Addf("target %d has no url (fix: url: embedded, or a server URL; quote names YAML reads as null: url: \"null\")", i+1)
		}
	}
	for i, w := range f.Workloads {
		if (w.Preset == "") == (w.File == "") {
			l.Addf("workload %d needs exactly one of preset and file (fix: preset: ycsb-a)", i+1)
		}
	}
	if (&analysis.Options{Warmup: f.Warmup}).Validate() != nil {
		l.Add("warmup", "%q is not auto, 0 or a duration (fix: auto, a duration such as 75s, or 0)", f.Warmup)
	}
	if f.Duration != nil && f.Ops != nil {
		l.Add("duration", "and ops exclude each other (fix: one of them)")
	}
	for _, z := range []struct {
		field string
		zero  bool
		fix   string
	}{
		{"duration", f.Duration != nil && *f.Duration == 0, "a positive duration such as 60s"},
		{"ops", f.Ops != nil && *f.Ops == 0, "a number of operations such as 1M"},
		{"concurrency", f.Concurrency != nil && *f.Concurrency == 0, "1 or more workers"},
		{"field_count", f.FieldCount != nil && *f.FieldCount == 0, "1 or more fields"},
		{"field_length", f.FieldLength != nil && *f.FieldLength == 0, "1 or more bytes per field"},
		{"records", slices.Contains(f.Records, 0), "dataset sizes such as 100k"},
		{"repeat", f.Repeat != nil && *f.Repeat == 0, "1 or more runs of each cell, such as 5"},
	} {
		if z.zero {
			l.Add(z.field, "is 0 (fix: %s, or leave it out for the default)", z.fix)
		}
	}
	if f.Scale != nil {
		if msg := validScale(*f.Scale); msg != "" {
			l.Add("scale", "%s", msg)
		}
	}
	for _, e := range f.Events {
		if _, err := runner.ParseEvent(e); err != nil {
			l.Add("events", "%s (fix: OFFSET:KIND:ARG, e.g. 60s:exec:nodetool stopdaemon)", oneLine(err.Error()))
		}
	}
	for _, th := range f.Thresholds {
		if _, err := analysis.ParseThreshold(th); err != nil {
			l.Add("thresholds", "%s", err.(*usererr.Error).Msg)
		}
	}
	// Cell names must be unique: they name the result files.
	seen := map[string]bool{}
	for _, c := range f.cellNames() {
		if seen[c] {
			l.Addf("two cells are named %q (fix: give targets or workloads distinct names)", c)
		}
		seen[c] = true
	}
	return l.Err()
}

// repeats is how many runs of each cell the file asks for (default 1).
func (f *File) repeats() int {
	if f.Repeat == nil {
		return 1
	}
	return int(*f.Repeat)
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

// defaults is the bench.Config every cell starts from: the file's common
// settings over bench's defaults.
func (f *File) defaults() bench.Config {
	c := bench.Config{Run: true, Load: f.Load == nil || *f.Load, Warmup: f.Warmup}
	if r, ok := f.Rate.Rate(); ok {
		c.Runner.Rate = r
	} else {
		c.Runner.Streams = f.Rate // resolved against each cell's workload (cell)
	}
	c.Runner.Seed = bench.DefaultSeed
	if f.Seed != nil {
		c.Runner.Seed = *f.Seed
	}
	if f.Duration != nil {
		c.Runner.Duration = time.Duration(*f.Duration)
	}
	if f.Ops != nil {
		c.Runner.Ops = uint64(*f.Ops)
	}
	if f.Concurrency != nil {
		c.Runner.Concurrency = int(*f.Concurrency)
	}
	for _, e := range f.Events {
		if ev, err := runner.ParseEvent(e); err == nil { // Validate refused the others
			c.Runner.Events = append(c.Runner.Events, ev)
		}
	}
	f.scaleConfig(&c)
	return c
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
