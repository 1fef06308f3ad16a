package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/testenv"
)

// seedsDir holds one suite per seed report (../shared/seeds).
var seedsDir = filepath.Join("..", "..", "..", "examples", "seeds")

// Every seed suite stays valid: --dry-run expands it at its published size
// and at a small scale, running nothing.
func TestSeedSuitesDryRun(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(seedsDir, "*.yaml"))
	if err != nil || len(files) != 5 {
		t.Fatalf("seed suites %v (%v): want the five of examples/seeds", files, err)
	}
	for _, f := range files {
		for _, scale := range []string{"1", "0.0001"} {
			code, stdout, stderr := run(t, "suite", f, "--dry-run", "--scale", scale)
			if code != 0 || !strings.Contains(stdout, " cells, results in ") {
				t.Errorf("%s --scale %s: exit %d %s\n%s", f, scale, code, stderr, stdout)
			}
		}
	}
}

// The seeds, each at its smallest scale against the real server it targets
// here (the closest we have where the seed's system cannot run), with the
// scale that keeps its dataset sizes apart. A Cassandra cell costs some 25 s
// besides its run (the table made and dropped on three nodes), so 000 runs
// its smallest dataset size only (--only), and 003's ten cells run on Redis
// (DB 2, which no other test uses): the ratios, not the server, are what
// its cells check.
var seedRuns = []struct {
	file, env, path, scale, only string
}{
	{"000-cassandra-arm.yaml", "PLATBENCH_CQL_URL", "/platbench_seed000", "0.0001", "cassandra.*.100"},
	{"001-scylla-i3metal.yaml", "PLATBENCH_CQL_URL", "/platbench_seed001", "0.00001", ""},
	{"002-hazelcast-cp.yaml", "PLATBENCH_HAZELCAST_URL", "", "0.00001", ""},
	{"003-datastax-aws.yaml", "PLATBENCH_REDIS_URL", "/2", "0.00001", ""},
	{"004-redpanda-graviton.yaml", "PLATBENCH_KAFKA_URL", "?partitions=64&producers=24", "0.00001", ""},
}

// Each seed suite runs end to end at a small scale and gives the seed's
// table for every cell with every line filled; two runs of it compare as
// the seed's "A | B | Diff" table.
func TestSeedSuitesRun(t *testing.T) {
	testenv.SkipShort(t, "every seed suite against the real servers")
	for _, s := range seedRuns {
		t.Run(strings.TrimSuffix(s.file, ".yaml"), func(t *testing.T) {
			u := testenv.URL(t, s.env)
			testenv.Shared(t, s.env)
			file := filepath.Join(seedsDir, s.file)
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
			for _, out := range []string{a, b} {
				args := []string{"suite", file, "--scale", s.scale, "--target", u + s.path, "--out", out, "--quiet"}
				if s.only != "" {
					args = append(args, "--only", s.only)
				}
				code, stdout, stderr := run(t, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s\n%s", code, stderr, stdout)
				}
				if s.file != "004-redpanda-graviton.yaml" {
					break // one run of the others; the compare below pairs a with itself
				}
			}
			if _, err := os.Stat(b); err != nil {
				b = a
			}
			code, stdout, stderr := run(t, "suite", file, "--compare", a)
			if code != 0 {
				t.Fatalf("tables: exit %d %s", code, stderr)
			}
			checkSeedTables(t, stdout)
			code, stdout, stderr = run(t, "suite", file, "--compare", a, b)
			if code != 0 || !strings.Contains(stdout, "Sustained throughput") || !strings.Contains(stdout, "Latency p99") {
				t.Fatalf("compare: exit %d %s\n%s", code, stderr, stdout)
			}
		})
	}
}

// checkSeedTables checks that every cell's table has each of the seed
// figures, each with a value.
func checkSeedTables(t *testing.T, out string) {
	t.Helper()
	for _, w := range []string{"Op rate (sustained)", "Peak op rate", "Per-second op rate", "Latency mean", "Latency 99.9th percentile", "Latency max"} {
		if !strings.Contains(out, w) {
			t.Errorf("tables lack %q:\n%s", w, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		name, v, ok := strings.Cut(l, ": ")
		if !ok || !strings.HasPrefix(l, "  ") {
			continue
		}
		if v = strings.TrimSpace(v); v == "" || strings.Contains(v, "n/a") || strings.Contains(v, "no result") {
			t.Errorf("%s has no value: %q", strings.TrimSpace(name), l)
		}
	}
}

// Two disk probes compare test by test (seeds 001 and 004's disk tables),
// not by their last test alone.
func TestCompareDiskProbes(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, name := range []string{"a.json", "b.json"} {
		out := filepath.Join(dir, name)
		code, _, stderr := run(t, "probe", "disk", dir, "--rw", "write", "--bs", "16k", "--jobs", "2", "--iodepth", "4",
			"--direct=false", "--size", "8MiB", "--duration", "1s", "--out", out)
		if code != 0 {
			t.Fatalf("probe: exit %d %s", code, stderr)
		}
		files = append(files, out)
	}
	code, stdout, stderr := run(t, "compare", files[0], files[1])
	if code != 0 || !strings.Contains(stdout, "write-16k") || !strings.Contains(stdout, "Diff b") || !strings.Contains(stdout, " MB/s, ") {
		t.Errorf("compare of probes: exit %d %s\n%s", code, stderr, stdout)
	}
}
