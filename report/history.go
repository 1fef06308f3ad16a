package report

import (
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/history"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// The history's renderers (`platbench history`): every change point with
// its time, the figure's mean before and after, the relative change and
// the p-value, as text, Markdown, JSON and an HTML page that draws each
// series with its change points marked.

// HistoryJSONSchema names the shape WriteHistoryJSON writes.
const HistoryJSONSchema = "platbench.history/v1"

// metricValue formats a value of metric m.
func metricValue(m analysis.Metric, v float64) string {
	return valueIn(m.Unit, v, units.Sig3)
}

// metricTitle names a metric for people.
func metricTitle(m analysis.Metric) string {
	t := map[string]string{"sustained": "sustained throughput", "errors": "error rate", "cost": "$ per million ops"}[m.Figure]
	if t == "" {
		t = m.Figure
	}
	if m.Op != "" {
		t = m.Op + " " + t
	}
	return t
}

func seriesGroup(s *history.Series) string {
	return fmt.Sprintf("%s on %s, label %s", orDash(s.Workload), orDash(s.Target), orDash(s.Label))
}

func pValue(p float64) string {
	if p < 1e-4 {
		return "<0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// historyTable is one row per change point of every series.
func historyTable(h *history.History) *table {
	t := &table{
		head:  []string{"group", "figure", "change at", "run", "before", "after", "change", "p-value", "verdict"},
		right: []bool{false, false, false, true, true, true, true, true, false},
	}
	for i := range h.Series {
		s := &h.Series[i]
		for _, c := range s.Changes {
			verdict := "better"
			if c.Regression {
				verdict = "worse"
			}
			t.add(seriesGroup(s), metricTitle(s.Metric), c.Time.UTC().Format(time.RFC3339), strconv.Itoa(c.Index+1)+"/"+strconv.Itoa(len(s.Points)),
				metricValue(s.Metric, c.MeanBefore), metricValue(s.Metric, c.MeanAfter), signedPercent(c.RelChange()), pValue(c.PValue), verdict)
		}
	}
	return t
}

func signedPercent(f float64) string {
	if f > 0 {
		return "+" + units.Percent(f)
	}
	return units.Percent(f)
}

func historyLead(h *history.History) string {
	n := 0
	for _, s := range h.Series {
		n += len(s.Changes)
	}
	minChange := "none"
	if h.Options.MinMagnitude > 0 {
		minChange = units.Percent(h.Options.MinMagnitude)
	}
	points := "change points"
	if n == 1 {
		points = "change point"
	}
	return fmt.Sprintf("%d runs, %d series, %d %s (E-divisive means, as Apache Otava: window %d, p-value below %s, minimum change %s).",
		h.Runs, len(h.Series), n, points, h.Options.Window, strconv.FormatFloat(h.Options.MaxPValue, 'g', -1, 64), minChange)
}

// WriteHistoryText writes the change points as an aligned table.
func WriteHistoryText(w io.Writer, h *history.History) error {
	fmt.Fprintln(w, historyLead(h))
	if t := historyTable(h); len(t.rows) > 0 {
		fmt.Fprintln(w)
		t.text(w)
	}
	for _, s := range h.Skipped {
		fmt.Fprintln(w, "skipped "+s)
	}
	return nil
}

// WriteHistoryMarkdown writes the change points as a Markdown table.
func WriteHistoryMarkdown(w io.Writer, h *history.History) error {
	fmt.Fprintf(w, "# platbench history\n\n%s\n", historyLead(h))
	if t := historyTable(h); len(t.rows) > 0 {
		fmt.Fprintln(w)
		t.markdown(w)
	}
	return nil
}

// WriteHistoryJSON writes the history, every point and change, for tools.
func WriteHistoryJSON(w io.Writer, h *history.History) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Schema string `json:"schema"`
		*history.History
	}{HistoryJSONSchema, h})
}

// historyChart draws one series over its runs (x: run number) with a
// vertical mark at each change point.
func historyChart(k int, s *history.Series) *chart {
	c := &chart{id: chartID(fmt.Sprintf("history-%d-%s", k, s.Metric.Name)), title: seriesGroup(s) + ": " + metricTitle(s.Metric),
		x: xRun, xLabel: "run", yLabel: metricTitle(s.Metric), marksName: "change point"}
	switch s.Metric.Unit {
	case result.UnitNs:
		c.y = yLatency
	case result.UnitFraction:
		c.y = yPercent
	}
	sr := series{name: metricTitle(s.Metric), color: k}
	grouped := false
	for _, p := range s.Points {
		grouped = grouped || p.High > 0
	}
	for i, p := range s.Points {
		sr.xs = append(sr.xs, float64(i+1))
		sr.ys = append(sr.ys, p.Value)
		if grouped {
			// A commit's runs: its 95% interval as the band (a single run's
			// point has none: the band closes on it).
			lo, hi := p.Low, p.High
			if hi == 0 {
				lo, hi = p.Value, p.Value
			}
			sr.lo, sr.hi = append(sr.lo, lo), append(sr.hi, hi)
		}
	}
	if grouped {
		sr.name += " (band: 95% interval of each commit's runs)"
	}
	c.series = []series{sr}
	for _, ch := range s.Changes {
		c.marks = append(c.marks, mark{x: float64(ch.Index) + 0.5,
			label: fmt.Sprintf("%s %s (p %s)", ch.Time.UTC().Format("2006-01-02 15:04"), signedPercent(ch.RelChange()), pValue(ch.PValue))})
	}
	if n := len(s.Points); n > 0 {
		runs := 0
		for _, p := range s.Points {
			runs += max(p.Runs, 1)
		}
		c.note = fmt.Sprintf("%d runs from %s to %s", runs, s.Points[0].Time.UTC().Format(time.RFC3339), s.Points[n-1].Time.UTC().Format(time.RFC3339))
		if runs > n {
			c.note += fmt.Sprintf(", %d points (the runs of one commit are one point)", n)
		}
	}
	return c
}

// WriteHistoryHTML writes one self-contained page: the change points and
// a chart per series with its change points marked.
func WriteHistoryHTML(w io.Writer, h *history.History) error {
	page := struct {
		Head    headView
		Title   string
		Lead    string
		Changes tableView
		Skipped []string
		Charts  []template.HTML
		Tool    string
	}{Head: newHead("platbench: history"), Title: "History", Lead: historyLead(h), Changes: viewOf(historyTable(h)),
		Skipped: h.Skipped, Tool: "platbench"}
	for i := range h.Series {
		page.Charts = append(page.Charts, chartHTML(historyChart(i, &h.Series[i])))
	}
	return writePage(w, "history", page)
}

// runTick labels a run number on the x axis.
func runTick(v float64) string { return strconv.Itoa(int(math.Round(v))) }
