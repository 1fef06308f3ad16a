package cql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/vocab"
)

// Apache's own example profiles (workload/testdata/cassandra-stress, as
// published) set up and run against the real server: the load, then each
// named operation on every partition. Their keyspaces are renamed to the
// test's; the LWT example's replication_factor 3 becomes 1 on a one-node
// cluster (SERIAL needs a quorum of the replicas that exist). The rows one
// insert writes stay within cassandra-stress's own bounds ("Generating
// batches with [p..P] partitions and [r..R] rows": select's min share of
// the fewest partitions of the smallest ones up to MaxInsertRows), and an
// insert of the counter and LWT examples writes one row of one partition,
// as their comments say. The insert statement is cassandra-stress's
// (compareWithStress).
func TestApacheExampleProfilesRun(t *testing.T) {
	for _, c := range []struct {
		file, ks   string
		minRows    uint64 // per insert, cassandra-stress's lower bound
		maxRows    uint64 // per insert, its upper bound
		partsOfOne bool   // one partition per insert
	}{
		{"cqlstress-example.yaml", "stresscql", 2, 8000, false},             // 0.1 x 1 x 20 .. 1 x 50 x 160
		{"cqlstress-counter-example.yaml", "stresscql", 1, 1, true},         // fixed(1)/1 of one row
		{"cqlstress-insanity-example.yaml", "stresscql", 1, 20, true},       // all of gaussian(1..20) rows
		{"cqlstress-lwt-example.yaml", "cqlstress_lwt_example", 1, 1, true}, // 1/1000 of fixed(1000)
	} {
		t.Run(c.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "..", "workload", "testdata", "cassandra-stress", c.file))
			if err != nil {
				t.Fatal(err)
			}
			text := strings.ReplaceAll(string(data), "'replication_factor': 3", "'replication_factor': 1")
			const parts = 4
			tg, spec := openProfileText(t, text, c.ks, parts, DriverNative)
			compareWithStress(t, tg)
			if got := tg.prof.MaxInsertRows(); got != c.maxRows {
				t.Errorf("MaxInsertRows %d, want cassandra-stress's bound %d", got, c.maxRows)
			}
			run(t, tg, spec, vocab.OpInsert, parts) // the load
			for _, name := range spec.NamedOps {
				run(t, tg, spec, named(spec, name), parts)
			}
			p, r := tg.prof.Partitions.Load(), tg.prof.Rows.Load()
			if r < c.minRows*parts || r > c.maxRows*parts || p < parts || (c.partsOfOne && p != parts) {
				t.Errorf("%d inserts wrote %d partitions, %d rows; cassandra-stress writes %d..%d rows an insert", parts, p, r, c.minRows, c.maxRows)
			}
		})
	}
}

// A counter table with batchtype LOGGED and one row per insert (Apache's
// counter example, the case) runs: the lone statement goes
// unbatched, as cassandra-stress sends it, where a LOGGED batch of it is
// refused by the server. The same table with rows enough for a batch is
// refused at setup, with the fix.
func TestProfileCounterLoneLoggedBatch(t *testing.T) {
	const text = `keyspace: pbprof
keyspace_definition: |
  CREATE KEYSPACE pbprof WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: counttest
table_definition: |
  CREATE TABLE counttest (name text, hour int, count counter, PRIMARY KEY (name, hour))
columnspec:
  - name: hour
    cluster: fixed(CLUSTER)
insert:
  partitions: fixed(1)
  select: fixed(1)/1
  batchtype: LOGGED
`
	tg, spec := openProfileText(t, strings.Replace(text, "CLUSTER", "1", 1), "pbprof", 5, DriverNative)
	run(t, tg, spec, vocab.OpInsert, 5)         // the load
	run(t, tg, spec, named(spec, "insert"), 10) // each partition twice more
	var n int64
	if err := tg.session.Query("SELECT count FROM "+tg.prof.Def.Keyspace+".counttest WHERE name = ?", pkOf(tg, 3)).Consistency(gocql.One).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n < 3 {
		t.Errorf("counter after the load and two increments: %d", n)
	}

	_, _, err := setupProfileText(t, strings.Replace(text, "CLUSTER", "4", 1), "pbprof", 5, DriverNative)
	if err == nil || !strings.Contains(err.Error(), "batchtype LOGGED on counter table counttest, whose inserts write up to 4 rows") || !strings.Contains(err.Error(), "fix: batchtype: COUNTER") {
		t.Errorf("Setup of a counter table with LOGGED batches of 4 rows: %v", err)
	}
}

// LWT as cassandra-stress's example writes it, `condition: IF body =
// NULL`: the insert is UPDATE ... IF body = NULL. One row per insert is a
// lone conditional statement, applied on an empty table; two rows are a
// conditional batch of one partition, not applied once the bodies are
// written (counted, not errors).
func TestProfileLWTBodyNull(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "profile-lwt-null.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	tg, spec := openProfileText(t, strings.Replace(string(data), "select: SELECT", "select: fixed(1)/2", 1), "pbprof", 5, DriverNative)
	if st := tg.prof.Insert; !st.CAS || !strings.HasSuffix(st.CQL, "IF body = NULL") || !strings.HasPrefix(st.CQL, "UPDATE posts SET") {
		t.Fatalf("insert statement %q (cas %v)", st.CQL, st.CAS)
	}
	ins := named(spec, "insert")
	run(t, tg, spec, ins, 5)
	if n := tg.prof.NotApplied.Load(); n != 0 || tg.prof.Rows.Load() != 5 {
		t.Errorf("lone conditional inserts on an empty table: %d not applied, %d rows", n, tg.prof.Rows.Load())
	}
	run(t, tg, spec, named(spec, "latest"), 5)

	tg2, spec2 := openProfileText(t, strings.Replace(string(data), "select: SELECT", "select: fixed(2)/2", 1), "pbprof", 5, DriverNative)
	ins2 := named(spec2, "insert")
	run(t, tg2, spec2, ins2, 5)
	if n := tg2.prof.NotApplied.Load(); n != 0 {
		t.Errorf("first conditional batches: %d not applied", n)
	}
	run(t, tg2, spec2, ins2, 5)
	if n := tg2.prof.NotApplied.Load(); n != 5 {
		t.Errorf("second conditional batches on written bodies: %d not applied, want 5", n)
	}
	if n := count(t, tg2, "SELECT body FROM "+tg2.prof.Def.Keyspace+".posts"); n != 10 {
		t.Errorf("table holds %d rows, want 5 partitions x 2", n)
	}
}

// stressInsert is the insert cassandra-stress prepares for the table
// (StressProfile.getInsert): UPDATE t SET every non-key column = ? (a
// counter c = c + ?) WHERE every key column = ?, in the driver's column
// order (partition key, clustering, then the others).
func stressInsert(tg *Target) (stmt string, cells []string) {
	var sets, where []string
	for _, c := range tg.prof.Cols {
		cells = append(cells, c.Name)
		switch {
		case c.PK || c.Level >= 0:
			where = append(where, c.Name+" = ?")
		case tg.prof.Counter:
			sets = append(sets, c.Name+" = "+c.Name+" + ?")
		default:
			sets = append(sets, c.Name+" = ?")
		}
	}
	return "UPDATE " + tg.prof.Def.Table + " SET " + strings.Join(sets, ", ") + " WHERE " + strings.Join(where, " AND "), cells
}

// compareWithStress checks the profile's insert against cassandra-stress's:
// the same UPDATE (with the profile's condition after it) where platbench
// writes an UPDATE (counters, conditions), and the same cells where it
// writes an INSERT (which adds the row's liveness marker, where
// cassandra-stress's UPDATE writes only the cells).
func compareWithStress(t *testing.T, tg *Target) {
	t.Helper()
	got := tg.prof.Insert.CQL
	want, cells := stressInsert(tg)
	if cond := tg.prof.Def.Insert.Condition; cond != "" && cond != "IF NOT EXISTS" {
		want += " " + cond
	}
	if strings.HasPrefix(got, "UPDATE") {
		if got != want {
			t.Errorf("insert\n got %s\nwant %s (cassandra-stress's)", got, want)
		}
		return
	}
	open, end := strings.Index(got, "("), strings.Index(got, ")")
	if open < 0 || end < open || strings.Join(strings.Split(got[open+1:end], ", "), ",") != strings.Join(cells, ",") {
		t.Errorf("insert %s does not write the cells of cassandra-stress's %s", got, want)
	}
}
