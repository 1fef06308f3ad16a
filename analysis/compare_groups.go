package analysis

import (
	"math"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// GroupOptions configure CompareGroups.
type GroupOptions struct {
	// Baseline is the index of the group the others are compared to.
	Baseline int
	// MinEffect is the smallest difference that matters, a fraction.
	// Default DefaultMinEffect.
	MinEffect float64
	// Spread is a between-run spread (log scale) supplied for comparisons
	// of single runs; SpreadRuns, when given, are earlier repeated runs of
	// one setup (an A/A set) from which each figure's own spread is
	// estimated, which wins over Spread. SpreadGroups are earlier runs in
	// groups of one setup each (a history's runs of one commit:
	// CommitGroups), from which each figure's spread is pooled.
	Spread       *Spread
	SpreadRuns   []*result.Result
	SpreadGroups [][]*result.Result
	// Force compares runs of different workloads anyway.
	Force bool
}

// GroupComparison is groups of runs side by side: a row per figure, each
// group's centre and, against the baseline group, the ratio of centres with
// its 95% interval and verdict (GroupRatio). Numbers only: package report
// names the rows and formats them.
type GroupComparison struct {
	Grouping
	Baseline  int
	MinEffect float64
	// Spread is the between-run spread supplied (nil when none); SpreadFrom
	// is how many runs it was estimated from (SpreadRuns, SpreadGroups), 0
	// when typed, and SpreadGroups in how many groups.
	Spread       *Spread
	SpreadFrom   int
	SpreadGroups int
	// Runs are the figures of each run, in the order given.
	Runs []*Figures
	Rows []GroupRow
	// DifferentWorkloads and DifferentDatasets are runs whose workload or
	// dataset differs from the first run of the baseline group's;
	// MixedModes is true when some runs were closed-loop and some fixed-rate.
	DifferentWorkloads []int
	DifferentDatasets  []int
	MixedModes         bool
	// Blocks are the groups whose runs did not interleave with the
	// baseline group's (blocksOf).
	Blocks []Block
	// ClientBound are the runs platbench judged client-bound
	// (result.SelfUsage.ClientBound): the loader, not only the target,
	// limited their figures.
	ClientBound []int
}

// GroupRow is one figure across the groups.
type GroupRow struct {
	Figure Figure
	Op     string // latency rows of one op type; "" for all ops
	Stat   string // latency rows: one of LatencyStats
	// Better is +1 when higher is better, -1 when lower is.
	Better int
	// Centres are each group's centre: the geometric mean of its runs'
	// values for figures with intervals, the arithmetic mean for counts.
	Centres []float64
	// Values are each group's runs' values (the runs that measured it).
	Values [][]float64
	// Measured is false for a group none of whose runs has the figure.
	Measured []bool
	Verdicts []GroupVerdict
}

// GroupVerdict is one group against the baseline group on one figure.
type GroupVerdict struct {
	// Outcome is baseline, not measured, no baseline value, or the
	// direction of the centres' ratio: same (equal), better or worse.
	Outcome Outcome
	// Ratio is the group's centre over the baseline's with, when an
	// interval was made (NoTest empty), its bounds, basis and verdict.
	Ratio
	// NoTest says why no interval was made ("" when one was).
	NoTest string
}

// Reasons no interval was made, beside NoTestCount and NoTestPrice.
const (
	NoTestZero     = "a run measured zero"
	NoTestNoWithin = "one run on each side and no within-run noise to measure"
)

// runData is what the rows read of one run.
type runData struct {
	f     *Figures
	p     *result.Phase
	rates []float64 // the steady window's full intervals
	rse   float64   // MeanSE(rates)
	hists map[string]*hdr.Histogram
}

func newRunData(r *result.Result, f *Figures) *runData {
	d := &runData{f: f, p: r.MainPhase(), hists: map[string]*hdr.Histogram{}}
	ops, full := ThroughputSeries(d.p, "")
	for j := f.Analysis.SteadyState.WarmupIntervals; j < len(ops); j++ {
		if full[j] {
			d.rates = append(d.rates, ops[j])
		}
	}
	d.rse = MeanSE(d.rates)
	return d
}

// hist is the run's whole-phase latency histogram of op ("" for all ops),
// merged from the phase totals once.
func (d *runData) hist(op string) (*hdr.Histogram, error) {
	if h, ok := d.hists[op]; ok {
		return h, nil
	}
	var ops []string
	if op != "" {
		ops = []string{op}
	}
	h, err := d.p.MergedHist(0, len(d.p.Intervals), result.HistLatency, ops...)
	if err != nil {
		return nil, err
	}
	d.hists[op] = h
	return h, nil
}

// latencySeries is statistic k of op's latency ("" for all ops) in each
// interval: for all ops of a run of several, the mean weighted by count, and
// for a percentile the op with the most completions stands in (it only
// gauges how correlated the seconds are: QuantileSE).
func (d *runData) latencySeries(op string, k int) []float64 {
	if op == "" && len(d.f.PerOp) == 1 {
		op = d.f.PerOp[0].Op
	}
	if op == "" && k != 0 {
		var most uint64
		for _, o := range d.f.PerOp {
			if o.Count > most {
				most, op = o.Count, o.Op
			}
		}
	}
	var out []float64
	for j := d.f.Analysis.SteadyState.WarmupIntervals; j < len(d.p.Intervals); j++ {
		var sum float64
		var n int64
		for _, o := range d.p.Intervals[j].Ops {
			if o.Latency.Count == 0 || (op != "" && o.Op != op) {
				continue
			}
			if op != "" {
				out = append(out, latencyStat(o.Latency, k))
				break
			}
			sum += o.Latency.MeanNs * float64(o.Latency.Count)
			n += o.Latency.Count
		}
		if op == "" && n > 0 {
			out = append(out, sum/float64(n))
		}
	}
	return out
}

// quantileOf is the quantile of latency statistic k (0 for mean and max).
func quantileOf(k int) float64 {
	return [latencyStatsCount]float64{0, 0.5, 0.95, 0.99, 0.999, 0}[k]
}

// groupFigure is one row to evaluate: a run's value and the within-run
// standard error of its log (0 when unknown); count rows (noTest set)
// get no interval.
type groupFigure struct {
	row    GroupRow
	value  func(d *runData) (v float64, ok bool)
	within func(d *runData) (float64, error)
	noTest string
}

func noWithin(*runData) (float64, error) { return 0, nil }

// CompareGroups compares the groups of runs rs (g) against group
// o.Baseline on every figure. It refuses runs of different workloads unless
// o.Force is set.
func CompareGroups(rs []*result.Result, g Grouping, o GroupOptions) (*GroupComparison, error) {
	if len(g.Groups) < 2 {
		return nil, usererr.New("compare needs at least two groups of runs, got %d (fix: runs of two setups, or group the runs another way)", len(g.Groups))
	}
	if o.Baseline < 0 || o.Baseline >= len(g.Groups) {
		return nil, usererr.Field("baseline", "group %d is out of range (fix: a group between 1 and %d)", o.Baseline+1, len(g.Groups))
	}
	c := &GroupComparison{Grouping: g, Baseline: o.Baseline, MinEffect: o.MinEffect, Spread: o.Spread}
	if c.MinEffect <= 0 {
		c.MinEffect = DefaultMinEffect
	}
	data, err := c.read(rs, o.Force)
	if err != nil {
		return nil, err
	}
	c.Blocks = blocksOf(rs, g, o.Baseline)
	var spreads map[string]*Spread
	if len(o.SpreadRuns) > 0 {
		if len(o.SpreadRuns) < 2 {
			return nil, usererr.Field("spread_runs", "has %d run, which cannot measure run-to-run noise (fix: two or more repeated runs of one setup)", len(o.SpreadRuns))
		}
		o.SpreadGroups = append([][]*result.Result{o.SpreadRuns}, o.SpreadGroups...)
	}
	if len(o.SpreadGroups) > 0 {
		if !slices.ContainsFunc(o.SpreadGroups, func(g []*result.Result) bool { return len(g) > 1 }) {
			return nil, usererr.Field("spread_groups", "hold no setup run twice, which cannot measure run-to-run noise (fix: two or more repeated runs of one setup)")
		}
		if spreads, err = spreadOf(o.SpreadGroups); err != nil {
			return nil, err
		}
		for _, g := range o.SpreadGroups {
			c.SpreadFrom += len(g)
		}
		c.SpreadGroups = len(o.SpreadGroups)
	}
	for _, fg := range groupFigures(c.Runs) {
		sp := o.Spread
		if s, ok := spreads[rowKey(fg.row)]; ok {
			sp = s
		}
		row, err := c.row(fg, data, sp)
		if err != nil {
			return nil, err
		}
		c.Rows = append(c.Rows, row)
	}
	return c, nil
}

// read computes every run's figures and checks the workloads.
func (c *GroupComparison) read(rs []*result.Result, force bool) ([]*runData, error) {
	base := rs[c.Groups[c.Baseline].Runs[0]]
	modes := map[string]bool{}
	data := make([]*runData, len(rs))
	for i, r := range rs {
		f, err := FiguresOf(r)
		if err != nil {
			return nil, &RunError{Run: i, Err: err}
		}
		c.Runs = append(c.Runs, f)
		data[i] = newRunData(r, f)
		if h := r.Host; h != nil && h.Self != nil && h.Self.ClientBound {
			c.ClientBound = append(c.ClientBound, i)
		}
		modes[f.Mode] = true
		if !sameWorkload(r, base) {
			c.DifferentWorkloads = append(c.DifferentWorkloads, i)
		}
		if r.Dataset.LogicalBytes != base.Dataset.LogicalBytes || r.Dataset.Records != base.Dataset.Records {
			c.DifferentDatasets = append(c.DifferentDatasets, i)
		}
	}
	if len(c.DifferentWorkloads) > 0 && !force {
		return nil, &WorkloadError{Baseline: c.Groups[c.Baseline].Runs[0], Runs: c.DifferentWorkloads}
	}
	c.MixedModes = len(modes) > 1
	return data, nil
}

// rowKey names a row for the spreads of SpreadRuns.
func rowKey(r GroupRow) string { return string(r.Figure) + "/" + r.Op + "/" + r.Stat }

// spreadOf estimates each figure's between-run spread from earlier runs in
// groups, each of one setup (an A/A set; a history's runs of one commit):
// the pooled standard deviation of the logs of their values, each group's
// squared deviations from its own mean over its n-1 degrees of freedom,
// summed. A group of one run adds nothing; a figure no group measured
// twice gets no spread.
func spreadOf(groups [][]*result.Result) (map[string]*Spread, error) {
	var figs []*Figures
	var data [][]*runData
	for _, rs := range groups {
		var ds []*runData
		for _, r := range rs {
			f, err := FiguresOf(r)
			if err != nil {
				return nil, err
			}
			figs = append(figs, f)
			ds = append(ds, newRunData(r, f))
		}
		data = append(data, ds)
	}
	out := map[string]*Spread{}
	for _, fg := range groupFigures(figs) {
		if fg.noTest != "" {
			continue
		}
		var ss, df float64
		for _, ds := range data {
			var vs []RunValue
			for _, d := range ds {
				if v, ok := fg.value(d); ok && v > 0 {
					vs = append(vs, RunValue{Value: v})
				}
			}
			if len(vs) < 2 {
				continue
			}
			s := statsOf(vs)
			ss += s.varB * float64(len(vs)-1)
			df += float64(len(vs) - 1)
		}
		if df > 0 {
			out[rowKey(fg.row)] = &Spread{SD: math.Sqrt(ss / df), DF: df}
		}
	}
	return out, nil
}

// CommitGroups are the runs of rs that repeat one commit (run --commit)
// of one setup (workload, target and label, as history groups them), in
// groups of two runs or more, in the order first seen: the groups
// GroupOptions.SpreadGroups pools a spread from. Runs without a commit
// are left out.
func CommitGroups(rs []*result.Result) [][]*result.Result {
	type key struct{ workload, target, label, commit string }
	at := map[key]int{}
	var groups [][]*result.Result
	for _, r := range rs {
		if r.Commit == "" {
			continue
		}
		k := key{r.Config.Workload.Name, r.Config.Target, r.Label, r.Commit}
		i, ok := at[k]
		if !ok {
			i = len(groups)
			at[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	var out [][]*result.Result
	for _, g := range groups {
		if len(g) > 1 {
			out = append(out, g)
		}
	}
	return out
}

// row evaluates one figure for every group against the baseline group.
func (c *GroupComparison) row(fg groupFigure, data []*runData, sp *Spread) (GroupRow, error) {
	n := len(c.Groups)
	row := fg.row
	row.Centres, row.Values, row.Measured, row.Verdicts = make([]float64, n), make([][]float64, n), make([]bool, n), make([]GroupVerdict, n)
	rvs := make([][]RunValue, n)
	for gi, gr := range c.Groups {
		row.Values[gi] = []float64{}
		for _, ri := range gr.Runs {
			v, ok := fg.value(data[ri])
			if !ok {
				continue
			}
			rv := RunValue{Value: v}
			if fg.noTest == "" && v > 0 {
				se, err := fg.within(data[ri])
				if err != nil {
					return row, &RunError{Run: ri, Err: err}
				}
				rv.WithinSE = se
			}
			rvs[gi] = append(rvs[gi], rv)
			row.Values[gi] = append(row.Values[gi], v)
		}
		row.Measured[gi] = len(rvs[gi]) > 0
		row.Centres[gi] = centreOf(rvs[gi], fg.noTest != "")
	}
	b := c.Baseline
	for gi := range c.Groups {
		switch {
		case !row.Measured[gi]:
			row.Verdicts[gi] = GroupVerdict{Outcome: OutcomeNotMeasured}
		case gi == b:
			row.Verdicts[gi] = GroupVerdict{Outcome: OutcomeBaseline}
		case !row.Measured[b]:
			row.Verdicts[gi] = GroupVerdict{Outcome: OutcomeNoBaseline}
		default:
			row.Verdicts[gi] = c.verdict(fg, rvs[b], rvs[gi], row.Centres[b], row.Centres[gi], sp)
		}
	}
	return row, nil
}

// centreOf is a group's centre: the geometric mean of values > 0 for
// figures with intervals (the arithmetic mean when one is 0), else the
// arithmetic mean.
func centreOf(vs []RunValue, arithmetic bool) float64 {
	if len(vs) == 0 {
		return 0
	}
	for _, v := range vs {
		if v.Value <= 0 {
			arithmetic = true
		}
	}
	if !arithmetic {
		return Centre(vs)
	}
	s := 0.0
	for _, v := range vs {
		s += v.Value
	}
	return s / float64(len(vs))
}

// verdict is one group (other) against the baseline group (base).
func (c *GroupComparison) verdict(fg groupFigure, base, other []RunValue, cb, co float64, sp *Spread) GroupVerdict {
	v := GroupVerdict{Outcome: directionOf(cb, co, fg.row.Better)}
	v.Ratio.Ratio = 1
	if cb > 0 {
		v.Ratio.Ratio = co / cb
	} else if co > 0 {
		v.Ratio.Ratio = math.Inf(1)
	}
	if fg.noTest != "" {
		v.NoTest = fg.noTest
		return v
	}
	single := len(base) == 1 && len(other) == 1
	if single && (sp == nil || sp.SD <= 0) && (base[0].WithinSE <= 0 || other[0].WithinSE <= 0) {
		v.NoTest = NoTestNoWithin
		return v
	}
	r, ok := GroupRatio(base, other, IntervalOptions{MinEffect: c.MinEffect, Spread: sp})
	if !ok {
		v.NoTest = NoTestZero
		return v
	}
	v.Ratio = r
	return v
}

// groupFigures lists the rows, in order, for runs of figures fs.
func groupFigures(fs []*Figures) []groupFigure {
	head := func(f Figure, better int) GroupRow { return GroupRow{Figure: f, Better: better} }
	rateSE := func(d *runData) (float64, error) { return d.rse, nil }
	out := []groupFigure{
		{row: head(FigSustained, +1), within: rateSE,
			value: func(d *runData) (float64, bool) { v := d.f.Analysis.Steady.SustainedOpsPerS; return v, v > 0 }},
		{row: head(FigPeak, +1), within: noWithin,
			value: func(d *runData) (float64, bool) { v := d.f.Analysis.Steady.PeakOpsPerS; return v, v > 0 }},
	}
	out = append(out, latencyGroupFigures(fs)...)
	anyLag, anyAttr := false, false
	for _, f := range fs {
		anyLag = anyLag || f.Lag.Count > 0
		anyAttr = anyAttr || f.Attributable.Count > 0
	}
	if anyAttr {
		// The server-attributable latency (latency less the loader's own
		// lateness): the figure a platform comparison at a fixed rate rests
		// on, since the same lag in both columns dilutes every ratio.
		for _, k := range []int{1, 3} { // median, p99
			out = append(out, groupFigure{row: GroupRow{Figure: FigAttributable, Stat: LatencyStats[k], Better: -1}, within: noWithin,
				value: func(d *runData) (float64, bool) {
					return latencyStat(d.f.Attributable, k), d.f.Attributable.Count > 0
				}})
		}
	}
	if anyLag {
		for _, k := range []int{1, 3, 5} { // median, p99, max
			out = append(out, groupFigure{row: GroupRow{Figure: FigLag, Stat: LatencyStats[k], Better: -1}, within: noWithin,
				value: func(d *runData) (float64, bool) { return latencyStat(d.f.Lag, k), d.f.Lag.Count > 0 }})
		}
		out = append(out, groupFigure{row: head(FigLateClient, -1), noTest: NoTestCount,
			value: func(d *runData) (float64, bool) { return float64(d.f.LateClient), d.f.Mode == "open" }})
	}
	out = append(out,
		groupFigure{row: head(FigStabilityCV, -1), within: noWithin, value: func(d *runData) (float64, bool) {
			st := d.f.Analysis.Steady.Stability
			return st.CVPercent / 100, st.Intervals > 1
		}},
		groupFigure{row: head(FigStalls, -1), noTest: NoTestCount,
			value: func(d *runData) (float64, bool) { return float64(d.f.Analysis.Stalls.Count), true }},
		groupFigure{row: head(FigStalledNs, -1), noTest: NoTestCount,
			value: func(d *runData) (float64, bool) { return float64(d.f.Analysis.Stalls.TotalNs), true }},
		groupFigure{row: head(FigErrors, -1), noTest: NoTestCount,
			value: func(d *runData) (float64, bool) { return float64(d.f.Errors), true }},
	)
	anyCost := false
	for _, f := range fs {
		anyCost = anyCost || f.Analysis.Cost != nil
	}
	if !anyCost {
		return out
	}
	cost := func(get func(*result.Cost) float64) func(d *runData) (float64, bool) {
		return func(d *runData) (float64, bool) {
			if c := d.f.Analysis.Cost; c != nil {
				return get(c), true
			}
			return 0, false
		}
	}
	return append(out,
		groupFigure{row: head(FigPricePerHour, -1), noTest: NoTestPrice, value: cost(func(c *result.Cost) float64 { return c.PricePerHourUSD })},
		// A price is a constant: the cost varies within a run as its throughput does.
		groupFigure{row: head(FigUSDPerMillion, -1), within: rateSE, value: cost(func(c *result.Cost) float64 { return c.USDPerMillionOps })},
		groupFigure{row: head(FigOpsPerUSD, +1), within: rateSE, value: cost(func(c *result.Cost) float64 { return c.OpsPerUSD })},
	)
}

// latencyGroupFigures are the latency rows: all ops, then each op type
// present in any run when there is more than one (or the runs' one op
// differs).
func latencyGroupFigures(fs []*Figures) []groupFigure {
	stat := func(op string, k int) groupFigure {
		return groupFigure{row: GroupRow{Figure: FigLatency, Op: op, Stat: LatencyStats[k], Better: -1},
			value: func(d *runData) (float64, bool) {
				if op == "" {
					return latencyStat(d.f.Latency, k), d.f.Latency.Count > 0
				}
				for _, o := range d.f.PerOp {
					if o.Op == op && o.Latency.Count > 0 {
						return latencyStat(o.Latency, k), true
					}
				}
				return 0, false
			},
			within: func(d *runData) (float64, error) {
				q := quantileOf(k)
				switch {
				case k == 0:
					return MeanSE(d.latencySeries(op, k)), nil
				case q == 0:
					return 0, nil // the max has no interval of its own
				}
				h, err := d.hist(op)
				if err != nil {
					return 0, err
				}
				return QuantileSE(h, q, d.latencySeries(op, k)), nil
			}}
	}
	var out []groupFigure
	for k := range LatencyStats {
		out = append(out, stat("", k))
	}
	var ops []string
	seen := map[string]bool{}
	for _, f := range fs {
		for _, o := range f.PerOp {
			if !seen[o.Op] {
				seen[o.Op] = true
				ops = append(ops, o.Op)
			}
		}
	}
	if len(ops) < 2 && (len(ops) == 0 || len(fs[0].PerOp) == 1) {
		return out
	}
	for _, op := range ops {
		for k := range LatencyStats {
			out = append(out, stat(op, k))
		}
	}
	return out
}
