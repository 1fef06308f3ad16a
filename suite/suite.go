// Package suite runs a matrix of benchmarks described in a YAML file:
// workloads (presets, files or mixes) x dataset sizes x targets, with common
// run settings, as the DataStax study ran five read/write ratios on several
// dataset sizes and storage types. Each cell is one ordinary run (load, then
// run, then analysis: bench.Benchmark) written to its own result file; Run
// returns the summary (cell, sustained ops/s, p99 per op, errors:
// result/summary's model), which WriteSummary writes as summary.json beside
// the summary.md its caller rendered.
//
// The package is in four parts, one a file:
//   - file.go: the YAML schema (File, Load, Parse, Validate). The file is
//     strict: an unknown field is an error naming it and the line; numbers,
//     sizes, rates and durations are read with the units grammar, as the
//     flags of 'platbench run' are (records: 1M).
//   - cells.go: the matrix expansion (File.Cells) into bench.Configs, whose
//     defaults are bench's.
//   - run.go: running the cells, each through bench.Benchmark, which
//     writes its files (Run), and writing the summary (WriteSummary).
//   - the figures of a cell come from package analysis; the tables are
//     rendered by package report (report.WriteSuiteText, WriteSuiteMarkdown),
//     which the CLI calls: this package imports no renderer.
//
// The package prints nothing; Run reports each finished cell through OnCell.
package suite
