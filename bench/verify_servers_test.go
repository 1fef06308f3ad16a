package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// --verify against the real servers: a dataset loaded (and kept), then a
// verified run of reads, updates and inserts finds every acknowledged
// write; another client (a connection of its own) then overwrites one
// acknowledged key and deletes another (Redis: a RESP client of its own,
// SET and DEL), and `platbench verify` of the
// result finds exactly those: one wrong, one missing. CQL runs at RF=3 and
// QUORUM on the 3-node test cluster.
func TestVerifyServers(t *testing.T) {
	cases := []struct {
		name, env string
		opts      map[string]string
	}{
		{"redis", "PLATBENCH_REDIS_URL", nil},
		{"cql", "PLATBENCH_CQL_URL", map[string]string{"keyspace": "pb_verify", "rf": "3", "consistency": "QUORUM"}},
		{"hazelcast", "PLATBENCH_HAZELCAST_URL", map[string]string{"map": "pb-verify"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := testenv.URL(t, c.env)
			if c.name == "cql" {
				testenv.Shared(t, c.env) // the CQL adapter's tests pause nodes
			}
			if c.name == "redis" {
				url += "/8" // a database of its own (adapter/redis's validate tests use 7)
			}
			if c.name == "cql" && strings.Count(url, ",") < 2 {
				// One node (PLATBENCH_CASSANDRA_NODES=1): RF=1 at ONE.
				c.opts = map[string]string{"keyspace": "pb_verify"}
			}
			testVerifyServer(t, url, c.opts)
		})
	}
}

func testVerifyServer(t *testing.T, url string, opts map[string]string) {
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-a")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records, spec.FieldCount, spec.FieldLength = 300, 4, 32
	spec.Mix = workload.MixList{{Op: vocab.OpRead, Weight: 2}, {Op: vocab.OpUpdate, Weight: 1}, {Op: vocab.OpInsert, Weight: 1}}
	spec.CheckValues = true
	if _, err := Clean(ctx, registry.Open, url, opts, spec); err != nil {
		t.Fatalf("clean before: %v", err)
	}
	defer func() {
		if _, err := Clean(ctx, registry.Open, url, opts, spec); err != nil {
			t.Errorf("clean after: %v", err)
		}
	}()
	// MaxLoadErrors 0.5: the CQL adapter's tests pause and stop nodes while
	// this runs; load timeouts are not this test's subject (unacknowledged
	// writes are not verified).
	cfg := Config{Open: registry.Open, Target: url, TargetOpts: opts, Workload: spec, Load: true, Telemetry: quietTelemetry(),
		Runner: runner.Config{Ops: 1500, Concurrency: 4, Seed: 1}, MaxLoadErrors: 0.5}
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatalf("load: %v", err)
	}
	cfg.Load, cfg.Run, cfg.Verify = false, true, true
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("verified run: %v", err)
	}
	v := r.Verification
	if v == nil || v.AckedKeys < 300 || v.Checked != v.AckedKeys || v.Missing+v.Wrong+v.Unreadable != 0 {
		t.Fatalf("clean run: %+v", v)
	}
	t.Logf("clean run: %d acknowledged keys read back at %q, none lost", v.Checked, v.Consistency)
	wrong, gone := firstKeys(v)
	if strings.HasPrefix(url, "redis://") {
		redisTamper(t, url, spec.KeyName(wrong), spec.KeyName(gone))
	} else {
		tamper(t, url, opts, spec, wrong, gone)
	}
	if _, err := VerifyResult(ctx, r, VerifyConfig{Open: registry.Open}); strings.Contains(url, ":cassandra@") && err == nil {
		t.Fatal("verified with the result's redacted password")
	}
	v2, err := VerifyResult(ctx, r, VerifyConfig{Open: registry.Open, Target: url, Concurrency: 4}) // the result keeps no password
	if err != nil {
		t.Fatal(err)
	}
	if v2.Checked != v.AckedKeys || v2.Missing != 1 || v2.Wrong != 1 || !slices.Equal(v2.MissingKeys, []uint64{gone}) || !slices.Equal(v2.WrongKeys, []uint64{wrong}) {
		t.Fatalf("after another client changed key %d and deleted key %d: %+v", wrong, gone, *v2)
	}
}

// firstKeys returns the first two acknowledged keys.
func firstKeys(v *result.Verification) (a, b uint64) {
	var ks []uint64
	v.Keys(func(k uint64) bool { ks = append(ks, k); return len(ks) < 2 })
	return ks[0], ks[1]
}

// tamper is another client: it overwrites key wrong with bytes platbench
// never writes and deletes key gone.
func tamper(t *testing.T, url string, opts map[string]string, spec workload.Spec, wrong, gone uint64) {
	t.Helper()
	ctx := context.Background()
	tg, err := registry.Open(ctx, url, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	spec.CheckValues = false
	spec.EnsureDefaults()
	if r, ok := tg.(interface{ Retain() }); ok {
		r.Retain()
	}
	if err := tg.Setup(ctx, &spec); err != nil {
		t.Fatal(err)
	}
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	junk := make([]byte, spec.RecordBytes())
	for i := range junk {
		junk[i] = 'x'
	}
	for _, req := range []workload.Request{
		{Op: vocab.OpInsert, KeyNum: wrong, Key: []byte(spec.KeyName(wrong)), Value: junk, Fields: spec.FieldCount, FieldLen: spec.FieldLength},
		{Op: vocab.OpDelete, KeyNum: gone, Key: []byte(spec.KeyName(gone))},
	} {
		if err := w.Do(ctx, &req); err != nil {
			t.Fatalf("another client's %s of %s: %v", req.Op, req.Key, err)
		}
	}
}

// redisTamper is another client speaking RESP itself (as redis-cli): SET of
// a string platbench never writes over key wrong, DEL of key gone, in the
// URL's database.
func redisTamper(t *testing.T, raw, wrong, gone string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rd := bufio.NewReader(c)
	for _, cmd := range [][]string{{"SELECT", strings.TrimPrefix(u.Path, "/")}, {"DEL", wrong}, {"SET", wrong, "another client's value"}, {"DEL", gone}} {
		fmt.Fprintf(c, "*%d\r\n", len(cmd))
		for _, a := range cmd {
			fmt.Fprintf(c, "$%d\r\n%s\r\n", len(a), a)
		}
		line, err := rd.ReadString('\n')
		if err != nil || strings.HasPrefix(line, "-") {
			t.Fatalf("%v: %q %v", cmd, line, err)
		}
	}
}
