package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Metric is one figure of a run that a history follows over time: a
// figure a --threshold can name (sustained, p99, read.p99, lag.p99,
// errors...), or cost, the steady window's US dollars per million
// operations.
type Metric struct {
	Name   string `json:"name"`         // canonical: "read.p99", "sustained", "cost"
	Op     string `json:"op,omitempty"` // op type (upper case); "" for all ops
	Figure string `json:"figure"`       // "p99", "lag.p99", "sustained", "errors", "cost"...
	// Unit is one of result's Unit* constants, or UnitUSDPerMillionOps.
	Unit string `json:"unit"`
	// HigherIsBetter is true for throughput: a fall is the regression.
	HigherIsBetter bool `json:"higher_is_better"`
}

// UnitUSDPerMillionOps is the unit of the cost metric.
const UnitUSDPerMillionOps = "usd_per_million_ops"

// DefaultHistoryMetrics are the figures `platbench history` follows unless
// told: *.p99 is the p99 of each op type.
const DefaultHistoryMetrics = "sustained,p99,*.p99,lag.p99,errors,cost"

// AnyOp is the Op of a metric that stands for one metric per op type
// ("*.p99"); ExpandMetrics replaces it.
const AnyOp = "*"

// historyField is the config field every metric-selection error names.
const historyField = "history.figures"

// ParseMetrics parses a comma-separated selection of figures, each
// [op.]figure as in a threshold without its comparison ("sustained,
// read.p99, lag.p99.9, errors, cost"), or *.figure for each op type
// (ExpandMetrics). Duplicates are dropped; an empty or unknown name is a
// usererr naming it and the fix.
func ParseMetrics(s string) ([]Metric, error) {
	var out []Metric
	var l usererr.List
	for _, part := range strings.Split(s, ",") {
		name := strings.ToLower(strings.TrimSpace(part))
		m, err := parseMetric(name)
		if err != nil {
			l.Add(historyField, "%q: %v", part, err)
			continue
		}
		if !slices.ContainsFunc(out, func(o Metric) bool { return o.Name == m.Name }) {
			out = append(out, m)
		}
	}
	return out, l.Err()
}

func parseMetric(name string) (Metric, error) {
	if name == "" {
		return Metric{}, fmt.Errorf("no figure (fix: a comma-separated list such as %s)", DefaultHistoryMetrics)
	}
	if rest, ok := strings.CutPrefix(name, "*."); ok {
		m, err := parseMetric(rest)
		switch {
		case err != nil:
			return Metric{}, err
		case m.Op != "":
			return Metric{}, fmt.Errorf("*. stands for every op type; it takes a figure without one (fix: *.%s)", m.Figure)
		case m.Figure == "cost" || !slices.ContainsFunc(thresholdFigures, func(d figureDef) bool { return d.name == m.Figure && d.perOp }):
			return Metric{}, fmt.Errorf("%s is a figure of the whole run, not of one op type (fix: %s)", m.Figure, m.Figure)
		}
		m.Name, m.Op = "*."+m.Figure, AnyOp
		return m, nil
	}
	if name == "cost" {
		return Metric{Name: "cost", Figure: "cost", Unit: UnitUSDPerMillionOps}, nil
	}
	if op, ok := strings.CutSuffix(name, ".cost"); ok && validOpName(op) {
		return Metric{}, fmt.Errorf("cost is a figure of the whole run, not of one op type (fix: cost)")
	}
	d, op, ok := resolveFigure(name)
	if !ok {
		return Metric{}, fmt.Errorf("unknown figure (fix: [op.]FIGURE or *.FIGURE with FIGURE sustained, peak, errors, a latency min, mean, p50, p90, p95, p99, p99.9 or max, optionally service. or lag.; or stalls, stalled, delayed, cv or cost)")
	}
	if op != "" && !d.perOp {
		return Metric{}, fmt.Errorf("%s is a figure of the whole run, not of one op type (fix: %s)", d.name, d.name)
	}
	m := Metric{Name: d.name, Op: strings.ToUpper(op), Figure: d.name}
	if op != "" {
		m.Name = op + "." + d.name
	}
	switch d.kind {
	case "duration":
		m.Unit = result.UnitNs
	case "rate":
		m.Unit, m.HigherIsBetter = result.UnitOpsPerS, true
	case "count":
		m.Unit = result.UnitCount
	default: // errors, delayed, cv: a share
		m.Unit = result.UnitFraction
	}
	return m, nil
}

// ExpandMetrics replaces each metric of every op type (AnyOp) with one
// metric per op type of ops ("READ", "UPDATE"), named "read.p99"; one
// named already is not repeated.
func ExpandMetrics(ms []Metric, ops []string) []Metric {
	var out []Metric
	add := func(m Metric) {
		if !slices.ContainsFunc(out, func(o Metric) bool { return o.Name == m.Name }) {
			out = append(out, m)
		}
	}
	for _, m := range ms {
		if m.Op != AnyOp {
			add(m)
			continue
		}
		for _, op := range ops {
			e := m
			e.Op, e.Name = strings.ToUpper(op), strings.ToLower(op)+"."+m.Figure
			add(e)
		}
	}
	return out
}

// MetricValues are r's value of each metric, over the steady window of the
// main phase (a sweep's best step), as thresholds see them. ok[i] is false
// when the run did not measure metric i (lag in a closed loop, an op type
// it did not run, cost without a price).
func MetricValues(r *result.Result, ms []Metric) (vals []float64, ok []bool, err error) {
	vals, ok = make([]float64, len(ms)), make([]bool, len(ms))
	var ths []Threshold
	var at []int
	for i, m := range ms {
		if m.Figure == "cost" {
			var f *Figures
			if f, err = FiguresOf(r); err != nil {
				return nil, nil, err
			}
			if c := f.Analysis.Cost; c != nil && c.USDPerMillionOps > 0 {
				vals[i], ok[i] = c.USDPerMillionOps, true
			}
			continue
		}
		ths = append(ths, Threshold{Expr: m.Name, Op: m.Op, Figure: m.Figure, Cmp: "<", Unit: m.Unit})
		at = append(at, i)
	}
	outs, err := Thresholds(r, ths)
	if err != nil {
		return nil, nil, err
	}
	for k, o := range outs {
		vals[at[k]], ok[at[k]] = o.Value, o.Measured
	}
	return vals, ok, nil
}
