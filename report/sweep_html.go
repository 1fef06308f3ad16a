package report

import (
	"fmt"
	"html"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// The rate sweep's renderers: a table (terminal and Markdown) and the
// throughput–latency curve as inline SVG, for one result or overlaid for
// several (compare). The curve puts the sustained throughput of each step on
// x (linear) and its latency percentiles on y (log), the way latency-vs-load
// plots are usually drawn; the objective is a dashed horizontal line.

// sweepTable is one row per step: the curve's figures; the server-attributable
// p99 has a column when the steps kept it. Who started ops late, and why a
// step failed, are in the table of notes (sweepNotesTable).
func sweepTable(sw *result.Sweep) *table {
	attr := false
	for _, st := range sw.Steps {
		attr = attr || st.AttributableP99Ns > 0
	}
	t := &table{
		head:  []string{"step", "target", "sustained", "p50", "p99", "p99.9", "service p99", "lag p99", "errors", "meets"},
		right: []bool{false, true, true, true, true, true, true, true, true, false},
	}
	if attr {
		t.head = slices.Insert(t.head, 6, "attrib. p99")
		t.right = slices.Insert(t.right, 6, true)
	}
	for i, st := range sw.Steps {
		meets := "no"
		if st.MeetsObjective {
			meets = "yes"
		}
		if i == sw.Best {
			meets += " *"
		}
		cells := []string{st.Phase, units.OpsPerSec(st.TargetOpsPerS), units.OpsPerSec(st.SustainedOpsPerS), units.Latency(float64(st.P50Ns)), units.Latency(float64(st.P99Ns)),
			units.Latency(float64(st.P999Ns)), units.Latency(float64(st.ServiceP99Ns)), units.Latency(float64(st.LagP99Ns)), units.Int(float64(st.Errors)), meets}
		if attr {
			cells = slices.Insert(cells, 6, units.Latency(float64(st.AttributableP99Ns)))
		}
		t.add(cells...)
	}
	return t
}

// sweepNotesTable is the sweep's notes, one row per step
// (analysis.SweepNotes): the rate asked and sustained, whether the rate was
// met, the ops the loader started late with a worker free, the ops queued
// behind the target and for how long, whether the loader was client-bound,
// and the verdict (a failed step's reasons follow the table:
// sweepFailReasons).
func sweepNotesTable(r *result.Result) *table {
	t := &table{
		head:  []string{"step", "rate asked", "sustained", "rate met", "late by the loader", "queued behind the target", "mean wait", "longest wait", "client-bound", "verdict"},
		right: []bool{false, true, true, false, true, true, true, true, false, false},
	}
	for _, n := range analysis.SweepNotes(r) {
		met := "-"
		if rc := n.Rate; rc != nil {
			met = "no"
			if rc.Met {
				met = "yes"
			}
			met += " (" + units.Percent(rc.Achieved()) + ")"
		}
		l := n.Late
		count := func(k uint64, sh float64) string {
			if l.Ops == 0 {
				return units.Int(float64(k))
			}
			return units.Int(float64(k)) + " (" + units.Percent(sh) + ")"
		}
		mean, longest := "-", "-"
		if l.Queued > 0 && l.QueuedWaitNs > 0 {
			mean, longest = units.Latency(float64(l.QueuedWaitMeanNs())), units.Latency(float64(l.QueuedWaitMaxNs))
		}
		bound := "no"
		if l.ClientBound {
			bound = "yes"
		}
		verdict := "meets"
		switch {
		case !n.Meets:
			verdict = "fails"
		case n.Best:
			verdict = "meets *"
		}
		t.add(n.Phase, units.OpsPerSec(n.RateOpsPerS), units.OpsPerSec(n.SustainedOpsPerS), met, count(l.Client, l.ClientShare()),
			count(l.Queued, l.QueuedShare()), mean, longest, bound, verdict)
	}
	return t
}

// sweepFailReasons are the failed steps' reasons, "STEP fails: WHY", one
// per failed step, in the order of the table.
func sweepFailReasons(r *result.Result) []string {
	var out []string
	for i := range r.Sweep.Steps {
		st := &r.Sweep.Steps[i]
		if why := SweepStepReason(st); !st.MeetsObjective && why != "" {
			out = append(out, st.Phase+" fails: "+why)
		}
	}
	return out
}

// sweepNotesLegend says what the table of notes counts.
func sweepNotesLegend(r *result.Result) string {
	late := "late"
	for _, st := range r.Sweep.Steps {
		if p := r.Phase(st.Phase); p != nil && p.DelayThresholdNs > 0 {
			late = "more than " + units.Latency(float64(p.DelayThresholdNs)) + " late"
			break
		}
	}
	return fmt.Sprintf("rate met: the steady window sustained at least %s of the rate asked (errors counted); late by the loader: ops it started %s with a worker or slot free "+
		"(client-bound from %s of a step's ops); queued behind the target: ops that started %s because the target held every worker or slot, "+
		"and how long they waited for one (at a met rate, bursts, not a missed rate); whole step", units.Percent(analysis.RateMetFraction), late, units.Percent(analysis.LateFraction), late)
}

func sweepObjective(sw *result.Sweep) string {
	s := fmt.Sprintf("a step meets the objective when it sustains %.0f%% of its rate, at most %s of ops start late and %s fail",
		sw.MinAchievedRatio*100, units.Percent(sw.MaxDelayedRatio), units.Percent(sw.MaxErrorRatio))
	switch {
	case sw.ObjectiveP99Ns > 0 && sw.Judge == "attributable":
		s += ", and its server-attributable p99 (latency less the loader's own lateness, whole step) is at most " + units.Latency(float64(sw.ObjectiveP99Ns)) +
			"; a step the loader started late beyond the delayed limit fails as client-bound"
	case sw.ObjectiveP99Ns > 0:
		s += ", and its p99 is at most " + units.Latency(float64(sw.ObjectiveP99Ns))
	}
	return s + "; figures are over each step's steady window (latency from the intended start)"
}

// indent writes b's lines indented by two spaces.
func indent(w io.Writer, b *strings.Builder) {
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		fmt.Fprintf(w, "  %s\n", line)
	}
}

// WriteSweepText writes the sweep section of the terminal report (nothing
// when r has no sweep).
func WriteSweepText(w io.Writer, r *result.Result) error {
	sw := r.Sweep
	if sw == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\nRate sweep (%s, %s steps)\n", sw.Mode, time.Duration(sw.StepNs))
	var b strings.Builder
	sweepTable(sw).text(&b)
	indent(ew, &b)
	fmt.Fprintf(ew, "  (%s)\n", sweepObjective(sw))
	fmt.Fprintf(ew, "\n  Notes, a row per step:\n")
	b.Reset()
	sweepNotesTable(r).text(&b)
	indent(ew, &b)
	fmt.Fprintf(ew, "  (%s)\n", sweepNotesLegend(r))
	for _, why := range sweepFailReasons(r) {
		fmt.Fprintf(ew, "  - %s\n", why)
	}
	fmt.Fprintf(ew, "  => %s\n", SweepVerdict(sw))
	return ew.err
}

// WriteSweepMarkdown writes the sweep section as Markdown.
func WriteSweepMarkdown(w io.Writer, r *result.Result) error {
	sw := r.Sweep
	if sw == nil {
		return nil
	}
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "\n## Rate sweep\n\n**%s**\n\n", SweepVerdict(sw))
	sweepTable(sw).markdown(ew)
	fmt.Fprintf(ew, "\n%s. `*` marks the step reported.\n\n### Sweep notes\n\n", sweepObjective(sw))
	sweepNotesTable(r).markdown(ew)
	fmt.Fprintf(ew, "\n%s.\n", sweepNotesLegend(r))
	if why := sweepFailReasons(r); len(why) > 0 {
		fmt.Fprintln(ew)
		for _, l := range why {
			fmt.Fprintf(ew, "- %s\n", mdEscape(l))
		}
	}
	return ew.err
}

// sweepCurve is one platform's curve in an overlay.
type sweepCurve struct {
	Label string
	Sweep *result.Sweep
}

// sweepSectionHTML is the HTML section of r's sweep: the curve and the
// table ("" when r has no sweep). The HTML report puts it after the
// throughput table; its styles are the report's (figure.chart-box, svg.chart).
func sweepSectionHTML(r *result.Result) (template.HTML, error) {
	if r == nil || r.Sweep == nil || len(r.Sweep.Steps) == 0 {
		return "", nil
	}
	b := &svgBuf{}
	writeSweepSVG(b, "sweep-curve", "Throughput–latency curve", []sweepCurve{{Label: Label(r), Sweep: r.Sweep}}, true)
	return execute("sweep", struct {
		Verdict, Objective, NotesLegend string
		SVG                             template.HTML
		Table, Notes                    tableView
		Fails                           []string
	}{SweepVerdict(r.Sweep), sweepObjective(r.Sweep), sweepNotesLegend(r), template.HTML(b.String()), viewOf(sweepTable(r.Sweep)), viewOf(sweepNotesTable(r)), sweepFailReasons(r)})
}

// sweepCompareHTML overlays the p99 curves of several results (compare);
// results without a sweep are left out. "" when none has a sweep.
func sweepCompareHTML(rs []*result.Result) (template.HTML, error) {
	var cs []sweepCurve
	for _, r := range rs {
		if r != nil && r.Sweep != nil && len(r.Sweep.Steps) > 0 {
			cs = append(cs, sweepCurve{Label: Label(r), Sweep: r.Sweep})
		}
	}
	if len(cs) == 0 {
		return "", nil
	}
	b := &svgBuf{}
	writeSweepSVG(b, "sweep-compare", "p99 latency against sustained throughput", cs, false)
	t := &table{head: []string{"run", "highest rate meeting the objective", "p99 there"}, right: []bool{false, true, true}}
	for _, c := range cs {
		if c.Sweep.Best >= 0 {
			st := c.Sweep.Steps[c.Sweep.Best]
			t.add(c.Label, units.OpsPerSec(st.SustainedOpsPerS), units.Latency(float64(st.P99Ns)))
		} else {
			t.add(c.Label, "none", "")
		}
	}
	return execute("sweep-compare", struct {
		SVG   template.HTML
		Table tableView
	}{template.HTML(b.String()), viewOf(t)})
}

// sweepLine is one curve of the sweep chart.
type sweepLine struct {
	name   string
	color  int
	xs, ys []float64
}

// sweepLines are the curves: with all=true one result's p50, p99 and p99.9;
// otherwise each result's p99. obj is the objective's p99 (0: none) and
// bests the (throughput, p99) of each result's best step.
func sweepLines(cs []sweepCurve, all bool) (lines []sweepLine, obj float64, bests [][2]float64) {
	type stat struct {
		name string
		f    func(result.SweepStep) int64
	}
	get := []stat{{"p99", func(s result.SweepStep) int64 { return s.P99Ns }}}
	if all {
		get = []stat{
			{"p50", func(s result.SweepStep) int64 { return s.P50Ns }},
			{"p99", func(s result.SweepStep) int64 { return s.P99Ns }},
			{"p99.9", func(s result.SweepStep) int64 { return s.P999Ns }},
		}
	}
	for ci, c := range cs {
		for gi, g := range get {
			l := sweepLine{name: g.name, color: gi}
			if !all {
				l.name, l.color = c.Label+" p99", ci
			}
			// Steps in order of sustained throughput: find-max runs them out of order.
			for _, i := range sweepOrder(c.Sweep.Steps) {
				st := c.Sweep.Steps[i]
				if v := g.f(st); v > 0 {
					l.xs = append(l.xs, st.SustainedOpsPerS)
					l.ys = append(l.ys, float64(v))
				}
			}
			lines = append(lines, l)
		}
		if c.Sweep.ObjectiveP99Ns > 0 {
			obj = float64(c.Sweep.ObjectiveP99Ns)
		}
		if c.Sweep.Best >= 0 {
			st := c.Sweep.Steps[c.Sweep.Best]
			bests = append(bests, [2]float64{st.SustainedOpsPerS, float64(st.P99Ns)})
		}
	}
	return lines, obj, bests
}

// sweepPlot is the chart's scale: x from 0, y in log decades around every
// value and the objective.
func sweepPlot(lines []sweepLine, obj float64) *plot {
	xmax, ymin, ymax := 0.0, math.Inf(1), math.Inf(-1)
	for _, l := range lines {
		for i := range l.xs {
			xmax = math.Max(xmax, l.xs[i])
			ymin, ymax = math.Min(ymin, l.ys[i]), math.Max(ymax, l.ys[i])
		}
	}
	if obj > 0 {
		ymin, ymax = math.Min(ymin, obj), math.Max(ymax, obj)
	}
	if math.IsInf(ymin, 0) {
		ymin, ymax = 1e3, 1e6
	}
	p := &plot{pw: float64(chartW - padLeft - padRight), ph: float64(chartH - padTop - padBot)}
	p.xmax = niceCeil(math.Max(xmax, 1) * 1.05)
	p.ymin = math.Pow(10, math.Floor(math.Log10(math.Max(ymin, 1))))
	p.ymax = math.Pow(10, math.Ceil(math.Log10(math.Max(ymax, 1))))
	if p.ymax <= p.ymin {
		p.ymax = p.ymin * 10
	}
	p.X = func(x float64) float64 { return padLeft + x/p.xmax*p.pw }
	lmin, lmax := math.Log10(p.ymin), math.Log10(p.ymax)
	p.Y = func(y float64) float64 {
		return padTop + p.ph - (math.Log10(math.Max(y, p.ymin))-lmin)/(lmax-lmin)*p.ph
	}
	return p
}

// writeSweepSVG draws the curves (sweepLines) as a chart figure.
func writeSweepSVG(b *svgBuf, id, title string, cs []sweepCurve, all bool) {
	lines, obj, bests := sweepLines(cs, all)
	p := sweepPlot(lines, obj)
	n := 0
	for _, l := range lines {
		if len(l.xs) > 0 {
			n++
		}
	}
	b.s(`<figure class="chart-box" id="`, html.EscapeString(id), `"><figcaption>`, html.EscapeString(title), `</figcaption><ul class="legend">`)
	for _, l := range lines {
		if len(l.xs) > 0 {
			b.s(`<li><span class="sw c`, strconv.Itoa(l.color%8), `"></span>`, html.EscapeString(l.name), `</li>`)
		}
	}
	if obj > 0 {
		b.s(`<li><span class="sw tick"></span>objective p99 `, html.EscapeString(units.Latency(obj)), `</li>`)
	}
	b.s(`</ul><svg class="chart" data-series="`, strconv.Itoa(n), `" viewBox="0 0 `, strconv.Itoa(chartW), ` `, strconv.Itoa(chartH),
		`" role="img" aria-label="`, html.EscapeString(title), `" preserveAspectRatio="xMidYMid meet">`)
	sweepAxes(b, p)
	if obj > 0 {
		b.s(`<path class="tick objective" stroke-dasharray="6 4" d="M`)
		b.f(padLeft)
		b.s(" ")
		b.f(p.Y(obj))
		b.s("H")
		b.f(chartW - padRight)
		b.s(`"><title>objective p99 `, html.EscapeString(units.Latency(obj)), `</title></path>`)
	}
	for _, l := range lines {
		if len(l.xs) > 0 {
			sweepCurveSVG(b, p, l)
		}
	}
	for _, pt := range bests {
		b.s(`<circle class="best" fill="none" stroke="currentColor" stroke-width="2" r="7" cx="`)
		b.f(p.X(pt[0]))
		b.s(`" cy="`)
		b.f(p.Y(pt[1]))
		b.s(`"><title>highest rate meeting the objective: `, html.EscapeString(units.OpsPerSec(pt[0])), `</title></circle>`)
	}
	b.s(`</svg><p class="note">Each point is one fixed-rate step, at the throughput it sustained over its steady window; the ring marks the highest rate that met the objective.</p></figure>`)
}

// sweepAxes draws the grid, the ticks and the axis labels.
func sweepAxes(b *svgBuf, p *plot) {
	for v := p.ymin; v <= p.ymax*1.0001; v *= 10 {
		yGrid(b, p.Y(v), tickDur(v))
	}
	for _, v := range niceTicks(0, p.xmax, 6) {
		xGrid(b, p.X(v), shortNum(v))
	}
	axes(b, "sustained throughput (op/s)", "latency")
}

// sweepCurveSVG draws one curve, with a dot on every step: the curve is a
// few measured points, not a series.
func sweepCurveSVG(b *svgBuf, p *plot, l sweepLine) {
	b.s(`<path class="series c`, strconv.Itoa(l.color%8), `" data-points="`, strconv.Itoa(len(l.xs)), `" d="`)
	for i := range l.xs {
		if i == 0 {
			b.s("M")
		} else {
			b.s("L")
		}
		b.f(p.X(l.xs[i]))
		b.s(" ")
		b.f(p.Y(l.ys[i]))
	}
	if len(l.xs) == 1 {
		b.s("h2")
	}
	b.s(`"><title>`, html.EscapeString(l.name), `</title></path>`)
	for i := range l.xs {
		b.s(`<circle class="c`, strconv.Itoa(l.color%8), `" fill="currentColor" r="3" cx="`)
		b.f(p.X(l.xs[i]))
		b.s(`" cy="`)
		b.f(p.Y(l.ys[i]))
		b.s(`"/>`)
	}
}

// sweepOrder is the step indexes sorted by sustained throughput.
func sweepOrder(steps []result.SweepStep) []int {
	idx := make([]int, len(steps))
	for i := range idx {
		idx[i] = i
	}
	for i := 1; i < len(idx); i++ {
		for j := i; j > 0 && steps[idx[j]].SustainedOpsPerS < steps[idx[j-1]].SustainedOpsPerS; j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx
}
