package report

import (
	"bytes"
	"embed"
	"html/template"
	"io"
	"strings"

	"github.com/platbench/platbench/result"
)

// The HTML pages are html/template files embedded in the binary
// (report/assets): the page, its style sheet and the charts' SVG are all
// inline, so a page works offline and loads nothing.

// pageCSS is the whole style sheet. Series colours are CSS variables, so
// dark mode and print swap them without touching the SVG.
//
//go:embed assets/page.css
var pageCSS string

//go:embed assets/*.html.tmpl
var pageFiles embed.FS

var pages = template.Must(template.ParseFS(pageFiles, "assets/*.html.tmpl"))

// headView is what "head" fills in.
type headView struct {
	Title string
	CSS   template.CSS
}

func newHead(title string) headView { return headView{Title: title, CSS: template.CSS(pageCSS)} }

// cellView is one table cell: a header cell (TH) or data, with a class.
type cellView struct {
	Text  string
	Class string // "num" for right-aligned figures, "better"/"worse"/"same" for verdicts
	TH    bool
}

type tableView struct {
	Head []cellView
	Rows [][]cellView
}

// viewOf lays a table out for "table": the first cell of a row is its
// header, right-aligned columns get class num.
func viewOf(t *table) tableView {
	class := func(i int) string {
		if i < len(t.right) && t.right[i] {
			return "num"
		}
		return ""
	}
	v := tableView{Head: make([]cellView, len(t.head)), Rows: make([][]cellView, len(t.rows))}
	for i, h := range t.head {
		v.Head[i] = cellView{Text: h, Class: class(i), TH: true}
	}
	for k, r := range t.rows {
		row := make([]cellView, len(r))
		for i, c := range r {
			row[i] = cellView{Text: c, Class: class(i), TH: i == 0}
		}
		v.Rows[k] = row
	}
	return v
}

type sectionView struct {
	ID, Title string
	Notes     []string
	Table     tableView
}

func sectionViews(secs []section) []sectionView {
	out := make([]sectionView, len(secs))
	for i, s := range secs {
		out[i] = sectionView{ID: s.id, Title: s.title, Notes: s.notes, Table: viewOf(s.t)}
	}
	return out
}

// chartHTML draws a chart (inline SVG, report/svg.go) for a template.
func chartHTML(c *chart) template.HTML {
	b := &svgBuf{}
	c.render(b)
	return template.HTML(b.String())
}

// execute renders the named template into a string (for a part of a page)
// or, through writePage, into w.
func execute(name string, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		return "", err
	}
	return template.HTML(b.String()), nil
}

// writePage renders a whole page into memory first, so a failed render
// writes nothing.
func writePage(w io.Writer, name string, data any) error {
	var b bytes.Buffer
	b.Grow(256 << 10)
	if err := pages.ExecuteTemplate(&b, name, data); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteHTML writes one self-contained HTML page: the tables of the report and
// inline SVG charts, with no script and nothing fetched at view time. It
// follows the reader's light or dark preference and prints on white.
func WriteHTML(w io.Writer, r *result.Result) error {
	u, err := newRun(r)
	if err != nil {
		return err
	}
	cs, err := charts(u)
	if err != nil {
		return err
	}
	page := struct {
		Head            headView
		Label, Headline string
		Limits          [][2]string // the bottleneck's lines, under the headline
		Sections        []sectionView
		Sweep, Events   template.HTML
		Thresholds      template.HTML
		Charts          []template.HTML
		Notes           []string
		Tool            string
	}{Head: newHead("platbench: " + u.label), Label: u.label, Headline: headline(u), Limits: limitLines(u.a), Sections: sectionViews(append(sections(u), dbSections(r)...)),
		Notes: u.notes(), Tool: strings.TrimSpace(r.Tool.Name + " " + r.Tool.Version)}
	for _, c := range cs {
		page.Charts = append(page.Charts, chartHTML(c))
	}
	if page.Thresholds, err = thresholdsSectionHTML(r); err != nil {
		return err
	}
	if page.Sweep, err = sweepSectionHTML(r); err != nil {
		return err
	}
	if page.Events, err = eventsSectionHTML(r, u.events); err != nil {
		return err
	}
	return writePage(w, "report", page)
}
