package report

import (
	"encoding/json"
	"io"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// JSONSchema names the shape WriteJSON writes. v2: the figures are package
// analysis' (analysis.Figures, with the analysis inside them) rather than a
// copy made for the report.
const JSONSchema = "platbench.report/v2"

// JSONReport is the machine-readable report: the run's names and the
// figures of its main phase, analysis included.
type JSONReport struct {
	Schema   string            `json:"schema"`
	Label    string            `json:"label"`
	Workload string            `json:"workload"`
	Mix      string            `json:"mix"`
	Figures  *analysis.Figures `json:"figures"`
	Platform result.Platform   `json:"platform"`
	// Notes are the run's own remarks (the analysis' are in Figures.Analysis).
	Notes []string `json:"notes,omitempty"`
}

// WriteJSON writes the report's figures as indented JSON.
func WriteJSON(w io.Writer, r *result.Result) error {
	u, err := newRun(r)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSONReport{Schema: JSONSchema, Label: u.label, Workload: r.Config.Workload.Name, Mix: MixString(r), Figures: wordedFigures(u.f), Platform: r.Platform, Notes: r.Notes})
}
