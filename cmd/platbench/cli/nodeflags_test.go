package cli

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
	"github.com/platbench/platbench/result"
)

// Bad server-metrics input is one line naming the flag, exit status 2,
// before anything runs.
func TestServerMetricsFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--server-metrics", "ftp://10.0.0.5:9100"}, `--server-metrics "ftp://10.0.0.5:9100" is not an http or https URL`},
		{[]string{"--server-metrics", "http://user:pw@h:9100"}, "--server-metrics"},
		{[]string{"--server-metrics-port", "70000"}, "--server-metrics-port 70000 is not a TCP port"},
		// The fake target names no nodes: there is nothing to put the port on.
		{[]string{"--target", "fake", "--duration", "1s", "--server-metrics-port", "9100"}, "--server-metrics-port is set but the target named no nodes"},
	} {
		args := append([]string{"run", "--quiet", "--out", filepath.Join(t.TempDir(), "r.json")}, c.args...)
		code, _, stderr := run(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// --server-metrics-port puts the port on the target's nodes: the embedded
// store is "local", so the node is this host's exporter; the run's result
// and report carry it.
func TestServerMetricsPortRun(t *testing.T) {
	u, err := url.Parse(testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URL"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	code, stdout, stderr := run(t, "run", "--target", "embedded://"+filepath.Join(dir, "db"), "--records", "1000", "--duration", "2s",
		"--concurrency", "1", "--server-metrics-port", u.Port(), "--out", out) // the full report: no --quiet
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Nodes) != 1 || r.Nodes[0].Node != "127.0.0.1:"+u.Port() {
		t.Fatalf("nodes %+v", r.Nodes)
	}
	good := 0
	for _, s := range r.Nodes[0].Samples {
		if !s.Missing {
			good++
		}
	}
	if good == 0 {
		t.Errorf("no good sample: %+v", r.Nodes[0].Samples)
	}
	for _, want := range []string{"Server nodes", "Node 127.0.0.1:" + u.Port(), "check cpu"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// --server-metrics-port on the CQL target: one node series per Cassandra
// node the driver discovered, each read from the node_exporter on the
// node's own address (scripts/test.sh starts one per node), with good
// samples, and the report's per-node table names each.
func TestServerMetricsPortCassandra(t *testing.T) {
	cql := testenv.URL(t, "PLATBENCH_CQL_URL")
	testenv.Shared(t, "PLATBENCH_CQL_URL") // the CQL adapter's tests pause nodes
	port := testenv.URL(t, "PLATBENCH_NODE_EXPORTER_PORT")
	urls := strings.Split(testenv.URL(t, "PLATBENCH_NODE_EXPORTER_URLS"), ",")
	out := filepath.Join(t.TempDir(), "r.json")
	// --allow-errors: this test is about the nodes' telemetry; the CQL
	// adapter's tests, run at the same time, pause and stop nodes, and the
	// write timeouts that causes (174 of 500 inserts in one CI run) are
	// not its subject.
	code, stdout, stderr := run(t, "run", "--target", cql, "--records", "500", "--duration", "2s",
		"--concurrency", "2", "--server-metrics-port", port, "--out", out, "--allow-errors") // the full report: no --quiet
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Target.Nodes) > len(urls) {
		testenv.Skip(t, testenv.Server, "%d Cassandra nodes, %d node_exporters (PLATBENCH_NODE_EXPORTER_ADDRS names one per node)", len(r.Target.Nodes), len(urls))
	}
	if len(r.Nodes) != len(r.Target.Nodes) {
		t.Fatalf("%d node series for the target's nodes %v: %+v", len(r.Nodes), r.Target.Nodes, r.Nodes)
	}
	for _, s := range r.Nodes {
		host, _, _ := strings.Cut(s.Node, ":")
		found := false
		for _, n := range r.Target.Nodes {
			found = found || strings.HasPrefix(n, host+":") || n == host
		}
		good := 0
		for _, x := range s.Samples {
			if !x.Missing {
				good++
			}
		}
		if !found || good == 0 || !strings.Contains(stdout, "Node "+s.Node) {
			t.Errorf("node series %s: a target node %v, %d good samples, in the report %v", s.Node, found, good, strings.Contains(stdout, "Node "+s.Node))
		}
	}
}
