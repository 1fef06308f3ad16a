package hazelcast

import (
	"context"
	"fmt"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.DatasetChecker, adapter.Cleaner). Setup creates
// no map (an IMap exists once used) and Close destroys nothing, so a load
// keeps its entries; a run without a load checks the first and the last
// record's keys first; clean destroys platbench's IMap (option map).

var (
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// UseExisting is a no-op: Setup creates nothing that Close would remove.
func (t *Target) UseExisting() {}

// CheckDataset checks that the map holds the first and the last record
// when the workload reads records from it.
func (t *Target) CheckDataset(ctx context.Context, w *workload.Spec) error {
	if t.m == nil || !w.ReadsRecords() || w.Records == 0 {
		return nil
	}
	for _, k := range []uint64{0, w.Records - 1} {
		key := w.KeyName(k)
		ok, err := t.m.ContainsKey(ctx, key)
		if err != nil {
			return fmt.Errorf("hazelcast: checking the dataset: %w", classify(err))
		}
		if !ok {
			return adapter.MissingDataset("hazelcast: the dataset is not there: record %d of %d (key %q) is not in map %q (fix: load it first: platbench load with the same target and workload; then run without the load phase)",
				k, w.Records, key, t.cfg.Map)
		}
	}
	return nil
}

// Clean destroys platbench's IMap when it holds entries.
func (t *Target) Clean(ctx context.Context, _ *workload.Spec) ([]string, error) {
	m, err := t.client.GetMap(ctx, t.cfg.Map)
	if err != nil {
		return nil, fmt.Errorf("hazelcast: map %q: %w", t.cfg.Map, classify(err))
	}
	n, err := m.Size(ctx)
	if err != nil {
		return nil, fmt.Errorf("hazelcast: map %q: %w", t.cfg.Map, classify(err))
	}
	if n == 0 {
		return nil, nil
	}
	if err := m.Destroy(ctx); err != nil {
		return nil, fmt.Errorf("hazelcast: destroying map %q: %w", t.cfg.Map, classify(err))
	}
	return []string{fmt.Sprintf("map %s (%d entries)", t.cfg.Map, n)}, nil
}

var _ adapter.LoadMarker = (*Target)(nil)

// loadKey keeps the id of the load that wrote the map's records: outside
// the workload's key format, so a run never reads it.
func loadKey(prefix string) string { return "platbench:load:" + prefix }

// MarkLoad keeps id in the map under loadKey.
func (t *Target) MarkLoad(ctx context.Context, w *workload.Spec, id string) error {
	if t.m == nil {
		return nil
	}
	return classify(t.m.Set(ctx, loadKey(w.KeyPrefix), id))
}

// LoadMark reads the id MarkLoad kept ("" when there is none).
func (t *Target) LoadMark(ctx context.Context, w *workload.Spec) (string, error) {
	if t.m == nil {
		return "", nil
	}
	v, err := t.m.Get(ctx, loadKey(w.KeyPrefix))
	if err != nil {
		return "", classify(err)
	}
	id, _ := v.(string)
	return id, nil
}
