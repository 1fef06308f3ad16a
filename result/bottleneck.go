package result

// Bottleneck is what limited a run's main phase, named from what the run
// recorded (analysis.BottleneckOf; the rules and thresholds are in
// docs/analysis.md): the resource, where it was, how strong the evidence
// is, and the figures that say so. Derived, as the rest of Analysis is.
type Bottleneck struct {
	// Limit is one of the analysis.Limit* names: "cpu", "one core",
	// "interrupt core", "disk", "network", "loader", "neighbours",
	// "requests in flight", "fixed rate" or "unknown".
	Limit string `json:"limit"`
	// Where names the place: "loader host", "node 10.0.0.1:9100",
	// "platbench and its in-process store", "the server process".
	Where string `json:"where,omitempty"`
	// Strength is "strong", "likely" or "weak".
	Strength string `json:"strength"`
	// Says is what the report says of it, as numbers: each sentence a
	// Phrase (report/limits.go words them). Files written before it carry
	// the sentences themselves in Summary, Evidence, Headroom, Caveats,
	// Next and Missing instead (shown as they are).
	Says *BottleneckPhrases `json:"says,omitempty"`

	// Summary says it in one line, for the top of a report (older files).
	Summary string `json:"summary,omitempty"`
	// Evidence are the figures behind it, one line each (older files).
	Evidence []string `json:"evidence,omitempty"`
	// Headroom lists what had room (a fixed rate met, a closed loop
	// limited by its requests in flight), one line per resource (older
	// files).
	Headroom []string `json:"headroom,omitempty"`
	// Caveats are what makes the run's figures not the platform's alone:
	// other processes on the host, steal, a client-bound loader (older
	// files).
	Caveats []string `json:"caveats,omitempty"`
	// Next is what to do next, in one line (older files).
	Next string `json:"next,omitempty"`
	// Missing names telemetry that would tell more (older files).
	Missing []string `json:"missing,omitempty"`
}

// BottleneckPhrases are a Bottleneck's sentences as numbers: the summary
// line, the evidence, the resources with headroom, the caveats, what to do
// next (nil when nothing) and the telemetry that would tell more.
type BottleneckPhrases struct {
	Summary  Phrase   `json:"summary"`
	Evidence []Phrase `json:"evidence,omitempty"`
	Headroom []Phrase `json:"headroom,omitempty"`
	Caveats  []Phrase `json:"caveats,omitempty"`
	Next     *Phrase  `json:"next,omitempty"`
	Missing  []Phrase `json:"missing,omitempty"`
}

// Phrase is one sentence as what it says (Kind, one of analysis'
// Phrase* kinds) and the figures (F: shares as fractions, cores, ns,
// ops/s) and names (S: a node, a disk, a server, a limit) it says it with,
// in the order its kind lists them (analysis/bottleneck.go); package report
// words it.
type Phrase struct {
	Kind string    `json:"kind"`
	F    []float64 `json:"f,omitempty"`
	S    []string  `json:"s,omitempty"`
}
