package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cockroachdb/pebble"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.Retainer, adapter.DatasetChecker,
// adapter.Cleaner). A directory given in the URL is always kept; `platbench
// load` into a temporary one keeps it too (its path is in the result's
// target details) though a later run can only find it by that path. A run
// without a load checks the first and the last record first. Clean deletes
// the keys of the manifest's range from the store (a temporary directory
// is removed whole).

var (
	_ adapter.Retainer       = (*Target)(nil)
	_ adapter.DatasetChecker = (*Target)(nil)
)

// Retain keeps a temporary directory after Close.
func (t *Target) Retain() { t.keep = true }

// Retained reports whether Close keeps what Setup created.
func (t *Target) Retained() bool { return t.keep }

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

// manifestTarget is the manifest's target.
const manifestTarget = "embedded"

// The manifest (adapter.Manifest, JSON) is a key of the store itself,
// adapter.ManifestKey(prefix): outside the workload's key format, written
// with the store's own durability (pebble.Sync), gone with the store.

// NewManifest: the workload's keys in this store's directory.
func (t *Target) NewManifest(_ context.Context, w *workload.Spec, version, loadID string) *adapter.Manifest {
	m := adapter.NewManifest(manifestTarget, version, loadID, w, time.Now())
	m.Dataset = fmt.Sprintf("keys %s<n> in the store %s", w.KeyPrefix, t.dir)
	return m
}

// WriteManifest keeps m under adapter.ManifestKey(prefix).
func (t *Target) WriteManifest(_ context.Context, w *workload.Spec, m *adapter.Manifest) error {
	if t.db == nil {
		return errors.New("embedded: the store is closed")
	}
	return t.db.Set([]byte(adapter.ManifestKey(w.KeyPrefix)), m.Marshal(), pebble.Sync)
}

// ReadManifest reads the manifest of w's key prefix (nil when none).
func (t *Target) ReadManifest(_ context.Context, w *workload.Spec) (*adapter.Manifest, error) {
	if t.db == nil {
		return nil, nil // removed by Clean
	}
	key := adapter.ManifestKey(w.KeyPrefix)
	v, c, err := t.db.Get([]byte(key))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("embedded: reading the manifest %s: %w", key, err)
	}
	defer c.Close()
	m, err := adapter.ParseManifest(v)
	if err == nil && (m.Target != manifestTarget || m.KeyPrefix != w.KeyPrefix) {
		err = fmt.Errorf("it names a %s dataset of key prefix %q", m.Target, m.KeyPrefix)
	}
	if err != nil {
		return nil, adapter.MissingDataset("embedded: key %s in the store %s is not a dataset manifest of platbench's for key prefix %q (%v): nothing removed (fix: remove the store's directory if it is yours to remove)", key, t.dir, w.KeyPrefix, err)
	}
	return m, nil
}

// Unmarked names keys of the store that start with w's prefix (a few, and
// whether there are more), and an older platbench's load mark.
func (t *Target) Unmarked(_ context.Context, w *workload.Spec) error {
	if t.db == nil {
		return nil
	}
	lo := []byte(w.KeyPrefix)
	hi := append([]byte(w.KeyPrefix), 0xff)
	it, err := t.db.NewIter(&pebble.IterOptions{LowerBound: lo, UpperBound: hi})
	if err != nil {
		return fmt.Errorf("embedded: looking for keys of prefix %q: %w", w.KeyPrefix, err)
	}
	var found []string
	more := false
	for ok := it.First(); ok; ok = it.Next() {
		if len(found) == 5 {
			more = true
			break
		}
		found = append(found, strconv.Quote(string(it.Key())))
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("embedded: looking for keys of prefix %q: %w", w.KeyPrefix, err)
	}
	var what []string
	if len(found) > 0 {
		s := "keys " + strings.Join(found, ", ")
		if more {
			s += " and more"
		}
		what = append(what, s+" (their names start with the workload's key prefix, as an application's can)")
	}
	if _, c, err := t.db.Get(legacyLoadKey(w.KeyPrefix)); err == nil {
		c.Close()
		what = append(what, fmt.Sprintf("key %q (an older platbench's mark, without the record count)", legacyLoadKey(w.KeyPrefix)))
	}
	if len(what) == 0 {
		return nil
	}
	return adapter.Unmarked("embedded store "+t.dir, "key "+adapter.ManifestKey(w.KeyPrefix)+" is not there", what)
}

// legacyLoadKey is where platbench before manifests kept the id of a load.
func legacyLoadKey(prefix string) []byte { return []byte("platbench:load:" + prefix) }

// cleanBatch is the deletes of one batch.
const cleanBatch = 10000

// Clean deletes the key names of the manifest's range (those that are
// there), then the manifest, in batches committed with pebble.Sync. A
// temporary directory (the default target) is removed whole: platbench
// made it, and nothing else knows its name.
func (t *Target) Clean(_ context.Context, w *workload.Spec, m *adapter.Manifest, dryRun bool) ([]string, error) {
	if t.temp && !t.keep {
		if !dryRun {
			if t.db != nil {
				t.db.Close()
				t.db = nil
			}
			if err := os.RemoveAll(t.dir); err != nil {
				return nil, fmt.Errorf("embedded: removing the temporary directory %s: %w", t.dir, err)
			}
		}
		return []string{"the temporary directory " + t.dir}, nil
	}
	if t.db == nil {
		return nil, errors.New("embedded: the store is closed")
	}
	var n uint64
	b := t.db.NewBatch()
	flush := func() error {
		if b.Empty() {
			return nil
		}
		if err := b.Commit(pebble.Sync); err != nil {
			return err
		}
		b.Reset()
		return nil
	}
	err := m.Keys(func(k string) error {
		_, c, err := t.db.Get([]byte(k))
		if errors.Is(err, pebble.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		c.Close()
		n++
		if dryRun {
			return nil
		}
		if err := b.Delete([]byte(k), nil); err != nil {
			return err
		}
		if b.Count() >= cleanBatch {
			return flush()
		}
		return nil
	})
	if err == nil && !dryRun {
		if err = b.Delete([]byte(adapter.ManifestKey(w.KeyPrefix)), nil); err == nil {
			err = flush()
		}
	}
	b.Close()
	if err != nil {
		return nil, fmt.Errorf("embedded: cleaning the store %s: %w", t.dir, err)
	}
	return []string{
		fmt.Sprintf("%d keys %s<n> in the store %s (of the %d names of key numbers 0..%d that load %s and later runs may have written)", n, m.KeyPrefix, t.dir, m.KeyCount(), int64(m.KeyHigh)-1, m.LoadID),
		"key " + adapter.ManifestKey(w.KeyPrefix),
	}, nil
}
