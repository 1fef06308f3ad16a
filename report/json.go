package report

import (
	"encoding/json"
	"io"

	"github.com/platbench/platbench/result"
)

// JSONSchema names the shape WriteJSON writes.
const JSONSchema = "platbench.report/v1"

// JSONReport is the machine-readable report: the figures of the main phase,
// with the analysis when the result carries one.
type JSONReport struct {
	Schema   string           `json:"schema"`
	Figures  *Figures         `json:"figures"`
	Platform result.Platform  `json:"platform"`
	Analysis *result.Analysis `json:"analysis,omitempty"`
}

// WriteJSON writes the report's figures as indented JSON.
func WriteJSON(w io.Writer, r *result.Result) error {
	f, err := Compute(r)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(JSONReport{Schema: JSONSchema, Figures: f, Platform: r.Platform, Analysis: r.Analysis})
}
