package bench

import (
	"context"
	"net/url"
	"strconv"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/workload"
)

// A Redis user whose ACL forbids scripts (the manifest's compare-and-swap
// is a Lua script) still has its dataset's manifest written: the refusal
// (NOPERM) turns the swap into read, merge, write, and clean then finds
// the manifest. Redis database 4.
func TestManifestWithoutScripts(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_REDIS_URL")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	o, err := goredis.ParseURL(raw)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	admin := goredis.NewClient(o)
	defer admin.Close()
	uniq := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	user := "pbnoscripts" + uniq
	if err := admin.Do(ctx, "ACL", "SETUSER", user, "reset", "on", ">pw", "~*", "&*", "+@all", "-@scripting").Err(); err != nil {
		t.Fatalf("ACL SETUSER: %v", err)
	}
	defer admin.Do(ctx, "ACL", "DELUSER", user)
	target := "redis://" + user + ":pw@" + u.Host + "/4"
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records, spec.KeyPrefix = 10, "pbnoscripts"+uniq
	cfg := Config{Open: registry.Open, Target: target, Workload: spec, Load: true, Telemetry: quietTelemetry()}
	cfg.EnsureDefaults()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mf := s.t.(adapter.Manifester)
	if _, ok := s.t.(adapter.ManifestSwapper); !ok {
		t.Fatal("the Redis target has no compare-and-swap: nothing to fall back from")
	}
	s.ds.m = mf.NewManifest(ctx, &s.spec, Version, "load")
	s.writeManifest(ctx, "the load")
	if len(s.ds.notes) > 0 {
		t.Errorf("notes: %q", s.ds.notes)
	}
	m, err := mf.ReadManifest(ctx, &s.spec)
	if err != nil || m == nil {
		t.Fatalf("no manifest after the write: %v", err)
	}
	if _, err := Clean(ctx, registry.Open, target, nil, spec); err != nil {
		t.Errorf("clean: %v", err)
	}
	if r, ok := s.t.(adapter.Retainer); ok {
		r.Retain() // clean removed what the session's setup made
	}
}
