package analysis

import (
	"fmt"
	"math"
	"strings"
)

// Repeated runs of one platform at one cluster size are a group (issue
// 31): the plan takes the centre of their throughput, not one run's, and
// carries the uncertainty of that centre into the node count.

// nodesFor is the cluster size of at least o.RF nodes, grown in sets of
// o.Step, whose per-node throughput perNode reaches o.ThroughputOpsPerS
// linearly.
func nodesFor(perNode float64, o PlanOptions) int {
	n := int(math.Ceil(o.ThroughputOpsPerS/perNode - 1e-9))
	n = max(n, o.RF)
	if rem := n % o.Step; rem != 0 {
		n += o.Step - rem
	}
	return n
}

// repeatedRow plans one platform from several runs at one cluster size:
// the measured throughput is the centre of the runs' (geometric mean), the
// node count is planned from it, and NodesAtLow from the low end of its
// 95% interval, the count that still reaches the target if the platform is
// as slow as the runs allow.
func repeatedRow(members []PlanRow, o PlanOptions) PlanRow {
	row := members[0]
	ops := make([]float64, len(members))
	p99s := make([]float64, len(members))
	var files []string
	row.Errors = 0
	for i, m := range members {
		ops[i], p99s[i] = m.MeasuredOps, float64(m.MeasuredP99Ns)
		files = append(files, m.File)
		row.Errors += m.Errors
	}
	c, lo, hi, _ := CentreInterval(ops)
	p99, _, _, _ := CentreInterval(p99s)
	row.File = strings.Join(files, "+")
	row.Runs = len(members)
	row.MeasuredOps, row.MeasuredOpsLow, row.MeasuredOpsHigh = c, lo, hi
	row.MeasuredP99Ns = int64(math.Round(p99))
	row.PerNodeOps = c / float64(row.MeasuredNodes)
	row.Nodes = nodesFor(row.PerNodeOps, o)
	row.NodesAtLow = nodesFor(lo/float64(row.MeasuredNodes), o)
	row.PlannedOps = row.PerNodeOps * float64(row.Nodes)
	row.Reason = joinReason(row.Reason, fmt.Sprintf("%d runs: throughput is their centre, %.0f ops/s [%.0f, %.0f] (95%%); at the low end %d nodes",
		len(members), c, lo, hi, row.NodesAtLow))
	if row.PriceKnown {
		row.price(row.Nodes, o.ThroughputOpsPerS)
	}
	return row
}
