package report

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// AllDiskProbes says whether every result is a disk probe's ('platbench
// probe disk'): compare then sets their tests side by side (WriteDiskCompare)
// instead of comparing their last test alone as a run's main phase.
func AllDiskProbes(rs []*result.Result) bool {
	for _, r := range rs {
		if r.Target.Kind != "disk" {
			return false
		}
	}
	return len(rs) > 0
}

// WriteDiskCompare sets disk probes side by side in the shape of the seed
// reports' disk tables (IOTune's set, fio's): a row per test, each probe's
// MB/s and IOPS, and each probe's change against the first's MB/s (one run
// a side: no interval), then each test's regulation verdict per probe.
func WriteDiskCompare(w io.Writer, files []string, rs []*result.Result) error {
	var b strings.Builder
	head := []string{"test"}
	for _, f := range files {
		head = append(head, strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	for _, f := range files[1:] {
		head = append(head, "Diff "+strings.TrimSuffix(filepath.Base(f), ".json"))
	}
	rows := [][]string{head}
	var verdicts []string
	for _, p := range rs[0].Phases {
		row := []string{p.Name}
		base := 0.0
		var diffs []string
		for i, r := range rs {
			q := r.Phase(p.Name)
			if q == nil {
				row = append(row, "-")
				if i > 0 {
					diffs = append(diffs, "not measured")
				}
				continue
			}
			f := analysis.DiskPhaseFigures(q)
			row = append(row, units.Fixed(f.MBPerS, 1)+" MB/s, "+units.Int(f.IOPS)+" IOPS")
			if i == 0 {
				base = f.MBPerS
			} else if base > 0 {
				diffs = append(diffs, fmt.Sprintf("%+.0f%%", (f.MBPerS/base-1)*100))
			}
			verdicts = append(verdicts, fmt.Sprintf("%s %s: %s", head[i+1], p.Name, analysis.Stalls(q).Regulation.Reason))
		}
		rows = append(rows, append(row, diffs...))
	}
	writeAligned(&b, rows)
	b.WriteString("  (one probe a side: the differences have no interval)\n")
	for _, v := range verdicts {
		fmt.Fprintf(&b, "  %s\n", v)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
