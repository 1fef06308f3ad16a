package analysis

import (
	"strings"
	"testing"
	"time"
)

// The blog-posts profile: 100,000 partitions of 1,000 rows of about
// 2.6 KB is about 260 GB; a 10 GiB budget lowers the partitions to what
// fits (4,129 of them); a disk with 100 GiB free refuses the whole, with the fix.
func TestPlanLoad(t *testing.T) {
	const rows, perRow = 1000.0, 2600.0
	p, err := PlanLoad(100000, rows, rows*perRow, 0, 16<<30, 0)
	if err != nil || p.Bytes != 100000*rows*perRow || p.Rows() != 1e8 || p.BoundedFrom != 0 {
		t.Fatalf("plan %+v, %v", p, err)
	}
	p, err = PlanLoad(100000, rows, rows*perRow, 10<<30, 0, 0)
	if want := uint64(4129); err != nil || p.Records != want || p.BoundedFrom != 100000 || p.Bytes > 10<<30 {
		t.Errorf("budget: %+v, %v (want %d records)", p, err, want)
	}
	_, err = PlanLoad(100000, rows, rows*perRow, 0, 0, 100<<30)
	if err == nil || !strings.Contains(err.Error(), "do not fit the 100 GiB free on the target's disk (fix: fewer records, e.g. 20648,") {
		t.Errorf("free disk: %v", err)
	}
	if _, err := PlanLoad(10, 1, 4096, 1000, 0, 0); err == nil || !strings.Contains(err.Error(), "1000 B holds no record of 4.00 KiB") {
		t.Errorf("budget below a record: %v", err)
	}
	if p, err := PlanLoad(1000, 1, 1100, 0, 0, 1<<30); err != nil || p.Records != 1000 {
		t.Errorf("a dataset that fits: %+v, %v", p, err)
	}
}

func TestLoadETA(t *testing.T) {
	if _, ok := LoadETA(10, 100, time.Second); ok {
		t.Error("an ETA in the first seconds")
	}
	if d, ok := LoadETA(3154, 100000, 120*time.Second); !ok || d.Round(time.Minute) != 61*time.Minute {
		t.Errorf("ETA %v, %v", d, ok)
	}
	if _, ok := LoadETA(100, 100, time.Minute); ok {
		t.Error("an ETA when done")
	}
}
