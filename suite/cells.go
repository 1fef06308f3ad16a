package suite

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// Cell is one run of the matrix.
type Cell struct {
	Name     string // file-safe: target.workload.records
	Target   string // the target's name
	Workload string // the workload's name
	Records  uint64 // the dataset size it runs with
	// Config is the cell's benchmark, defaults applied and validated.
	Config bench.Config
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

// records is the dataset size axis: 0 stands for the workload's own.
func (f *File) records() []uint64 {
	if len(f.Records) == 0 {
		return []uint64{0}
	}
	out := make([]uint64, len(f.Records))
	for i, r := range f.Records {
		out[i] = scaledCount(uint64(r), f.scale(), MinScaledRecords)
	}
	return out
}

func (f *File) cellNames() []string {
	var out []string
	for _, t := range f.Targets {
		for _, w := range f.Workloads {
			for _, r := range f.records() {
				out = append(out, cellName(t.name(), w.name(), r))
			}
		}
	}
	return out
}

func cellName(t, w string, records uint64) string {
	n := safe(t) + "." + safe(w)
	if records > 0 {
		n += "." + units.Compact(float64(records))
	}
	return n
}

// Cells expands the matrix: targets, then workloads, then dataset sizes.
// Each cell's config is the file's settings over bench's defaults; a cell
// whose config is invalid (a workload's bad distribution, say) is an error
// naming the workload.
func (f *File) Cells() ([]Cell, error) {
	base := f.defaults()
	var cells []Cell
	for _, t := range f.Targets {
		for wi, w := range f.Workloads {
			spec, err := f.spec(w)
			if err != nil {
				return nil, fmt.Errorf("workload %d (%s): %w", wi+1, w.name(), err)
			}
			for _, r := range f.records() {
				c, err := f.cell(base, t, w, spec, r)
				if err != nil {
					return nil, fmt.Errorf("workload %d (%s): %w", wi+1, w.name(), err)
				}
				cells = append(cells, c)
			}
		}
	}
	if err := f.distinctScaled(cells); err != nil {
		return nil, err
	}
	return f.onlyCells(cells)
}

// cell is the cell of target t, workload w (spec) and dataset size r.
func (f *File) cell(base bench.Config, t Target, w Workload, spec workload.Spec, r uint64) (Cell, error) {
	cfg := base
	cfg.Target, cfg.TargetOpts = t.URL, maps.Clone(t.Opts)
	cfg.Workload = spec
	cfg.Workload.Options = maps.Clone(spec.Options)
	cfg.Workload.Mix = slices.Clone(spec.Mix)
	if r > 0 {
		cfg.Workload.Records = r
	}
	if len(w.Rate) > 0 {
		f.workloadRate(&cfg, w.Rate)
	}
	if len(cfg.Runner.Streams) > 0 {
		st := slices.Clone(cfg.Runner.Streams)
		if err := runner.Streams(st).Resolve(&cfg.Workload); err != nil {
			return Cell{}, err
		}
		cfg.Runner.Streams = st
	}
	cfg.EnsureDefaults()
	if r == 0 { // the workload's own dataset size, scaled as the axis is
		cfg.Workload.Records = scaledCount(cfg.Workload.Records, f.scale(), MinScaledRecords)
	}
	if err := cfg.Validate(); err != nil {
		return Cell{}, err
	}
	name := cellName(t.name(), w.name(), r)
	label := t.Label
	if label == "" {
		label = t.name()
	}
	cfg.Label = label + " " + w.name() + " " + units.Compact(float64(cfg.Workload.Records))
	cfg.Extra = map[string]string{"suite": f.Name, "cell": name}
	return Cell{Name: name, Target: t.name(), Workload: w.name(), Records: cfg.Workload.Records, Config: cfg}, nil
}

// spec is workload w with the file's overrides.
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
	if f.FieldCount != nil {
		spec.FieldCount = int(min(*f.FieldCount, 1<<31-1))
	}
	if f.FieldLength != nil {
		spec.FieldLength = int(min(*f.FieldLength, 1<<31-1))
	}
	return spec, nil
}

// safe keeps a name usable in a file name.
func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' {
			return r
		}
		return '-'
	}, s)
}
