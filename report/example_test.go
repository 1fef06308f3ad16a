package report_test

import (
	"fmt"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

// Compare two runs of the same workload on two platforms and read two rows.
// One run on each side: the interval covers within-run noise only (the
// mark *), and run-to-run noise is unknown.
func ExampleCompareModelOf() {
	var rs []*result.Result
	files := []string{"testdata/i3-16xlarge.result.json", "testdata/i3-metal.result.json"}
	for _, f := range files {
		r, err := result.Read(f)
		if err != nil {
			fmt.Println(err)
			return
		}
		rs = append(rs, r)
	}
	// Grouped and compared by analysis, named and formatted by report.
	an, err := analysis.CompareRuns(rs, report.RunKeys(rs, files), analysis.CompareOptions{})
	if err != nil {
		fmt.Println(report.CompareError(rs, files, err))
		return
	}
	c := report.CompareModelOf(rs, an, files)
	for _, row := range c.Rows {
		if row.Figure == "Sustained throughput" || row.Figure == "Latency p99" {
			v := row.Cells[1]
			fmt.Printf("%s: %s -> %s: %s (%s)\n", row.Figure, row.Text[0], row.Text[1], v.Text, v.Basis)
		}
	}
	// Output:
	// Sustained throughput: 19,112 op/s -> 25,059 op/s: +31% [+24, +39] inconcl.* (within-run only)
	// Latency p99: 5.28 ms -> 2.08 ms: -61% [-61, -60] inconcl.* (within-run only)
}
