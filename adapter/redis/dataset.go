package redis

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.DatasetChecker, adapter.Cleaner). Redis creates
// nothing in Setup and Close removes nothing, so a load keeps its keys; a
// run without a load checks the first and the last record's keys first.
// A load keeps its manifest (adapter.Manifest, JSON) under the key
// adapter.ManifestKey(prefix), "platbench:dataset:user"; clean removes the
// key names regenerated from the manifest's key format over its range (and
// the scan index, and the manifest), never keys found by a pattern: an
// application's "user42" is not a key platbench wrote.

var (
	_ adapter.DatasetChecker = (*Target)(nil)
	_ adapter.Cleaner        = (*Target)(nil)
)

// UseExisting is a no-op: Setup never creates anything.
func (t *Target) UseExisting() {}

// admin is a go-redis client for the dataset checks and clean (not the
// benchmark's path): the cluster client, or one for the standalone server.
func (t *Target) admin() (goredis.UniversalClient, func()) {
	if t.cluster != nil {
		return t.cluster, func() {}
	}
	o := &goredis.Options{Addr: t.cfg.Addrs[0], Username: t.cfg.User, Password: t.cfg.Password, DB: t.cfg.DB,
		DialTimeout: t.cfg.Timeout, ReadTimeout: t.cfg.Timeout, WriteTimeout: t.cfg.Timeout, TLSConfig: t.dial.tls}
	c := goredis.NewClient(o)
	return c, func() { c.Close() }
}

// CheckDataset checks that the first and the last record of the workload
// are there (a run that reads them would otherwise count not_found errors).
func (t *Target) CheckDataset(ctx context.Context, w *workload.Spec) error {
	if !w.ReadsRecords() || w.Records == 0 {
		return nil
	}
	c, done := t.admin()
	defer done()
	for _, k := range []uint64{0, w.Records - 1} {
		key := w.KeyName(k)
		n, err := c.Exists(ctx, key).Result()
		if err != nil {
			return fmt.Errorf("redis: checking the dataset: %w", classify(err))
		}
		if n == 0 {
			return adapter.MissingDataset("redis: the dataset is not there: record %d of %d (key %q) is missing in %s (fix: load it first: platbench load with the same target and workload; then run without the load phase)",
				k, w.Records, key, t.where())
		}
		if t.index == "" {
			continue
		}
		if err := c.ZScore(ctx, t.index, key).Err(); errors.Is(err, goredis.Nil) {
			return adapter.MissingDataset("redis: the scan index %s does not list record %d of %d (key %q) in %s: the dataset was loaded by a workload without SCAN (fix: load it with the scanning workload; then run without the load phase)",
				t.index, k, w.Records, key, t.where())
		} else if err != nil {
			return fmt.Errorf("redis: checking the scan index: %w", classify(err))
		}
	}
	return nil
}

// NewManifest: the keys of w, with the forms a command template gives them
// ("list:__key__") and the scan index of a workload that scans.
func (t *Target) NewManifest(_ context.Context, w *workload.Spec, version, loadID string) *adapter.Manifest {
	m := adapter.NewManifest(manifestTarget, version, loadID, w, time.Now())
	m.Dataset = fmt.Sprintf("keys %s<n> in %s", w.KeyPrefix, t.where())
	for _, c := range w.Commands {
		args, err := workload.ParseCommand(c.Command)
		if err != nil {
			continue // Setup refused it already
		}
		for _, a := range args {
			if a.Kind == workload.ArgKey && (a.Text != "" || a.Suffix != "") {
				if f := a.Text + "{key}" + a.Suffix; !slices.Contains(m.KeyForms, f) {
					m.KeyForms = append(m.KeyForms, f)
				}
			}
		}
	}
	for _, op := range w.Mix {
		if op.Op == vocab.OpScan && op.Weight > 0 {
			m.Extra = append(m.Extra, indexKey(w.KeyPrefix))
		}
	}
	return m
}

// WriteManifest keeps m under adapter.ManifestKey(prefix).
func (t *Target) WriteManifest(ctx context.Context, w *workload.Spec, m *adapter.Manifest) error {
	c, done := t.admin()
	defer done()
	if err := c.Set(ctx, adapter.ManifestKey(w.KeyPrefix), m.Marshal(), 0).Err(); err != nil {
		return fmt.Errorf("redis: writing the manifest %s: %w", adapter.ManifestKey(w.KeyPrefix), classify(err))
	}
	return nil
}

var _ adapter.ManifestSwapper = (*Target)(nil)

// swapScript sets KEYS[1] to ARGV[2] only while it holds ARGV[1] (an empty
// ARGV[1]: only while it is not there), atomically on the server.
var swapScript = goredis.NewScript(`local v = redis.call('GET', KEYS[1])
if (v == false and ARGV[1] == '') or v == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2])
  return 1
end
return 0`)

// SwapManifest stores m under the manifest's key while old is what is
// there (a Lua script: one key, so a cluster runs it on the key's node).
func (t *Target) SwapManifest(ctx context.Context, w *workload.Spec, old, m *adapter.Manifest) (bool, error) {
	c, done := t.admin()
	defer done()
	var was []byte
	if old != nil {
		was = old.Stored()
	}
	key := adapter.ManifestKey(w.KeyPrefix)
	n, err := swapScript.Run(ctx, c, []string{key}, was, m.Marshal()).Int()
	var re goredis.Error
	if errors.As(err, &re) && (strings.HasPrefix(re.Error(), "NOPERM") || strings.Contains(re.Error(), "unknown command")) {
		return false, fmt.Errorf("redis: %v: %w", err, adapter.ErrNoSwap) // a user without scripts: read, merge, write
	}
	if err != nil {
		return false, fmt.Errorf("redis: writing the manifest %s (EVAL, compare and set): %w", key, classify(err))
	}
	return n == 1, nil
}

// ReadManifest reads the manifest of w's key prefix (nil when none).
func (t *Target) ReadManifest(ctx context.Context, w *workload.Spec) (*adapter.Manifest, error) {
	c, done := t.admin()
	defer done()
	key := adapter.ManifestKey(w.KeyPrefix)
	b, err := c.Get(ctx, key).Bytes()
	if errors.Is(err, goredis.Nil) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("redis: reading the manifest %s: %w", key, classify(err))
	}
	m, err := adapter.ParseManifest(b)
	if err == nil && (m.Target != manifestTarget || m.KeyPrefix != w.KeyPrefix) {
		err = fmt.Errorf("it names a %s dataset of key prefix %q", m.Target, m.KeyPrefix)
	}
	if err == nil {
		// Clean unlinks the extra keys by name: the scan index is the only
		// one a load of this prefix writes.
		for _, k := range m.Extra {
			if k != indexKey(w.KeyPrefix) {
				err = fmt.Errorf("it names the extra key %q, not the prefix's scan index %s", k, indexKey(w.KeyPrefix))
				break
			}
		}
	}
	if err != nil {
		return nil, adapter.MissingDataset("redis: key %s in %s is not a dataset manifest of platbench's for key prefix %q (%v): nothing removed (fix: look at it with GET %s; delete it by hand if it is a stale one)", key, t.where(), w.KeyPrefix, err, key)
	}
	return m, nil
}

// manifestTarget is the manifest's target for Redis and Valkey.
const manifestTarget = "redis"

// unmarkedSample bounds the keys Unmarked names, and the SCAN calls it
// makes looking for them.
const (
	unmarkedSample = 5
	unmarkedScans  = 200
)

// Unmarked names keys that start with w's prefix, and an older platbench's
// load mark, when no manifest is there: a SCAN bounded to unmarkedScans
// calls, to name what it found, never to remove it.
func (t *Target) Unmarked(ctx context.Context, w *workload.Spec) error {
	c, done := t.admin()
	defer done()
	var found []string
	more := false
	look := func(ctx context.Context, c *goredis.Client) error {
		var cursor uint64
		for range unmarkedScans {
			keys, next, err := c.Scan(ctx, cursor, globEscape(w.KeyPrefix)+"*", 1000).Result()
			if err != nil {
				return err
			}
			for _, k := range keys {
				if len(found) < unmarkedSample {
					found = append(found, strconv.Quote(k))
				} else {
					more = true
				}
			}
			if cursor = next; cursor == 0 {
				return nil
			}
		}
		more = true
		return nil
	}
	var err error
	switch cc := c.(type) {
	case *goredis.ClusterClient:
		var mu sync.Mutex
		err = cc.ForEachMaster(ctx, func(ctx context.Context, c *goredis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			return look(ctx, c)
		})
	case *goredis.Client:
		err = look(ctx, cc)
	}
	if err != nil {
		return fmt.Errorf("redis: looking for keys of prefix %q in %s: %w", w.KeyPrefix, t.where(), classify(err))
	}
	var what []string
	if len(found) > 0 {
		s := "keys " + strings.Join(found, ", ")
		if more {
			s += " and more"
		}
		what = append(what, s+" (their names start with the workload's key prefix, as an application's can)")
	}
	for _, k := range [][2]string{
		{legacyLoadKey(w.KeyPrefix), "an older platbench's load mark, without the record count"},
		{indexKey(w.KeyPrefix), "a scan index, of a dataset without a manifest"},
	} {
		if n, err := c.Exists(ctx, k[0]).Result(); err == nil && n > 0 {
			what = append(what, fmt.Sprintf("key %q (%s)", k[0], k[1]))
		}
	}
	if len(what) == 0 {
		return nil
	}
	return adapter.Unmarked("redis "+t.where(), "key "+adapter.ManifestKey(w.KeyPrefix)+" is not there", what)
}

// legacyLoadKey is where platbench before manifests kept the id of a load.
func legacyLoadKey(prefix string) string { return "platbench:load:" + prefix }

// globEscape escapes SCAN MATCH's special characters in s.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]^\-`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// cleanBatch is the keys of one UNLINK (or EXISTS, for a dry run).
const cleanBatch = 1000

// Clean removes the key names of the manifest's range, in each of its forms,
// with UNLINK in batches (one per key, pipelined, in a cluster, where keys
// are in several slots), then its extra keys (the scan index) and the
// manifest; a dry run counts with EXISTS which of them are there.
func (t *Target) Clean(ctx context.Context, w *workload.Spec, m *adapter.Manifest, dryRun bool) ([]string, error) {
	c, done := t.admin()
	defer done()
	_, clustered := c.(*goredis.ClusterClient)
	var n int64
	batch := make([]string, 0, cleanBatch)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		var got int64
		if clustered {
			cmds, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
				for _, k := range batch {
					if dryRun {
						p.Exists(ctx, k)
					} else {
						p.Unlink(ctx, k)
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, cmd := range cmds {
				got += cmd.(*goredis.IntCmd).Val()
			}
		} else {
			var err error
			if dryRun {
				got, err = c.Exists(ctx, batch...).Result()
			} else {
				got, err = c.Unlink(ctx, batch...).Result()
			}
			if err != nil {
				return err
			}
		}
		n += got
		batch = batch[:0]
		return nil
	}
	err := m.Keys(func(k string) error {
		batch = append(batch, k)
		if len(batch) == cleanBatch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return nil, fmt.Errorf("redis: cleaning %s: %w", t.where(), classify(err))
	}
	out := []string{fmt.Sprintf("%d keys %s<n> in %s (of the %d names of key numbers 0..%d that load %s and later runs may have written)",
		n, m.KeyPrefix, t.where(), m.KeyCount(), int64(m.KeyHigh)-1, m.LoadID)}
	for _, k := range append(slices.Clone(m.Extra), adapter.ManifestKey(w.KeyPrefix)) {
		var x int64
		if dryRun {
			x, err = c.Exists(ctx, k).Result()
		} else {
			x, err = c.Unlink(ctx, k).Result()
		}
		if err != nil {
			return out, fmt.Errorf("redis: cleaning %s: %w", t.where(), classify(err))
		}
		if x > 0 {
			out = append(out, fmt.Sprintf("key %s", k))
		}
	}
	return out, nil
}

// where names the server (and database) for messages.
func (t *Target) where() string {
	s := strings.Join(t.cfg.Addrs, ",")
	if t.cfg.DB != 0 {
		s += fmt.Sprintf(" database %d", t.cfg.DB)
	}
	return s
}
