package analysis

import (
	"fmt"

	"github.com/platbench/platbench/result"
)

// PhaseFigures are the figures of one phase that need no warm-up decision:
// its facts, totals, whole-phase latency and whole-phase throughput. Every
// phase of a report shows them (the load phase, sweep steps); the main phase
// adds its Analysis (Figures). Numbers only: package report formats them.
type PhaseFigures struct {
	Phase       string  `json:"phase"`
	Mode        string  `json:"mode"` // closed or open
	DurationNs  int64   `json:"duration_ns"`
	Concurrency int     `json:"concurrency"`
	RateOpsPerS float64 `json:"rate_ops_per_s,omitempty"` // target rate of an open-loop phase
	Interrupted bool    `json:"interrupted,omitempty"`
	// Delayed counts open-loop ops that started more than DelayThresholdNs
	// late because no worker or in-flight slot was free (the target held
	// them all); LateClient those that started that late with one free (the
	// client itself was late).
	Delayed          uint64 `json:"delayed,omitempty"`
	LateClient       uint64 `json:"late_client,omitempty"`
	DelayThresholdNs int64  `json:"delay_threshold_ns,omitempty"`
	// DelayedWaitNs and DelayedWaitMaxNs are how long the Delayed ops waited
	// for a worker or slot, in total and at the longest (0 in files from
	// before they were kept).
	DelayedWaitNs    int64 `json:"delayed_wait_ns,omitempty"`
	DelayedWaitMaxNs int64 `json:"delayed_wait_max_ns,omitempty"`
	// Streams and Arrival: the open loop's arrival processes as typed, and
	// their spacing (uniform or poisson); RateOpsPerS is then their mean.
	Streams []string `json:"streams,omitempty"`
	Arrival string   `json:"arrival,omitempty"`
	// PaceTickNs: operations due within it of each other started together.
	PaceTickNs int64 `json:"pace_tick_ns,omitempty"`

	// Ops completed without error, Errors of every class, over the whole phase.
	Ops           uint64            `json:"ops"`
	Errors        uint64            `json:"errors"`
	ErrorsByClass map[string]uint64 `json:"errors_by_class,omitempty"`
	Bytes         uint64            `json:"bytes,omitempty"`

	// Latency and Service merge every op type's histogram over the whole phase.
	Latency result.Summary `json:"latency"`
	Service result.Summary `json:"service"`
	// Lag is the open loop's schedule lag (intended start to send), every op
	// type merged; empty in closed loop and in files written before it was kept.
	Lag result.Summary `json:"lag,omitzero"`
	// Attributable is the open loop's server-attributable latency (latency
	// less the client's own lateness), every op type merged; empty in closed
	// loop and in files written before it was kept.
	Attributable result.Summary `json:"attributable,omitzero"`
	PerOp        []OpFigures    `json:"per_op"`
	// RowRates are a cassandra-stress profile run's partition and row
	// rates (RowRatesOf); nil for other workloads.
	RowRates *RowRates `json:"row_rates,omitempty"`

	// Whole is the throughput over the whole phase: mean (Sustained*), peak
	// and stability of every full interval. For the main phase it is the
	// analysis' Raw window, so JSON leaves it out (see analysis.raw).
	Whole result.Window `json:"-"`
	// Rate says whether an open-loop phase sustained its intended rate
	// (RateCheckOf; over the steady window for the main phase, else over
	// the whole phase); nil in closed loop.
	Rate *RateCheck `json:"rate_check,omitempty"`
}

// DelayedWaitMeanNs is the mean wait of the Delayed ops for a worker or
// slot (0 without any, or in files from before the waits were kept).
func (f *PhaseFigures) DelayedWaitMeanNs() float64 {
	if f.Delayed == 0 {
		return 0
	}
	return float64(f.DelayedWaitNs) / float64(f.Delayed)
}

// RateCheck compares what an open-loop phase sustained with what its
// schedule asked for, over a window.
type RateCheck struct {
	IntendedOpsPerS  float64 `json:"intended_ops_per_s"`
	SustainedOpsPerS float64 `json:"sustained_ops_per_s"` // completions, errors included
	// Met: at least RateMetFraction of the intended rate was sustained.
	Met bool `json:"met"`
}

// Achieved is the share of the intended rate sustained (Met from
// RateMetFraction on).
func (rc *RateCheck) Achieved() float64 { return rc.SustainedOpsPerS / rc.IntendedOpsPerS }

// RateMetFraction is the share of the intended rate a window must sustain
// for the rate to count as met.
const RateMetFraction = 0.99

// RateCheckOf checks p's rate over w; nil for a closed loop or a window
// with no intended rate.
func RateCheckOf(p *result.Phase, w result.Window) *RateCheck {
	if p.Mode != "open" || w.LengthNs <= 0 {
		return nil
	}
	intended, n := 0.0, 0
	for _, iv := range p.Intervals {
		if iv.StartNs >= w.StartNs && iv.StartNs+iv.DurationNs <= w.StartNs+w.LengthNs && iv.IntendedOpsPerS > 0 {
			intended += iv.IntendedOpsPerS
			n++
		}
	}
	if n > 0 {
		intended /= float64(n)
	} else {
		intended = p.RateOpsPerS // files from before intervals kept it
	}
	if intended <= 0 {
		return nil
	}
	sustained := float64(w.Ops+w.Errors) / (float64(w.LengthNs) / 1e9)
	return &RateCheck{IntendedOpsPerS: intended, SustainedOpsPerS: sustained, Met: sustained >= RateMetFraction*intended}
}

// OpFigures is one op type over the whole phase.
type OpFigures struct {
	Op            string            `json:"op"`
	Count         uint64            `json:"count"` // completed without error
	Errors        uint64            `json:"errors"`
	ErrorsByClass map[string]uint64 `json:"errors_by_class,omitempty"`
	Bytes         uint64            `json:"bytes,omitempty"`
	// Latency and Service are the op's own summaries, as the file records
	// them (computed from its histograms when the run ended).
	Latency result.Summary `json:"latency"`
	Service result.Summary `json:"service"`
	Lag     result.Summary `json:"lag,omitzero"`
	// Attributable is the op's server-attributable latency (open loop).
	Attributable result.Summary `json:"attributable,omitzero"`
}

// Figures are what every report of a run shows: the main phase's figures
// and its analysis (steady window, peak and sustained throughput, stability,
// stalls, page cache, cost).
type Figures struct {
	PhaseFigures
	Analysis *result.Analysis `json:"analysis"`
}

// SteadyOp is op's throughput over the steady window (zero when the window
// has none of it).
func (f *Figures) SteadyOp(op string) result.OpWindow {
	for _, w := range f.Analysis.Steady.PerOp {
		if w.Op == op {
			return w
		}
	}
	return result.OpWindow{Op: op}
}

// PhaseFiguresOf computes the figures of p. A histogram that does not
// decode is an error (result.ErrMalformed).
func PhaseFiguresOf(p *result.Phase) (*PhaseFigures, error) {
	f := &PhaseFigures{
		Phase: p.Name, Mode: p.Mode, DurationNs: p.DurationNs, Concurrency: p.Concurrency,
		RateOpsPerS: p.RateOpsPerS, Interrupted: p.Interrupted,
		Delayed: p.Delayed, LateClient: p.LateClient, DelayThresholdNs: p.DelayThresholdNs,
		DelayedWaitNs: p.DelayedWaitNs, DelayedWaitMaxNs: p.DelayedWaitMaxNs,
		Streams: p.Streams, Arrival: p.Arrival, PaceTickNs: p.PaceTickNs,
	}
	for _, o := range p.Ops {
		of := OpFigures{Op: o.Op, Count: o.Count, Bytes: o.Bytes, ErrorsByClass: o.Errors, Latency: o.Latency, Service: o.Service}
		if o.Lag != nil {
			of.Lag = *o.Lag
		}
		if o.Attributable != nil {
			of.Attributable = *o.Attributable
		}
		for c, n := range o.Errors {
			of.Errors += n
			if f.ErrorsByClass == nil {
				f.ErrorsByClass = map[string]uint64{}
			}
			f.ErrorsByClass[c] += n
		}
		f.Ops += o.Count
		f.Errors += of.Errors
		f.Bytes += o.Bytes
		f.PerOp = append(f.PerOp, of)
	}
	n := len(p.Intervals)
	var err error
	if f.Latency, err = WindowLatency(p, 0, n, result.HistLatency); err != nil {
		return nil, err
	}
	if f.Service, err = WindowLatency(p, 0, n, result.HistService); err != nil {
		return nil, err
	}
	if p.Mode == "open" {
		if f.Lag, err = WindowLatency(p, 0, n, result.HistLag); err != nil {
			return nil, err
		}
		if f.Attributable, err = WindowLatency(p, 0, n, result.HistAttributable); err != nil {
			return nil, err
		}
	}
	f.Whole = window(p, 0, n)
	f.Rate = RateCheckOf(p, f.Whole)
	return f, nil
}

// FiguresOf computes the figures of r's main phase with r's analysis. A file
// without an analysis of its main phase (written by an older platbench, or
// raw) is analysed here with the warm-up it was run with and default options,
// as `platbench report` does; r.Analysis is left as it is.
func FiguresOf(r *result.Result) (*Figures, error) {
	p := r.MainPhase()
	if p == nil {
		return nil, fmt.Errorf("%w: no phase to report", result.ErrMalformed)
	}
	pf, err := PhaseFiguresOf(p)
	if err != nil {
		return nil, err
	}
	if rr, ok := RowRatesOf(r, p); ok {
		pf.RowRates = &rr
	}
	a := r.Analysis
	if a == nil || (a.Phase != "" && a.Phase != p.Name) {
		if a, err = Analyze(r, Options{Warmup: r.Config.Warmup}); err != nil {
			return nil, err
		}
	}
	if a.Bottleneck == nil { // analysed before bottlenecks were kept
		withB := *a
		withB.Bottleneck = BottleneckOf(r)
		a = &withB
	}
	if rc := RateCheckOf(p, a.Steady); rc != nil {
		pf.Rate = rc
	}
	return &Figures{PhaseFigures: *pf, Analysis: a}, nil
}
