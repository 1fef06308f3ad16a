package cql

import (
	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// RecordSize is a record of w as set up: a profile's mean partition
// (csprofile.Profile.Size), or the workload's record of one row.
func (t *Target) RecordSize(w *workload.Spec) (rows, bytes float64) {
	if t.prof != nil {
		return t.prof.Size()
	}
	return 1, float64(w.RecordBytes())
}

// Resize makes the profile's inserts choose their extra partitions among
// w.Records (a dataset budget lowered it after Setup).
func (t *Target) Resize(w *workload.Spec) {
	if t.prof != nil {
		t.prof.Records = w.Records
	}
}

var _ adapter.RecordSizer = (*Target)(nil)
