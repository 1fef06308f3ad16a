package workload

import (
	"encoding/json"
	"fmt"

	"github.com/platbench/platbench/result"
)

// Record is s as a result file stores it (result.Workload): the same fields
// and the same JSON. The copy goes through JSON, so a field added to Spec
// but not to result.Workload fails TestRecordKeepsEveryField instead of
// silently leaving the file.
func (s *Spec) Record() (result.Workload, error) {
	var w result.Workload
	if err := roundTrip(s, &w); err != nil {
		return result.Workload{}, fmt.Errorf("workload %q as a result records it: %w", s.Name, err)
	}
	return w, nil
}

// FromRecord is the Spec a result file recorded (a verify reads back what a
// run wrote with the workload it ran).
func FromRecord(w result.Workload) (Spec, error) {
	var s Spec
	if err := roundTrip(&w, &s); err != nil {
		return Spec{}, fmt.Errorf("the result's workload %q: %w", w.Name, err)
	}
	return s, nil
}

func roundTrip(from, to any) error {
	b, err := json.Marshal(from)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, to)
}
