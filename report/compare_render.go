package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// termWidth is the width terminal prose is wrapped to (a report's limits,
// a comparison's answer and notes): the terminal's COLUMNS when set (40 to
// 500), else 120, the width the comparison's tables fit for up to four
// groups (the tables themselves are not wrapped).
var termWidth = widthOf(os.Getenv("COLUMNS"))

func widthOf(columns string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(columns)); err == nil && n >= 40 && n <= 500 {
		return n
	}
	return 120
}

// SetWidth sets the terminal width the text output fits (else COLUMNS's,
// or 120), at least 40 columns, and returns the function that restores the
// one before: the command line gives the terminal's own width; tests that
// read a table's rows whole give a wide one.
func SetWidth(n int) (restore func()) {
	old := termWidth
	termWidth = max(n, 40)
	return func() { termWidth = old }
}

// sameRuns is the number of runs of every group when they all have the
// same, else 0.
func sameRuns(c *analysis.CompareModel) int {
	n := len(c.Groups[0].Runs)
	for _, g := range c.Groups {
		if len(g.Runs) != n {
			return 0
		}
	}
	return n
}

// runsText is "1 run", "5 runs".
func runsText(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// groupHead is a group's column head: "redis (5 runs)", or its name alone
// when every group has as many runs (valuesTitle says how many).
func groupHead(c *analysis.CompareModel, gi int) string {
	g := c.Groups[gi]
	if sameRuns(c) > 0 {
		return g.Name
	}
	return g.Name + " (" + runsText(len(g.Runs)) + ")"
}

// valuesTitle heads the values table.
func valuesTitle(c *analysis.CompareModel) string {
	t := "Values: each group's centre (geometric mean of its runs)"
	if n := sameRuns(c); n > 0 {
		t += "; " + runsText(n) + " in each group"
	}
	return t
}

// compareValuesTable is a row per figure and a column per group: the
// group's centre.
func compareValuesTable(c *analysis.CompareModel) *table {
	t := &table{head: []string{"figure"}, right: []bool{false}}
	for gi := range c.Groups {
		t.head = append(t.head, groupHead(c, gi))
		t.right = append(t.right, true)
	}
	for _, row := range c.Rows {
		t.add(append([]string{row.Figure}, row.Text...)...)
	}
	return t
}

// changeRows are the rows that carry a comparison: not the context rows.
func changeRows(c *analysis.CompareModel) []analysis.CompareModelRow {
	var out []analysis.CompareModelRow
	for _, row := range c.Rows {
		for gi, v := range row.Cells {
			if gi != c.Baseline && !v.Missing && v.NoTest != noTestContext && v.Text != "-" {
				out = append(out, row)
				break
			}
		}
	}
	return out
}

// compareChangeTable is a row per figure and a column per group but the
// baseline: the change of the group's centre, its interval and verdict.
func compareChangeTable(c *analysis.CompareModel) *table {
	t := &table{head: []string{"figure"}, right: []bool{false}}
	for gi, g := range c.Groups {
		if gi != c.Baseline {
			t.head = append(t.head, g.Name)
			t.right = append(t.right, false)
		}
	}
	for _, row := range changeRows(c) {
		cells := []string{row.Figure}
		for gi, v := range row.Cells {
			if gi != c.Baseline {
				cells = append(cells, v.Text)
			}
		}
		t.add(cells...)
	}
	return t
}

// compareGroupsTable is a row per group: its runs, target and load
// (compareGroupLines give its platform and files).
func compareGroupsTable(c *analysis.CompareModel) *table {
	t := &table{head: []string{"group", "runs", "target", "workload", "mode"}, right: []bool{false, true}}
	for gi, g := range c.Groups {
		first := g.Runs[0]
		res, f := c.Results[first], c.Runs[first].Figures
		mode := fmt.Sprintf("closed loop, %d workers", f.Concurrency)
		if f.Mode == "open" {
			mode = rateMode(&f.PhaseFigures)
		}
		name := g.Name
		if gi == c.Baseline {
			name += " (baseline)"
		}
		t.add(name, fmt.Sprint(len(g.Runs)), c.Runs[first].Target, res.Config.Workload.Name,
			mode+", "+units.Seconds(float64(f.DurationNs)/1e9))
	}
	return t
}

// compareGroupLines say where each group ran and its files: "redis: on
// c7i.2xlarge, x86_64, ...; files redis.r01.json, ...". Runs of a group on
// several platforms list each.
func compareGroupLines(c *analysis.CompareModel) []string {
	var out []string
	for _, g := range c.Groups {
		var fs, ps []string
		for _, ri := range g.Runs {
			if f := c.Runs[ri].File; f != "" {
				fs = append(fs, f)
			}
			if p := c.Runs[ri].Platform; p != "" && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
		}
		l := g.Name + ":"
		if len(ps) > 0 {
			l += " on " + strings.Join(ps, "; ")
		}
		if len(fs) > 0 {
			if len(ps) > 0 {
				l += ";"
			}
			l += " files " + strings.Join(fs, ", ")
		}
		out = append(out, l)
	}
	return out
}

// changeTitle heads the change table.
func changeTitle(c *analysis.CompareModel) string {
	return fmt.Sprintf("Against %s: change of the group's centre [95%% interval] and verdict", c.Groups[c.Baseline].Name)
}

// printWrapped writes s wrapped to termWidth, the lines after the first
// indented by two spaces.
func printWrapped(w io.Writer, s string) {
	for i, l := range wrap(s, termWidth-2) {
		if i > 0 {
			l = "  " + l
		}
		fmt.Fprintln(w, l)
	}
}

// WriteCompareText writes the comparison as aligned plain text for a
// terminal: the groups, each group's values, each group against the
// baseline, and the method once below.
func WriteCompareText(w io.Writer, c *analysis.CompareModel) error {
	bw := bufio.NewWriter(w)
	writeLabelledText(bw, answerLines(c))
	fmt.Fprintf(bw, "Groups: %s\n", c.Grouping)
	compareGroupsTable(c).text(bw)
	for _, l := range compareGroupLines(c) {
		printWrapped(bw, l)
	}
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, valuesTitle(c))
	compareValuesTable(c).text(bw)
	fmt.Fprintln(bw)
	fmt.Fprintln(bw, changeTitle(c))
	compareChangeTable(c).text(bw)
	fmt.Fprintln(bw)
	if t := compareThresholdsTable(c); t != nil {
		fmt.Fprintln(bw, "Thresholds")
		t.text(bw)
		fmt.Fprintln(bw)
	}
	for _, n := range c.Notes {
		printWrapped(bw, n)
	}
	for _, wn := range c.Warnings {
		printWrapped(bw, "Warning: "+wn)
	}
	return bw.Flush()
}

// WriteCompareMarkdown writes the comparison as Markdown tables.
func WriteCompareMarkdown(w io.Writer, c *analysis.CompareModel) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## platbench comparison: %s\n\n", compareTitle(c))
	if ls := answerLines(c); len(ls) > 0 {
		writeLabelledMarkdown(bw, ls)
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "Groups: %s.\n\n", c.Grouping)
	compareGroupsTable(c).markdown(bw)
	fmt.Fprintln(bw)
	for _, l := range compareGroupLines(c) {
		fmt.Fprintf(bw, "- %s\n", l)
	}
	fmt.Fprintf(bw, "\n### %s\n\n", valuesTitle(c))
	compareValuesTable(c).markdown(bw)
	fmt.Fprintf(bw, "\n### %s\n\n", changeTitle(c))
	compareChangeTable(c).markdown(bw)
	if t := compareThresholdsTable(c); t != nil {
		fmt.Fprintf(bw, "\n### Thresholds\n\n")
		t.markdown(bw)
	}
	fmt.Fprintln(bw)
	for _, n := range c.Notes {
		fmt.Fprintf(bw, "%s\n\n", strings.ReplaceAll(n, "*", `\*`))
	}
	for _, wn := range c.Warnings {
		fmt.Fprintf(bw, "**Warning:** %s\n\n", wn)
	}
	return bw.Flush()
}

// WriteCompareJSON writes the comparison as indented JSON.
func WriteCompareJSON(w io.Writer, c *analysis.CompareModel) error {
	fillAnswer(c)
	worded := *c
	worded.Runs = slices.Clone(c.Runs)
	for i := range worded.Runs {
		worded.Runs[i].Figures = wordedFigures(worded.Runs[i].Figures)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&worded)
}

// compareTitle is "redis vs valkey".
func compareTitle(c *analysis.CompareModel) string {
	parts := make([]string, len(c.Groups))
	for i, g := range c.Groups {
		parts[i] = g.Name
	}
	return strings.Join(parts, " vs ")
}

// WriteCompareHTML writes one self-contained page with the tables and
// charts that overlay the groups, each group's runs as a band.
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
		Head                       headView
		Title, Lead, Tool, Against string
		Grouping, ValuesTitle      string
		Notes, Files, Warnings     []string
		Groups, Values, Change     tableView
		Thresholds                 *tableView
		Answer                     [][2]string // before the tables
		Sweep                      template.HTML
		Charts                     []template.HTML
	}{
		Head: newHead("platbench: " + compareTitle(c)), Title: compareTitle(c), Tool: c.Results[0].Tool.Name,
		Lead: fmt.Sprintf("%s, %s: %d groups of %d runs in all (%s), compared to %s.", orDash(c.Results[0].Config.Workload.Name),
			orDash(MixString(c.Results[0])), len(c.Groups), len(c.Runs), c.Grouping, c.Groups[c.Baseline].Name),
		Against: changeTitle(c), Grouping: c.Grouping, ValuesTitle: valuesTitle(c), Notes: c.Notes, Files: compareGroupLines(c), Warnings: c.Warnings,
		Groups: viewOf(compareGroupsTable(c)), Values: compareValuesView(c), Change: compareChangeView(c), Sweep: sweep, Answer: answerLines(c),
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

// compareValuesView is the values table whose group heads may wrap
// ("c7i.2xlarge" over "(5 runs)"), so six groups fit a laptop's width.
func compareValuesView(c *analysis.CompareModel) tableView {
	v := viewOf(compareValuesTable(c))
	for i := 1; i < len(v.Head); i++ {
		v.Head[i].Class = "numh"
	}
	return v
}

// compareChangeView is the change table with each verdict coloured: better
// and worse only when the interval calls the difference real. The
// interval does not break inside, so a narrow column wraps a cell before it.
func compareChangeView(c *analysis.CompareModel) tableView {
	v := viewOf(compareChangeTable(c))
	for k, row := range changeRows(c) {
		cells := v.Rows[k][1:]
		n := 0
		for gi, vd := range row.Cells {
			if gi == c.Baseline {
				continue
			}
			cls := "same"
			if vd.Verdict == analysis.Different {
				switch vd.Phrase {
				case string(analysis.OutcomeBetter):
					cls = "better"
				case string(analysis.OutcomeWorse):
					cls = "worse"
				}
			}
			cells[n].Class = cls
			cells[n].Text = strings.ReplaceAll(cells[n].Text, ", ", ",\u00a0")
			n++
		}
	}
	return v
}

// compareCharts overlay the groups: throughput per second and the latency
// distribution of all ops, then each op's p99 per second; each group is a
// line (the median of its runs at each second, the geometric mean of its
// runs' curves for the distribution) with its runs' range as a band.
func compareCharts(c *analysis.CompareModel) ([]*chart, error) {
	tp := &chart{id: "throughput-1s", title: "Throughput per second (band: the group's runs)", x: xSeconds, y: yCount,
		xLabel: "time since the start of the phase", yLabel: "ops/s"}
	dist := &chart{id: "distribution", title: "Latency by percentile (HDR), all ops (band: the group's runs)", x: xPercentile, y: yLatency,
		xLabel: "percentile (log scale of 1/(1-p))", yLabel: "latency (log)"}
	var ops []string
	for _, r := range c.Results {
		for _, op := range opNames(r.MainPhase()) {
			if !slices.Contains(ops, op) {
				ops = append(ops, op)
			}
		}
	}
	p99 := make([]*chart, len(ops))
	for k, op := range ops {
		p99[k] = &chart{id: "p99-" + chartID(op), title: op + " latency p99 per second (band: the group's runs)", x: xSeconds, y: yLatency,
			xLabel: "time since the start of the phase", yLabel: "latency (log)"}
	}
	for gi, g := range c.Groups {
		var tpRuns, distRuns [][2][]float64
		opRuns := make([][][2][]float64, len(ops))
		for _, ri := range g.Runs {
			p := c.Results[ri].MainPhase()
			s := throughput1s(p, c.Figures.Runs[ri].Analysis, nil, 0, "").series[0]
			tpRuns = append(tpRuns, [2][]float64{s.xs, s.ys})
			h, err := p.MergedHist(0, len(p.Intervals), result.HistLatency)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.Runs[ri].Label, err)
			}
			xs, ys := percentileCurve(h)
			distRuns = append(distRuns, [2][]float64{xs, ys})
			for k, op := range ops {
				xs, ys := opP99Series(p, op)
				opRuns[k] = append(opRuns[k], [2][]float64{xs, ys})
			}
		}
		tp.series = append(tp.series, groupBand(g.Name, gi, tpRuns, false))
		dist.series = append(dist.series, groupBand(g.Name, gi, distRuns, true))
		for k := range ops {
			p99[k].series = append(p99[k].series, groupBand(g.Name, gi, opRuns[k], false))
		}
	}
	return append([]*chart{tp, dist}, p99...), nil
}

// opP99Series is op's p99 in each full interval of p.
func opP99Series(p *result.Phase, op string) (xs, ys []float64) {
	_, full := analysis.ThroughputSeries(p, "")
	for j, in := range p.Intervals {
		if !full[j] {
			continue
		}
		for _, o := range in.Ops {
			if o.Op == op && o.Latency.Count > 0 {
				xs = append(xs, float64(in.StartNs)/1e9)
				ys = append(ys, float64(o.Latency.P99Ns))
			}
		}
	}
	return xs, ys
}

// groupBand is one group's series from its runs' series (x, y pairs): at
// each x (seconds rounded, or a percentile of the common grid) the median
// of the runs' values (geometric mean when geo) and their range as a band.
// With one run it is that run's line and no band.
func groupBand(name string, color int, runs [][2][]float64, geo bool) series {
	s := series{name: name, color: color}
	at := map[float64][]float64{}
	var xs []float64
	for _, r := range runs {
		for i, x := range r[0] {
			if !geo {
				x = math.Round(x)
			}
			if _, ok := at[x]; !ok {
				xs = append(xs, x)
			}
			at[x] = append(at[x], r[1][i])
		}
	}
	slices.Sort(xs)
	band := len(runs) > 1
	for _, x := range xs {
		vs := at[x]
		slices.Sort(vs)
		var y float64
		if geo {
			l := 0.0
			for _, v := range vs {
				l += math.Log(math.Max(v, 1))
			}
			y = math.Exp(l / float64(len(vs)))
		} else {
			y = vs[len(vs)/2]
			if len(vs)%2 == 0 {
				y = (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2
			}
		}
		s.xs, s.ys = append(s.xs, x), append(s.ys, y)
		if band {
			s.lo, s.hi = append(s.lo, vs[0]), append(s.hi, vs[len(vs)-1])
		}
	}
	return s
}
