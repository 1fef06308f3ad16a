package report

import (
	"testing"
	"time"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// The line said before a load, for a profile's wide partitions and for
// one-row records, and the progress line's records and ETA.
func TestLoadPlanText(t *testing.T) {
	p, err := analysis.PlanLoad(100000, 1000, 1000*2600, 0, 16<<30, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := LoadPlanText(p), "load: 100,000 records x 1000 rows (100,000,000 rows) x 2.54 KiB a row = about 242 GiB; host RAM 16.0 GiB, target's free disk unknown"; got != want {
		t.Errorf("profile plan:\n got %s\nwant %s", got, want)
	}
	p, _ = analysis.PlanLoad(5000, 1, 1000, 1<<20, 0, 50<<30)
	if got, want := LoadPlanText(p), "load: 1,048 records x 1000 B = about 1023 KiB (5,000 records lowered to fit the dataset size); host RAM unknown, target's free disk 50.0 GiB"; got != want {
		t.Errorf("bounded plan:\n got %s\nwant %s", got, want)
	}
	if got, want := LoadProgressText(3154, 100000, 2*time.Minute), "  3,154 of 100,000 records  ETA 1 h 1 min"; got != want {
		t.Errorf("progress %q, want %q", got, want)
	}
	if got := LoadProgressText(10, 100, time.Second); got != "  10 of 100 records" {
		t.Errorf("progress in the first seconds %q", got)
	}
}

// The dataset line of a profile's run names partitions and their rows.
func TestDatasetLineOfPartitions(t *testing.T) {
	d := result.Dataset{Records: 3, RowsPerRecord: 1000, RecordBytes: 2848552, LogicalBytes: 3 * 2848552, HostRAMBytes: 16 << 30}
	if got, want := datasetLine(&d), "3 partitions x 1000 rows (2.72 MiB) = 8.15 MiB logical; host RAM 16.0 GiB"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}
