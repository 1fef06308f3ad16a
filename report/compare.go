package report

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/telemetry"
)

// ErrDifferentWorkloads is returned by Compare when the runs did not measure
// the same workload and Force is unset.
var ErrDifferentWorkloads = errors.New("runs measured different workloads")

// CompareOptions configure Compare.
type CompareOptions struct {
	// Files name the results in the order given, for labels and messages.
	Files []string
	// Baseline is the index of the run the others are compared to. Default 0.
	Baseline int
	// Force compares runs of different workloads anyway.
	Force bool
}

// Comparison is a side-by-side of several runs: a row per figure, a column per run.
type Comparison struct {
	Schema   string       `json:"schema"`
	Runs     []CompareRun `json:"runs"`
	Baseline int          `json:"baseline"`
	Rows     []CompareRow `json:"rows"`
	Test     string       `json:"noise_test"`
	Warnings []string     `json:"warnings,omitempty"`

	results []*result.Result
	figs    []*Figures
}

// CompareSchema names the JSON shape of a Comparison.
const CompareSchema = "platbench.compare/v1"

// CompareRun is one column.
type CompareRun struct {
	Label    string   `json:"label"`
	File     string   `json:"file,omitempty"`
	Platform string   `json:"platform"` // instance, arch, CPU in one line
	Figures  *Figures `json:"figures"`
}

// CompareRow is one figure across the runs.
type CompareRow struct {
	Figure string `json:"figure"`
	// Better is "higher", "lower" or "" when the figure has no direction.
	Better string       `json:"better,omitempty"`
	Values []float64    `json:"values"` // NaN-free; Missing marks a run without the figure
	Text   []string     `json:"text"`   // formatted values
	Cells  []RowVerdict `json:"verdicts"`
}

// RowVerdict is one run against the baseline for one figure.
type RowVerdict struct {
	Missing bool    `json:"missing,omitempty"`
	Ratio   float64 `json:"ratio,omitempty"` // >1 means better than the baseline
	Phrase  string  `json:"phrase"`          // "better by 4.0x", "worse by 1.3x", "same", "baseline"
	// Noise is the outcome of the noise test: "different", "within noise", or why it did not run.
	Noise string  `json:"noise"`
	P     float64 `json:"p,omitempty"`
}

// Compare lines up the runs. It refuses runs of different workloads unless
// opt.Force is set.
func Compare(rs []*result.Result, opt CompareOptions) (*Comparison, error) {
	if len(rs) < 2 {
		return nil, fmt.Errorf("compare needs at least two result files, got %d", len(rs))
	}
	if opt.Baseline < 0 || opt.Baseline >= len(rs) {
		return nil, fmt.Errorf("baseline %d is out of range (1..%d)", opt.Baseline+1, len(rs))
	}
	c := &Comparison{Schema: CompareSchema, Baseline: opt.Baseline, Test: NoiseTest, results: rs}
	file := func(i int) string {
		if i < len(opt.Files) {
			return opt.Files[i]
		}
		return fmt.Sprintf("run %d", i+1)
	}
	// Same workload? Name and mix must agree.
	base := rs[opt.Baseline]
	var diffs []string
	for i, r := range rs {
		if i == opt.Baseline {
			continue
		}
		if r.Config.Workload.Name != base.Config.Workload.Name || mixKey(r) != mixKey(base) {
			diffs = append(diffs, fmt.Sprintf("%s ran %q (%s)", file(i), r.Config.Workload.Name, MixString(r)))
		}
	}
	if len(diffs) > 0 {
		msg := fmt.Sprintf("%s ran %q (%s) but %s", file(opt.Baseline), base.Config.Workload.Name, MixString(base), strings.Join(diffs, ", "))
		if !opt.Force {
			return nil, fmt.Errorf("%w: %s; compare runs of the same workload, or pass --force to compare anyway", ErrDifferentWorkloads, msg)
		}
		c.Warnings = append(c.Warnings, "Different workloads compared (--force): "+msg+".")
	}
	var sizes []string
	for i, r := range rs {
		if r.Dataset.LogicalBytes != base.Dataset.LogicalBytes || r.Dataset.Records != base.Dataset.Records {
			sizes = append(sizes, fmt.Sprintf("%s: %s records, %s", file(i), units.Int(float64(r.Dataset.Records)), units.Bytes(float64(r.Dataset.LogicalBytes))))
		}
	}
	if len(sizes) > 0 {
		c.Warnings = append(c.Warnings, fmt.Sprintf("Dataset sizes differ (%s: %s records, %s; %s): a dataset that fits in RAM is served from the page cache.",
			file(opt.Baseline), units.Int(float64(base.Dataset.Records)), units.Bytes(float64(base.Dataset.LogicalBytes)), strings.Join(sizes, "; ")))
	}
	modes := map[string]bool{}
	seen := map[string]int{}
	for i, r := range rs {
		f, err := Compute(r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file(i), err)
		}
		c.figs = append(c.figs, f)
		modes[f.Mode] = true
		lbl := f.Label
		seen[lbl]++
		c.Runs = append(c.Runs, CompareRun{Label: lbl, File: fileOrEmpty(opt.Files, i), Platform: platformLine(r), Figures: f})
	}
	// Two runs on the same platform get their file names to tell them apart.
	for i := range c.Runs {
		if seen[c.Runs[i].Label] > 1 {
			if c.Runs[i].File != "" {
				c.Runs[i].Label += " (" + filepath.Base(c.Runs[i].File) + ")"
			} else {
				c.Runs[i].Label += fmt.Sprintf(" #%d", i+1)
			}
		}
	}
	if len(modes) > 1 {
		c.Warnings = append(c.Warnings, "Some runs were closed-loop and some fixed-rate: their latencies measure different things.")
	}
	c.rows()
	return c, nil
}

// mixKey is the op mix in a canonical order, so that the same mix written
// in another order is the same workload.
func mixKey(r *result.Result) string {
	parts := strings.Split(MixString(r), ", ")
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func fileOrEmpty(fs []string, i int) string {
	if i < len(fs) {
		return fs[i]
	}
	return ""
}

// platformLine is instance type, architecture and CPU model in one line.
func platformLine(r *result.Result) string {
	p := r.Platform
	var parts []string
	for _, s := range []string{p.InstanceType, strings.TrimSpace(p.Arch + " " + p.Microarch), shortCPU(p.CPUModel)} {
		if s != "" {
			parts = append(parts, s)
		}
	}
	if p.Threads > 0 {
		parts = append(parts, fmt.Sprintf("%d threads", p.Threads))
	}
	if p.RAMBytes > 0 {
		parts = append(parts, units.Bytes(float64(p.RAMBytes))+" RAM")
	}
	return strings.Join(parts, ", ")
}

// figure describes one row: how to read it from a run, which way is better
// and, when the run has a per-second series of it, the series for the test.
type figure struct {
	name   string
	better int // +1 higher is better, -1 lower is better, 0 no direction
	value  func(i int) (float64, bool)
	format func(float64) string
	series func(i int) []float64 // nil: no per-second series, no test
	noTest string                // said instead of a test outcome when series is nil
}

func (c *Comparison) rows() {
	n := len(c.figs)
	window := func(i int) []result.Interval {
		p := c.results[i].MainPhase()
		w := c.figs[i].Window
		var out []result.Interval
		for _, in := range p.Intervals {
			s := float64(in.StartNs) / 1e9
			if s+1e-9 < w.StartS || s >= w.EndS || in.DurationNs < 5e8 {
				continue
			}
			out = append(out, in)
		}
		return out
	}
	wins := make([][]result.Interval, n)
	for i := range wins {
		wins[i] = window(i)
	}
	rateSeries := func(i int) []float64 {
		var out []float64
		for _, in := range wins[i] {
			var k uint64
			for _, o := range in.Ops {
				k += o.Count
			}
			out = append(out, float64(k)/(float64(in.DurationNs)/1e9))
		}
		return out
	}
	var figs []figure
	figs = append(figs,
		figure{name: "Sustained throughput", better: +1, format: units.OpsPerSec, series: rateSeries,
			value: func(i int) (float64, bool) { return c.figs[i].SustainedOpsPerS, c.figs[i].SustainedOpsPerS > 0 }},
		figure{name: "Peak throughput (best 1 s)", better: +1, format: units.OpsPerSec, noTest: "single value",
			value: func(i int) (float64, bool) { return c.figs[i].PeakOpsPerS, c.figs[i].PeakOpsPerS > 0 }},
	)
	// Latency rows: all ops together, then each op present in any run.
	type pct struct {
		name string
		sum  func(s result.Summary) float64
	}
	pcts := []pct{
		{"mean", func(s result.Summary) float64 { return s.MeanNs }},
		{"median", func(s result.Summary) float64 { return float64(s.P50Ns) }},
		{"p95", func(s result.Summary) float64 { return float64(s.P95Ns) }},
		{"p99", func(s result.Summary) float64 { return float64(s.P99Ns) }},
		{"p99.9", func(s result.Summary) float64 { return float64(s.P999Ns) }},
		{"max", func(s result.Summary) float64 { return float64(s.MaxNs) }},
	}
	var ops []string
	seenOp := map[string]bool{}
	for _, f := range c.figs {
		for _, o := range f.Ops {
			if !seenOp[o.Op] {
				seenOp[o.Op] = true
				ops = append(ops, o.Op)
			}
		}
	}
	opSeries := func(i int, op string, get func(result.Summary) float64) []float64 {
		var out []float64
		for _, in := range wins[i] {
			for _, o := range in.Ops {
				if o.Op == op && o.Latency.Count > 0 {
					out = append(out, get(o.Latency))
				}
			}
		}
		return out
	}
	// allSeries merges the ops' interval histograms; nil when the file has none.
	allCache := make([][]result.Summary, n)
	allSeries := func(i int, get func(result.Summary) float64) []float64 {
		if len(c.figs[i].Ops) == 1 {
			return opSeries(i, c.figs[i].Ops[0].Op, get)
		}
		if allCache[i] == nil {
			allCache[i] = mergedIntervals(wins[i])
		}
		var out []float64
		for _, s := range allCache[i] {
			if s.Count > 0 {
				out = append(out, get(s))
			}
		}
		return out
	}
	for _, p := range pcts {
		p := p
		figs = append(figs, figure{name: "Latency " + p.name, better: -1, format: units.Latency,
			value:  func(i int) (float64, bool) { return p.sum(c.figs[i].Latency), c.figs[i].Latency.Count > 0 },
			series: func(i int) []float64 { return allSeries(i, p.sum) }})
	}
	if len(ops) > 1 || (len(ops) == 1 && len(c.figs[0].Ops) != 1) {
		for _, op := range ops {
			op := op
			for _, p := range pcts {
				p := p
				figs = append(figs, figure{name: op + " latency " + p.name, better: -1, format: units.Latency,
					value: func(i int) (float64, bool) {
						for _, o := range c.figs[i].Ops {
							if o.Op == op && o.Latency.Count > 0 {
								return p.sum(o.Latency), true
							}
						}
						return 0, false
					},
					series: func(i int) []float64 { return opSeries(i, op, p.sum) }})
			}
		}
	}
	figs = append(figs,
		figure{name: "Stability: CV of the 1 s throughput", better: -1, format: units.Percent, noTest: "single value",
			value: func(i int) (float64, bool) { return c.figs[i].Stability.CV, c.figs[i].Stability.N > 1 }},
		figure{name: "Stalls", better: -1, format: func(v float64) string { return units.Int(v) }, noTest: "count",
			value: func(i int) (float64, bool) { return float64(c.figs[i].Stalls.Count), true }},
		figure{name: "Time stalled", better: -1, format: units.Latency, noTest: "single value",
			value: func(i int) (float64, bool) { return float64(c.figs[i].Stalls.TotalNs), true }},
		figure{name: "Errors", better: -1, format: func(v float64) string { return units.Int(v) }, noTest: "count",
			value: func(i int) (float64, bool) { return float64(c.figs[i].ErrorTotal), true }},
	)
	anyCost := false
	for _, f := range c.figs {
		anyCost = anyCost || f.Cost != nil
	}
	if anyCost {
		cost := func(i int) *Cost { return c.figs[i].Cost }
		figs = append(figs,
			figure{name: "Price per hour", better: -1, format: units.USD, noTest: "catalog price",
				value: func(i int) (float64, bool) { return costVal(cost(i), func(c *Cost) float64 { return c.USDPerHour }) }},
			figure{name: "Cost per million ops", better: -1, format: units.USD, series: rateSeries,
				value: func(i int) (float64, bool) { return costVal(cost(i), func(c *Cost) float64 { return c.USDPerMillion }) }},
			figure{name: "Ops per dollar", better: +1, format: func(v float64) string { return units.Int(v) }, series: rateSeries,
				value: func(i int) (float64, bool) { return costVal(cost(i), func(c *Cost) float64 { return c.OpsPerUSD }) }},
		)
	}
	figs = append(figs, c.hostFigures()...)
	for _, fg := range figs {
		c.Rows = append(c.Rows, c.row(fg))
	}
}

// hostFigures are the machine's figures next to throughput and latency (issue
// 9): what the host, the load generator and the server used while they ran.
// They explain a difference rather than rank it, so they have no direction.
func (c *Comparison) hostFigures() []figure {
	sums := make([]telemetry.Summary, len(c.results))
	any := false
	for i, r := range c.results {
		sums[i] = telemetry.Summarize(r)
		any = any || sums[i].HasHost
	}
	if !any {
		return nil
	}
	host := func(get func(s *telemetry.Summary) float64) func(i int) (float64, bool) {
		return func(i int) (float64, bool) { return get(&sums[i]), sums[i].HasHost }
	}
	figs := []figure{
		{name: "Host CPU busy (mean)", format: units.Percent, noTest: "context", value: host(func(s *telemetry.Summary) float64 { return s.CPUBusyMean })},
		{name: "Host CPU steal (mean)", format: units.Percent, noTest: "context", value: host(func(s *telemetry.Summary) float64 { return s.CPUStealMean })},
		{name: "Busiest core (max)", format: units.Percent, noTest: "context", value: host(func(s *telemetry.Summary) float64 { return s.BusiestCoreMax })},
		{name: "platbench CPU (cores, mean)", format: func(v float64) string { return units.Trim1(v) }, noTest: "context",
			value: func(i int) (float64, bool) { return sums[i].SelfCoresMean, sums[i].SelfCoresMean > 0 }},
		{name: "Host memory used (max)", format: units.Bytes, noTest: "context", value: host(func(s *telemetry.Summary) float64 { return float64(s.MemUsedMaxBytes) })},
	}
	for i := range sums {
		if sums[i].HasServer {
			figs = append(figs, figure{name: "Server CPU (cores, mean)", format: func(v float64) string { return units.Trim1(v) }, noTest: "context",
				value: func(i int) (float64, bool) { return sums[i].ServerCoresMean, sums[i].HasServer }})
			break
		}
	}
	for i := range sums {
		if sums[i].HasIPC {
			figs = append(figs, figure{name: "Instructions per cycle", format: func(v float64) string { return units.Trim1(v) }, noTest: "context",
				value: func(i int) (float64, bool) { return sums[i].IPC, sums[i].HasIPC }})
			break
		}
	}
	return figs
}

func costVal(c *Cost, get func(*Cost) float64) (float64, bool) {
	if c == nil {
		return 0, false
	}
	return get(c), true
}

// row evaluates one figure for every run against the baseline.
func (c *Comparison) row(fg figure) CompareRow {
	n := len(c.figs)
	row := CompareRow{Figure: fg.name, Values: make([]float64, n), Text: make([]string, n), Cells: make([]RowVerdict, n)}
	switch fg.better {
	case +1:
		row.Better = "higher"
	case -1:
		row.Better = "lower"
	}
	ok := make([]bool, n)
	for i := 0; i < n; i++ {
		row.Values[i], ok[i] = fg.value(i)
		if ok[i] {
			row.Text[i] = fg.format(row.Values[i])
		} else {
			row.Text[i] = "-"
			row.Cells[i] = RowVerdict{Missing: true, Phrase: "not measured", Noise: "-"}
		}
	}
	b := c.Baseline
	var baseSeries []float64
	if fg.series != nil && ok[b] {
		baseSeries = fg.series(b)
	}
	for i := 0; i < n; i++ {
		if !ok[i] {
			continue
		}
		if i == b {
			row.Cells[i] = RowVerdict{Phrase: "baseline", Noise: "-"}
			continue
		}
		if !ok[b] {
			row.Cells[i] = RowVerdict{Phrase: "no baseline value", Noise: "-"}
			continue
		}
		v := ratioVerdict(row.Values[b], row.Values[i], fg.better)
		switch {
		case fg.series == nil:
			v.Noise = "no test: " + fg.noTest
		default:
			w := welchTest(fg.series(i), baseSeries)
			if w.Skipped != "" {
				v.Noise = "no test: " + w.Skipped
			} else {
				v.P = w.P
				if w.Different {
					v.Noise = "different"
				} else {
					v.Noise = "within noise"
				}
			}
		}
		row.Cells[i] = v
	}
	return row
}

// ratioVerdict phrases run value v against baseline b: "better by 4.0x".
func ratioVerdict(b, v float64, better int) RowVerdict {
	if better == 0 {
		return RowVerdict{Phrase: ""}
	}
	if b == v {
		return RowVerdict{Ratio: 1, Phrase: "same"}
	}
	if b == 0 || v == 0 {
		// No finite ratio: say only the direction.
		good := (better > 0) == (v > b)
		if good {
			return RowVerdict{Ratio: math.Inf(1), Phrase: "better (" + zeroWord(b, v) + ")"}
		}
		return RowVerdict{Ratio: 0, Phrase: "worse (" + zeroWord(b, v) + ")"}
	}
	r := v / b
	if better < 0 {
		r = b / v
	}
	if r >= 1 {
		return RowVerdict{Ratio: r, Phrase: "better by " + factor(r)}
	}
	return RowVerdict{Ratio: r, Phrase: "worse by " + factor(1/r)}
}

func zeroWord(b, v float64) string {
	if b == 0 {
		return "baseline had none"
	}
	return "none"
}

// factor prints a ratio with two significant digits below 10: "1.3x", "4.0x", "12x".
func factor(r float64) string {
	switch {
	case r < 1.095:
		return fmt.Sprintf("%.2fx", r)
	case r < 10:
		return fmt.Sprintf("%.1fx", r)
	}
	return fmt.Sprintf("%.0fx", r)
}

// mergedIntervals summarises all ops of each interval by merging their
// histograms; an interval without histograms gives an empty summary.
func mergedIntervals(ins []result.Interval) []result.Summary {
	out := make([]result.Summary, len(ins))
	h := result.NewHist()
	for i, in := range ins {
		h.Reset()
		okAll := len(in.Ops) > 0
		for _, o := range in.Ops {
			if o.Count == 0 {
				continue
			}
			if o.Hist == "" {
				okAll = false
				break
			}
			oh, err := hdr.Decode([]byte(o.Hist))
			if err != nil {
				okAll = false
				break
			}
			h.Merge(oh)
		}
		if okAll {
			out[i] = result.Summarize(h)
		}
	}
	return out
}
