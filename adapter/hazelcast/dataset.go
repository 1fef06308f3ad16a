package hazelcast

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hazelcast/hazelcast-go-client/aggregate"
	"github.com/hazelcast/hazelcast-go-client/predicate"

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

var _ adapter.ManifestSwapper = (*Target)(nil)

// SwapManifest stores m under the manifest's key while old is what is
// there (PutIfAbsent, ReplaceIfSame: atomic on the key's partition).
func (t *Target) SwapManifest(ctx context.Context, w *workload.Spec, old, m *adapter.Manifest) (bool, error) {
	if t.m == nil {
		return true, nil
	}
	key, js := adapter.ManifestKey(w.KeyPrefix), string(m.Marshal())
	var ok bool
	var err error
	if old == nil {
		var was any
		was, err = t.m.PutIfAbsent(ctx, key, js)
		ok = was == nil
	} else {
		ok, err = t.m.ReplaceIfSame(ctx, key, string(old.Stored()), js)
	}
	if err != nil {
		return false, fmt.Errorf("hazelcast: writing the manifest to map %s: %w", t.cfg.Map, classify(err))
	}
	return ok, nil
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

// A map a load created is destroyed whole only while every entry in it has
// a key of platbench's format (the manifest's prefix then digits, in any of
// its key forms) or is the manifest: an application that wrote into the
// map since (a session:1, a cache entry) keeps the map, and its entries;
// platbench then removes its own keys one by one. The server counts the
// other entries (an aggregation under a predicate on __key), so no key
// crosses the wire; when the server cannot count them (a key that is no
// string fails its predicates), the map stays all the same. A key of
// platbench's very format written by someone
// else (user42 beside a load of user<n>) is not told apart: as in a map
// that was there before, clean removes the manifest's key names.

// foreignEntries counts the map's entries whose key is neither of the
// manifest's key format nor the manifest's own.
func (t *Target) foreignEntries(ctx context.Context, m *adapter.Manifest) (int64, error) {
	ours := []predicate.Predicate{predicate.Equal("__key", adapter.ManifestKey(m.KeyPrefix))}
	for _, f := range append([]string{"{key}"}, m.KeyForms...) {
		before, after, _ := strings.Cut(f, "{key}")
		ours = append(ours, predicate.Regex("__key", javaQuote(before+m.KeyPrefix)+"[0-9]+"+javaQuote(after)))
	}
	v, err := t.m.AggregateWithPredicate(ctx, aggregate.CountAll(), predicate.Not(predicate.Or(ours...)))
	if err != nil {
		msg := strings.Join(strings.Fields(err.Error()), " ") // a server's error carries its Java stack
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return 0, fmt.Errorf("hazelcast: counting the entries of map %q that are not platbench's: %s", t.cfg.Map, msg)
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("hazelcast: counting the entries of map %q that are not platbench's: the server answered a %T", t.cfg.Map, v)
	}
	return n, nil
}

// javaQuote is s as a literal in a Java regular expression (the server's
// java.util.regex: Pattern.quote).
func javaQuote(s string) string {
	if s == "" {
		return ""
	}
	return `\Q` + strings.ReplaceAll(s, `\E`, `\E\\E\Q`) + `\E`
}

// cleanWorkers remove keys of a map at once.
const cleanWorkers = 16

// Clean destroys the map when the load created it, it holds no more
// entries than the manifest's keys (and the manifest), and none of its
// entries has a key outside platbench's key format (foreignEntries).
// Otherwise it removes the manifest's key names one by one (cleanWorkers
// at once), then the manifest, and the map stays.
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
		foreign, err := t.foreignEntries(ctx, m)
		if err != nil { // not known: as if there were
			return t.cleanKeys(ctx, w, m, dryRun, fmt.Sprintf("the load created the map, but whether an application wrote into it since is not known (%v), so the map stays", err))
		}
		if foreign > 0 {
			return t.cleanKeys(ctx, w, m, dryRun, fmt.Sprintf("the load created the map, but %d entries of it have keys not of platbench's key format since, so the map stays", foreign))
		}
		if !dryRun {
			if err := t.m.Destroy(ctx); err != nil {
				return nil, fmt.Errorf("hazelcast: destroying map %q: %w", name, classify(err))
			}
			t.m = nil
		}
		return []string{fmt.Sprintf("map %s (%d entries; load %s created it)", name, size, m.LoadID)}, nil
	}
	return t.cleanKeys(ctx, w, m, dryRun, "the map was there before, with other entries, and stays")
}

// cleanKeys removes (dry: counts) the manifest's key names one by one,
// then the manifest; why says why the map stays.
func (t *Target) cleanKeys(ctx context.Context, w *workload.Spec, m *adapter.Manifest, dryRun bool, why string) ([]string, error) {
	name := t.cfg.Map
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
		fmt.Sprintf("%d keys %s<n> of map %s (of the %d names of key numbers 0..%d that load %s and later runs may have written; %s)", n, m.KeyPrefix, name, m.KeyCount(), int64(m.KeyHigh)-1, m.LoadID, why),
		fmt.Sprintf("key %s of map %s", adapter.ManifestKey(w.KeyPrefix), name),
	}, nil
}
