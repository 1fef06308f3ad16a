package analysis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// ErrDifferentWorkloads is wrapped by Compare's error when the runs did not
// measure the same workload and CompareOptions.Force is unset.
var ErrDifferentWorkloads = errors.New("runs measured different workloads")

// CompareOptions configure Compare.
type CompareOptions struct {
	// Baseline is the index of the run the others are compared to. Default 0.
	Baseline int
	// Force compares runs of different workloads anyway (Comparison.DifferentWorkloads says so).
	Force bool
}

// Comparison is several runs side by side: a row per figure, each run's
// value and its verdict against the baseline. Numbers and verdicts only:
// package report names the rows and formats them.
type Comparison struct {
	Baseline int
	// Runs are the figures of each run, in the order given.
	Runs []*Figures
	Rows []CompareRow
	// DifferentWorkloads lists the runs whose workload (name, or op mix in
	// any order) differs from the baseline's: compared only with Force.
	DifferentWorkloads []int
	// DifferentDatasets lists the runs whose dataset (records or logical
	// bytes) differs from the baseline's: a dataset that fits in RAM is
	// served from the page cache.
	DifferentDatasets []int
	// MixedModes is true when some runs were closed-loop and some fixed-rate:
	// their latencies measure different things.
	MixedModes bool
}

// Figure names a row of a comparison.
type Figure string

// The rows of a comparison, in order. Latency rows repeat per statistic
// (CompareRow.Stat) for all ops, then for each op type (CompareRow.Op).
const (
	FigSustained      Figure = "sustained_ops_per_s" // steady window
	FigPeak           Figure = "peak_ops_per_s"      // best full interval of the steady window
	FigLatency        Figure = "latency"             // whole phase, from the intended start
	FigLag            Figure = "lag"                 // open loop: intended start to send, whole phase
	FigLateClient     Figure = "late_client"         // open loop: ops the client started late, whole phase
	FigStabilityCV    Figure = "stability_cv"        // CV of the steady 1 s throughput, a fraction
	FigStalls         Figure = "stalls"              // count, whole phase
	FigStalledNs      Figure = "stalled_ns"          // total stalled time, whole phase
	FigErrors         Figure = "errors"              // whole phase
	FigPricePerHour   Figure = "price_per_hour_usd"  // one node
	FigUSDPerMillion  Figure = "usd_per_million_ops"
	FigOpsPerUSD      Figure = "ops_per_usd"
	latencyStatsCount        = 6
)

// LatencyStats are the statistics of the latency rows, in order.
var LatencyStats = [latencyStatsCount]string{"mean", "median", "p95", "p99", "p99.9", "max"}

// latencyStat reads statistic k of LatencyStats from a summary.
func latencyStat(s result.Summary, k int) float64 {
	return [latencyStatsCount]float64{s.MeanNs, float64(s.P50Ns), float64(s.P95Ns), float64(s.P99Ns), float64(s.P999Ns), float64(s.MaxNs)}[k]
}

// CompareRow is one figure across the runs.
type CompareRow struct {
	Figure Figure
	Op     string // latency rows of one op type; "" for all ops
	Stat   string // latency rows: one of LatencyStats
	// Better is +1 when higher is better, -1 when lower is.
	Better   int
	Values   []float64
	Measured []bool // false: the run lacks the figure (Values[i] is 0)
	Verdicts []Verdict
}

// Outcome is a run's standing against the baseline on one figure.
type Outcome string

// The outcomes of a verdict.
const (
	OutcomeBaseline    Outcome = "baseline"
	OutcomeNotMeasured Outcome = "not measured"      // the run lacks the figure
	OutcomeNoBaseline  Outcome = "no baseline value" // the baseline lacks it
	OutcomeSame        Outcome = "same"
	OutcomeBetter      Outcome = "better"
	OutcomeWorse       Outcome = "worse"
)

// Reasons a noise test did not run (Verdict.NoTest).
const (
	NoTestSingleValue = "single value"  // one number per run (peak, CV, time stalled)
	NoTestCount       = "count"         // a count (stalls, errors)
	NoTestPrice       = "catalog price" // a constant
)

// Verdict is one run against the baseline on one figure.
type Verdict struct {
	Outcome Outcome
	// Ratio is how many times better (>1) or worse (<1) the run is, in the
	// figure's direction: +Inf or 0 when one side is zero (BaselineZero says
	// which), 1 when the values are equal.
	Ratio        float64
	BaselineZero bool
	// Different is the noise test's outcome at P (two-sided), when it ran
	// (NoTest empty): the difference is larger than run-to-run noise.
	Different bool
	P         float64
	NoTest    string
	// MDE and RunsNeeded are the noise test's power figures (Welch.MDE,
	// Welch.RunsNeeded): the smallest difference these runs could have
	// detected, as a fraction of the baseline, and how many runs of each side
	// would detect DetectTarget.
	MDE        float64
	RunsNeeded int
}

// Compare lines up runs rs against rs[o.Baseline]: each run's figures
// (FiguresOf), the verdict of every figure and the noise test (NoiseTest) on
// the per-second values of the steady windows. It refuses runs of different
// workloads unless o.Force is set.
func Compare(rs []*result.Result, o CompareOptions) (*Comparison, error) {
	if len(rs) < 2 {
		return nil, usererr.New("compare needs at least two result files, got %d", len(rs))
	}
	if o.Baseline < 0 || o.Baseline >= len(rs) {
		return nil, usererr.Field("baseline", "%d is out of range (fix: a run between 1 and %d)", o.Baseline+1, len(rs))
	}
	c := &Comparison{Baseline: o.Baseline}
	base := rs[o.Baseline]
	modes := map[string]bool{}
	for i, r := range rs {
		f, err := FiguresOf(r)
		if err != nil {
			return nil, &RunError{Run: i, Err: err}
		}
		c.Runs = append(c.Runs, f)
		modes[f.Mode] = true
		if !sameWorkload(r, base) {
			c.DifferentWorkloads = append(c.DifferentWorkloads, i)
		}
		if r.Dataset.LogicalBytes != base.Dataset.LogicalBytes || r.Dataset.Records != base.Dataset.Records {
			c.DifferentDatasets = append(c.DifferentDatasets, i)
		}
	}
	if len(c.DifferentWorkloads) > 0 && !o.Force {
		return nil, &WorkloadError{Baseline: o.Baseline, Runs: c.DifferentWorkloads}
	}
	c.MixedModes = len(modes) > 1
	s, err := newCompareSeries(rs, c.Runs)
	if err != nil {
		return nil, err
	}
	for _, fg := range c.figures(s) {
		c.Rows = append(c.Rows, c.row(fg))
	}
	return c, nil
}

// WorkloadError refuses a comparison of runs of different workloads; it
// wraps ErrDifferentWorkloads.
type WorkloadError struct {
	Baseline int
	Runs     []int // the runs whose workload differs from the baseline's
}

func (e *WorkloadError) Error() string {
	runs := make([]string, len(e.Runs))
	for i, r := range e.Runs {
		runs[i] = strconv.Itoa(r + 1)
	}
	return fmt.Sprintf("%v: run %s against run %d (fix: compare runs of the same workload, or force the comparison)",
		ErrDifferentWorkloads, strings.Join(runs, ", "), e.Baseline+1)
}

func (e *WorkloadError) Unwrap() error { return ErrDifferentWorkloads }

// RunError is a problem with one of the runs compared (Run is its index).
type RunError struct {
	Run int
	Err error
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// sameWorkload: the same workload name and the same op mix, in any order.
func sameWorkload(a, b *result.Result) bool {
	if a.Config.Workload.Name != b.Config.Workload.Name {
		return false
	}
	wa, wb := mixShares(a), mixShares(b)
	if len(wa) != len(wb) {
		return false
	}
	for op, w := range wa {
		if math.Abs(w-wb[op]) > 5e-4 {
			return false
		}
	}
	return true
}

// mixShares is each op's share of the mix (0..1).
func mixShares(r *result.Result) map[string]float64 {
	var sum float64
	for _, m := range r.Config.Workload.Mix {
		sum += m.Weight
	}
	out := map[string]float64{}
	if sum <= 0 {
		return out
	}
	for _, m := range r.Config.Workload.Mix {
		out[r.Config.Workload.OpName(m.Op)] += m.Weight / sum
	}
	return out
}

// figure is one row to evaluate: its value in a run, and its per-second
// series in a run's steady window for the noise test (nil: no test).
type figure struct {
	row    CompareRow
	value  func(i int) (float64, bool)
	series func(i int) []float64
	noTest string // the reason when series is nil
}

// figures lists the rows of c, in order.
func (c *Comparison) figures(s *compareSeries) []figure {
	fs := c.Runs
	head := func(f Figure, better int) CompareRow { return CompareRow{Figure: f, Better: better} }
	out := []figure{
		{row: head(FigSustained, +1), series: s.rates,
			value: func(i int) (float64, bool) { v := fs[i].Analysis.Steady.SustainedOpsPerS; return v, v > 0 }},
		{row: head(FigPeak, +1), noTest: NoTestSingleValue,
			value: func(i int) (float64, bool) { v := fs[i].Analysis.Steady.PeakOpsPerS; return v, v > 0 }},
	}
	out = append(out, c.latencyFigures(s)...)
	anyLag := false
	for _, f := range fs {
		anyLag = anyLag || f.Lag.Count > 0
	}
	if anyLag {
		// The client's own lateness, beside the latency it is part of: whole
		// phase (intervals keep no lag histogram), so no noise test.
		for _, k := range []int{1, 3, 5} { // median, p99, max
			out = append(out, figure{row: CompareRow{Figure: FigLag, Stat: LatencyStats[k], Better: -1}, noTest: NoTestSingleValue,
				value: func(i int) (float64, bool) { return latencyStat(fs[i].Lag, k), fs[i].Lag.Count > 0 }})
		}
		out = append(out, figure{row: head(FigLateClient, -1), noTest: NoTestCount,
			value: func(i int) (float64, bool) { return float64(fs[i].LateClient), fs[i].Mode == "open" }})
	}
	out = append(out,
		figure{row: head(FigStabilityCV, -1), noTest: NoTestSingleValue, value: func(i int) (float64, bool) {
			st := fs[i].Analysis.Steady.Stability
			return st.CVPercent / 100, st.Intervals > 1
		}},
		figure{row: head(FigStalls, -1), noTest: NoTestCount,
			value: func(i int) (float64, bool) { return float64(fs[i].Analysis.Stalls.Count), true }},
		figure{row: head(FigStalledNs, -1), noTest: NoTestSingleValue,
			value: func(i int) (float64, bool) { return float64(fs[i].Analysis.Stalls.TotalNs), true }},
		figure{row: head(FigErrors, -1), noTest: NoTestCount,
			value: func(i int) (float64, bool) { return float64(fs[i].Errors), true }},
	)
	anyCost := false
	for _, f := range fs {
		anyCost = anyCost || f.Analysis.Cost != nil
	}
	if !anyCost {
		return out
	}
	cost := func(get func(*result.Cost) float64) func(i int) (float64, bool) {
		return func(i int) (float64, bool) {
			if c := fs[i].Analysis.Cost; c != nil {
				return get(c), true
			}
			return 0, false
		}
	}
	return append(out,
		figure{row: head(FigPricePerHour, -1), noTest: NoTestPrice, value: cost(func(c *result.Cost) float64 { return c.PricePerHourUSD })},
		// A price is a constant: whether the cost differs is whether the throughput does.
		figure{row: head(FigUSDPerMillion, -1), series: s.rates, value: cost(func(c *result.Cost) float64 { return c.USDPerMillionOps })},
		figure{row: head(FigOpsPerUSD, +1), series: s.rates, value: cost(func(c *result.Cost) float64 { return c.OpsPerUSD })},
	)
}

// latencyFigures are the latency rows: all ops, then each op type present in
// any run when there is more than one (or the runs' one op differs).
func (c *Comparison) latencyFigures(s *compareSeries) []figure {
	fs := c.Runs
	var out []figure
	for k, stat := range LatencyStats {
		out = append(out, figure{row: CompareRow{Figure: FigLatency, Stat: stat, Better: -1},
			value:  func(i int) (float64, bool) { return latencyStat(fs[i].Latency, k), fs[i].Latency.Count > 0 },
			series: func(i int) []float64 { return s.allLatency(i, k) }})
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
		for k, stat := range LatencyStats {
			out = append(out, figure{row: CompareRow{Figure: FigLatency, Op: op, Stat: stat, Better: -1},
				value: func(i int) (float64, bool) {
					for _, o := range fs[i].PerOp {
						if o.Op == op && o.Latency.Count > 0 {
							return latencyStat(o.Latency, k), true
						}
					}
					return 0, false
				},
				series: func(i int) []float64 { return s.opLatency(i, op, k) }})
		}
	}
	return out
}

// row evaluates one figure for every run against the baseline.
func (c *Comparison) row(fg figure) CompareRow {
	n := len(c.Runs)
	row := fg.row
	row.Values, row.Measured, row.Verdicts = make([]float64, n), make([]bool, n), make([]Verdict, n)
	for i := 0; i < n; i++ {
		row.Values[i], row.Measured[i] = fg.value(i)
		if !row.Measured[i] {
			row.Values[i] = 0
		}
	}
	b := c.Baseline
	var baseSeries []float64
	if fg.series != nil && row.Measured[b] {
		baseSeries = fg.series(b)
	}
	for i := 0; i < n; i++ {
		switch {
		case !row.Measured[i]:
			row.Verdicts[i] = Verdict{Outcome: OutcomeNotMeasured}
		case i == b:
			row.Verdicts[i] = Verdict{Outcome: OutcomeBaseline}
		case !row.Measured[b]:
			row.Verdicts[i] = Verdict{Outcome: OutcomeNoBaseline}
		default:
			v := ratioVerdict(row.Values[b], row.Values[i], row.Better)
			if fg.series == nil {
				v.NoTest = fg.noTest
			} else {
				w := welchTest(fg.series(i), baseSeries)
				v.NoTest, v.P, v.Different = w.Skipped, w.P, w.Different
				v.MDE, v.RunsNeeded = w.MDE, w.RunsNeeded
			}
			row.Verdicts[i] = v
		}
	}
	return row
}

// ratioVerdict is run value v against baseline b in direction better.
func ratioVerdict(b, v float64, better int) Verdict {
	switch {
	case b == v:
		return Verdict{Outcome: OutcomeSame, Ratio: 1}
	case b == 0 || v == 0:
		// No finite ratio: only the direction.
		if (better > 0) == (v > b) {
			return Verdict{Outcome: OutcomeBetter, Ratio: math.Inf(1), BaselineZero: b == 0}
		}
		return Verdict{Outcome: OutcomeWorse, Ratio: 0, BaselineZero: b == 0}
	}
	r := v / b
	if better < 0 {
		r = b / v
	}
	if r >= 1 {
		return Verdict{Outcome: OutcomeBetter, Ratio: r}
	}
	return Verdict{Outcome: OutcomeWorse, Ratio: r}
}
