package analysis

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// Threshold is one pass/fail rule on a figure of a run, parsed from an
// expression such as "p99<10ms", "read.p99.9<50ms", "errors<0.1%",
// "sustained>40k", "stalls==0" or "lag.p99<1ms" (ParseThreshold).
type Threshold struct {
	Expr   string // as typed
	Op     string // op type ("read"); "" for all ops
	Figure string // canonical figure name (see thresholdFigures)
	Cmp    string // <, <=, >, >=, == or !=
	// Limit is in Unit: result.UnitNs, UnitOpsPerS, UnitFraction or UnitCount.
	Limit float64
	Unit  string
}

// figureDef is one figure a threshold can name.
type figureDef struct {
	name    string
	aliases []string
	kind    string // "duration", "rate", "count", "percent", "count-or-percent"
	perOp   bool   // may be prefixed by an op type
}

// latencyStatNames are the statistics of latency figures, with aliases.
var latencyStatNames = []struct {
	name    string
	aliases []string
}{
	{"min", nil}, {"mean", []string{"avg"}}, {"p50", []string{"median"}}, {"p90", nil},
	{"p95", nil}, {"p99", nil}, {"p99.9", []string{"p999"}}, {"max", nil},
}

// thresholdFigures are the figures a threshold may name. Latency
// statistics come three ways: from the intended start (plain), service time
// (service.p99), and lag (lag.p99): the schedule lag, from the intended start
// to the send, the time an open-loop operation waited behind the schedule
// (whole phase; latency minus service time for files that do not keep it),
// and attributable (attributable.p99): the server-attributable latency of an
// open-loop run, latency less the client's own lateness (whole phase).
var thresholdFigures = func() []figureDef {
	var out []figureDef
	for _, pre := range []string{"", "service.", "lag.", "attributable."} {
		for _, s := range latencyStatNames {
			d := figureDef{name: pre + s.name, kind: "duration", perOp: true}
			for _, a := range s.aliases {
				d.aliases = append(d.aliases, pre+a)
			}
			out = append(out, d)
		}
	}
	return append(out,
		figureDef{name: "sustained", kind: "rate", perOp: true},
		figureDef{name: "peak", kind: "rate", perOp: true},
		figureDef{name: "errors", kind: "count-or-percent", perOp: true},
		figureDef{name: "stalls", kind: "count"},
		figureDef{name: "stalled", kind: "duration"},
		figureDef{name: "delayed", kind: "count-or-percent"},
		figureDef{name: "cv", kind: "percent"},
	)
}()

var cmps = []string{"<=", ">=", "==", "!=", "<", ">"}

// thresholdField is the config field every threshold error names.
const thresholdField = "threshold"

// ParseThreshold parses "[op.]figure OP value". The value follows package
// units: a duration with its unit for latencies (10ms), a rate for
// throughput (40k), a count (0), or a percentage (0.1%). A malformed
// expression is a usererr naming the expression and the fix.
func ParseThreshold(expr string) (Threshold, error) {
	s := strings.TrimSpace(expr)
	bad := func(format string, a ...any) (Threshold, error) {
		return Threshold{}, usererr.Field(thresholdField, "%q: %s", expr, fmt.Sprintf(format, a...))
	}
	i := strings.IndexAny(s, "<>=!")
	if i < 0 {
		return bad("no comparison (fix: FIGURE OP VALUE with OP one of < <= > >= == !=, e.g. p99<10ms)")
	}
	t := Threshold{Expr: s}
	for _, c := range cmps {
		if strings.HasPrefix(s[i:], c) {
			t.Cmp = c
			break
		}
	}
	if t.Cmp == "" {
		return bad("%q is not a comparison (fix: one of < <= > >= == !=)", s[i:i+1])
	}
	lhs, rhs := strings.ToLower(strings.TrimSpace(s[:i])), strings.TrimSpace(s[i+len(t.Cmp):])
	if strings.ContainsAny(rhs, "<>=!") {
		return bad("more than one comparison (fix: one rule per threshold)")
	}
	d, op, ok := resolveFigure(lhs)
	if !ok {
		return bad("unknown figure %q (fix: [op.]FIGURE with FIGURE a latency min, mean, p50, p90, p95, p99, p99.9 or max, optionally service., lag. or attributable.; or sustained, peak, errors, stalls, stalled, delayed or cv)", lhs)
	}
	if op != "" && !d.perOp {
		return bad("%s is a figure of the whole run, not of one op type (fix: %s%s%s)", d.name, d.name, t.Cmp, rhs)
	}
	// Op types are upper case in results (READ, UPDATE).
	t.Op, t.Figure = strings.ToUpper(op), d.name
	var err error
	if t.Limit, t.Unit, err = thresholdValue(d, rhs); err != nil {
		return bad("%v", err)
	}
	return t, nil
}

// resolveFigure splits lhs into an op type and a figure: "read.p99.9" is
// op read, figure p99.9.
func resolveFigure(lhs string) (figureDef, string, bool) {
	var best figureDef
	bestOp, bestLen := "", -1
	for _, d := range thresholdFigures {
		for _, n := range append([]string{d.name}, d.aliases...) {
			switch {
			case lhs == n && len(n) > bestLen:
				best, bestOp, bestLen = d, "", len(n)
			case strings.HasSuffix(lhs, "."+n) && len(n) > bestLen:
				op := lhs[:len(lhs)-len(n)-1]
				if validOpName(op) {
					best, bestOp, bestLen = d, op, len(n)
				}
			}
		}
	}
	return best, bestOp, bestLen >= 0
}

func validOpName(op string) bool {
	if op == "" {
		return false
	}
	for _, r := range op {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' && r != '-' {
			return false
		}
	}
	return true
}

// thresholdValue parses a threshold's value for figure d.
func thresholdValue(d figureDef, v string) (float64, string, error) {
	if v == "" {
		return 0, "", fmt.Errorf("no value after the comparison (fix: e.g. %s)", example(d))
	}
	switch d.kind {
	case "duration":
		last := v[len(v)-1]
		if last >= '0' && last <= '9' || last == '.' {
			return 0, "", fmt.Errorf("%q has no unit (fix: e.g. %s)", v, example(d))
		}
		x, err := units.ParseDuration(v)
		return float64(x.Nanoseconds()), result.UnitNs, err
	case "rate":
		x, err := units.ParseRate(v)
		return x, result.UnitOpsPerS, err
	case "count":
		x, err := units.ParseCount(v)
		return float64(x), result.UnitCount, err
	case "percent":
		x, err := units.ParsePercent(v)
		return x, result.UnitFraction, err
	}
	if strings.HasSuffix(v, "%") {
		x, err := units.ParsePercent(v)
		return x, result.UnitFraction, err
	}
	x, err := units.ParseCount(v)
	if err != nil {
		return 0, "", fmt.Errorf("%q is neither a count nor a percentage (fix: e.g. %s)", v, example(d))
	}
	return float64(x), result.UnitCount, nil
}

// example is a well-formed expression for figure d.
func example(d figureDef) string {
	return d.name + map[string]string{"duration": "<10ms", "rate": ">40k", "count": "==0", "percent": "<5%", "count-or-percent": "<0.1%"}[d.kind]
}

// ParseThresholds parses every expression and reports every malformed one at once.
func ParseThresholds(exprs []string) ([]Threshold, error) {
	var l usererr.List
	var out []Threshold
	for _, e := range exprs {
		t, err := ParseThreshold(e)
		if err != nil {
			l = append(l, err.(*usererr.Error))
			continue
		}
		out = append(out, t)
	}
	return out, l.Err()
}

// CheckThresholdOps refuses thresholds on op types the run will not do: ops
// are the workload's op types.
func CheckThresholdOps(ths []Threshold, ops []string) error {
	var l usererr.List
	for _, t := range ths {
		if t.Op != "" && !slices.ContainsFunc(ops, func(o string) bool { return strings.EqualFold(o, t.Op) }) {
			l.Add(thresholdField, "%q: the workload has no %s operations (fix: one of %s, or no prefix for all ops)", t.Expr, t.Op, strings.Join(ops, ", "))
		}
	}
	return l.Err()
}

// Holds reports whether v meets the threshold's comparison.
func (t *Threshold) Holds(v float64) bool {
	switch t.Cmp {
	case "<":
		return v < t.Limit
	case "<=":
		return v <= t.Limit
	case ">":
		return v > t.Limit
	case ">=":
		return v >= t.Limit
	case "==":
		return v == t.Limit
	}
	return v != t.Limit
}
