package bench

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/cockroachdb/pebble"
	goredis "github.com/redis/go-redis/v9"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/workload"
)

// appTarget is a real server holding an application's data beside (and,
// where the system allows, among) platbench's dataset.
type appTarget struct {
	url  string
	opts map[string]string
	// put writes the application's data; intact fails the test when any of
	// it is gone.
	put, intact func(t *testing.T)
	// ours counts what of platbench's dataset is there: the records and
	// the inserts of key numbers [0, high), the objects, the manifest.
	ours func(t *testing.T, high uint64) int
	// found is a word the refusal of a clean without a manifest names.
	found string
	// between, if set, runs between the load-then-clean half and the runs
	// with their own load (the application changes its data).
	between func(t *testing.T)
}

// An application's keys, tables, topics and maps that look like
// platbench's survive `clean` and a run with its own load, on every real
// target; what platbench wrote (its records, a run's inserts, the objects
// its load created, the manifest) is removed:
//  1. clean with no manifest refuses, names what it found, removes nothing;
//  2. a load writes its manifest; clean --dry-run removes nothing;
//  3. clean removes what the manifest names, and nothing else;
//  4. a run with its own load removes what it loaded, inserts included;
//  5. with KeepDataset (--keep-dataset) it keeps it, with a manifest that
//     covers its inserts: clean removes them all.
func TestCleanLeavesApplicationData(t *testing.T) {
	uniq := strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
	const records, ops = 200, 400
	targets := map[string]func(t *testing.T) appTarget{
		"redis":     redisApp,
		"embedded":  embeddedApp,
		"cql":       func(t *testing.T) appTarget { return cqlApp(t, uniq) },
		"kafka":     func(t *testing.T) appTarget { return kafkaApp(t, uniq) },
		"hazelcast": func(t *testing.T) appTarget { return hazelcastApp(t, uniq) },
	}
	for _, name := range []string{"redis", "embedded", "cql", "kafka", "hazelcast"} {
		t.Run(name, func(t *testing.T) {
			a := targets[name](t)
			ctx := context.Background()
			wl, ops := "ycsb-d", ops // 95% reads, 5% inserts
			if name == "kafka" {
				wl, ops = "consume", records/2 // no more than the topic holds
			}
			spec, err := workload.Preset(wl)
			if err != nil {
				t.Fatal(err)
			}
			spec.Records = records
			high := uint64(records + ops)
			cfg := func(load, run bool) Config {
				return Config{Open: registry.Open, Target: a.url, TargetOpts: a.opts, Workload: spec, Load: load, Run: run,
					Runner: runner.Config{Ops: uint64(ops), Concurrency: 2, Seed: 1}, Telemetry: quietTelemetry()}
			}
			a.put(t)

			// 1. No manifest: refused, nothing removed.
			var de *adapter.DatasetError
			_, err = Clean(ctx, registry.Open, a.url, a.opts, spec)
			if !errors.As(err, &de) || !strings.Contains(err.Error(), a.found) || !strings.Contains(err.Error(), "no dataset manifest") {
				t.Fatalf("clean without a manifest: %v; want a refusal that names %q", err, a.found)
			}
			t.Logf("refused: %v", err)
			a.intact(t)

			// 2. A load, then a dry run.
			if _, err := Run(ctx, cfg(true, false)); err != nil {
				t.Fatalf("load: %v", err)
			}
			loaded := a.ours(t, high)
			if loaded == 0 {
				t.Fatal("nothing of platbench's after the load")
			}
			dry, err := CleanDryRun(ctx, registry.Open, a.url, a.opts, spec)
			if err != nil || len(dry) == 0 {
				t.Fatalf("clean --dry-run: %q %v", dry, err)
			}
			t.Logf("dry run: %q", dry)
			if n := a.ours(t, high); n != loaded {
				t.Fatalf("clean --dry-run removed something: %d of platbench's there, %d before", n, loaded)
			}
			a.intact(t)

			// 3. Clean.
			removed, err := Clean(ctx, registry.Open, a.url, a.opts, spec)
			if err != nil || len(removed) == 0 {
				t.Fatalf("clean: %q %v", removed, err)
			}
			t.Logf("removed %q", removed)
			if n := a.ours(t, high); n != 0 {
				t.Errorf("clean left %d of platbench's", n)
			}
			a.intact(t)
			if a.between != nil {
				a.between(t)
			}

			// 4. A run with its own load leaves nothing of its own.
			r, err := Run(ctx, cfg(true, true))
			if err != nil {
				t.Fatalf("run with a load: %v", err)
			}
			if n := a.ours(t, high); n != 0 {
				t.Errorf("a run with its own load left %d of platbench's; notes %q", n, r.Notes)
			}
			a.intact(t)

			// 5. --keep-dataset keeps it; clean removes it, inserts too.
			c := cfg(true, true)
			c.KeepDataset = true
			r, err = Run(ctx, c)
			if err != nil {
				t.Fatalf("run with a load, kept: %v", err)
			}
			if n := a.ours(t, high); n <= loaded-1 && name != "kafka" || n == 0 {
				t.Errorf("--keep-dataset kept %d of platbench's (the load alone made %d); notes %q", n, loaded, r.Notes)
			}
			if removed, err := Clean(ctx, registry.Open, a.url, a.opts, spec); err != nil || len(removed) == 0 {
				t.Fatalf("clean of a kept dataset: %q %v", removed, err)
			}
			if n := a.ours(t, high); n != 0 {
				t.Errorf("clean of a kept dataset left %d of platbench's (inserts of the run?)", n)
			}
			a.intact(t)
		})
	}
}

// redisApp: database 6 with an application's user42 (a string), user1000
// (a hash), 12345, session:1 and userabc: names platbench's key format
// (user then digits) and its default prefix match.
func redisApp(t *testing.T) appTarget {
	url := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/6"
	o, err := goredis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	c := goredis.NewClient(o)
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	app := map[string]string{"user42": "string", "user1000": "hash", "12345": "string", "session:1": "string", "userabc": "string"}
	spec, _ := workload.Preset("ycsb-d")
	spec.EnsureDefaults()
	return appTarget{url: url, found: "user42",
		put: func(t *testing.T) {
			c.FlushDB(ctx) // a database of this test's own
			for k, kind := range app {
				if kind == "hash" {
					c.HSet(ctx, k, "name", "app")
				} else {
					c.Set(ctx, k, "app", 0)
				}
			}
		},
		intact: func(t *testing.T) {
			for k, kind := range app {
				if got := c.Type(ctx, k).Val(); got != kind {
					t.Errorf("the application's key %s is %q, want a %s", k, got, kind)
				}
			}
		},
		ours: func(t *testing.T, high uint64) int {
			n := int(c.Exists(ctx, adapter.ManifestKey(spec.KeyPrefix)).Val())
			for k := range high {
				n += int(c.Exists(ctx, spec.KeyName(k)).Val())
			}
			return n
		},
	}
}

// embeddedApp: a store directory that holds an application's user42,
// session:1, 12345 and userabc.
func embeddedApp(t *testing.T) appTarget {
	dir := filepath.Join(t.TempDir(), "db")
	app := []string{"user42", "session:1", "12345", "userabc"}
	spec, _ := workload.Preset("ycsb-d")
	spec.EnsureDefaults()
	with := func(t *testing.T, f func(db *pebble.DB)) {
		db, err := pebble.Open(dir, &pebble.Options{Logger: quietPebble{}})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		f(db)
	}
	has := func(db *pebble.DB, k string) bool {
		_, c, err := db.Get([]byte(k))
		if err != nil {
			return false
		}
		c.Close()
		return true
	}
	return appTarget{url: "embedded://" + dir, found: "user42",
		put: func(t *testing.T) {
			with(t, func(db *pebble.DB) {
				for _, k := range app {
					if err := db.Set([]byte(k), []byte("app"), pebble.Sync); err != nil {
						t.Fatal(err)
					}
				}
			})
		},
		intact: func(t *testing.T) {
			with(t, func(db *pebble.DB) {
				for _, k := range app {
					if !has(db, k) {
						t.Errorf("the application's key %s is gone", k)
					}
				}
			})
		},
		ours: func(t *testing.T, high uint64) (n int) {
			with(t, func(db *pebble.DB) {
				if has(db, adapter.ManifestKey(spec.KeyPrefix)) {
					n++
				}
				for k := range high {
					if has(db, spec.KeyName(k)) {
						n++
					}
				}
			})
			return n
		},
	}
}

// cqlApp: a keyspace of the application's with its table app_users and its
// own usertable (YCSB's shape, one row): platbench's load writes into the
// table that is there and clean removes only its rows; then the
// application drops its usertable, and the runs' loads create one, which
// they drop, leaving app_users and the keyspace.
func cqlApp(t *testing.T, uniq string) appTarget {
	raw := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL")
	ks := "pbclean_" + uniq
	s := cqlSession(t, raw) // closed after the drop below (cleanups run last first)
	t.Cleanup(func() { _ = s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() })
	exec := func(t *testing.T, q string, args ...any) {
		if err := s.Query(q, args...).Consistency(gocql.Quorum).Exec(); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	spec, _ := workload.Preset("ycsb-d")
	spec.EnsureDefaults()
	tableThere := func(name string) bool {
		var n string
		err := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", ks, name).Consistency(gocql.One).Scan(&n)
		return err == nil
	}
	fields := make([]string, 10)
	for i := range fields {
		fields[i] = fmt.Sprintf("field%d blob", i)
	}
	appTable := false // the application has a usertable of its own
	return appTarget{url: raw, opts: map[string]string{"keyspace": ks, "replication_factor": "1"}, found: "table " + ks + ".usertable",
		put: func(t *testing.T) {
			exec(t, "CREATE KEYSPACE "+ks+" WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}")
			exec(t, "CREATE TABLE "+ks+".app_users (id text PRIMARY KEY, name text)")
			exec(t, "INSERT INTO "+ks+".app_users (id, name) VALUES ('user42', 'app')")
			exec(t, "CREATE TABLE "+ks+".usertable (y_id varchar PRIMARY KEY, "+strings.Join(fields, ", ")+")")
			exec(t, "INSERT INTO "+ks+".usertable (y_id) VALUES ('user42')")
			appTable = true
		},
		intact: func(t *testing.T) {
			var name string
			if err := s.Query("SELECT name FROM " + ks + ".app_users WHERE id = 'user42'").Consistency(gocql.Quorum).Scan(&name); err != nil || name != "app" {
				t.Errorf("the application's row of %s.app_users: %q %v", ks, name, err)
			}
			if appTable {
				var id string
				if err := s.Query("SELECT y_id FROM " + ks + ".usertable WHERE y_id = 'user42'").Consistency(gocql.Quorum).Scan(&id); err != nil {
					t.Errorf("the application's row of %s.usertable: %v", ks, err)
				}
			}
		},
		ours: func(t *testing.T, high uint64) int {
			n := 0
			if tableThere("platbench_datasets") {
				n++
			}
			if !tableThere("usertable") {
				return n
			}
			if !appTable {
				n++ // platbench's table
			}
			for k := range high {
				var id string
				if s.Query("SELECT y_id FROM "+ks+".usertable WHERE y_id = ?", spec.KeyName(k)).Consistency(gocql.Quorum).Scan(&id) == nil {
					n++
				}
			}
			return n
		},
		between: func(t *testing.T) {
			exec(t, "DROP TABLE "+ks+".usertable")
			appTable = false
		},
	}
}

// kafkaApp: platbench's topics get the prefix pbapp<uniq>- (topic_prefix,
// no topic named: a load makes one); another's topic with that prefix
// holds a message.
func kafkaApp(t *testing.T, uniq string) appTarget {
	raw := testenv.URL(t, "PLATBENCH_KAFKA_URL")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(u.Host, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	prefix := "pbapp" + uniq + "-"
	appTopic := prefix + "theirs"
	t.Cleanup(func() {
		ctx := context.Background()
		tds, _ := adm.ListTopics(ctx)
		var names []string
		for n := range tds {
			if strings.HasPrefix(n, prefix) {
				names = append(names, n)
			}
		}
		if len(names) > 0 {
			_, _ = adm.DeleteTopics(ctx, names...)
		}
		cl.Close()
	})
	ctx := context.Background()
	topics := func(t *testing.T) []string {
		tds, err := adm.ListTopics(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for n := range tds {
			if strings.HasPrefix(n, prefix) && n != appTopic {
				out = append(out, n)
			}
		}
		return out
	}
	return appTarget{url: raw, opts: map[string]string{"topic_prefix": prefix, "partitions": "1", "replication_factor": "1"}, found: appTopic,
		put: func(t *testing.T) {
			if _, err := adm.CreateTopic(ctx, 1, 1, nil, appTopic); err != nil {
				t.Fatal(err)
			}
			if err := cl.ProduceSync(ctx, &kgo.Record{Topic: appTopic, Value: []byte("app")}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		},
		intact: func(t *testing.T) {
			ends, err := adm.ListEndOffsets(ctx, appTopic)
			if err != nil {
				t.Fatal(err)
			}
			if o, ok := ends.Lookup(appTopic, 0); !ok || o.Err != nil || o.Offset != 1 {
				t.Errorf("the application's topic %s: %+v, want its one message", appTopic, o)
			}
		},
		ours: func(t *testing.T, _ uint64) int {
			// The topics platbench made, with eventual deletion: a deleted
			// topic can be listed for a moment.
			var got []string
			for range 50 {
				if got = topics(t); len(got) == 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			return len(got)
		},
	}
}

// hazelcastApp: platbench's map holds two entries of the application's
// (user42 and session:1) before the load, and the application has a map
// of its own beside it.
func hazelcastApp(t *testing.T, uniq string) appTarget {
	raw := testenv.URL(t, "PLATBENCH_HAZELCAST_URL")
	ctx := context.Background()
	c := hazelcastClient(t, raw) // shut down after the maps are destroyed below (cleanups run last first)
	name, other := "pbclean-"+uniq, "app-"+uniq
	ours, err := c.GetMap(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := c.GetMap(ctx, other)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = ours.Destroy(ctx)
		_ = theirs.Destroy(ctx)
	})
	spec, _ := workload.Preset("ycsb-d")
	spec.EnsureDefaults()
	app := []string{"user42", "session:1"}
	return appTarget{url: raw, opts: map[string]string{"map": name}, found: "map " + name,
		put: func(t *testing.T) {
			for _, k := range app {
				if err := ours.Set(ctx, k, "app"); err != nil {
					t.Fatal(err)
				}
			}
			if err := theirs.Set(ctx, "user1", "app"); err != nil {
				t.Fatal(err)
			}
		},
		intact: func(t *testing.T) {
			for _, k := range app {
				if v, err := ours.Get(ctx, k); err != nil || v != "app" {
					t.Errorf("the application's entry %s of map %s: %v %v", k, name, v, err)
				}
			}
			if v, err := theirs.Get(ctx, "user1"); err != nil || v != "app" {
				t.Errorf("the application's map %s: %v %v", other, v, err)
			}
		},
		ours: func(t *testing.T, high uint64) int {
			n := 0
			for k := range high {
				if ok, _ := ours.ContainsKey(ctx, spec.KeyName(k)); ok {
					n++
				}
			}
			if ok, _ := ours.ContainsKey(ctx, adapter.ManifestKey(spec.KeyPrefix)); ok {
				n++
			}
			return n
		},
	}
}

// Two loads with one topic prefix and no topic named make two topics, each
// with its manifest: the second does not take the first's; clean without
// topic=NAME names both and asks for one (bad input, removing nothing);
// clean of one leaves the other.
func TestKafkaLoadsKeepTheirOwnTopics(t *testing.T) {
	raw := testenv.URL(t, "PLATBENCH_KAFKA_URL")
	prefix := "pbtwo" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36) + "-"
	opts := map[string]string{"topic_prefix": prefix, "partitions": "1", "replication_factor": "1"}
	ctx := context.Background()
	spec, err := workload.Preset("consume")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 50
	var topics []string
	for range 2 {
		r, err := Run(ctx, Config{Open: registry.Open, Target: raw, TargetOpts: opts, Workload: spec, Load: true,
			Runner: runner.Config{Concurrency: 2}, Telemetry: quietTelemetry()})
		if err != nil {
			t.Fatal(err)
		}
		topics = append(topics, r.Target.Details["topic"])
	}
	t.Cleanup(func() {
		for _, tp := range topics {
			_, _ = Clean(ctx, registry.Open, raw, map[string]string{"topic": tp}, spec)
		}
	})
	if topics[0] == topics[1] || !strings.HasPrefix(topics[0], prefix) || !strings.HasPrefix(topics[1], prefix) {
		t.Fatalf("two loads made topics %q", topics)
	}
	_, err = Clean(ctx, registry.Open, raw, opts, spec)
	if !usererr.Is(err) || !strings.Contains(err.Error(), topics[0]) || !strings.Contains(err.Error(), topics[1]) {
		t.Fatalf("clean without a topic over two datasets: %v, want bad input naming both", err)
	}
	removed, err := Clean(ctx, registry.Open, raw, map[string]string{"topic": topics[0]}, spec)
	if err != nil || len(removed) == 0 || !strings.Contains(removed[0], topics[0]) {
		t.Fatalf("clean of %s: %q %v", topics[0], removed, err)
	}
	dry, err := CleanDryRun(ctx, registry.Open, raw, opts, spec)
	if err != nil || len(dry) == 0 || !strings.Contains(dry[0], topics[1]) {
		t.Fatalf("the other dataset after clean of the first: %q %v, want %s still named", dry, err, topics[1])
	}
}

// A run without a load that inserts, bounded by time, raises the
// manifest's key range while it runs (a reservation past what it inserts)
// and sets it, at its end, to exactly the key numbers it used: clean then
// removes every insert.
func TestRunRaisesTheManifest(t *testing.T) {
	store := filepath.Join(t.TempDir(), "db")
	target := "embedded://" + store
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-d")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 100
	cfg := Config{Open: registry.Open, Target: target, Workload: spec, Load: true, Telemetry: quietTelemetry(),
		Runner: runner.Config{Concurrency: 2, Seed: 1}}
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Load, cfg.Run = false, true
	cfg.Runner.Duration = time.Second
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var inserts uint64
	for _, o := range r.MainPhase().Ops {
		if o.Op == "INSERT" {
			inserts = o.Count
			for _, n := range o.Errors {
				inserts += n
			}
		}
	}
	if inserts == 0 {
		t.Fatal("the run inserted nothing")
	}
	tg, err := registry.Open(ctx, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, err := tg.(adapter.Manifester).ReadManifest(ctx, &spec)
	tg.Close()
	if err != nil || m == nil {
		t.Fatalf("manifest after the run: %v %v", m, err)
	}
	if m.KeyHigh != 100+inserts || m.Runs != 1 || !m.Complete || m.LoadID != r.Dataset.LoadID {
		t.Fatalf("manifest after a run of %d inserts: key_high %d runs %d complete %v load %q (the run read %q)", inserts, m.KeyHigh, m.Runs, m.Complete, m.LoadID, r.Dataset.LoadID)
	}
	if _, err := Clean(ctx, registry.Open, target, nil, spec); err != nil {
		t.Fatal(err)
	}
	db, err := pebble.Open(store, &pebble.Options{Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	it, err := db.NewIter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for ok := it.First(); ok; ok = it.Next() {
		t.Errorf("clean left key %q", it.Key())
	}
	it.Close()
}

// Before its first insert, a run bounded by time has reserved minReserve
// key numbers in the manifest: a run killed then leaves a range that
// covers what it inserted. Its end sets the range to what it used.
func TestRunReservesBeforeInserting(t *testing.T) {
	target := "embedded://" + filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-d")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 100
	cfg := Config{Open: registry.Open, Target: target, Workload: spec, Load: true, Telemetry: quietTelemetry(),
		Runner: runner.Config{Concurrency: 2, Seed: 1}}
	if _, err := Run(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Load, cfg.Run = false, true
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	read := func() *adapter.Manifest {
		m, err := s.t.(adapter.Manifester).ReadManifest(ctx, &s.spec)
		if err != nil || m == nil {
			t.Fatalf("manifest: %v %v", m, err)
		}
		return m
	}
	stop := s.raiseForRun(ctx, runner.Config{Duration: time.Hour})
	if m := read(); m.KeyHigh != 100+minReserve {
		t.Errorf("key_high %d before the run's inserts, want %d reserved", m.KeyHigh, 100+minReserve)
	}
	stop()
	if m := read(); m.KeyHigh != 100 || m.Runs != 1 {
		t.Errorf("key_high %d runs %d after a run that inserted nothing, want 100 and 1", m.KeyHigh, m.Runs)
	}
}

// A write-only run without a load (cassandra-stress write) on a target
// where nothing of its dataset is marks what it writes and removes it at
// its end, as a run with its own load does; where something it did not
// make is (an application's user42), it writes unmarked, leaves its writes
// and says so.
func TestWriteOnlyRunRemovesItsWrites(t *testing.T) {
	ctx := context.Background()
	spec, err := workload.Preset("write")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 100
	spec.EnsureDefaults()
	for _, name := range []string{"embedded", "redis"} {
		t.Run(name, func(t *testing.T) {
			var a appTarget
			if name == "redis" {
				a = redisApp(t)
				a.url = strings.TrimSuffix(a.url, "/6") + "/11" // a database of its own
				o, _ := goredis.ParseURL(a.url)
				c := goredis.NewClient(o)
				defer c.Close()
				c.FlushDB(ctx)
				defer c.FlushDB(ctx) // the unmarked writes of the second run
				a.ours = func(t *testing.T, high uint64) int {
					n := int(c.Exists(ctx, adapter.ManifestKey(spec.KeyPrefix)).Val())
					for k := range high {
						n += int(c.Exists(ctx, spec.KeyName(k)).Val())
					}
					return n
				}
				a.put = func(t *testing.T) { c.Set(ctx, "user42", "app", 0) }
			} else {
				a = embeddedApp(t)
			}
			cfg := Config{Open: registry.Open, Target: a.url, Workload: spec, Run: true, Telemetry: quietTelemetry(),
				Runner: runner.Config{Ops: 300, Concurrency: 2, Seed: 1}}
			r, err := Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := a.ours(t, 100); n != 0 {
				t.Fatalf("a write-only run on an empty target left %d of its writes; notes %q", n, r.Notes)
			}
			a.put(t)
			r, err = Run(ctx, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if n := a.ours(t, 100); n == 0 || !strings.Contains(strings.Join(r.Notes, "\n"), "its writes were left there, unmarked") {
				t.Fatalf("a write-only run beside an application's user42: %d of its writes there, notes %q; want them left, and said", n, r.Notes)
			}
		})
	}
}

// quietPebble keeps pebble's informational lines out of the test's output.
type quietPebble struct{}

func (quietPebble) Infof(string, ...any) {}
func (quietPebble) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf(format, args...))
}

// A run with its own load keeps the dataset when, by its end, the manifest
// on the target was written by another (a load over it from another
// invocation, which may still read it), and says so.
func TestRunKeepsADatasetAnotherLoadWrote(t *testing.T) {
	store := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 50
	cfg := Config{Open: registry.Open, Target: "embedded://" + store, Workload: spec, Load: true, Run: true, Telemetry: quietTelemetry(),
		Runner: runner.Config{Ops: 10, Concurrency: 1, Seed: 1}}
	cfg.EnsureDefaults()
	s, err := Open(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Load(ctx); err != nil {
		t.Fatal(err)
	}
	mf := s.t.(adapter.Manifester)
	other := *s.ds.m
	other.LoadID, other.UpdatedAt = "20261128T000000Z-0therl0d", other.UpdatedAt.Add(time.Second)
	if err := mf.WriteManifest(ctx, &s.spec, &other); err != nil {
		t.Fatal(err)
	}
	r := &result.Result{}
	s.endDataset(ctx, r)
	m, err := mf.ReadManifest(ctx, &s.spec)
	if err != nil || m == nil || m.LoadID != other.LoadID {
		t.Fatalf("manifest after the run's end: %v %v, want the other load's kept", m, err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "written since by another") {
		t.Errorf("notes %q, want the dataset kept and why", r.Notes)
	}
}

// A load whose dataset's manifest could not be read (something else is at
// its key) does not take the dataset for its own: the run's end keeps it,
// and says why.
func TestRunKeepsADatasetWhoseManifestWasUnread(t *testing.T) {
	store := filepath.Join(t.TempDir(), "db")
	ctx := context.Background()
	spec, err := workload.Preset("ycsb-c")
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 50
	spec.EnsureDefaults()
	db, err := pebble.Open(store, &pebble.Options{Logger: quietPebble{}})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Set([]byte(adapter.ManifestKey(spec.KeyPrefix)), []byte("not a manifest"), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	db.Close()
	cfg := Config{Open: registry.Open, Target: "embedded://" + store, Workload: spec, Load: true, Run: true, Telemetry: quietTelemetry(),
		Runner: runner.Config{Ops: 10, Concurrency: 1, Seed: 1}}
	r, err := Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "could not be read before this run's load") {
		t.Errorf("notes %q, want the dataset kept and why", r.Notes)
	}
	tg, err := registry.Open(ctx, cfg.Target, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	if err := tg.Setup(ctx, &spec); err != nil {
		t.Fatal(err)
	}
	if err := tg.(adapter.DatasetChecker).CheckDataset(ctx, &spec); err != nil {
		t.Errorf("the dataset after the run: %v, want it kept", err)
	}
}
