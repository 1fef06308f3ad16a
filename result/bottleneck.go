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
	// Summary says it in one line, for the top of a report.
	Summary string `json:"summary"`
	// Evidence are the figures behind it, one line each.
	Evidence []string `json:"evidence,omitempty"`
	// Headroom lists what had room (a fixed rate met, a closed loop
	// limited by its requests in flight), one line per resource.
	Headroom []string `json:"headroom,omitempty"`
	// Caveats are what makes the run's figures not the platform's alone:
	// other processes on the host, steal, a client-bound loader.
	Caveats []string `json:"caveats,omitempty"`
	// Next is what to do next, in one line.
	Next string `json:"next,omitempty"`
	// Missing names telemetry that would tell more.
	Missing []string `json:"missing,omitempty"`
}
