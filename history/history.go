// Package history builds the series of runs' figures over time and finds
// the change points in them (analysis.ChangePoints, Apache Otava's
// method): `platbench history`. Runs come from result files and from a
// store (package store/postgres); package report renders a History.
package history

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Run is one run's figures, from a result file or a store row.
type Run struct {
	Time     time.Time
	Workload string
	Target   string
	Label    string
	// Commit is the version measured (run --commit); consecutive runs of
	// one commit are one point of a series. "" for none.
	Commit string
	// Source is the result file the run was read from (or the store row's
	// result file path, when it has one).
	Source string
	// Values are the run's figures by metric name; a metric the run did not
	// measure is absent.
	Values map[string]float64
	// Ops are the run's op types (for metrics of every op type, "*.p99").
	Ops []string
}

// Options choose the figures and the detector's settings.
type Options struct {
	Metrics      []analysis.Metric
	ChangePoints analysis.ChangePointOptions
}

// Point is one run in a series, or the runs of one commit: then Value is
// their centre (analysis.CentreInterval: the geometric mean; the
// arithmetic mean when a run's value is 0), Low and High its 95% interval
// (with two runs or more) and Runs how many.
type Point struct {
	Time   time.Time `json:"time"`
	Value  float64   `json:"value"`
	Source string    `json:"source,omitempty"`
	Commit string    `json:"commit,omitempty"`
	Runs   int       `json:"runs,omitempty"`
	Low    float64   `json:"low,omitempty"`
	High   float64   `json:"high,omitempty"`

	values []float64 // the runs' values, while the series is built
}

// centreOf is the centre of a commit's runs' values and its 95% interval
// (analysis.CentreInterval); values that include a 0 (no errors) take the
// arithmetic mean, with no interval.
func centreOf(vs []float64) (c, lo, hi float64) {
	if c, lo, hi, ok := analysis.CentreInterval(vs); ok {
		return c, lo, hi
	}
	for _, v := range vs {
		c += v / float64(len(vs))
	}
	return c, 0, 0
}

// Change is a change point of a series: the first run after the change.
type Change struct {
	analysis.ChangePoint
	Time   time.Time `json:"time"`
	Source string    `json:"source,omitempty"`
	// Regression is true when the figure got worse (throughput fell;
	// latency, errors or cost rose).
	Regression bool `json:"regression"`
}

// Series is one figure of one group of runs over time.
type Series struct {
	Workload string          `json:"workload"`
	Target   string          `json:"target"`
	Label    string          `json:"label"`
	Metric   analysis.Metric `json:"metric"`
	Points   []Point         `json:"points"`
	Changes  []Change        `json:"changes"`
}

// History is every series of the runs read, in group then metric order.
type History struct {
	Runs   int      `json:"runs"`
	Series []Series `json:"series"`
	// Skipped are files in the directories given that are not platbench
	// results (comparisons, suite summaries), with why.
	Skipped []string `json:"skipped,omitempty"`
	Options struct {
		Window       int     `json:"window"`
		MaxPValue    float64 `json:"max_pvalue"`
		MinMagnitude float64 `json:"min_magnitude"`
	} `json:"options"`
}

// ReadFiles reads the runs of result files and of directories (every
// *.json file under them; files there that are not platbench results are
// listed in skipped). A path that does not exist, or a file given by name
// that is not a result, is a usererr.
func ReadFiles(paths []string, ms []analysis.Metric) (runs []Run, skipped []string, err error) {
	skipped, err = Results(paths, func(path string, r *result.Result) error {
		run, err := RunOf(r, ms)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		run.Source = path
		runs = append(runs, run)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return runs, skipped, nil
}

// Results calls each with every result of result files and of
// directories (every *.json file under them), in order, one at a time (a
// history may be more than memory holds at once). Files in the
// directories that are not platbench results, or that each refuses with
// an error wrapping result.ErrMalformed, are listed in skipped. A path
// that does not exist, or a file given by name that is not a result, is a
// usererr.
func Results(paths []string, each func(path string, r *result.Result) error) (skipped []string, err error) {
	read := func(path string) error {
		r, err := result.Read(path)
		if err != nil {
			return err
		}
		return each(path, r)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, usererr.New("%s: %v (fix: result files, or directories that hold them)", p, err)
		}
		if !st.IsDir() {
			if err := read(p); err != nil {
				return nil, err
			}
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(d.Name(), ".json") {
				return err
			}
			err = read(path)
			if errors.Is(err, result.ErrMalformed) {
				skipped = append(skipped, fmt.Sprintf("%s: %v", path, err))
				return nil
			}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

// RunOf is r's figures for metrics ms (a metric of every op type is
// expanded to r's op types).
func RunOf(r *result.Result, ms []analysis.Metric) (Run, error) {
	run := Run{Time: r.StartedAt, Workload: r.Config.Workload.Name, Target: r.Config.Target, Label: r.Label, Commit: r.Commit,
		Values: map[string]float64{}}
	if p := r.MainPhase(); p != nil {
		for _, o := range p.Ops {
			run.Ops = append(run.Ops, o.Op)
		}
	}
	ms = analysis.ExpandMetrics(ms, run.Ops)
	vals, ok, err := analysis.MetricValues(r, ms)
	if err != nil {
		return Run{}, err
	}
	for i, m := range ms {
		if ok[i] {
			run.Values[m.Name] = vals[i]
		}
	}
	return run, nil
}

// Build groups runs by workload, target and label, orders each group by
// time (the same run read twice, from a file and from a store, counts
// once), and finds the change points of every metric's series. A series
// with no measured value is left out.
func Build(runs []Run, o Options) *History {
	h := &History{}
	cpo := o.ChangePoints
	if cpo.Window < 2 {
		cpo.Window = analysis.DefaultChangePointOptions.Window
	}
	if cpo.MaxPValue <= 0 {
		cpo.MaxPValue = analysis.DefaultChangePointOptions.MaxPValue
	}
	h.Options.Window, h.Options.MaxPValue, h.Options.MinMagnitude = cpo.Window, cpo.MaxPValue, cpo.MinMagnitude
	runs = slices.Clone(runs)
	slices.SortStableFunc(runs, func(a, b Run) int {
		return cmp.Or(cmp.Compare(a.Workload, b.Workload), cmp.Compare(a.Target, b.Target), cmp.Compare(a.Label, b.Label),
			a.Time.Compare(b.Time), cmp.Compare(a.Source, b.Source))
	})
	runs = dedup(runs)
	h.Runs = len(runs)
	for len(runs) > 0 {
		n := 1
		for n < len(runs) && runs[n].Workload == runs[0].Workload && runs[n].Target == runs[0].Target && runs[n].Label == runs[0].Label {
			n++
		}
		var ops []string
		for _, r := range runs[:n] {
			for _, op := range r.Ops {
				if !slices.Contains(ops, op) {
					ops = append(ops, op)
				}
			}
		}
		for _, m := range analysis.ExpandMetrics(o.Metrics, ops) {
			if s := seriesOf(runs[:n], m, cpo); len(s.Points) > 0 {
				h.Series = append(h.Series, s)
			}
		}
		runs = runs[n:]
	}
	return h
}

// dedup merges the runs that are one run read twice (a result file and a
// store's rows): the same group and start time to the microsecond, which
// is what PostgreSQL keeps. runs are sorted; the values are united.
func dedup(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if n := len(out); n > 0 {
			p := &out[n-1]
			if p.Workload == r.Workload && p.Target == r.Target && p.Label == r.Label &&
				p.Time.Truncate(time.Microsecond).Equal(r.Time.Truncate(time.Microsecond)) {
				vals := maps.Clone(r.Values)
				maps.Copy(vals, p.Values)
				p.Values = vals
				for _, op := range r.Ops {
					if !slices.Contains(p.Ops, op) {
						p.Ops = append(slices.Clip(p.Ops), op)
					}
				}
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func seriesOf(runs []Run, m analysis.Metric, o analysis.ChangePointOptions) Series {
	s := Series{Workload: runs[0].Workload, Target: runs[0].Target, Label: runs[0].Label, Metric: m,
		Points: []Point{}, Changes: []Change{}}
	var xs []float64
	for _, r := range runs {
		v, ok := r.Values[m.Name]
		if !ok {
			continue
		}
		// A run of the commit of the point before joins it: the runs of
		// one commit are one group, their centre one point.
		if n := len(s.Points); n > 0 && r.Commit != "" && s.Points[n-1].Commit == r.Commit {
			p := &s.Points[n-1]
			p.Runs++
			p.values = append(p.values, v)
			p.Value, p.Low, p.High = centreOf(p.values)
			xs[n-1] = p.Value
			continue
		}
		s.Points = append(s.Points, Point{Time: r.Time, Value: v, Source: r.Source, Commit: r.Commit, Runs: 1, values: []float64{v}})
		xs = append(xs, v)
	}
	for _, c := range analysis.ChangePoints(xs, o) {
		p := s.Points[c.Index]
		up := c.MeanAfter > c.MeanBefore
		s.Changes = append(s.Changes, Change{ChangePoint: c, Time: p.Time, Source: p.Source, Regression: up != m.HigherIsBetter})
	}
	return s
}
