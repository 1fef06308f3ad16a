package hazelcast

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.DatasetChecker, adapter.Cleaner). Setup creates
// no map (an IMap exists once used) and Close destroys nothing, so a load
// keeps its entries; a run without a load checks the first and the last
// record's keys first; clean removes what the manifest names: the map when
// the load created it, else the keys of its range.

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

// manifestTarget is the manifest's target.
const manifestTarget = "hazelcast"

// The manifest (adapter.Manifest, JSON, a string) is an entry of the map
// itself, under adapter.ManifestKey(prefix): outside the workload's key
// format, and gone with the map (a map destroyed and made again by someone
// else has no stale manifest of platbench's).

// NewManifest: the workload's keys in map (option map); the load created
// the map when it had no entry (an IMap exists once used). A CP workload
// keeps no records: nil.
func (t *Target) NewManifest(ctx context.Context, w *workload.Spec, version, loadID string) *adapter.Manifest {
	if t.m == nil {
		return nil
	}
	m := adapter.NewManifest(manifestTarget, version, loadID, w, time.Now())
	m.Dataset = fmt.Sprintf("keys %s<n> in map %s", w.KeyPrefix, t.cfg.Map)
	if n, err := t.m.Size(ctx); err == nil && n == 0 {
		m.Created = []string{"map " + t.cfg.Map}
	}
	return m
}

// WriteManifest keeps m in the map under adapter.ManifestKey(prefix).
func (t *Target) WriteManifest(ctx context.Context, w *workload.Spec, m *adapter.Manifest) error {
	if t.m == nil {
		return nil
	}
	if err := t.m.Set(ctx, adapter.ManifestKey(w.KeyPrefix), string(m.Marshal())); err != nil {
		return fmt.Errorf("hazelcast: writing the manifest to map %s: %w", t.cfg.Map, classify(err))
	}
	return nil
}

// ReadManifest reads the manifest of w's key prefix (nil when none).
func (t *Target) ReadManifest(ctx context.Context, w *workload.Spec) (*adapter.Manifest, error) {
	if t.m == nil {
		return nil, nil
	}
	key := adapter.ManifestKey(w.KeyPrefix)
	v, err := t.m.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("hazelcast: reading the manifest in map %s: %w", t.cfg.Map, classify(err))
	}
	if v == nil {
		return nil, nil
	}
	var m *adapter.Manifest
	s, ok := v.(string)
	if !ok {
		err = fmt.Errorf("a %T, not a manifest's JSON", v)
	} else if m, err = adapter.ParseManifest([]byte(s)); err == nil && (m.Target != manifestTarget || m.KeyPrefix != w.KeyPrefix) {
		err = fmt.Errorf("it names a %s dataset of key prefix %q", m.Target, m.KeyPrefix)
	}
	if err != nil {
		return nil, adapter.MissingDataset("hazelcast: key %s of map %s is not a dataset manifest of platbench's for key prefix %q (%v): nothing removed (fix: look at it; remove it by hand if it is a stale one)", key, t.cfg.Map, w.KeyPrefix, err)
	}
	return m, nil
}

// Unmarked names the map when it has entries (and an older platbench's
// load mark in it).
func (t *Target) Unmarked(ctx context.Context, w *workload.Spec) error {
	if t.m == nil {
		return nil
	}
	n, err := t.m.Size(ctx)
	if err != nil {
		return fmt.Errorf("hazelcast: map %q: %w", t.cfg.Map, classify(err))
	}
	if n == 0 {
		return nil
	}
	what := []string{fmt.Sprintf("map %s with %d entries", t.cfg.Map, n)}
	if ok, err := t.m.ContainsKey(ctx, legacyLoadKey(w.KeyPrefix)); err == nil && ok {
		what = append(what, fmt.Sprintf("key %q in it (an older platbench's mark, without the record count)", legacyLoadKey(w.KeyPrefix)))
	}
	return adapter.Unmarked("hazelcast map "+t.cfg.Map, "no entry "+adapter.ManifestKey(w.KeyPrefix)+" in it", what)
}

// legacyLoadKey is where platbench before manifests kept the id of a load.
func legacyLoadKey(prefix string) string { return "platbench:load:" + prefix }

// cleanWorkers remove keys of a map at once.
const cleanWorkers = 16

// Clean destroys the map when the load created it and it holds no more
// entries than the manifest's keys (and the manifest): nothing of anyone
// else's can be in it. Otherwise it removes the manifest's key names one
// by one (cleanWorkers at once), then the manifest.
func (t *Target) Clean(ctx context.Context, w *workload.Spec, m *adapter.Manifest, dryRun bool) ([]string, error) {
	if t.m == nil {
		return nil, nil
	}
	name := t.cfg.Map
	size, err := t.m.Size(ctx)
	if err != nil {
		return nil, fmt.Errorf("hazelcast: map %q: %w", name, classify(err))
	}
	if slices.Contains(m.Created, "map "+name) && uint64(size) <= m.KeyCount()+1 {
		if !dryRun {
			if err := t.m.Destroy(ctx); err != nil {
				return nil, fmt.Errorf("hazelcast: destroying map %q: %w", name, classify(err))
			}
			t.m = nil
		}
		return []string{fmt.Sprintf("map %s (%d entries; load %s created it)", name, size, m.LoadID)}, nil
	}
	n, err := adapter.EachKey(ctx, cleanWorkers, m.Keys, func(ctx context.Context, k string) (bool, error) {
		if dryRun {
			return t.m.ContainsKey(ctx, k)
		}
		v, err := t.m.Remove(ctx, k)
		return v != nil, err
	})
	if err == nil && !dryRun {
		err = t.m.Delete(ctx, adapter.ManifestKey(w.KeyPrefix))
	}
	if err != nil {
		return nil, fmt.Errorf("hazelcast: cleaning map %q: %w", name, classify(err))
	}
	return []string{
		fmt.Sprintf("%d keys %s<n> of map %s (of the %d names of key numbers 0..%d that load %s and later runs may have written; the map was there before, with other entries, and stays)", n, m.KeyPrefix, name, m.KeyCount(), int64(m.KeyHigh)-1, m.LoadID),
		fmt.Sprintf("key %s of map %s", adapter.ManifestKey(w.KeyPrefix), name),
	}, nil
}
