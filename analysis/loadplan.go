package analysis

import (
	"math"
	"time"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/internal/usererr"
)

// LoadPlan is what a load phase is about to write, said before it starts
// (the issue: a load of 250 GB ran for minutes saying nothing): the
// records (a cassandra-stress profile's partitions), the rows and bytes of
// a mean record (from the profile's distributions and the table's types,
// or the workload's record size), their product, and beside it the host's
// RAM and the target's free disk where known.
type LoadPlan struct {
	Records        uint64
	RowsPerRecord  float64 // 1 unless a profile's clustering columns say more
	BytesPerRecord float64
	Bytes          float64 // Records x BytesPerRecord
	HostRAMBytes   int64   // 0: unknown
	FreeDiskBytes  int64   // the target's free disk for the dataset; 0: unknown
	// BoundedFrom is the record count before a dataset budget lowered it
	// (0: not lowered).
	BoundedFrom uint64
}

// Rows is the plan's rows: Records x RowsPerRecord.
func (p LoadPlan) Rows() float64 { return float64(p.Records) * p.RowsPerRecord }

// PlanLoad computes the plan of loading records of rows and bytes each,
// lowered to fit budget bytes when one is given (0: none). It refuses, with
// the fix, a budget that holds no record and a dataset larger than the
// target's free disk (when known): a load that cannot fit would fail hours
// in. Its errors name the config fields records and dataset_size.
func PlanLoad(records uint64, rowsPerRecord, bytesPerRecord float64, budget, hostRAM, freeDisk int64) (LoadPlan, error) {
	p := LoadPlan{Records: records, RowsPerRecord: max(rowsPerRecord, 1), BytesPerRecord: max(bytesPerRecord, 1), HostRAMBytes: hostRAM, FreeDiskBytes: freeDisk}
	if budget > 0 {
		fit := uint64(math.Floor(float64(budget) / p.BytesPerRecord))
		if fit == 0 {
			return p, usererr.Field("dataset_size", "%s holds no record of %s (fix: a dataset size of at least %s)",
				units.Bytes(float64(budget)), units.Bytes(p.BytesPerRecord), units.Bytes(math.Ceil(p.BytesPerRecord)))
		}
		if fit < p.Records {
			p.BoundedFrom, p.Records = p.Records, fit
		}
	}
	p.Bytes = float64(p.Records) * p.BytesPerRecord
	if freeDisk > 0 && p.Bytes > float64(freeDisk) {
		fit := uint64(float64(freeDisk) / 2 / p.BytesPerRecord)
		return p, usererr.Field("records", "%d records of %s (%s) do not fit the %s free on the target's disk (fix: fewer records, e.g. %d, or a dataset size of at most %s: half the free space leaves room for compaction)",
			p.Records, units.Bytes(p.BytesPerRecord), units.Bytes(p.Bytes), units.Bytes(float64(freeDisk)), fit, units.Bytes(float64(freeDisk)/2))
	}
	return p, nil
}

// LoadETA is how long a load that has done done of total records in
// elapsed still needs at the rate so far; false in its first seconds (the
// rate is not known yet) and when there is nothing to say.
func LoadETA(done, total uint64, elapsed time.Duration) (time.Duration, bool) {
	if elapsed < 3*time.Second || done == 0 || done >= total {
		return 0, false
	}
	rate := float64(done) / elapsed.Seconds()
	return time.Duration(float64(total-done) / rate * float64(time.Second)), true
}
