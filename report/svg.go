package report

import (
	"html"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/units"
)

// The charts are inline SVG written here, so a report needs no script, no
// font and no network to draw. Each chart is <svg class="chart"
// data-series="N"> holding N <path class="series"> elements: the browser
// test checks that every one of them drew something.

// Chart geometry in viewBox units; the SVG scales to the page width.
const (
	chartW   = 960
	chartH   = 300
	padLeft  = 74
	padRight = 44
	padTop   = 14
	padBot   = 40
)

// maxPoints bounds the points drawn per series: longer series are reduced
// to the min and max of each pixel column, so stalls and spikes survive.
const maxPoints = 1200

type xAxis uint8

const (
	xSeconds    xAxis = iota // linear, seconds from the phase start
	xPercentile              // log10(1/(1-q)): 0 → 0%, 3 → 99.9%
	xRun                     // linear, run number (history)
)

type yAxis uint8

const (
	yCount   yAxis = iota // linear from 0, thousands separators
	yLatency              // log, nanoseconds
	yPercent              // linear 0..1 shown as %
	yBytes                // linear from 0, bytes
)

type series struct {
	name   string
	color  int // index into the palette (CSS --cN)
	dashed bool
	bars   bool // draw as columns from the x axis (errors)
	dots   bool // draw each point as a dot, unjoined (measured points)
	xs, ys []float64
	// lo and hi, when set (as long as xs), shade the range around the line
	// (the runs of a group in a comparison).
	lo, hi []float64
}

type band struct {
	x0, x1 float64
	label  string
}

type chart struct {
	id, title, note string
	x               xAxis
	y               yAxis
	xLabel, yLabel  string
	series          []series
	bands           []band    // shaded spans (warm-up)
	ticks           []float64 // x positions marked on the axis (stalls)
	tickLabel       string
	marks           []mark // vertical lines across the plot (fault events)
	marksName       string // the marks' legend entry; "" is "fault event"
}

// mark is a labelled vertical line at x.
type mark struct {
	x     float64
	label string
}

// has reports whether any series has a point to draw.
func (c *chart) has() bool {
	for _, s := range c.series {
		if len(s.xs) > 0 {
			return true
		}
	}
	return false
}

// svgBuf is a strings.Builder with number formatting that does not allocate
// per number.
type svgBuf struct {
	strings.Builder
	num [32]byte
}

// f writes v with one decimal at most ("12.5", "80"): integer arithmetic,
// because shortest-form float formatting dominated the render of long runs.
func (b *svgBuf) f(v float64) {
	t := int64(math.Round(v * 10))
	if math.IsNaN(v) || math.IsInf(v, 0) {
		t = 0
	}
	if t < 0 {
		b.WriteByte('-')
		t = -t
	}
	out := strconv.AppendInt(b.num[:0], t/10, 10)
	if d := t % 10; d != 0 {
		out = append(out, '.', byte('0'+d))
	}
	b.Write(out)
}

func (b *svgBuf) s(parts ...string) {
	for _, p := range parts {
		b.WriteString(p)
	}
}

// plot maps data to viewBox coordinates inside the chart's padding.
type plot struct {
	xmin, xmax, ymin, ymax float64
	pw, ph                 float64 // plot area width and height
	X, Y                   func(float64) float64
}

func (c *chart) plot() *plot {
	p := &plot{pw: float64(chartW - padLeft - padRight), ph: float64(chartH - padTop - padBot)}
	p.xmin, p.xmax, p.ymin, p.ymax = c.bounds()
	p.X = func(x float64) float64 { return padLeft + (x-p.xmin)/(p.xmax-p.xmin)*p.pw }
	if c.y == yLatency {
		lmin, lmax := math.Log10(p.ymin), math.Log10(p.ymax)
		p.Y = func(y float64) float64 {
			if y < p.ymin {
				y = p.ymin
			}
			return padTop + p.ph - (math.Log10(y)-lmin)/(lmax-lmin)*p.ph
		}
	} else {
		p.Y = func(y float64) float64 { return padTop + p.ph - (y-p.ymin)/(p.ymax-p.ymin)*p.ph }
	}
	return p
}

// seriesClass is a series' CSS classes after prefix ("sw", "series").
func seriesClass(prefix string, s *series) string {
	cls := prefix + " c" + strconv.Itoa(s.color%8)
	if s.dashed {
		cls += " dashed"
	}
	if s.bars && prefix == "series" {
		cls += " bars"
	}
	if s.dots && prefix == "series" {
		cls += " dots"
	}
	return cls
}

// render writes the chart as a <figure> with a legend and an inline SVG.
func (c *chart) render(b *svgBuf) {
	p := c.plot()
	n := 0
	for _, s := range c.series {
		if len(s.xs) > 0 {
			n++
		}
	}
	b.s(`<figure class="chart-box" id="`, html.EscapeString(c.id), `"><figcaption>`, html.EscapeString(c.title), `</figcaption>`)
	c.legend(b)
	b.s(`<svg class="chart" data-series="`, strconv.Itoa(n), `" viewBox="0 0 `, strconv.Itoa(chartW), ` `, strconv.Itoa(chartH),
		`" role="img" aria-label="`, html.EscapeString(c.title), `" preserveAspectRatio="xMidYMid meet">`)
	c.drawBands(b, p) // shaded bands under everything
	c.grid(b, p.xmin, p.xmax, p.ymin, p.ymax, p.X, p.Y)
	for i := range c.series {
		if s := &c.series[i]; len(s.lo) > 0 && len(s.lo) == len(s.xs) && len(s.hi) == len(s.xs) {
			drawArea(b, p, s)
		}
	}
	for i := range c.series {
		if len(c.series[i].xs) > 0 {
			drawSeries(b, p, &c.series[i])
		}
	}
	for _, t := range c.ticks {
		if t < p.xmin || t > p.xmax {
			continue
		}
		b.s(`<path class="tick" d="M`)
		b.f(p.X(t))
		b.s(" ")
		b.f(padTop + p.ph)
		b.s(`v-10"/>`)
	}
	c.drawMarks(b, p)
	b.s(`</svg>`)
	if c.note != "" {
		b.s(`<p class="note">`, html.EscapeString(c.note), `</p>`)
	}
	b.s(`</figure>`)
}

func (c *chart) legend(b *svgBuf) {
	b.s(`<ul class="legend">`)
	for i := range c.series {
		if s := &c.series[i]; len(s.xs) > 0 {
			b.s(`<li><span class="`, seriesClass("sw", s), `"></span>`, html.EscapeString(s.name), `</li>`)
		}
	}
	for _, bd := range c.bands {
		b.s(`<li><span class="sw band"></span>`, html.EscapeString(bd.label), `</li>`)
	}
	if len(c.ticks) > 0 {
		b.s(`<li><span class="sw tick"></span>`, html.EscapeString(c.tickLabel), `</li>`)
	}
	if len(c.marks) > 0 {
		name := c.marksName
		if name == "" {
			name = "fault event"
		}
		b.s(`<li><span class="sw mark"></span>`, html.EscapeString(name), `</li>`)
	}
	b.s(`</ul>`)
}

func (c *chart) drawBands(b *svgBuf, p *plot) {
	for _, bd := range c.bands {
		x0, x1 := p.X(math.Max(bd.x0, p.xmin)), p.X(math.Min(bd.x1, p.xmax))
		if x1 <= x0 {
			continue
		}
		b.s(`<rect class="band" x="`)
		b.f(x0)
		b.s(`" y="`)
		b.f(padTop)
		b.s(`" width="`)
		b.f(x1 - x0)
		b.s(`" height="`)
		b.f(p.ph)
		b.s(`"><title>`, html.EscapeString(bd.label), `</title></rect>`)
	}
}

// drawSeries writes one series as a path: a line, or columns from the x axis.
func drawSeries(b *svgBuf, p *plot, s *series) {
	xs, ys := decimate(s.xs, s.ys, maxPoints)
	b.s(`<path class="`, seriesClass("series", s), `" data-points="`, strconv.Itoa(len(xs)), `" d="`)
	if s.dots {
		for i := range xs {
			b.s("M")
			b.f(p.X(xs[i]) - 4)
			b.s(" ")
			b.f(p.Y(ys[i]))
			b.s("a4 4 0 1 0 8 0a4 4 0 1 0 -8 0")
		}
	} else if s.bars {
		// One column per point; width of one step of the series.
		wpx := math.Max(1, p.pw/float64(max(1, len(s.xs))))
		if len(s.xs) > 1 {
			wpx = math.Max(1, (p.X(s.xs[1])-p.X(s.xs[0]))*0.8)
		}
		for i := range xs {
			if ys[i] <= 0 {
				continue
			}
			b.s("M")
			b.f(p.X(xs[i]))
			b.s(" ")
			b.f(p.Y(p.ymin))
			b.s("v")
			b.f(p.Y(ys[i]) - p.Y(p.ymin))
			b.s("h")
			b.f(wpx)
			b.s("v")
			b.f(p.Y(p.ymin) - p.Y(ys[i]))
			b.s("z")
		}
	} else {
		for i := range xs {
			if i == 0 {
				b.s("M")
			} else {
				b.s("L")
			}
			b.f(p.X(xs[i]))
			b.s(" ")
			b.f(p.Y(ys[i]))
		}
		if len(xs) == 1 { // a single point still shows
			b.s("h2")
		}
	}
	b.s(`"><title>`, html.EscapeString(s.name), `</title></path>`)
}

// drawArea shades the range [lo, hi] of a series: a closed path along hi
// and back along lo, reduced to maxPoints/2 columns (the widest range of
// each) for long series.
func drawArea(b *svgBuf, p *plot, s *series) {
	n := len(s.xs)
	step := max(1, (n+maxPoints/2-1)/(maxPoints/2))
	var xs, lo, hi []float64
	for i := 0; i < n; i += step {
		l, h := s.lo[i], s.hi[i]
		for j := i + 1; j < min(i+step, n); j++ {
			l, h = math.Min(l, s.lo[j]), math.Max(h, s.hi[j])
		}
		xs, lo, hi = append(xs, s.xs[i]), append(lo, l), append(hi, h)
	}
	b.s(`<path class="area c`, strconv.Itoa(s.color%8), `" d="`)
	for i := range xs {
		if i == 0 {
			b.s("M")
		} else {
			b.s("L")
		}
		b.f(p.X(xs[i]))
		b.s(" ")
		b.f(p.Y(hi[i]))
	}
	for i := len(xs) - 1; i >= 0; i-- {
		b.s("L")
		b.f(p.X(xs[i]))
		b.s(" ")
		b.f(p.Y(lo[i]))
	}
	b.s(`z"><title>`, html.EscapeString(s.name+": range of the runs"), `</title></path>`)
}

// drawMarks writes the fault events as labelled vertical lines.
func (c *chart) drawMarks(b *svgBuf, p *plot) {
	lastX, row := math.Inf(-1), 0
	for _, m := range c.marks {
		if m.x < p.xmin || m.x > p.xmax {
			continue
		}
		// Labels of events close together go on successive rows.
		if p.X(m.x)-lastX < 120 {
			row = (row + 1) % 4
		} else {
			row = 0
		}
		lastX = p.X(m.x)
		b.s(`<path class="mark" d="M`)
		b.f(p.X(m.x))
		b.s(" ")
		b.f(padTop)
		b.s("V")
		b.f(padTop + p.ph)
		b.s(`"><title>`, html.EscapeString(m.label), `</title></path><text class="ml" x="`)
		b.f(p.X(m.x) + 3)
		b.s(`" y="`)
		b.f(padTop + 11 + 13*float64(row))
		b.s(`">`, html.EscapeString(m.label), `</text>`)
	}
}

// bounds are the data ranges, padded to readable limits.
func (c *chart) bounds() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for _, s := range c.series {
		for i, x := range s.xs {
			xmin, xmax = math.Min(xmin, x), math.Max(xmax, x)
			ys := []float64{s.ys[i]}
			if i < len(s.lo) && i < len(s.hi) {
				ys = append(ys, s.lo[i], s.hi[i])
			}
			for _, y := range ys {
				if c.y == yLatency && y <= 0 {
					continue
				}
				ymin, ymax = math.Min(ymin, y), math.Max(ymax, y)
			}
		}
	}
	if math.IsInf(xmin, 0) {
		xmin, xmax = 0, 1
	}
	if c.x == xSeconds {
		xmin = math.Min(xmin, 0)
	}
	if c.x == xPercentile {
		xmin = 0
		xmax = math.Max(math.Ceil(xmax), 1)
	}
	if c.x == xRun {
		xmin, xmax = xmin-0.5, xmax+0.5
	}
	if xmax <= xmin {
		xmax = xmin + 1
	}
	switch c.y {
	case yLatency:
		if math.IsInf(ymin, 0) {
			ymin, ymax = 1e3, 1e6
		}
		ymin = math.Pow(10, math.Floor(math.Log10(math.Max(ymin, 1))))
		ymax = math.Pow(10, math.Ceil(math.Log10(math.Max(ymax, 1))))
		if ymax <= ymin {
			ymax = ymin * 10
		}
	case yPercent:
		ymin, ymax = 0, math.Max(1, ymax)
		if ymax > 1 {
			ymax = niceCeil(ymax)
		}
	case yBytes:
		ymin = 0
		if math.IsInf(ymax, 0) || ymax <= 0 {
			ymax = 1
		}
		u := byteUnit(ymax)
		ymax = niceCeil(ymax*1.05/u) * u
	default:
		ymin = 0
		if math.IsInf(ymax, 0) || ymax <= 0 {
			ymax = 1
		}
		ymax = niceCeil(ymax * 1.05)
	}
	return
}

// grid draws the axes, grid lines and tick labels.
func (c *chart) grid(b *svgBuf, xmin, xmax, ymin, ymax float64, X, Y func(float64) float64) {
	// y ticks
	var yt []float64
	switch c.y {
	case yLatency:
		for v := ymin; v <= ymax*1.0001; v *= 10 {
			yt = append(yt, v)
		}
	case yBytes:
		yt = byteTicks(ymax)
	default:
		yt = niceTicks(ymin, ymax, 5)
	}
	for _, v := range yt {
		y := Y(v)
		yGrid(b, y, c.yTick(v))
	}
	// x ticks
	var xt []float64
	if c.x == xPercentile {
		for v := 0.0; v <= xmax; v++ {
			xt = append(xt, v)
		}
	} else if c.x == xRun {
		for _, v := range niceTicks(xmin, xmax, 10) {
			if v == math.Trunc(v) {
				xt = append(xt, v)
			}
		}
	} else {
		xt = timeTicks(xmin, xmax)
	}
	for _, v := range xt {
		xGrid(b, X(v), c.xTick(v))
	}
	axes(b, c.xLabel, c.yLabel)
}

// xGrid draws a vertical grid line at x with its label under the axis.
func xGrid(b *svgBuf, x float64, label string) {
	bottom := float64(chartH - padBot)
	b.s(`<path class="grid" d="M`)
	b.f(x)
	b.s(" ")
	b.f(padTop)
	b.s("V")
	b.f(bottom)
	b.s(`"/><text class="xl" x="`)
	b.f(x)
	b.s(`" y="`)
	b.f(bottom + 16)
	b.s(`">`, html.EscapeString(label), `</text>`)
}

// axes draws the two axes and their labels.
func axes(b *svgBuf, xLabel, yLabel string) {
	bottom := float64(chartH - padBot)
	b.s(`<path class="axis" d="M`)
	b.f(padLeft)
	b.s(" ")
	b.f(padTop)
	b.s("V")
	b.f(bottom)
	b.s("H")
	b.f(chartW - padRight)
	b.s(`"/>`)
	b.s(`<text class="al" x="`)
	b.f(padLeft + (chartW-padLeft-padRight)/2)
	b.s(`" y="`)
	b.f(chartH - 4)
	b.s(`">`, html.EscapeString(xLabel), `</text>`)
	b.s(`<text class="al" transform="rotate(-90)" x="`)
	b.f(-(padTop + (bottom-padTop)/2))
	b.s(`" y="14">`, html.EscapeString(yLabel), `</text>`)
}

func (c *chart) yTick(v float64) string {
	switch c.y {
	case yLatency:
		return tickDur(v)
	case yPercent:
		return units.Trim1(100*v) + "%"
	case yBytes:
		if v == 0 {
			return "0"
		}
		u := byteUnit(v)
		return units.Trim1(v/u) + " " + map[float64]string{1: "B", 1 << 10: "KiB", 1 << 20: "MiB", 1 << 30: "GiB", 1 << 40: "TiB", 1 << 50: "PiB"}[u]
	}
	return shortNum(v)
}

func (c *chart) xTick(v float64) string {
	switch c.x {
	case xPercentile:
		return percentileLabel(v)
	case xRun:
		return runTick(v)
	}
	return shortSecs(v)
}

// percentileLabel names x = log10(1/(1-q)): 0 → "0%", 2 → "99%", 4 → "99.99%".
func percentileLabel(x float64) string {
	if x <= 0 {
		return "0%"
	}
	n := int(math.Round(x))
	switch n {
	case 1:
		return "90%"
	case 2:
		return "99%"
	}
	return "99." + strings.Repeat("9", n-2) + "%"
}

// tickDur is Dur without trailing zeros: axis ticks are round numbers.
func tickDur(ns float64) string {
	d := units.Latency(ns)
	num, unit, ok := strings.Cut(d, " ")
	if !ok || !strings.Contains(num, ".") {
		return d
	}
	num = strings.TrimRight(strings.TrimRight(num, "0"), ".")
	return num + " " + unit
}

func shortNum(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e9:
		return units.Trim1(v/1e9) + "G"
	case a >= 1e6:
		return units.Trim1(v/1e6) + "M"
	case a >= 1e3:
		return units.Trim1(v/1e3) + "k"
	}
	return units.Trim1(v)
}

func shortSecs(s float64) string {
	switch {
	case s < 120:
		return units.Trim1(s) + " s"
	case s < 7200:
		return units.Trim1(s/60) + " min"
	}
	return units.Trim1(s/3600) + " h"
}

// byteUnit is the binary unit (1, KiB, MiB...) in which v is at least 1.
func byteUnit(v float64) float64 {
	u := 1.0
	for v >= 1024*u && u < 1<<50 {
		u *= 1024
	}
	return u
}

// byteTicks are round numbers of the unit that suits max: 0, 16, 32, 48 GiB.
func byteTicks(max float64) []float64 {
	u := byteUnit(max)
	ts := niceTicks(0, max/u, 5)
	for i := range ts {
		ts[i] *= u
	}
	return ts
}

// niceTicks returns about n round values covering [lo, hi].
func niceTicks(lo, hi float64, n int) []float64 {
	step := niceStep((hi - lo) / float64(n))
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, v)
	}
	return out
}

func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if raw <= m*mag {
			return m * mag
		}
	}
	return 10 * mag
}

func niceCeil(v float64) float64 {
	s := niceStep(v / 5)
	return math.Ceil(v/s) * s
}

// timeTicks are round second, minute or hour marks.
func timeTicks(lo, hi float64) []float64 {
	span := hi - lo
	steps := []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 21600, 43200, 86400}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 8 {
			step = s
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		out = append(out, v)
	}
	return out
}

// decimate keeps at most about n points: for each of n/2 columns the minimum
// and the maximum, in x order, so that a one-bucket stall still reaches zero.
func decimate(xs, ys []float64, n int) ([]float64, []float64) {
	if len(xs) <= n {
		return xs, ys
	}
	cols := n / 2
	ox := make([]float64, 0, n+2)
	oy := make([]float64, 0, n+2)
	per := float64(len(xs)) / float64(cols)
	for c := 0; c < cols; c++ {
		i0, i1 := int(float64(c)*per), int(float64(c+1)*per)
		if i1 > len(xs) {
			i1 = len(xs)
		}
		if i0 >= i1 {
			continue
		}
		lo, hi := i0, i0
		for i := i0; i < i1; i++ {
			if ys[i] < ys[lo] {
				lo = i
			}
			if ys[i] > ys[hi] {
				hi = i
			}
		}
		a, b := lo, hi
		if a > b {
			a, b = b, a
		}
		ox, oy = append(ox, xs[a]), append(oy, ys[a])
		if b != a {
			ox, oy = append(ox, xs[b]), append(oy, ys[b])
		}
	}
	return ox, oy
}

// yGrid draws one horizontal grid line at y with its label on the left.
func yGrid(b *svgBuf, y float64, label string) {
	b.s(`<path class="grid" d="M`)
	b.f(padLeft)
	b.s(" ")
	b.f(y)
	b.s("H")
	b.f(chartW - padRight)
	b.s(`"/><text class="yl" x="`)
	b.f(padLeft - 6)
	b.s(`" y="`)
	b.f(y + 4)
	b.s(`">`, html.EscapeString(label), `</text>`)
}
