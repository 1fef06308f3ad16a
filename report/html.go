package report

import (
	"html"
	"io"
	"strings"

	"github.com/platbench/platbench/result"
)

// WriteHTML writes one self-contained HTML page: the tables of the report and
// inline SVG charts, with no script and nothing fetched at view time. It
// follows the reader's light or dark preference and prints on white.
func WriteHTML(w io.Writer, r *result.Result) error {
	u, err := newRun(r)
	if err != nil {
		return err
	}
	b := &svgBuf{}
	b.Grow(256 << 10)
	pageHead(b, "platbench: "+u.label)
	b.s(`<header><h1>`, html.EscapeString(u.label), `</h1><p class="lead">`, html.EscapeString(headline(u)), `</p></header>`)
	secs := sections(u)
	cs, err := charts(u)
	if err != nil {
		return err
	}
	sweep := SweepSectionHTML(r)
	events := EventsSectionHTML(r, u.events)
	nav(b, secs, len(cs) > 0, sweep != "")
	b.s(`<main>`)
	for i, s := range secs {
		if i == 1 {
			b.s(sweep) // the rate sweep's curve and table, when the run was a sweep
		}
		if i == 1 && len(cs) > 0 {
			// Charts follow the throughput table: the reader sees the figure, then its shape.
			b.s(`<section id="charts"><h2>Over time</h2>`)
			for _, c := range cs {
				c.render(b)
			}
			b.s(`</section>`)
		}
		if i == 1 {
			b.s(events) // the cost of each fault event, when there were events
		}
		htmlSection(b, s)
	}
	if notes := u.notes(); len(notes) > 0 {
		b.s(`<section id="notes"><h2>Notes</h2><ul>`)
		for _, n := range notes {
			b.s(`<li>`, html.EscapeString(n), `</li>`)
		}
		b.s(`</ul></section>`)
	}
	b.s(`</main>`)
	pageFoot(b, r.Tool.Name+" "+r.Tool.Version)
	_, err = io.WriteString(w, b.String())
	return err
}

func nav(b *svgBuf, secs []section, charts, sweep bool) {
	b.s(`<nav>`)
	for i, s := range secs {
		if i == 1 && sweep {
			b.s(`<a href="#sweep">Rate sweep</a>`)
		}
		if i == 1 && charts {
			b.s(`<a href="#charts">Charts</a>`)
		}
		b.s(`<a href="#`, s.id, `">`, html.EscapeString(s.title), `</a>`)
	}
	b.s(`</nav>`)
}

func htmlSection(b *svgBuf, s section) {
	b.s(`<section id="`, html.EscapeString(s.id), `"><h2>`, html.EscapeString(s.title), `</h2>`)
	for _, n := range s.notes {
		b.s(`<p class="note">`, html.EscapeString(n), `</p>`)
	}
	htmlTable(b, s.t)
	b.s(`</section>`)
}

func htmlTable(b *svgBuf, t *table) {
	b.s(`<div class="tw"><table><thead><tr>`)
	for i, h := range t.head {
		b.s(`<th`, alignAttr(t, i), `>`, html.EscapeString(h), `</th>`)
	}
	b.s(`</tr></thead><tbody>`)
	for _, r := range t.rows {
		b.s(`<tr>`)
		for i, c := range r {
			tag := "td"
			if i == 0 {
				tag = "th"
			}
			b.s(`<`, tag, alignAttr(t, i), `>`, html.EscapeString(c), `</`, tag, `>`)
		}
		b.s(`</tr>`)
	}
	b.s(`</tbody></table></div>`)
}

func alignAttr(t *table, i int) string {
	if i < len(t.right) && t.right[i] {
		return ` class="num"`
	}
	return ""
}

func pageHead(b *svgBuf, title string) {
	b.s(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>`, html.EscapeString(title), `</title>
<style>`, pageCSS, `</style></head><body>`)
}

func pageFoot(b *svgBuf, tool string) {
	b.s(`<footer>Written by `, html.EscapeString(strings.TrimSpace(tool)),
		`. Self-contained: this page loads nothing from the network.</footer></body></html>
`)
}

// pageCSS is the whole style sheet. Series colours are CSS variables so that
// dark mode and print swap them without touching the SVG.
const pageCSS = `
:root{--bg:#fff;--fg:#1d2330;--mut:#5b6475;--line:#d6dae2;--grid:#eceef3;--band:rgba(240,173,78,.18);--tick:#d1242f;--card:#f7f8fa;
--c0:#2563eb;--c1:#d97706;--c2:#059669;--c3:#dc2626;--c4:#7c3aed;--c5:#0891b2;--c6:#db2777;--c7:#4b5563}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--fg:#e6e9ef;--mut:#9aa3b2;--line:#323846;--grid:#232833;--band:rgba(240,173,78,.16);--tick:#ff6b6b;--card:#1a1e26;
--c0:#60a5fa;--c1:#fbbf24;--c2:#34d399;--c3:#f87171;--c4:#a78bfa;--c5:#22d3ee;--c6:#f472b6;--c7:#9ca3af}}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1100px;padding:24px 28px 48px;background:var(--bg);color:var(--fg);font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif}
h1{font-size:26px;margin:0 0 4px}h2{font-size:19px;margin:32px 0 8px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.lead{color:var(--mut);margin:0 0 12px}.note{color:var(--mut);font-size:13px;margin:4px 0 8px}
nav{display:flex;flex-wrap:wrap;gap:6px 14px;font-size:13px;margin:0 0 8px}nav a{color:var(--c0);text-decoration:none}
.tw{overflow-x:auto}table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:14px;min-width:40%}
th,td{padding:5px 12px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}thead th{color:var(--mut);font-weight:600;border-bottom:2px solid var(--line)}
tbody th{font-weight:500;white-space:nowrap}.num{text-align:right;white-space:nowrap}
td.better{color:var(--c2)}td.worse{color:var(--c3)}td.same{color:var(--mut)}
figure.chart-box{margin:18px 0 24px;padding:12px 14px 8px;background:var(--card);border:1px solid var(--line);border-radius:8px;break-inside:avoid}
figcaption{font-weight:600;margin-bottom:4px}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:4px 16px;padding:0;margin:0 0 4px;font-size:13px;color:var(--mut)}
.sw{display:inline-block;width:18px;height:0;border-top:3px solid;vertical-align:middle;margin-right:6px}.sw.dashed{border-top-style:dashed}
.sw.band{height:10px;border:0;background:var(--band)}.sw.tick{width:3px;height:10px;border:0;background:var(--tick)}
svg.chart{width:100%;height:auto;display:block}
svg .grid{stroke:var(--grid);stroke-width:1}svg .axis{stroke:var(--mut);fill:none;stroke-width:1}
svg text{fill:var(--mut);font-size:12px}svg .yl{text-anchor:end}svg .xl,svg .al{text-anchor:middle}
svg .band{fill:var(--band)}svg .tick{stroke:var(--tick);stroke-width:2}
svg .mark{stroke:var(--fg);stroke-width:1;stroke-dasharray:3 3}svg .ml{fill:var(--fg);font-size:11px}.sw.mark{border-top:2px dashed var(--fg)}
svg .series{fill:none;stroke-width:1.6;stroke-linejoin:round}svg .series.dashed{stroke-dasharray:6 4}
svg .series.bars{stroke:none}
.c0{color:var(--c0)}.c1{color:var(--c1)}.c2{color:var(--c2)}.c3{color:var(--c3)}.c4{color:var(--c4)}.c5{color:var(--c5)}.c6{color:var(--c6)}.c7{color:var(--c7)}
svg .series{stroke:currentColor}svg .series.bars{fill:currentColor}
footer{margin-top:40px;color:var(--mut);font-size:12px}
@media print{:root{--bg:#fff;--fg:#000;--mut:#444;--line:#bbb;--grid:#e5e5e5;--card:#fff;
--c0:#1d4ed8;--c1:#b45309;--c2:#047857;--c3:#b91c1c;--c4:#6d28d9;--c5:#0e7490;--c6:#be185d;--c7:#374151}
body{max-width:none;padding:0;font-size:11pt}nav{display:none}h2{break-after:avoid}section,table{break-inside:avoid}
figure.chart-box{border:0;padding:0}}
`
