package analysis

import (
	"strconv"

	"github.com/platbench/platbench/result"
)

// RowRates are the partition and row rates cassandra-stress prints next to
// its op rate: partitions and rows a profile's inserts wrote per second.
type RowRates struct {
	Partitions     uint64  `json:"partitions"`
	Rows           uint64  `json:"rows"`
	PartitionsPerS float64 `json:"partitions_per_s"`
	RowsPerS       float64 `json:"rows_per_s"`
}

// RowRatesOf computes phase p's partition and row rates from the counts the
// CQL target reports for a cassandra-stress profile run (target details
// profile_partitions and profile_rows, which count the run's inserts, not
// the load's). The counts cover every run phase, so they are attributed only
// when r has one phase besides the load; ok is false otherwise.
func RowRatesOf(r *result.Result, p *result.Phase) (RowRates, bool) {
	parts, err1 := strconv.ParseUint(r.Target.Details["profile_partitions"], 10, 64)
	rows, err2 := strconv.ParseUint(r.Target.Details["profile_rows"], 10, 64)
	if err1 != nil || err2 != nil || p.Name == "load" || p.DurationNs <= 0 {
		return RowRates{}, false
	}
	for i := range r.Phases {
		if q := &r.Phases[i]; q != p && q.Name != "load" {
			return RowRates{}, false
		}
	}
	s := float64(p.DurationNs) / 1e9
	return RowRates{Partitions: parts, Rows: rows, PartitionsPerS: float64(parts) / s, RowsPerS: float64(rows) / s}, true
}
