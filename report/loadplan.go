package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
)

// LoadPlanText is the line said before a load phase starts: what it will
// write, and beside it the host's RAM and the target's free disk.
func LoadPlanText(p analysis.LoadPlan) string {
	var b strings.Builder
	fmt.Fprintf(&b, "load: %s records", units.Int(float64(p.Records)))
	if p.RowsPerRecord > 1 {
		fmt.Fprintf(&b, " x %s rows (%s rows) x %s a row", units.Sig3(p.RowsPerRecord), units.Int(p.Rows()), units.Bytes(p.BytesPerRecord/p.RowsPerRecord))
	} else {
		fmt.Fprintf(&b, " x %s", units.Bytes(p.BytesPerRecord))
	}
	fmt.Fprintf(&b, " = about %s", units.Bytes(p.Bytes))
	if p.BoundedFrom > 0 {
		fmt.Fprintf(&b, " (%s records lowered to fit the dataset size)", units.Int(float64(p.BoundedFrom)))
	}
	ram, disk := "unknown", "unknown"
	if p.HostRAMBytes > 0 {
		ram = units.Bytes(float64(p.HostRAMBytes))
	}
	if p.FreeDiskBytes > 0 {
		disk = units.Bytes(float64(p.FreeDiskBytes))
	}
	fmt.Fprintf(&b, "; host RAM %s, target's free disk %s", ram, disk)
	return b.String()
}

// LoadProgressText is what the load's progress line adds: records done of
// the plan's and, after the first seconds, the time still needed.
func LoadProgressText(done, total uint64, elapsed time.Duration) string {
	if total == 0 {
		return ""
	}
	s := fmt.Sprintf("  %s of %s records", units.Int(float64(done)), units.Int(float64(total)))
	if eta, ok := analysis.LoadETA(done, total, elapsed); ok {
		s += "  ETA " + units.Seconds(eta.Seconds())
	}
	return s
}
