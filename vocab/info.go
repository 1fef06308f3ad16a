package vocab

// Info describes what was measured: the target a run drove. Adapters fill
// it; it is copied into the result file.
type Info struct {
	Kind    string            `json:"kind"`              // registry name, e.g. "embedded"
	URL     string            `json:"url"`               // with any password removed
	Version string            `json:"version,omitempty"` // server or engine version when the target tells
	Nodes   []string          `json:"nodes,omitempty"`   // contact points or members seen
	Details map[string]string `json:"details,omitempty"`
}
