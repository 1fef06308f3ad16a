package redis

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// manifestFor is the manifest of a load of s on tg whose key numbers reach
// high (the load's records and a run's inserts).
func manifestFor(tg *Target, s *workload.Spec, high uint64) *adapter.Manifest {
	m := tg.NewManifest(context.Background(), s, "test", "test-load")
	m.KeyHigh = max(high, s.Records)
	return m
}

// An application's keys that look like platbench's (user42, a hash
// user1000, 12345, session:1, userabc) survive a clean by the manifest;
// every key platbench wrote (records and inserts, with the manifest and
// the scan index) is removed; a dry run removes nothing; with no manifest,
// Unmarked names what it found and nothing is removed.
func TestCleanByManifest(t *testing.T) {
	for _, env := range []string{"PLATBENCH_REDIS_URL", "PLATBENCH_VALKEY_URL", "PLATBENCH_REDIS_CLUSTER3_URL"} {
		t.Run(env, func(t *testing.T) { cleanByManifest(t, env) })
	}
}

func cleanByManifest(t *testing.T, env string) {
	raw := serverURL(t, env)
	ctx := context.Background()
	var v goredis.UniversalClient
	if strings.Contains(raw, ",") {
		c := goredis.NewClusterClient(&goredis.ClusterOptions{Addrs: strings.Split(strings.TrimPrefix(raw, "redis://"), ",")})
		t.Cleanup(func() { c.Close() })
		v = c
	} else {
		v = verifier(t, raw)
	}
	s := *spec(1, 10, vocab.OpScan, vocab.OpInsert)
	s.KeyPrefix = "cl" + uniq + "user"
	s.Records = 300
	s.EnsureDefaults()
	p := s.KeyPrefix
	app := map[string]string{p + "42": "string", p + "1000": "hash", "12345" + uniq: "string", "session:1" + uniq: "string", p + "abc": "string"}
	for k, kind := range app {
		if kind == "hash" {
			v.HSet(ctx, k, "name", "an application's").Val()
		} else {
			v.Set(ctx, k, "an application's", time.Hour)
		}
		defer v.Del(ctx, k)
	}
	tg := open(t, raw, nil)
	if err := tg.Setup(ctx, &s); err != nil {
		t.Fatal(err)
	}
	var de *adapter.DatasetError
	err := tg.Unmarked(ctx, &s)
	if !errors.As(err, &de) || !strings.Contains(err.Error(), p+"42") || !strings.Contains(err.Error(), "platbench:dataset:"+p) {
		t.Fatalf("Unmarked before a load: %v, want a dataset error naming %s42 and the manifest's key", err, p)
	}
	ks := workload.NewKeyspace(&s, 0, 1)
	if _, err := runner.Load(ctx, tg, &s, ks, runner.Config{Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := runner.Run(ctx, tg, &s, ks, runner.Config{Ops: 400, Concurrency: 2}); err != nil {
		t.Fatal(err)
	}
	m := manifestFor(tg, &s, ks.InsertHigh())
	if err := tg.WriteManifest(ctx, &s, m); err != nil {
		t.Fatal(err)
	}
	got, err := tg.ReadManifest(ctx, &s)
	if err != nil || got == nil || got.KeyHigh != m.KeyHigh || len(got.Extra) != 1 {
		t.Fatalf("ReadManifest: %+v %v, want what was written (%+v)", got, err, m)
	}
	ours := func() int64 {
		var n int64
		_ = m.Keys(func(k string) error { n += v.Exists(ctx, k).Val(); return nil })
		return n
	}
	loaded := ours()
	if loaded < int64(s.Records) {
		t.Fatalf("%d of platbench's keys there after the load, want at least %d", loaded, s.Records)
	}
	dry, err := tg.Clean(ctx, &s, got, true)
	if err != nil || len(dry) == 0 || !strings.HasPrefix(dry[0], strconv64(loaded)+" keys") {
		t.Fatalf("dry run: %q %v, want %d keys first", dry, err, loaded)
	}
	if n := ours(); n != loaded || v.Exists(ctx, adapter.ManifestKey(p)).Val() != 1 {
		t.Fatalf("a dry run removed keys: %d of %d left, manifest %d", n, loaded, v.Exists(ctx, adapter.ManifestKey(p)).Val())
	}
	removed, err := tg.Clean(ctx, &s, got, false)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("removed %q", removed)
	if n := ours(); n != 0 {
		t.Errorf("%d of platbench's keys left after clean", n)
	}
	for _, k := range []string{adapter.ManifestKey(p), indexKey(p)} {
		if v.Exists(ctx, k).Val() != 0 {
			t.Errorf("clean left %s", k)
		}
	}
	for k := range app {
		if v.Exists(ctx, k).Val() != 1 {
			t.Errorf("clean removed the application's key %s", k)
		}
	}
	// Still the application's keys: the refusal names them.
	if err := tg.Unmarked(ctx, &s); !errors.As(err, &de) {
		t.Errorf("Unmarked after clean: %v, want a refusal naming the application's keys", err)
	}
}

// What a target stores at the manifest's key that is not a manifest is
// refused by name, not guessed at.
func TestReadManifestRefusesGarbage(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	v := verifier(t, raw)
	s := *spec(1, 10, vocab.OpRead)
	s.KeyPrefix = "garbage" + uniq
	s.EnsureDefaults()
	key := adapter.ManifestKey(s.KeyPrefix)
	defer v.Del(ctx, key)
	tg := open(t, raw, nil)
	for _, c := range []struct{ what, js string }{
		{"another prefix's manifest", `{"tool":"platbench","format":1,"key_prefix":"other","target":"redis","records":1,"key_high":1}`},
		// clean would UNLINK an extra key by name: an application's is refused
		{"a manifest naming an application's key", `{"tool":"platbench","format":1,"key_prefix":"` + s.KeyPrefix + `","target":"redis","records":1,"key_high":1,"extra_keys":["sessions"]}`},
	} {
		v.Set(ctx, key, c.js, time.Hour)
		var de *adapter.DatasetError
		if _, err := tg.ReadManifest(ctx, &s); !errors.As(err, &de) || !strings.Contains(err.Error(), key) {
			t.Errorf("ReadManifest of %s: %v, want a dataset error naming %s", c.what, err, key)
		}
	}
}

func strconv64(n int64) string { return strconv.FormatInt(n, 10) }

// A dataset loaded before manifests, marked only by platbench:load:PREFIX,
// is refused by clean with the mark named: its record count is unknown.
func TestUnmarkedNamesAnOlderLoadMark(t *testing.T) {
	raw := serverURL(t, "PLATBENCH_REDIS_URL")
	ctx := context.Background()
	v := verifier(t, raw)
	s := *spec(1, 10, vocab.OpRead)
	s.KeyPrefix = "old" + uniq
	s.EnsureDefaults()
	mark := legacyLoadKey(s.KeyPrefix)
	v.Set(ctx, mark, "20261127T100000Z-0badc0de", time.Hour)
	defer v.Del(ctx, mark)
	tg := open(t, raw, nil)
	if m, err := tg.ReadManifest(ctx, &s); m != nil || err != nil {
		t.Fatalf("ReadManifest beside an older mark: %v %v, want none", m, err)
	}
	var de *adapter.DatasetError
	if err := tg.Unmarked(ctx, &s); !errors.As(err, &de) || !strings.Contains(err.Error(), mark) || !strings.Contains(err.Error(), "older platbench's load mark") {
		t.Errorf("Unmarked: %v, want a refusal naming %s", err, mark)
	}
}
