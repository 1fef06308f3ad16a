package analysis

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/platbench/platbench/result"
)

// CompareAnswer is the comparison's answer in plain words, for the top of
// compare's output: the figures that matter, each group against the
// baseline with its interval and verdict; what limited each group; what
// makes the comparison unfair or unsettled, one line each.
type CompareAnswer struct {
	Headline []string     `json:"headline"`
	Limits   []GroupLimit `json:"limits"`
	Unfair   []string     `json:"unfair,omitempty"`
}

// GroupLimit is what limited a group's runs: the most common limit among
// them (BottleneckOf of each run), in how many of the group's runs.
type GroupLimit struct {
	Group string `json:"group"`
	Limit string `json:"limit"`
	Where string `json:"where,omitempty"`
	Runs  int    `json:"runs"` // runs with this limit
	Of    int    `json:"of"`   // runs in the group
	// Summary is the limit's line as report words it (report fills it in
	// from Bottleneck, the first run's with it, whose sentences are
	// numbers; an older file's carries its own).
	Summary    string             `json:"summary"`
	Bottleneck *result.Bottleneck `json:"-"`
}

// headlineFigures are the rows the headline states, in order.
var headlineFigures = []string{"Sustained throughput", "Latency p99"}

// AnswerOf computes c's answer from its rows and its runs' bottlenecks.
func AnswerOf(c *CompareModel) *CompareAnswer {
	a := &CompareAnswer{}
	base := c.Groups[c.Baseline].Name
	for _, fig := range headlineFigures {
		row := c.row(fig)
		if row == nil {
			continue
		}
		for gi, g := range c.Groups {
			if gi == c.Baseline || gi >= len(row.Cells) {
				continue
			}
			if l := headlineLine(g.Name, base, fig, row.Cells[gi]); l != "" {
				a.Headline = append(a.Headline, l)
			}
		}
	}
	for gi, g := range c.Groups {
		if gi != c.Baseline {
			if l := c.setupDiff(gi); l != "" {
				a.Unfair = append(a.Unfair, l)
			}
		}
		gl, bs := c.groupLimit(gi)
		if gl == nil {
			continue
		}
		a.Limits = append(a.Limits, *gl)
		a.Unfair = append(a.Unfair, unfairLines(g.Name, bs)...)
	}
	return a
}

// setupFacets are what a run's setup is, besides its platform, for the
// answer's "differs in more than the platform" line: each a name and the
// value a run had (workload and dataset size have warnings of their own).
var setupFacets = []struct {
	name string
	of   func(r *result.Result) string
}{
	{"mode", func(r *result.Result) string {
		if r.Config.RateOpsPerS > 0 {
			return fmt.Sprintf("fixed rate %.0f op/s", r.Config.RateOpsPerS)
		}
		return "closed loop"
	}},
	{"concurrency", func(r *result.Result) string { return fmt.Sprintf("%d workers", r.Config.Concurrency) }},
	{"duration", func(r *result.Result) string {
		if r.Config.DurationNs > 0 {
			return time.Duration(r.Config.DurationNs).String()
		}
		return fmt.Sprintf("%d ops", r.Config.Ops)
	}},
	{"server version", func(r *result.Result) string { return strings.TrimSpace(r.Target.Kind + " " + r.Target.Version) }},
	{"platbench version", func(r *result.Result) string { return r.Tool.Version }},
}

// setupDiff says how group gi's runs differ from the baseline's in more
// than the platform ("" when they do not): a ratio then measures those
// differences too.
func (c *CompareModel) setupDiff(gi int) string {
	values := func(g int, of func(*result.Result) string) []string {
		var vs []string
		for _, ri := range c.Groups[g].Runs {
			if ri < len(c.Results) {
				if v := of(c.Results[ri]); v != "" && !slices.Contains(vs, v) {
					vs = append(vs, v)
				}
			}
		}
		slices.Sort(vs)
		return vs
	}
	var diffs []string
	for _, f := range setupFacets {
		b, o := values(c.Baseline, f.of), values(gi, f.of)
		if len(b) > 0 && len(o) > 0 && !slices.Equal(b, o) {
			diffs = append(diffs, fmt.Sprintf("%s %s against %s", f.name, strings.Join(o, ", "), strings.Join(b, ", ")))
		}
	}
	if len(diffs) == 0 {
		return ""
	}
	return fmt.Sprintf("%s differs from %s in more than the platform (%s): the ratios measure that too", c.Groups[gi].Name, c.Groups[c.Baseline].Name, strings.Join(diffs, "; "))
}

func (c *CompareModel) row(figure string) *CompareModelRow {
	for i := range c.Rows {
		if c.Rows[i].Figure == figure {
			return &c.Rows[i]
		}
	}
	return nil
}

// headlineLine says one figure of a group against the baseline: "device16
// sustains 1.50x [1.34x, 1.67x] the throughput of epyc2 (better)". Large
// ratios (largeRatio) read as ratios, smaller ones as percentages.
func headlineLine(group, base, figure string, v CompareVerdict) string {
	if v.Missing || v.Ratio <= 0 {
		return ""
	}
	what := strings.ToLower(figure)
	verdict := string(v.Verdict)
	switch {
	case v.Verdict == Different || v.Verdict == Same:
		verdict = v.Phrase // better, worse or same
	case v.Verdict == "":
		verdict = "no interval: " + v.NoTest
		if v.NoTest == "" {
			verdict = "no interval"
		}
	}
	ci := ""
	if v.Low > 0 && v.High > 0 {
		ci = " " + ratioInterval(v.Ratio, v.Low, v.High)
	}
	if largeRatio(v.Ratio) {
		return fmt.Sprintf("%s's %s is %.2fx%s %s's (%s)", group, what, v.Ratio, ci, base, verdict)
	}
	return fmt.Sprintf("%s's %s is %+.1f%%%s against %s's (%s)", group, what, 100*(v.Ratio-1), ci, base, verdict)
}

// ratioInterval writes an interval in the ratio's own form: "[1.34x,
// 1.67x]" for large ratios, "[-4.0%, +2.1%]" for small ones.
func ratioInterval(r, lo, hi float64) string {
	if largeRatio(r) {
		return fmt.Sprintf("[%.2fx, %.2fx]", lo, hi)
	}
	return fmt.Sprintf("[%+.1f%%, %+.1f%%]", 100*(lo-1), 100*(hi-1))
}

// groupLimit is the most common limit among group gi's runs (ties: the
// first run's), and every run's bottleneck.
func (c *CompareModel) groupLimit(gi int) (*GroupLimit, []*result.Bottleneck) {
	g := c.Groups[gi]
	var bs []*result.Bottleneck
	for _, ri := range g.Runs {
		if ri < len(c.Results) {
			if b := runBottleneck(c.Results[ri]); b != nil {
				bs = append(bs, b)
			}
		}
	}
	top, n := CommonLimit(bs)
	if top == nil {
		return nil, nil
	}
	return &GroupLimit{Group: g.Name, Limit: top.Limit, Where: top.Where, Runs: n, Of: len(g.Runs), Summary: top.Summary, Bottleneck: top}, bs
}

// CommonLimit is the limit most of bs have, as the first of them with it
// words it (ties: the limit that came first), and how many have it; nil
// without any.
func CommonLimit(bs []*result.Bottleneck) (*result.Bottleneck, int) {
	count := map[string]int{}
	for _, b := range bs {
		count[b.Limit]++
	}
	var top *result.Bottleneck
	for _, b := range bs { // in order: the first with the most wins a tie
		if top == nil || count[b.Limit] > count[top.Limit] {
			top = b
		}
	}
	if top == nil {
		return nil, 0
	}
	return top, count[top.Limit]
}

// runBottleneck is a run's bottleneck: its analysis', or computed.
func runBottleneck(r *result.Result) *result.Bottleneck {
	if r.Analysis != nil && r.Analysis.Bottleneck != nil {
		return r.Analysis.Bottleneck
	}
	return BottleneckOf(r)
}

// unfairLines say what in a group's runs makes the comparison not the
// platforms' alone: neighbours, a client-bound loader, a closed loop that
// measured its concurrency, steal.
func unfairLines(group string, bs []*result.Bottleneck) []string {
	var out []string
	count := func(limit string) int {
		n := 0
		for _, b := range bs {
			if b.Limit == limit {
				n++
			}
		}
		return n
	}
	if n := count(LimitNeighbours); n > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d runs measured their neighbours (other processes took the host's CPU): rerun on a quiet host before comparing", group, n, len(bs)))
	}
	if n := count(LimitLoader); n > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d runs were limited by the loader, not the target: their figures are platbench's", group, n, len(bs)))
	}
	if n := count(LimitConcurrency); n > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d runs were limited by the closed loop's requests in flight, with resources to spare: its throughput is a floor of its capacity, not the capacity (raise --concurrency, or sweep --find-max)", group, n, len(bs)))
	}
	steal := 0
	for _, b := range bs {
		if stole(b) {
			steal++
		}
	}
	if steal > 0 {
		out = append(out, fmt.Sprintf("%s: %d of %d runs lost CPU to steal (another guest on the same cores)", group, steal, len(bs)))
	}
	return out
}

// stole: b's caveats say the hypervisor stole CPU time (an older file's
// in words).
func stole(b *result.Bottleneck) bool {
	if b.Says != nil {
		return slices.ContainsFunc(b.Says.Caveats, func(c result.Phrase) bool { return c.Kind == PhraseSteal })
	}
	return slices.ContainsFunc(b.Caveats, func(c string) bool { return strings.Contains(c, "hypervisor stole") })
}

// largeRatio: a ratio of 1.25 and more, or 1/1.25 and less, reads better
// as "1.50x" than as "+50%" (and "4.9x" than "+390%").
func largeRatio(r float64) bool { return r >= 1.25 || r <= 1/1.25 }
