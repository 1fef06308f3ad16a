package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// verdictText is one comparison cell: "better by 1.3x, different (p=0.002)".
func verdictText(v analysis.RowVerdict) string {
	if v.Phrase == "baseline" || v.Missing {
		return v.Phrase
	}
	s := v.Phrase
	switch {
	case v.Noise == "different" || v.Noise == "within noise" || strings.HasPrefix(v.Noise, "same within"):
		s += ", " + v.Noise + " (" + pText(v.P) + ")"
	case strings.HasPrefix(v.Noise, "inconclusive"):
		s += ", " + pText(v.P) + ", " + v.Noise
	case v.Noise == "" || v.Noise == "-":
	default:
		s += " (" + v.Noise + ")"
	}
	return s
}

func pText(p float64) string {
	if p < 0.001 {
		return "p<0.001"
	}
	return fmt.Sprintf("p=%.3f", p)
}

// compareTable is the side-by-side: the value of every run, then each run against the baseline.
func compareTable(c *analysis.CompareModel) *table {
	b := c.Baseline
	t := &table{head: []string{"figure"}}
	t.right = []bool{false}
	for _, r := range c.Runs {
		t.head = append(t.head, r.Label)
		t.right = append(t.right, true)
	}
	for i, r := range c.Runs {
		if i != b {
			t.head = append(t.head, r.Label+" vs "+c.Runs[b].Label)
			t.right = append(t.right, false)
		}
	}
	for _, row := range c.Rows {
		cells := []string{row.Figure}
		cells = append(cells, row.Text...)
		for i := range c.Runs {
			if i != b {
				cells = append(cells, verdictText(row.Cells[i]))
			}
		}
		t.add(cells...)
	}
	return t
}

func compareRunsTable(c *analysis.CompareModel) *table {
	t := &table{head: []string{"run", "file", "platform", "target", "workload", "mode"}}
	for i, r := range c.Runs {
		res := c.Results[i]
		f := r.Figures
		mode := fmt.Sprintf("closed loop, %d workers", f.Concurrency)
		if f.Mode == "open" {
			mode = rateMode(&f.PhaseFigures)
		}
		lbl := r.Label
		if i == c.Baseline {
			lbl += " (baseline)"
		}
		t.add(lbl, r.File, r.Platform, strings.TrimSpace(res.Target.Kind+" "+res.Target.Version),
			strings.TrimSpace(res.Config.Workload.Name+" ("+MixString(res)+")"), mode+", "+units.Seconds(float64(f.DurationNs)/1e9))
	}
	return t
}

// WriteCompareText writes the comparison as aligned plain text for a terminal.
func WriteCompareText(w io.Writer, c *analysis.CompareModel) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "Runs")
	compareRunsTable(c).text(bw)
	fmt.Fprintln(bw)
	compareTable(c).text(bw)
	fmt.Fprintln(bw)
	if t := compareThresholdsTable(c); t != nil {
		fmt.Fprintln(bw, "Thresholds")
		t.text(bw)
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "Noise test: %s.\n", c.Test)
	for _, wn := range c.Warnings {
		fmt.Fprintf(bw, "Warning: %s\n", wn)
	}
	return bw.Flush()
}

// WriteCompareMarkdown writes the comparison as Markdown tables.
func WriteCompareMarkdown(w io.Writer, c *analysis.CompareModel) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## platbench comparison: %s\n\n", compareTitle(c))
	compareRunsTable(c).markdown(bw)
	fmt.Fprintln(bw)
	compareTable(c).markdown(bw)
	if t := compareThresholdsTable(c); t != nil {
		fmt.Fprintf(bw, "\n### Thresholds\n\n")
		t.markdown(bw)
	}
	fmt.Fprintf(bw, "\nNoise test: %s.\n", c.Test)
	for _, wn := range c.Warnings {
		fmt.Fprintf(bw, "\n**Warning:** %s\n", wn)
	}
	return bw.Flush()
}

// WriteCompareJSON writes the comparison as indented JSON.
func WriteCompareJSON(w io.Writer, c *analysis.CompareModel) error {
	cp := *c
	cp.Rows = make([]analysis.CompareModelRow, len(c.Rows))
	for i, r := range c.Rows {
		r.Cells = append([]analysis.RowVerdict(nil), r.Cells...)
		for k := range r.Cells {
			if math.IsInf(r.Cells[k].Ratio, 0) || math.IsNaN(r.Cells[k].Ratio) {
				r.Cells[k].Ratio = 0 // JSON has no infinity; the phrase says "better (baseline 0)"
			}
		}
		cp.Rows[i] = r
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&cp)
}

func compareTitle(c *analysis.CompareModel) string {
	parts := make([]string, len(c.Runs))
	for i, r := range c.Runs {
		parts[i] = r.Label
	}
	return strings.Join(parts, " vs ")
}

// WriteCompareHTML writes one self-contained page with the side-by-side
// table and charts that overlay the runs.
func WriteCompareHTML(w io.Writer, c *analysis.CompareModel) error {
	chs, err := compareCharts(c)
	if err != nil {
		return err
	}
	sweep, err := sweepCompareHTML(c.Results)
	if err != nil {
		return err
	}
	page := struct {
		Head                    headView
		Title, Lead, Test, Tool string
		Warnings                []string
		Runs, Side              tableView
		Thresholds              *tableView
		Sweep                   template.HTML
		Charts                  []template.HTML
	}{
		Head: newHead("platbench: " + compareTitle(c)), Title: compareTitle(c), Test: c.Test, Tool: c.Results[0].Tool.Name,
		Lead: fmt.Sprintf("%s, %s: %d runs side by side, compared to %s.", orDash(c.Results[0].Config.Workload.Name),
			orDash(MixString(c.Results[0])), len(c.Runs), c.Runs[c.Baseline].Label),
		Warnings: c.Warnings, Runs: viewOf(compareRunsTable(c)), Side: compareSideView(c), Sweep: sweep,
	}
	if t := compareThresholdsTable(c); t != nil {
		v := viewOf(t)
		page.Thresholds = &v
	}
	for _, ch := range chs {
		if ch.has() {
			page.Charts = append(page.Charts, chartHTML(ch))
		}
	}
	return writePage(w, "compare", page)
}

// sideView is the side-by-side table with each verdict coloured: only what
// the noise test found different, or, for figures without a test, a
// difference beyond 5%.
func compareSideView(c *analysis.CompareModel) tableView {
	v := viewOf(compareTable(c))
	for k, row := range c.Rows {
		cells := v.Rows[k][1+len(c.Runs):]
		n := 0
		for i := range c.Runs {
			if i == c.Baseline {
				continue
			}
			vd := row.Cells[i]
			cls := "same"
			shown := vd.Noise == "different" ||
				(strings.HasPrefix(vd.Noise, "no test") && (vd.Ratio > 1.05 || vd.Ratio < 1/1.05))
			switch {
			case !shown:
			case strings.HasPrefix(vd.Phrase, "better"):
				cls = "better"
			case strings.HasPrefix(vd.Phrase, "worse"):
				cls = "worse"
			}
			cells[n].Class = cls
			n++
		}
	}
	return v
}

// charts overlay the runs: throughput per second, the latency distribution
// of all ops, and each op's p99 per second.
func compareCharts(c *analysis.CompareModel) ([]*chart, error) {
	tp := &chart{id: "throughput-1s", title: "Throughput per second", x: xSeconds, y: yCount,
		xLabel: "time since the start of the phase", yLabel: "ops/s"}
	dist := &chart{id: "distribution", title: "Latency by percentile (HDR), all ops", x: xPercentile, y: yLatency,
		xLabel: "percentile (log scale of 1/(1-p))", yLabel: "latency (log)"}
	var ops []string
	seen := map[string]bool{}
	for i, r := range c.Results {
		p := r.MainPhase()
		one := throughput1s(p, c.Figures.Runs[i].Analysis, nil, i, "")
		s := one.series[0]
		s.name = c.Runs[i].Label
		tp.series = append(tp.series, s)
		h, err := p.MergedHist(0, len(p.Intervals), result.HistLatency)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Runs[i].Label, err)
		}
		xs, ys := percentileCurve(h)
		dist.series = append(dist.series, series{name: c.Runs[i].Label, color: i, xs: xs, ys: ys})
		for _, op := range opNames(p) {
			if !seen[op] {
				seen[op] = true
				ops = append(ops, op)
			}
		}
	}
	out := []*chart{tp, dist}
	for _, op := range ops {
		ch := &chart{id: "p99-" + chartID(op), title: op + " latency p99 per second", x: xSeconds, y: yLatency,
			xLabel: "time since the start of the phase", yLabel: "latency (log)"}
		for i, r := range c.Results {
			p := r.MainPhase()
			_, full := analysis.ThroughputSeries(p, "")
			s := series{name: c.Runs[i].Label, color: i}
			for j, in := range p.Intervals {
				if !full[j] {
					continue
				}
				for _, o := range in.Ops {
					if o.Op == op && o.Latency.Count > 0 {
						s.xs = append(s.xs, float64(in.StartNs)/1e9)
						s.ys = append(s.ys, float64(o.Latency.P99Ns))
					}
				}
			}
			ch.series = append(ch.series, s)
		}
		out = append(out, ch)
	}
	return out, nil
}
