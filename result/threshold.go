package result

// Abort is a run phase stopped early by a live threshold check.
type Abort struct {
	// Threshold is the rule that failed, with its value over the intervals
	// from the end of the warm-up to AtNs.
	Threshold ThresholdOutcome `json:"threshold"`
	AtNs      int64            `json:"at_ns"`     // offset into the run phase
	WarmupNs  int64            `json:"warmup_ns"` // the live checks' warm-up
}

// ThresholdOutcome is one --threshold rule and how the run did against it,
// evaluated over the steady window of the main phase (the best step of a
// sweep) when the run ended.
type ThresholdOutcome struct {
	Expr   string `json:"expr"`         // as typed: "read.p99<10ms"
	Op     string `json:"op,omitempty"` // op type the rule is about; empty: all ops
	Figure string `json:"figure"`       // p99, service.p99, lag.p99, sustained, errors, stalls...
	// Comparison is one of < <= > >= == !=.
	Comparison string `json:"comparison"`
	// Unit is the unit of Limit and Value: one of the Unit* constants.
	Unit  string  `json:"unit"`
	Limit float64 `json:"limit"`
	// Value is the run's figure; meaningless when Measured is false.
	Value    float64 `json:"value"`
	Measured bool    `json:"measured"`
	Pass     bool    `json:"pass"`
	// Phase is the phase the rule was evaluated on ("run", or a sweep step).
	Phase string `json:"phase,omitempty"`
	// Reason says why a rule failed without a value ("not measured: ...").
	Reason string `json:"reason,omitempty"`
}

// The units of a threshold's limit and value.
const (
	UnitNs       = "ns"        // a duration in nanoseconds
	UnitOpsPerS  = "ops_per_s" // a throughput
	UnitCount    = "count"     // a number of operations or stalls
	UnitFraction = "fraction"  // a share, 0..1 (typed as a percentage)
)
