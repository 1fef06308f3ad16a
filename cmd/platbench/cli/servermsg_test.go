package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// The Redis case against the real server: SET k:KEY to a record's
// bytes, INCR the same key. Every INCR of a key SET before fails with
// Redis's own words, which the one-line failure and the result carry, and
// the run fails (about half the operations failed: more than 1%).
func TestRedisIncrOnAStringFails(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_REDIS_URL") + "/9" // a database of its own
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := run(t, "run", "--target", u, "--records", "50", "--ops", "2000", "--concurrency", "2",
		"--command", "SET k:__key__ __data__", "--command", "INCR k:__key__", "--out", out, "--quiet")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	const said = "redis: ERR value is not an integer or out of range"
	if !strings.Contains(stderr, "first error (incr, other): "+said) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stderr does not end with Redis's words on one line: %q", stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	p := r.MainPhase()
	if len(p.ErrorMessages) == 0 || p.ErrorMessages[0].Message != said || p.ErrorMessages[0].Op != "incr" {
		t.Errorf("result's error messages: %+v", p.ErrorMessages)
	}
}

// cqlProfile writes a profile of blog posts (the LWT profile in
// small) with the given key size and posts per domain, in a keyspace of
// the test's own, and returns its path.
func cqlProfile(t *testing.T, keySize string, posts int) string {
	t.Helper()
	ks := fmt.Sprintf("pbcli_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	text := fmt.Sprintf(`keyspace: %[1]s
keyspace_definition: |
  CREATE KEYSPACE %[1]s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
table: blogposts
table_definition: |
  CREATE TABLE blogposts (domain text, published_date timeuuid, url text, author text, title text, body text,
    PRIMARY KEY (domain, published_date))
columnspec:
  - name: domain
    size: %[2]s
  - name: published_date
    cluster: fixed(%[3]d)
  - name: url
    size: uniform(30..300)
  - name: title
    size: gaussian(10..200)
  - name: author
    size: uniform(5..20)
  - name: body
    size: gaussian(100..5000)
insert:
  partitions: fixed(1)
  select: fixed(1)/%[3]d
  batchtype: UNLOGGED
  condition: IF body = NULL
queries:
  singlepost:
    cql: select * from blogposts where domain = ? LIMIT 1
`, ks, keySize, posts)
	p := filepath.Join(t.TempDir(), "blogposts.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Large clustering, sized before the load: 1,000 posts per domain of about
// 2.8 KB each (the distributions' means: url 165, title 105, author 12.5,
// body 2,550 bytes, a 16-byte timeuuid) is about 2.8 MB a partition; the
// plan line says so before the load starts, and --dataset-size 10MiB lowers
// the default 100,000 partitions to the 3 that fit, which the load writes.
func TestCQLProfileLoadPlanAndBudget(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL") // the CQL adapter's tests pause nodes
	prof := cqlProfile(t, "gaussian(5..100)", 1000)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := run(t, "load", "--target", u, "--workload", prof, "--dataset-size", "10MiB", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	plan := regexp.MustCompile(`load: 3 records x 1000 rows \(3,000 rows\) x ([0-9.]+) KiB a row = about ([0-9.]+) MiB \(100,000 records lowered to fit the dataset size\); host RAM [^,]+, target's free disk unknown`)
	m := plan.FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("no plan line in stderr:\n%s", stderr)
	}
	if row, _ := strconv.ParseFloat(m[1], 64); row < 2.6 || row > 2.9 { // 2,848.5 B = 2.78 KiB
		t.Errorf("%s KiB a row, want about 2.78", m[1])
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Dataset
	if d.Records != 3 || d.RowsPerRecord != 1000 || d.LogicalBytes < 8<<20 || d.LogicalBytes > 10<<20 || r.Phases[0].Ops[0].Count != 3 {
		t.Errorf("dataset %+v, loaded %d partitions", d, r.Phases[0].Ops[0].Count)
	}
}

// A statement Cassandra rejects at execution: a partition key of 70,000
// bytes (the server's limit is 65,535). Every insert of the load fails; the
// one-line failure carries Cassandra's own message, the result of the load
// is written with it, and the exit status is 1.
func TestCQLRejectedStatementShown(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL") // the CQL adapter's tests pause nodes
	prof := cqlProfile(t, "fixed(70000)", 1)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := run(t, "run", "--target", u, "--workload", prof, "--records", "20", "--ops", "20", "--out", out, "--quiet")
	if code != exitFailed {
		t.Fatalf("exit %d, want %d: %s", code, exitFailed, stderr)
	}
	const said = "Key length of 70000 is longer than maximum of 65535"
	if !strings.Contains(stderr, "every insert of the load phase failed (20 errors), first error: rejected: ") || !strings.Contains(stderr, said) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Errorf("stderr: %q", stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Phases) != 1 || len(r.Phases[0].ErrorMessages) == 0 || !strings.Contains(r.Phases[0].ErrorMessages[0].Message, said) {
		t.Errorf("result: %d phases, messages %+v", len(r.Phases), r.Phases[0].ErrorMessages)
	}
}

// go-ycsb's own workloada (workload=core, as published) against the real
// Cassandra: 1,000 records loaded, 1,000 operations of read 0.5, update 0.5,
// no warning, no error.
func TestGoYCSBWorkloadOnCassandra(t *testing.T) {
	u := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL") // the CQL adapter's tests pause nodes
	ks := fmt.Sprintf("pbycsb_%d_%d", os.Getpid(), time.Now().UnixNano()%1e6)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := run(t, "run", "--target", u, "--target-opt", "keyspace="+ks, "--workload", filepath.Join("..", "..", "..", "workload", "testdata", "go-ycsb", "workloada"),
		"--out", out, "--quiet")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var ops, failed uint64
	for _, o := range r.Phases[1].Ops {
		ops += o.Count
		for _, n := range o.Errors {
			failed += n
		}
	}
	if w := r.Config.Workload; w.Records != 1000 || len(w.Mix) != 2 || r.Phases[0].Ops[0].Count != 1000 || ops != 1000 || failed != 0 {
		t.Errorf("workload %+v: loaded %d, ran %d ops, %d failed", w, r.Phases[0].Ops[0].Count, ops, failed)
	}
}
