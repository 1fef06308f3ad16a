package analysis

import (
	"slices"
	"strings"
)

// DefaultRegressionFigures are the figures Regressions judges when none is named.
var DefaultRegressionFigures = []string{"sustained", "p99"}

// RegressionName is how a row is named for Regressions: "sustained", a
// latency statistic of all ops ("p99", "p99.9", "mean"...), or one op
// type's ("read.p99"); "" for rows it cannot judge.
func RegressionName(row GroupRow) string {
	switch {
	case row.Figure == FigSustained:
		return "sustained"
	case row.Figure == FigLatency && row.Op == "":
		return row.Stat
	case row.Figure == FigLatency:
		return strings.ToLower(row.Op) + "." + row.Stat
	}
	return ""
}

// RegressionFigureOK reports whether name is a figure Regressions can judge
// (ops lists the op types present, lower case).
func RegressionFigureOK(name string, ops []string) bool {
	if name == "sustained" {
		return true
	}
	op, stat, ok := strings.Cut(name, ".")
	if ok && slices.Contains(LatencyStats[:], stat) {
		return slices.Contains(ops, op)
	}
	return slices.Contains(LatencyStats[:], name)
}
