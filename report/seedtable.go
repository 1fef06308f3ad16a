package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// WriteSeedTable draws one run's seed figures (analysis.SeedFigures) in the
// seed reports' shape: cassandra-stress's lines with the op types in
// brackets, peak against sustained, the per-second throughput's spread.
// Every line has a value: a figure the run lacks is "n/a", never blank.
func WriteSeedTable(w io.Writer, cell string, s *analysis.SeedFigures) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", cell)
	line := func(name, v string) { fmt.Fprintf(&b, "  %-26s: %s\n", name, v) }
	perOp := func(f func(analysis.SeedOp) string) string {
		if len(s.Ops) < 1 {
			return ""
		}
		parts := make([]string, len(s.Ops))
		for i, o := range s.Ops {
			parts[i] = strings.ToUpper(o.Op) + ": " + f(o)
		}
		return " [" + strings.Join(parts, ", ") + "]"
	}
	line("Op rate (sustained)", units.OpsPerSec(s.SustainedOpsPerS)+perOp(func(o analysis.SeedOp) string { return units.OpsPerSec(o.SustainedOpsPerS) }))
	line("Peak op rate (best 1 s)", orNA(s.PeakOpsPerS > 0, units.OpsPerSec(s.PeakOpsPerS)))
	st := s.Stability
	line("Per-second op rate", orNA(st.Intervals > 0, fmt.Sprintf("min %s, max %s, mean %s, std-dev %s (%d s)",
		units.Int(st.MinOpsPerS), units.Int(st.MaxOpsPerS), units.Int(st.MeanOpsPerS), units.Int(st.StdDevOpsPerS), st.Intervals)))
	// The bytes a run counts are the payloads it wrote (a read's are not
	// counted): a read-only run writes 0 B/s.
	line("Payload written", units.Bytes(s.SustainedBytesPerS)+"/s")
	for _, l := range seedLatencies {
		line(l.name, units.Latency(l.get(s.Latency))+perOp(func(o analysis.SeedOp) string { return units.Latency(l.get(o.Latency)) }))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// seedLatencies are cassandra-stress's latency lines.
var seedLatencies = []struct {
	name string
	get  func(result.Summary) float64
}{
	{"Latency mean", func(s result.Summary) float64 { return s.MeanNs }},
	{"Latency median", func(s result.Summary) float64 { return float64(s.P50Ns) }},
	{"Latency 95th percentile", func(s result.Summary) float64 { return float64(s.P95Ns) }},
	{"Latency 99th percentile", func(s result.Summary) float64 { return float64(s.P99Ns) }},
	{"Latency 99.9th percentile", func(s result.Summary) float64 { return float64(s.P999Ns) }},
	{"Latency max", func(s result.Summary) float64 { return float64(s.MaxNs) }},
}

func orNA(ok bool, v string) string {
	if ok {
		return v
	}
	return "n/a"
}

// WriteSeedCompare draws one suite cell compared across platforms (report.
// Compare of the cell's runs, a group per platform) in the seed reports'
// shape, "figure | A | B | Diff": each group's centre, and each group's
// change against the baseline with its 95% interval and verdict; then the
// comparison's answer (the headline, what limited each side, what differs
// in the setups).
func WriteSeedCompare(w io.Writer, cell string, c *analysis.CompareModel) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", cell)
	head := []string{"figure"}
	for _, g := range c.Groups {
		head = append(head, g.Name)
	}
	for gi, g := range c.Groups {
		if gi != c.Baseline {
			head = append(head, "Diff "+g.Name+" (95% interval)")
		}
	}
	rows := [][]string{head}
	for _, r := range c.Rows {
		row := append([]string{r.Figure}, r.Text...)
		for gi, v := range r.Cells {
			if gi != c.Baseline {
				row = append(row, seedDiff(v))
			}
		}
		rows = append(rows, row)
	}
	writeAligned(&b, rows)
	if a := c.Answer; a != nil {
		for _, h := range a.Headline {
			fmt.Fprintf(&b, "  %s\n", h)
		}
		for _, l := range a.Limits {
			fmt.Fprintf(&b, "  %s: %s\n", l.Group, l.Summary)
		}
		for _, u := range a.Unfair {
			fmt.Fprintf(&b, "  setup: %s\n", u)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// seedDiff is a group's change against the baseline: "+12.3% [+5.0%, +20.1%] different".
func seedDiff(v analysis.CompareVerdict) string {
	if v.Missing || v.Ratio == 0 {
		return v.Phrase
	}
	pct := func(r float64) string { return fmt.Sprintf("%+.1f%%", (r-1)*100) }
	s := pct(v.Ratio)
	if v.Low > 0 && v.High > 0 {
		s += " [" + pct(v.Low) + ", " + pct(v.High) + "]"
	}
	if v.Verdict != "" {
		s += " " + string(v.Verdict)
	}
	return s
}

// writeAligned writes rows as columns separated by " | ", padded.
func writeAligned(b *strings.Builder, rows [][]string) {
	var width []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, c := range r {
			cells[i] = c + strings.Repeat(" ", width[i]-len([]rune(c)))
		}
		fmt.Fprintf(b, "  %s\n", strings.TrimRight(strings.Join(cells, " | "), " "))
	}
}
