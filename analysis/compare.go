package analysis

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/result"
)

// ErrDifferentWorkloads is wrapped by Compare's error when the runs did not
// measure the same workload and CompareOptions.Force is unset.
var ErrDifferentWorkloads = errors.New("runs measured different workloads")

// Figure names a row of a comparison.
type Figure string

// The rows of a comparison, in order. Latency rows repeat per statistic
// (CompareRow.Stat) for all ops, then for each op type (CompareRow.Op).
const (
	FigSustained      Figure = "sustained_ops_per_s" // steady window
	FigPeak           Figure = "peak_ops_per_s"      // best full interval of the steady window
	FigLatency        Figure = "latency"             // whole phase, from the intended start
	FigLag            Figure = "lag"                 // open loop: intended start to send, whole phase
	FigAttributable   Figure = "attributable"        // open loop: server-attributable latency, whole phase
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

// Outcome is a group's standing against the baseline on one figure.
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

// Reasons a figure gets no interval (GroupVerdict.NoTest).
const (
	NoTestCount = "count"         // a count (stalls, errors)
	NoTestPrice = "catalog price" // a constant
)

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

// directionOf is value v against baseline b in direction better (+1:
// higher is better): same when equal, else better or worse.
func directionOf(b, v float64, better int) Outcome {
	switch {
	case b == v:
		return OutcomeSame
	case (better > 0) == (v > b):
		return OutcomeBetter
	}
	return OutcomeWorse
}
