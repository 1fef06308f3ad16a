package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
)

func TestRowRatesOf(t *testing.T) {
	r := &result.Result{Phases: []result.Phase{{Name: "load", DurationNs: 1e9}, {Name: "run", DurationNs: 4e9}}}
	r.Target.Details = map[string]string{"profile_partitions": "400", "profile_rows": "8000"}
	rr, ok := RowRatesOf(r, &r.Phases[1])
	if !ok || rr.PartitionsPerS != 100 || rr.RowsPerS != 2000 || rr.Rows != 8000 {
		t.Errorf("RowRatesOf = %+v, %v", rr, ok)
	}
	if _, ok := RowRatesOf(r, &r.Phases[0]); ok {
		t.Error("the load phase got the run's rates")
	}
	r.Phases = append(r.Phases, result.Phase{Name: "run2", DurationNs: 1e9})
	if _, ok := RowRatesOf(r, &r.Phases[1]); ok {
		t.Error("counts of two run phases attributed to one")
	}
	delete(r.Target.Details, "profile_rows")
	if _, ok := RowRatesOf(r, &r.Phases[1]); ok {
		t.Error("rates without the counts")
	}
}
