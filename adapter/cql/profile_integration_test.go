package cql

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/adapter/cql/csprofile"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// openProfile sets up the profile testdata/name in a keyspace of the test's
// own, with records partitions, and returns the target and its spec.
func openProfile(t *testing.T, name string, records uint64, driver string) (*Target, *workload.Spec) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return openProfileText(t, string(data), "pbprof", records, driver)
}

// openProfileText sets up a profile whose keyspace ks is renamed to one of
// the test's own.
func openProfileText(t *testing.T, text, ks string, records uint64, driver string) (*Target, *workload.Spec) {
	t.Helper()
	tg, spec, err := setupProfileText(t, text, ks, records, driver)
	if err != nil {
		t.Fatalf("Setup: %v", err)
	}
	return tg, spec
}

// setupProfileText is openProfileText returning Setup's error.
func setupProfileText(t *testing.T, text, ks string, records uint64, driver string) (*Target, *workload.Spec, error) {
	t.Helper()
	own := fmt.Sprintf("pbprof_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	spec, err := workload.ParseCSProfile([]byte(strings.ReplaceAll(text, ks, own)))
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = records
	tg := openTest(t, map[string]string{"driver": driver})
	t.Cleanup(func() { _ = tg.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return tg, &spec, tg.Setup(ctx, &spec)
}

// run does n ops of op on keys 0..n-1 (mod records) with one worker.
func run(t *testing.T, tg *Target, spec *workload.Spec, op vocab.Op, n int) {
	t.Helper()
	w, err := tg.NewWorker(0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for i := range n {
		req := workload.Request{Op: op, KeyNum: uint64(i) % spec.Records}
		if err := w.Do(context.Background(), &req); err != nil {
			t.Fatalf("%s #%d: %v", spec.OpName(op), i, err)
		}
	}
}

func named(spec *workload.Spec, name string) vocab.Op {
	op, ok := spec.ParseOpName(name)
	if !ok || !op.Named() {
		panic("no op " + name)
	}
	return op
}

// count runs a separate query and returns its rows.
func count(t *testing.T, tg *Target, q string, args ...any) int {
	t.Helper()
	sc := tg.session.Query(q, args...).Consistency(gocql.One).Iter().Scanner()
	n := 0
	for sc.Next() {
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// pkOf is the partition key value platbench writes for partition part.
func pkOf(tg *Target, part uint64) []byte {
	pr := tg.prof
	return pr.AppendValue(nil, pr.PK[0], part, 0)
}

func TestProfileTypes(t *testing.T) { forDrivers(t, testProfileTypes) }

func testProfileTypes(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-types.yaml", 20, driver)
	run(t, tg, spec, vocab.OpInsert, 20) // the load: every row of every partition
	ks := tg.prof.Def.Keyspace
	if n := count(t, tg, "SELECT pk, ck FROM "+ks+".alltypes"); n != 100 {
		t.Errorf("table holds %d rows, want 20 partitions x 5", n)
	}
	var txt, ascii string
	var list []int
	var set []string
	var m map[string]int64
	var udt map[string]any
	var tup [][]any
	var dur gocql.Duration
	var tu gocql.UUID
	err := tg.session.Query("SELECT c_text, c_ascii, c_list, c_set, c_map, c_udt, c_tuple, c_dur, c_tuuid FROM "+ks+".alltypes WHERE pk = ? LIMIT 1", pkOf(tg, 3)).
		Consistency(gocql.One).Scan(&txt, &ascii, &list, &set, &m, &udt, &tup, &dur, &tu)
	if err != nil {
		t.Fatal(err)
	}
	if len(txt) < 10 || len(txt) > 20 || len(ascii) < 4 || len(list) != 3 || len(set) == 0 || len(m) == 0 || udt["street"] == "" || len(tup) != 4 || len(tup[0]) != 3 || tu.Version() != 1 {
		t.Errorf("row: text %q ascii %q list %v set %v map %v udt %v tuple %v duration %v timeuuid %v", txt, ascii, list, set, m, udt, tup, dur, tu)
	}
	run(t, tg, spec, named(spec, "insert"), 20)
	run(t, tg, spec, named(spec, "byrow"), 20)
	run(t, tg, spec, named(spec, "partition"), 20)
	before := tg.prof.Returned.Load()
	scan := *spec
	scan.Records = csprofile.TokenSplits // one op per split
	run(t, tg, &scan, named(spec, "scan_all"), csprofile.TokenSplits)
	if got := tg.prof.Returned.Load() - before; got != 100 {
		t.Errorf("token-range scans over every split returned %d rows, want 100", got)
	}
	if tg.prof.Partitions.Load() != 20 || tg.prof.Rows.Load() != 100 {
		t.Errorf("inserts wrote %d partitions, %d rows; want 20, 100", tg.prof.Partitions.Load(), tg.prof.Rows.Load())
	}
	// Close drops the keyspace Setup created, the type of the profile's
	// extra_definitions with it.
	if err := tg.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	probe := openTest(t, map[string]string{"keyspace": ks, "create": "false"})
	defer probe.Close()
	if err := probe.Setup(context.Background(), &workload.Spec{FieldCount: 2, FieldLength: 10}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("keyspace %s after Close: %v, want it gone", ks, err)
	}
}

func TestProfileWideLoggedPaging(t *testing.T) { forDrivers(t, testProfileWideLoggedPaging) }

func testProfileWideLoggedPaging(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-wide.yaml", 10, driver)
	if rows := tg.prof.RowsIn(0); rows != 200 {
		t.Fatalf("rowsIn = %d, want 10 x 20", rows)
	}
	ins := named(spec, "insert")
	run(t, tg, spec, ins, 10)
	// 10 visits of 2 partitions, a tenth (20 rows) of each.
	if p, r := tg.prof.Partitions.Load(), tg.prof.Rows.Load(); p != 20 || r != 400 {
		t.Errorf("wrote %d partitions, %d rows; want 20, 400", p, r)
	}
	run(t, tg, spec, vocab.OpInsert, 10)
	ks := tg.prof.Def.Keyspace
	if n := count(t, tg, "SELECT sensor FROM "+ks+".wide WHERE sensor = ?", pkOf(tg, 4)); n != 200 {
		t.Errorf("partition 4 holds %d rows, want 200", n)
	}
	tg.cfg.PageSize = 30
	before := tg.prof.Returned.Load()
	run(t, tg, spec, named(spec, "whole"), 10)
	if got := tg.prof.Returned.Load() - before; got != 2000 {
		t.Errorf("whole-partition reads returned %d rows, want 10 x 200 (across pages)", got)
	}
	run(t, tg, spec, named(spec, "oneday"), 10)
}

func TestProfileCounter(t *testing.T) { forDrivers(t, testProfileCounter) }

func testProfileCounter(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-counter.yaml", 5, driver)
	run(t, tg, spec, named(spec, "insert"), 10) // each partition twice
	var views, clicks int64
	if err := tg.session.Query("SELECT views, clicks FROM "+tg.prof.Def.Keyspace+".hits WHERE page = ? LIMIT 1", pkOf(tg, 2)).Consistency(gocql.One).Scan(&views, &clicks); err != nil {
		t.Fatal(err)
	}
	if views < 2 || clicks < 2 {
		t.Errorf("counters after two increments: views %d clicks %d", views, clicks)
	}
	run(t, tg, spec, named(spec, "views"), 5)
	if tg.prof.Returned.Load() != 20 {
		t.Errorf("returned %d rows, want 5 x 4", tg.prof.Returned.Load())
	}
}

func TestProfileLWT(t *testing.T) { forDrivers(t, testProfileLWT) }

func testProfileLWT(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-lwt.yaml", 5, driver)
	ins := named(spec, "insert")
	run(t, tg, spec, ins, 5)
	if n := tg.prof.NotApplied.Load(); n != 0 {
		t.Fatalf("first inserts: %d not applied", n)
	}
	run(t, tg, spec, ins, 5)
	if n := tg.prof.NotApplied.Load(); n != 5 {
		t.Errorf("second inserts IF NOT EXISTS: %d not applied, want 5", n)
	}
	// balance = ? binds the value the insert wrote: applied.
	run(t, tg, spec, named(spec, "transfer"), 5)
	if n := tg.prof.NotApplied.Load(); n != 5 {
		t.Errorf("conditional updates on the written balance: %d more not applied", n-5)
	}
	if st := tg.prof.Ops[0]; !st.CAS || st.Serial != gocql.Serial || st.CL != gocql.Quorum {
		t.Errorf("cas statement %+v", st)
	}
}

func TestProfileTTL(t *testing.T) { forDrivers(t, testProfileTTL) }

func testProfileTTL(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-ttl.yaml", 10, driver)
	run(t, tg, spec, named(spec, "insert"), 10)
	q := "SELECT id FROM " + tg.prof.Def.Keyspace + ".sessions"
	if n := count(t, tg, q); n != 10 {
		t.Fatalf("%d rows after the inserts, want 10", n)
	}
	for i := 0; count(t, tg, q) > 0; i++ {
		if i == 100 {
			t.Fatal("rows still there 20 s after their 2 s TTL")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func TestProfileRefusedTable(t *testing.T) {
	data, _ := os.ReadFile(filepath.Join("testdata", "profile-refused.yaml"))
	ks := fmt.Sprintf("pbprof_%d_c", os.Getpid())
	spec, err := workload.ParseCSProfile([]byte(strings.ReplaceAll(string(data), "pbprof", ks)))
	if err != nil {
		t.Fatal(err)
	}
	tg := openTest(t, nil)
	defer tg.Close()
	err = tg.Setup(context.Background(), &spec)
	if err == nil || !strings.Contains(err.Error(), "refused the profile's table_definition") || !strings.Contains(err.Error(), "NoSuchCompactionStrategy") || !strings.Contains(err.Error(), "(fix: ") {
		t.Fatalf("Setup = %v, want the server's message and the fix", err)
	}
	t.Log(err)
}

func TestProfileDropsOnlyWhatItCreated(t *testing.T) {
	forDrivers(t, testProfileDropsOnlyWhatItCreated)
}

func testProfileDropsOnlyWhatItCreated(t *testing.T, driver string) {
	tg, _ := openProfile(t, "profile-ttl.yaml", 1, driver)
	if !tg.createdKS {
		t.Fatal("keyspace not marked created")
	}
	ks := tg.prof.Def.Keyspace
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	tg2 := openTest(t, nil)
	defer tg2.Close()
	if _, err := tg2.session.KeyspaceMetadata(ks); err == nil {
		t.Errorf("keyspace %s still there after Close", ks)
	}
}

func TestProfileUsingTTLAndTimestamp(t *testing.T) { forDrivers(t, testProfileUsingTTLAndTimestamp) }

func testProfileUsingTTLAndTimestamp(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-using.yaml", 4, driver)
	if !strings.Contains(tg.prof.Insert.CQL, "USING TTL 2 AND TIMESTAMP ?") {
		t.Fatalf("insert %q", tg.prof.Insert.CQL)
	}
	before := time.Now().UnixMicro()
	run(t, tg, spec, named(spec, "insert"), 4)
	after := time.Now().UnixMicro()
	var wt int64
	var ttl int
	if err := tg.session.Query("SELECT writetime(body), ttl(body) FROM "+tg.prof.Def.Keyspace+".events WHERE id = ? LIMIT 1", pkOf(tg, 1)).Consistency(gocql.One).Scan(&wt, &ttl); err != nil {
		t.Fatal(err)
	}
	if wt < before || wt > after || ttl < 0 || ttl > 2 {
		t.Errorf("writetime %d not the client's clock in [%d, %d], or ttl %d not <= 2", wt, before, after, ttl)
	}
	q := "SELECT id FROM " + tg.prof.Def.Keyspace + ".events"
	for i := 0; count(t, tg, q) > 0; i++ {
		if i == 100 {
			t.Fatal("rows still there 20 s after their 2 s TTL")
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// forDrivers runs test with platbench's own client and with the driver.
func forDrivers(t *testing.T, test func(*testing.T, string)) {
	for _, d := range []string{DriverNative, DriverGocql} {
		t.Run(d, func(t *testing.T) { test(t, d) })
	}
}

// TestProfileRoutingToken: the token platbench routes a request by is the
// server's token of the partition, for one-column and composite keys.
func TestProfileRoutingToken(t *testing.T) {
	for _, name := range []string{"profile-ttl.yaml", "profile-composite.yaml"} {
		tg, spec := openProfile(t, name, 5, DriverNative)
		run(t, tg, spec, named(spec, "insert"), 5)
		w, err := tg.NewWorker(1)
		if err != nil {
			t.Fatal(err)
		}
		pr := tg.prof
		var cols, marks []string
		for _, c := range pr.PK {
			cols, marks = append(cols, c.Name), append(marks, c.Name+" = ?")
		}
		q := fmt.Sprintf("SELECT token(%s) FROM %s.%s WHERE %s LIMIT 1", strings.Join(cols, ", "), pr.Def.Keyspace, pr.Def.Table, strings.Join(marks, " AND "))
		for k := range uint64(5) {
			var args []any
			for _, c := range pr.PK {
				args = append(args, &blob{b: pr.AppendValue(nil, c, k, 0)})
			}
			var server int64
			if err := tg.session.Query(q, args...).Consistency(gocql.One).Scan(&server); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			got, ok := w.(*pworker).prof.token(&workload.Request{Op: named(spec, "insert"), KeyNum: k})
			if !ok || got != server {
				t.Errorf("%s partition %d: routing token %d, server's %d", name, k, got, server)
			}
		}
		w.Close()
	}
}

// TestProfileExistingTableKept: a profile naming an existing keyspace and
// table (no definitions) uses them as they are, and Close leaves them.
func TestProfileExistingTableKept(t *testing.T) {
	ks := fmt.Sprintf("pbprof_%d_keep", os.Getpid())
	admin := openTest(t, nil)
	defer admin.Close()
	for _, q := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + ks + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
		"CREATE TABLE IF NOT EXISTS " + ks + ".mine (k text PRIMARY KEY, v int)",
	} {
		if err := admin.session.Query(q).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	defer func() { _ = admin.session.Query("DROP KEYSPACE IF EXISTS " + ks).Exec() }()
	spec, err := workload.ParseCSProfile([]byte("keyspace: " + ks + "\ntable: mine\n"))
	if err != nil {
		t.Fatal(err)
	}
	spec.Records = 3
	tg := openTest(t, nil)
	if err := tg.Setup(context.Background(), &spec); err != nil {
		t.Fatal(err)
	}
	if tg.createdKS || tg.createdTbl {
		t.Error("an existing keyspace or table marked as created")
	}
	run(t, tg, &spec, named(&spec, "insert"), 3)
	if err := tg.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(t, admin, "SELECT k FROM "+ks+".mine"); n != 3 {
		t.Errorf("after Close the table holds %d rows, want the 3 written", n)
	}
}

func TestProfileBatchSplit(t *testing.T) { forDrivers(t, testProfileBatchSplit) }

func testProfileBatchSplit(t *testing.T, driver string) {
	tg, spec := openProfile(t, "profile-bigrows.yaml", 3, driver)
	run(t, tg, spec, named(spec, "insert"), 3)
	if n := count(t, tg, "SELECT k FROM "+tg.prof.Def.Keyspace+".big"); n != 300 {
		t.Errorf("%d rows, want 3 partitions x 100 (200 KB each, in batches under the size limit)", n)
	}
}

// A top-level tuple column: platbench's own client binds the encoded tuple
// as one value, and the server stores a tuple of three elements (read back
// as JSON); the Apache driver path refuses it at Setup with the fix.
func TestProfileTopLevelTuple(t *testing.T) {
	tg, spec := openProfile(t, "profile-tuple.yaml", 10, DriverNative)
	run(t, tg, spec, vocab.OpInsert, 10)
	var js string
	id := int64(binary.BigEndian.Uint64(pkOf(tg, 3))) // the bigint platbench wrote for partition 3
	if err := tg.session.Query("SELECT JSON pos FROM "+tg.prof.Def.Keyspace+".points WHERE id = ?", id).Consistency(gocql.One).Scan(&js); err != nil {
		t.Fatal(err)
	}
	var row struct {
		Pos []any `json:"pos"`
	}
	if err := json.Unmarshal([]byte(js), &row); err != nil || len(row.Pos) != 3 {
		t.Errorf("pos read back as %s (%v); want a tuple of 3", js, err)
	}
	run(t, tg, spec, named(spec, "byid"), 10)
	if got := tg.prof.Returned.Load(); got != 10 {
		t.Errorf("reads by id returned %d rows, want 10", got)
	}

	data, err := os.ReadFile(filepath.Join("testdata", "profile-tuple.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ks := fmt.Sprintf("pbprof_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	s, err := workload.ParseCSProfile([]byte(strings.ReplaceAll(string(data), "pbprof", ks)))
	if err != nil {
		t.Fatal(err)
	}
	s.Records = 10
	g := openTest(t, map[string]string{"driver": DriverGocql})
	defer g.Close()
	err = g.Setup(context.Background(), &s)
	if err == nil || !strings.Contains(err.Error(), "top-level tuple") || !strings.Contains(err.Error(), "driver=native") {
		t.Errorf("driver=gocql Setup = %v; want the top-level tuple refused with the fix", err)
	}
}
