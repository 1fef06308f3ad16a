package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/result"
)

// A YCSB property file runs against the embedded store: its recordcount,
// operationcount, mix and distribution are the run's, the properties not
// used are one warning on stderr, and the result names the workload.
func TestRunYCSBPropertyFile(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "workloadb")
	os.WriteFile(props, []byte("# my YCSB B\nworkload=site.ycsb.workloads.CoreWorkload\nrecordcount=3000\noperationcount=4000\n"+
		"readproportion=0.9\nupdateproportion=0.05\ninsertproportion=0.05\nrequestdistribution=latest\ntable=usertable\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	code, _, stderr := run(t, "run", "--workload", props, "--target", "embedded://"+filepath.Join(dir, "db"), "--concurrency", "2", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "platbench: warning: workload file " + props + ": YCSB properties platbench does not use, ignored: table (line 9)\n"
	if stderr != want {
		t.Errorf("stderr:\n got %q\nwant %q", stderr, want)
	}
	_, stdout, _ := run(t, "report", out) // --quiet printed the brief report
	if !strings.Contains(stdout, "workload "+props) || !strings.Contains(stdout, "INSERT") {
		t.Errorf("report does not name the workload or its inserts:\n%s", stdout)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	w := r.Config.Workload
	if w.Name != props || w.Records != 3000 || w.Distribution != "latest" || len(w.Mix) != 3 {
		t.Errorf("workload in the result: %+v", w)
	}
	if r.Phases[0].Ops[0].Count != 3000 {
		t.Errorf("loaded %d records, want 3000", r.Phases[0].Ops[0].Count)
	}
	var ops uint64
	for _, o := range r.Phases[1].Ops {
		ops += o.Count
	}
	if ops != 4000 {
		t.Errorf("run phase did %d ops, want operationcount 4000", ops)
	}
}

// Flags override the property file as they override a YAML file: --ops
// replaces operationcount, --records recordcount, --mix the proportions.
func TestYCSBPropertyFileFlagsOverride(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "w.properties")
	os.WriteFile(props, []byte("recordcount=5000\noperationcount=1000000\nreadproportion=1\nupdateproportion=0\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	code, _, stderr := run(t, "run", "--workload", props, "--target", "embedded://"+filepath.Join(dir, "db"), "--ops", "500", "--records", "1000",
		"--mix", "read=1,update=1", "--distribution", "zipfian", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if stderr != "" {
		t.Errorf("stderr: %s", stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	var ops uint64
	for _, o := range r.Phases[1].Ops {
		ops += o.Count
	}
	if w := r.Config.Workload; w.Records != 1000 || len(w.Mix) != 2 || w.Distribution != "zipfian" || ops != 500 {
		t.Errorf("flags did not override: %+v, %d ops", w, ops)
	}
}

// insertstart/insertcount in equal parts are the shard; a file without a
// path separator or extension is found when no preset has its name.
func TestYCSBPropertyFileShardAndBareName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("mywork", []byte("recordcount=4000\ninsertstart=1000\ninsertcount=1000\noperationcount=100\n"), 0o644)
	code, _, stderr := run(t, "load", "--workload", "mywork", "--target", "embedded://db", "--out", "r.json", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read("r.json")
	if err != nil {
		t.Fatal(err)
	}
	if r.Config.Shard != "1/4" || r.Phases[0].Ops[0].Count != 1000 {
		t.Errorf("shard %q, loaded %d, want 1/4 and 1000", r.Config.Shard, r.Phases[0].Ops[0].Count)
	}
}

// A property the file cannot have is one line naming the file and the line,
// exit status 2.
func TestYCSBPropertyFileRefused(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "workloadx")
	os.WriteFile(props, []byte("recordcount=1000\nrequestdistribution=exponential\n"), 0o644)
	code, _, stderr := run(t, "run", "--workload", props, "--duration", "1s")
	if code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	want := "workload file " + props + ": line 2: requestdistribution=exponential is not supported"
	if lines := strings.Split(strings.TrimSpace(stderr), "\n"); len(lines) != 1 || !strings.Contains(stderr, want) {
		t.Errorf("stderr %q, want one line with %q", stderr, want)
	}
}

// Every example property file runs against the embedded store.
func TestYCSBExamplePropertyFilesRun(t *testing.T) {
	dir := t.TempDir()
	for _, x := range "abcdef" {
		path := filepath.Join("..", "..", "..", "examples", "workloads", "ycsb", "workload"+string(x))
		out := filepath.Join(dir, string(x)+".json")
		code, _, stderr := run(t, "run", "--workload", path, "--target", "embedded://"+filepath.Join(dir, string(x)), "--records", "1000", "--ops", "300", "--out", out, "--quiet")
		if code != 0 || stderr != "" {
			t.Errorf("%s: exit %d: %s", path, code, stderr)
		}
	}
}

// go-ycsb's stock files say workload=core and run unchanged; the client
// properties a -P file may carry are the run's: threadcount the
// concurrency, target the fixed rate, maxexecutiontime a bound beside
// operationcount (whichever ends first); a flag overrides each.
func TestYCSBPropertyFileClientProperties(t *testing.T) {
	dir := t.TempDir()
	props := filepath.Join(dir, "workloadc")
	os.WriteFile(props, []byte("workload=core\nrecordcount=200\noperationcount=300\nreadproportion=1\nupdateproportion=0\n"+
		"threadcount=3\ntarget=5000\nmaxexecutiontime=30\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	code, _, stderr := run(t, "run", "--workload", props, "--target", "embedded://"+filepath.Join(dir, "db"), "--out", out, "--quiet")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Config
	if c.Concurrency != 3 || c.RateOpsPerS != 5000 || c.DurationNs != int64(30*time.Second) || c.Ops != 300 || r.Phases[1].Ops[0].Count != 300 {
		t.Errorf("concurrency %d rate %v duration %v ops %d, run did %d", c.Concurrency, c.RateOpsPerS, time.Duration(c.DurationNs), c.Ops, r.Phases[1].Ops[0].Count)
	}
	code, _, stderr = run(t, "run", "--workload", props, "--target", "embedded://"+filepath.Join(dir, "db2"), "--out", out, "--quiet", "--force",
		"--concurrency", "2", "--rate", "0", "--ops", "100")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if r, err = result.Read(out); err != nil {
		t.Fatal(err)
	}
	if c := r.Config; c.Concurrency != 2 || c.RateOpsPerS != 0 || c.DurationNs != 0 || c.Ops != 100 {
		t.Errorf("flags did not override: concurrency %d rate %v duration %v ops %d", c.Concurrency, c.RateOpsPerS, time.Duration(c.DurationNs), c.Ops)
	}
}
