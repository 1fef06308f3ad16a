package disk

import "github.com/platbench/platbench/result"

// Analyze fills the derived analysis of a probe result.
// TODO(issue 8): call package analysis once it lands.
func Analyze(r *result.Result) {}

func regulationLines(r *result.Result) []string { return nil }
