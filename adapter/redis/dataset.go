package redis

import (
	"context"
	"errors"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/redis/resp"
	"github.com/platbench/platbench/workload"
)

// Datasets stay put (adapter.DatasetChecker, adapter.Cleaner). Redis creates
// nothing in Setup and Close removes nothing, so a load keeps its keys; a
// run without a load checks the first and the last record's keys first;
// clean removes the keys of platbench's key format (the workload's prefix
// followed by digits only), and nothing else.

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
			return fmt.Errorf("redis: checking the dataset: %w", resp.ClassifyNet(err))
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
			return fmt.Errorf("redis: checking the scan index: %w", resp.ClassifyNet(err))
		}
	}
	return nil
}

// Clean removes the keys of platbench's key format: the workload's prefix
// followed by digits only (records and inserts), scanned with SCAN MATCH
// (on every master of a cluster) and removed with UNLINK in batches.
func (t *Target) Clean(ctx context.Context, w *workload.Spec) ([]string, error) {
	c, done := t.admin()
	defer done()
	n := 0
	_, clustered := c.(*goredis.ClusterClient)
	clean := func(ctx context.Context, c *goredis.Client) error {
		it := c.Scan(ctx, 0, w.KeyPrefix+"[0-9]*", 1000).Iterator()
		var batch []string
		flush := func() error {
			if len(batch) == 0 {
				return nil
			}
			if clustered { // keys of several slots: one UNLINK each, pipelined
				if _, err := c.Pipelined(ctx, func(p goredis.Pipeliner) error {
					for _, k := range batch {
						p.Unlink(ctx, k)
					}
					return nil
				}); err != nil {
					return err
				}
			} else if err := c.Unlink(ctx, batch...).Err(); err != nil {
				return err
			}
			n += len(batch)
			batch = batch[:0]
			return nil
		}
		for it.Next(ctx) {
			if k := it.Val(); ourKey(k, w.KeyPrefix) {
				batch = append(batch, k)
				if len(batch) == 500 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err := it.Err(); err != nil {
			return err
		}
		return flush()
	}
	var err error
	switch cc := c.(type) {
	case *goredis.ClusterClient:
		err = cc.ForEachMaster(ctx, clean)
	case *goredis.Client:
		err = clean(ctx, cc)
	}
	if err != nil {
		return nil, fmt.Errorf("redis: cleaning %s: %w", t.where(), resp.ClassifyNet(err))
	}
	if n == 0 {
		return nil, nil
	}
	_ = c.Del(ctx, loadKey(w.KeyPrefix)).Err() // two calls: in a cluster they may be in two slots
	_ = c.Del(ctx, indexKey(w.KeyPrefix)).Err()
	return []string{fmt.Sprintf("%d keys %s<digits> in %s", n, w.KeyPrefix, t.where())}, nil
}

// ourKey: prefix then at least one digit and nothing else.
func ourKey(k, prefix string) bool {
	d, ok := strings.CutPrefix(k, prefix)
	if !ok || d == "" {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// where names the server (and database) for messages.
func (t *Target) where() string {
	s := strings.Join(t.cfg.Addrs, ",")
	if t.cfg.DB != 0 {
		s += fmt.Sprintf(" database %d", t.cfg.DB)
	}
	return s
}

var _ adapter.LoadMarker = (*Target)(nil)

// loadKey keeps the id of the load that wrote the keys of prefix: outside
// platbench's key format, so a run never reads it.
func loadKey(prefix string) string { return "platbench:load:" + prefix }

// MarkLoad keeps id under loadKey.
func (t *Target) MarkLoad(ctx context.Context, w *workload.Spec, id string) error {
	c, done := t.admin()
	defer done()
	if err := c.Set(ctx, loadKey(w.KeyPrefix), id, 0).Err(); err != nil {
		return resp.ClassifyNet(err)
	}
	return nil
}

// LoadMark reads the id MarkLoad kept ("" when there is none).
func (t *Target) LoadMark(ctx context.Context, w *workload.Spec) (string, error) {
	c, done := t.admin()
	defer done()
	id, err := c.Get(ctx, loadKey(w.KeyPrefix)).Result()
	if errors.Is(err, goredis.Nil) {
		return "", nil
	}
	return id, err
}
