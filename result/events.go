package result

// Types derived from a result by analysis.EventImpacts and written by
// `platbench sweep`. Like Analysis, EventImpact can be recomputed from the
// raw series of the file; Sweep is the record of what a sweep decided.

// EventImpact is the measured cost of one fault event (kill, stop, exec...)
// on the phase it ran in. Throughput figures count operations completed
// without error; the 1 s figures use full intervals only.
type EventImpact struct {
	// Index is the event's position in Result.Events.
	Index int    `json:"index"`
	Phase string `json:"phase"`
	AtNs  int64  `json:"at_ns"` // offset from the phase start
	Kind  string `json:"kind"`
	Arg   string `json:"arg"`
	// BaselineFromNs..BaselineToNs is the steady window before the event the
	// cost is measured against (at most the 60 s just before it) (empty when the event came before any steady
	// interval: then no level, dip or recovery can be measured).
	BaselineFromNs    int64   `json:"baseline_from_ns"`
	BaselineToNs      int64   `json:"baseline_to_ns"`
	BaselineIntervals int     `json:"baseline_intervals"`
	BaselineOpsPerS   float64 `json:"baseline_ops_per_s"`
	BaselineP99Ns     int64   `json:"baseline_p99_ns"`
	// BaselineErrorRate is errors / (ops + errors) over the baseline window.
	BaselineErrorRate float64 `json:"baseline_error_rate"`
	// WindowEndNs ends the event window [AtNs, WindowEndNs): the recovery
	// point, or the end of the phase when throughput never recovered. The
	// window is measured in whole 1 s intervals, starting with the one the
	// event fell in.
	WindowEndNs int64 `json:"window_end_ns"`
	// Ops and Errors are counted over the event window.
	Ops           uint64            `json:"ops"`
	Errors        uint64            `json:"errors"`
	ErrorsByClass map[string]uint64 `json:"errors_by_class,omitempty"`
	ErrorRate     float64           `json:"error_rate"` // errors / (ops + errors), 0..1
	// AckedWritesLost is, for a verified run (Result.Verification), the
	// acknowledged writes found missing or wrong after the run: of the whole
	// run, not of this event alone (nil when the run was not verified).
	AckedWritesLost *uint64 `json:"acked_writes_lost,omitempty"`
	// Min1sOpsPerS is the lowest full 1 s interval from the event's interval
	// to the end of the window (at least the event's interval and the next).
	Min1sOpsPerS float64 `json:"min_1s_ops_per_s"`
	Min1sAtNs    int64   `json:"min_1s_at_ns"`
	// Max1sOpsPerS is the highest full 1 s interval over the same span: above
	// the baseline it is a catch-up (an open-loop backlog draining).
	Max1sOpsPerS float64 `json:"max_1s_ops_per_s"`
	// MinFineOpsPerS is the lowest fine bucket (100 ms by default) over the
	// same span; fine buckets count completions, errors included.
	MinFineOpsPerS float64 `json:"min_fine_ops_per_s"`
	MinFineAtNs    int64   `json:"min_fine_at_ns"`
	FineWidthNs    int64   `json:"fine_width_ns,omitempty"`
	// DipPercent is how far the lowest 1 s throughput fell below the baseline
	// level (0 = no dip, 100 = nothing completed for a whole second).
	DipPercent float64 `json:"dip_percent"`
	// LongestStallNs is the longest run of fine buckets with no completion
	// while requests were outstanding, inside the event window.
	LongestStallNs int64 `json:"longest_stall_ns"`
	// P99Ns and MaxNs are the latency over the event window, from the merged
	// interval histograms (all ops).
	P99Ns int64 `json:"p99_ns"`
	MaxNs int64 `json:"max_ns"`
	// Recovered is true when the 1 s throughput came back within
	// RecoveryBandPercent of the baseline level and stayed there for
	// RecoveryHoldNs. RecoveryNs is from the event to the start of that stretch
	// (0 when the event had no visible effect on the 1 s series).
	Recovered           bool    `json:"recovered"`
	RecoveryNs          int64   `json:"recovery_ns,omitempty"`
	RecoveryBandPercent float64 `json:"recovery_band_percent"`
	RecoveryHoldNs      int64   `json:"recovery_hold_ns"`
	// SettledOpsPerS is the mean of the last full 1 s intervals of the phase
	// (up to the hold length): the level the system ended at, which says
	// whether an unrecovered run settled lower or higher than before.
	SettledOpsPerS float64 `json:"settled_ops_per_s,omitempty"`
	// Verdict is the sentence the report prints.
	Verdict string `json:"verdict"`
}

// Sweep is what `platbench sweep` ran and found: one fixed-rate phase per
// step, each measured over its own steady state.
type Sweep struct {
	// Mode is "rates" (the rates given) or "find-max" (doubling, then bisection).
	Mode   string `json:"mode"`
	StepNs int64  `json:"step_ns"` // length of each step
	// ObjectiveP99Ns is the latency objective (0: none; steps are then judged
	// on keeping up with the rate only).
	ObjectiveP99Ns int64 `json:"objective_p99_ns,omitempty"`
	// Judge is the latency the objective judged: "attributable" (the
	// server-attributable latency) or "latency" (from the intended start);
	// empty in files from before it could be chosen (latency).
	Judge string `json:"judge,omitempty"`
	// MinAchievedRatio is the share of the target rate a step must sustain.
	MinAchievedRatio float64 `json:"min_achieved_ratio"`
	// MaxDelayedRatio is the share of ops that may start late (no free worker).
	MaxDelayedRatio float64 `json:"max_delayed_ratio"`
	// MaxErrorRatio is the share of ops that may fail.
	MaxErrorRatio float64     `json:"max_error_ratio"`
	Steps         []SweepStep `json:"steps"`
	// Best is the index in Steps of the step with the highest sustained rate
	// that met the objective; -1 when none did.
	Best int `json:"best"`
	// MaxOpsPerS is that step's sustained throughput (0 when none met it).
	MaxOpsPerS float64 `json:"max_ops_per_s"`
	// AllMet is true when every step met the objective (a find-max search
	// that reached MaxRateOpsPerS: the limit is higher); LowestRateOpsPerS
	// is the lowest rate tried; MaxRateOpsPerS the highest rate a find-max
	// search would try; Interrupted is true when Ctrl-C stopped the sweep
	// before every step ran. What the report's verdict is worded from;
	// files written before them carry the sentence in Verdict instead.
	AllMet            bool    `json:"all_met,omitempty"`
	LowestRateOpsPerS float64 `json:"lowest_rate_ops_per_s,omitempty"`
	MaxRateOpsPerS    float64 `json:"max_rate_ops_per_s,omitempty"`
	Interrupted       bool    `json:"interrupted,omitempty"`
	// Verdict is the sentence files written before the fields above carry
	// (the report words a newer file's from them); empty in newer files.
	Verdict string `json:"verdict,omitempty"`
}

// SweepStep is one fixed-rate step of a sweep, measured over its steady window.
type SweepStep struct {
	Phase         string  `json:"phase"` // "rate-<ops/s>"
	TargetOpsPerS float64 `json:"target_ops_per_s"`
	// SustainedOpsPerS is ops completed without error over the steady window
	// divided by its length.
	SustainedOpsPerS float64 `json:"sustained_ops_per_s"`
	// SteadyFromNs is where the steady window starts (offset in the phase);
	// SteadyMethod how it was decided (mser-5, mser, forced, none).
	SteadyFromNs int64  `json:"steady_from_ns"`
	SteadyMethod string `json:"steady_method"`
	// Latency over the steady window (from the intended start: open loop),
	// merged from the interval histograms.
	P50Ns  int64 `json:"p50_ns"`
	P99Ns  int64 `json:"p99_ns"`
	P999Ns int64 `json:"p999_ns"`
	MaxNs  int64 `json:"max_ns"`
	// ServiceP99Ns is the service time p99 over the whole step (the file keeps
	// service histograms per phase, not per interval).
	ServiceP99Ns int64  `json:"service_p99_ns"`
	Ops          uint64 `json:"ops"`     // steady window, without error
	Errors       uint64 `json:"errors"`  // steady window
	Delayed      uint64 `json:"delayed"` // whole step: the target held every worker
	// LateClient counts the step's ops that started late with a worker free
	// (the loader was late); LagP99Ns is the schedule lag p99 (intended start
	// to send) over the whole step.
	LateClient uint64 `json:"late_client,omitempty"`
	LagP99Ns   int64  `json:"lag_p99_ns,omitempty"`
	// AttributableP99Ns is the server-attributable latency p99 over the
	// whole step (latency less the loader's own lateness); 0 in files from
	// before it was kept.
	AttributableP99Ns int64 `json:"attributable_p99_ns,omitempty"`
	// MeetsObjective is true when the step kept up with its rate, within the
	// delayed and error limits, and (with an objective) under the p99.
	MeetsObjective bool `json:"meets_objective"`
	// Misses are the conditions it missed, in the order they are judged
	// (none when it met them all): what the report words as its reason.
	Misses []SweepMiss `json:"misses,omitempty"`
	// Reason is the sentence files written before Misses carry (the
	// report words a newer file's misses); empty in newer files.
	Reason string `json:"reason,omitempty"`
}

// SweepMiss is one condition a sweep step missed: Kind, the step's figure
// (Value: sustained ops/s, the share delayed, late or failed as a
// fraction, the p99 in ns) and what it had to meet (Limit: the share of
// the rate, the share allowed, the objective in ns).
type SweepMiss struct {
	Kind  string  `json:"kind"`
	Value float64 `json:"value,omitempty"`
	Limit float64 `json:"limit,omitempty"`
}

// The conditions a sweep step can miss (SweepMiss.Kind).
const (
	MissAchieved     = "achieved"     // sustained below the share of the rate
	MissDelayed      = "delayed"      // too many ops started late, every worker busy
	MissErrors       = "errors"       // too many ops failed
	MissObjective    = "objective"    // p99 over the objective
	MissInterrupted  = "interrupted"  // Ctrl-C stopped the step
	MissClientBound  = "client_bound" // the loader started too many ops late with a worker free
	MissAttributable = "attributable" // server-attributable p99 over the objective
)
