package embedded

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker). A directory
// given in the URL is always kept; `platbench load` into a temporary one
// keeps it too (its path is in the result's target details) though a later
// run can only find it by that path. A run without a load checks the first
// and the last record first.

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
)

// Retain keeps a temporary directory after Close.
func (t *Target) Retain() { t.keep = true }

// UseExisting is a no-op: Setup creates nothing Close would remove but a
// temporary directory, which holds no dataset a check could find anyway.
func (t *Target) UseExisting() {}

// CheckDataset checks that the store holds the first and the last record.
func (t *Target) CheckDataset(_ context.Context, w *workload.Spec) error {
	if !w.ReadsRecords() || w.Records == 0 {
		return nil
	}
	for _, k := range []uint64{0, w.Records - 1} {
		key := w.KeyName(k)
		_, c, err := t.db.Get([]byte(key))
		if errors.Is(err, pebble.ErrNotFound) {
			where := "directory " + t.dir
			if t.temp {
				where = "a new temporary directory"
			}
			return adapter.MissingDataset("embedded: the dataset is not there: record %d of %d (key %q) is not in %s (fix: load it into a directory first: platbench load with the target embedded:///PATH, then run on that target without the load phase)",
				k, w.Records, key, where)
		}
		if err != nil {
			return fmt.Errorf("embedded: checking the dataset: %w", err)
		}
		c.Close()
	}
	return nil
}

var _ adapter.LoadMarker = (*Target)(nil)

// loadKey keeps the id of the load that wrote the records of prefix:
// outside the workload's key format, so a run never reads it.
func loadKey(prefix string) []byte { return []byte("platbench:load:" + prefix) }

// MarkLoad keeps id under loadKey.
func (t *Target) MarkLoad(_ context.Context, w *workload.Spec, id string) error {
	return t.db.Set(loadKey(w.KeyPrefix), []byte(id), pebble.Sync)
}

// LoadMark reads the id MarkLoad kept ("" when there is none).
func (t *Target) LoadMark(_ context.Context, w *workload.Spec) (string, error) {
	v, c, err := t.db.Get(loadKey(w.KeyPrefix))
	if errors.Is(err, pebble.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	defer c.Close()
	return string(v), nil
}
