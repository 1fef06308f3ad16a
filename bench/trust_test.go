package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/hazelcast/hazelcast-go-client"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// cqlSession is a plain session to the test cluster, for a test playing
// the application.
func cqlSession(t *testing.T, raw string) *gocql.Session {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	cc := gocql.NewCluster(strings.Split(u.Hostname(), ",")...)
	if p := u.Port(); p != "" {
		cc.Port, _ = strconv.Atoi(p)
	}
	if u.User != nil {
		pw, _ := u.User.Password()
		cc.Authenticator = gocql.PasswordAuthenticator{Username: u.User.Username(), Password: pw}
	}
	cc.Timeout, cc.ConnectTimeout = 30*time.Second, 30*time.Second
	s, err := cc.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// A table platbench's load created, then dropped by a user who created
// their own of the same name, is not platbench's: clean (and its dry run)
// refuses, by the table id the manifest kept, naming both ids and the fix,
// and the user's table and row stay; so does the table when the session
// that created it closes after the user made it again.
func TestCleanKeepsATableMadeAgain(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL")
	s := cqlSession(t, raw)
	ks := "pbagain_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	exec := func(q string) {
		t.Helper()
		if err := s.Query(q).Consistency(gocql.Quorum).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	userRow := func(what string) {
		t.Helper()
		var name string
		if err := s.Query("SELECT name FROM " + ks + ".usertable WHERE y_id = 'user42'").Consistency(gocql.Quorum).Scan(&name); err != nil || name != "app" {
			t.Fatalf("%s: the user's row of %s.usertable: %q %v", what, ks, name, err)
		}
	}
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 20
	opts := map[string]string{"keyspace": ks, "replication_factor": "1"}
	if _, err := Run(ctx, Config{Open: registry.Open, Target: raw, TargetOpts: opts, Workload: spec, Load: true,
		Runner: runner.Config{Concurrency: 2}, Telemetry: quietTelemetry()}); err != nil {
		t.Fatalf("load: %v", err)
	}
	exec("DROP TABLE " + ks + ".usertable")
	// the same shape as platbench's: nothing but its id tells them apart
	exec("CREATE TABLE " + ks + ".usertable (y_id varchar PRIMARY KEY, field0 blob, field1 blob, field2 blob, field3 blob, field4 blob, field5 blob, field6 blob, field7 blob, field8 blob, field9 blob, name text)")
	exec("INSERT INTO " + ks + ".usertable (y_id, name) VALUES ('user42', 'app')")
	for _, clean := range []func(context.Context, OpenFunc, string, map[string]string, workload.Spec) ([]string, error){CleanDryRun, Clean} {
		removed, err := clean(ctx, registry.Open, raw, opts, spec)
		var de *adapter.DatasetError
		if !errors.As(err, &de) || !strings.Contains(err.Error(), "is not the one load") || !strings.Contains(err.Error(), "DELETE FROM "+ks+".platbench_datasets") {
			t.Fatalf("clean of a table made again: %q %v; want a refusal naming the ids and the fix", removed, err)
		}
		t.Logf("refused: %v", err)
		userRow("after clean")
	}

	// The session that creates a table: Close leaves one made again since.
	tg, err := registry.Open(ctx, raw, map[string]string{"keyspace": ks, "table": "t2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := tg.Setup(ctx, &spec); err != nil {
		t.Fatal(err)
	}
	exec("DROP TABLE " + ks + ".t2")
	exec("CREATE TABLE " + ks + ".t2 (y_id varchar PRIMARY KEY, name text)")
	exec("INSERT INTO " + ks + ".t2 (y_id, name) VALUES ('user42', 'app')")
	if err := tg.Close(); err == nil || !strings.Contains(err.Error(), "is not the one this run's setup created") {
		t.Fatalf("close after the table was made again: %v, want it left and said", err)
	}
	var name string
	if err := s.Query("SELECT name FROM " + ks + ".t2 WHERE y_id = 'user42'").Consistency(gocql.Quorum).Scan(&name); err != nil || name != "app" {
		t.Fatalf("the user's row of %s.t2 after close: %q %v", ks, name, err)
	}
}

// hazelcastClient is a client of the test cluster, for a test playing the
// application.
func hazelcastClient(t *testing.T, raw string) *hazelcast.Client {
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	var cfg hazelcast.Config
	cfg.Cluster.Name = u.Query().Get("cluster")
	cfg.Cluster.Network.SetAddresses(strings.Split(u.Host, ",")...)
	cfg.Logger.Level = "error"
	c, err := hazelcast.StartNewClientWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Shutdown(context.Background()) })
	return c
}

// A map platbench's load created, into which an application wrote an
// entry since, is not destroyed by clean even when it holds fewer entries
// than the manifest's key range (a run's reservation): platbench's keys
// and manifest are removed one by one, the application's entry and the
// map stay. A map holding only platbench's keys is destroyed whole.
func TestCleanKeepsAMapAnApplicationWroteInto(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_HAZELCAST_URL")
	c := hazelcastClient(t, raw)
	ctx := context.Background()
	uniq := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 20
	spec.EnsureDefaults()
	// The application's key: a string, a number (the server's __key regex
	// fails on it: not known, so kept), none.
	for _, appKey := range []any{"session:1", int64(42), nil} {
		app := appKey != nil
		name := fmt.Sprintf("pbwrote-%s-%T", uniq, appKey)
		mp, err := c.GetMap(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = mp.Destroy(ctx) })
		opts := map[string]string{"map": name}
		if _, err := Run(ctx, Config{Open: registry.Open, Target: raw, TargetOpts: opts, Workload: spec, Load: true,
			Runner: runner.Config{Concurrency: 2}, Telemetry: quietTelemetry()}); err != nil {
			t.Fatalf("load: %v", err)
		}
		// A run's reservation past the records (a distributed run keeps it).
		tg, err := registry.Open(ctx, raw, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := tg.Setup(ctx, &spec); err != nil {
			t.Fatal(err)
		}
		mf := tg.(adapter.Manifester)
		m, err := mf.ReadManifest(ctx, &spec)
		if err != nil || m == nil || len(m.Created) == 0 {
			t.Fatalf("manifest after the load: %+v %v, want one naming the map created", m, err)
		}
		m.KeyHigh = 1000
		if err := mf.WriteManifest(ctx, &spec, m); err != nil {
			t.Fatal(err)
		}
		tg.Close()
		if app {
			if err := mp.Set(ctx, appKey, "app"); err != nil {
				t.Fatal(err)
			}
		}
		removed, err := Clean(ctx, registry.Open, raw, opts, spec)
		if err != nil || len(removed) == 0 {
			t.Fatalf("clean: %q %v", removed, err)
		}
		t.Logf("application key %v: removed %q", appKey, removed)
		if destroyed := strings.HasPrefix(removed[0], "map "); destroyed == app {
			t.Fatalf("application key %v: clean removed %q; want the map destroyed only without the application's entry", appKey, removed)
		}
		n, err := mp.Size(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if app {
			if v, err := mp.Get(ctx, appKey); err != nil || v != "app" || n != 1 {
				t.Errorf("after clean the application's %v is %v (%v), the map holds %d entries; want it alone, kept", appKey, v, err, n)
			}
		} else if n != 0 {
			t.Errorf("after clean a map of platbench's alone holds %d entries", n)
		}
	}
}

// Several platbench sessions writing one dataset's manifest at once (two
// loads of it, a load and runs raising its range) lose nothing of each
// other's: each raises the range and adds a key form of its own, over and
// over, from its own goroutine; the manifest on the target at the end holds
// every form and the highest range, and the sessions know the dataset is
// shared. On Redis (database 2), Hazelcast and CQL, each a compare-and-swap.
func TestManifestWritersMerge(t *testing.T) {
	uniq := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	targets := map[string]func(t *testing.T) (string, map[string]string){
		"redis": func(t *testing.T) (string, map[string]string) {
			return testenv.URL(t, "PLATBENCH_REDIS_URL") + "/2", nil
		},
		"hazelcast": func(t *testing.T) (string, map[string]string) {
			return testenv.URL(t, "PLATBENCH_HAZELCAST_URL"), map[string]string{"map": "pbmerge-" + uniq}
		},
		"cql": func(t *testing.T) (string, map[string]string) {
			raw := testenv.URL(t, "PLATBENCH_CQL_URL")
			testenv.Shared(t, "PLATBENCH_CQL_URL")
			return raw, map[string]string{"keyspace": "pbmerge_" + uniq, "replication_factor": "1"}
		},
	}
	for _, name := range []string{"redis", "hazelcast", "cql"} {
		t.Run(name, func(t *testing.T) {
			raw, opts := targets[name](t)
			testManifestWritersMerge(t, raw, opts, "pbmerge"+uniq)
		})
	}
}

func testManifestWritersMerge(t *testing.T, raw string, opts map[string]string, prefix string) {
	const writers, writes = 6, 5
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records, spec.KeyPrefix = 10, prefix
	cfg := Config{Open: registry.Open, Target: raw, TargetOpts: opts, Workload: spec, Load: true, Telemetry: quietTelemetry()}
	cfg.EnsureDefaults()
	var ss []*Session
	for i := range writers {
		s, err := Open(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		ss = append(ss, s)
		m := s.t.(adapter.Manifester).NewManifest(ctx, &s.spec, Version, fmt.Sprintf("load-%d", i))
		m.KeyForms = []string{fmt.Sprintf("w%d:{key}", i)}
		s.ds.m = m
	}
	t.Cleanup(func() {
		if _, err := Clean(ctx, registry.Open, raw, opts, spec); err != nil {
			t.Errorf("clean: %v", err)
		}
		for _, s := range ss {
			if r, ok := s.t.(adapter.Retainer); ok {
				r.Retain() // clean removed what the sessions' setup made
			}
			s.Close()
		}
	})
	// The first write alone: on CQL it creates the manifests' table, which
	// six at once would race to create (a schema disagreement).
	ss[0].writeManifest(ctx, "the first write")
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range writes {
				s.setHigh(ctx, uint64(100+10*j+i), nil, false)
			}
		}()
	}
	wg.Wait()
	m, err := ss[0].t.(adapter.Manifester).ReadManifest(ctx, &spec)
	if err != nil || m == nil {
		t.Fatalf("the manifest after %d writers: %v %v", writers, m, err)
	}
	shared := 0
	for i, s := range ss {
		if len(s.ds.notes) > 0 {
			t.Errorf("writer %d: %q", i, s.ds.notes)
		}
		if s.ds.shared != "" {
			shared++
		}
		if f := fmt.Sprintf("w%d:{key}", i); !slices.Contains(m.KeyForms, f) {
			t.Errorf("writer %d's key form %s lost: the manifest has %q", i, f, m.KeyForms)
		}
	}
	if want := uint64(100 + 10*(writes-1) + writers - 1); m.KeyHigh != want {
		t.Errorf("key range 0..%d, want 0..%d (the highest any writer raised it to)", m.KeyHigh-1, want-1)
	}
	if shared < writers-1 {
		t.Errorf("%d of %d writers saw the dataset shared, want at least %d", shared, writers, writers-1)
	}
	t.Logf("%d writers x %d writes: forms %q, key_high %d, %d saw another's write", writers, writes, m.KeyForms, m.KeyHigh, shared)
}
