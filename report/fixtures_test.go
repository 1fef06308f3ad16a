package report

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/result"
)

var update = flag.Bool("update", false, "rewrite the golden files and fixtures in testdata/")

// fixtures are the result files the golden tests render. They are written by
// -update from synthResult (synth_test.go) and read back through result.Read, so the
// goldens also exercise decoding. cmd/platbench/cli's tests use them too.
var fixtures = map[string]synthOptions{
	// A closed-loop run on an i3.16xlarge with errors and host telemetry.
	"i3-16xlarge": {Seconds: 40, Instance: "i3.16xlarge", Seed: 1, Errors: true, Host: true, IntervalHists: true, Events: true},
	// The same workload on i3.metal: faster, lower latency.
	"i3-metal": {Seconds: 40, Instance: "i3.metal", Seed: 2, Rate: 26000, LatScale: 0.4, IntervalHists: true},
	// The same platform as the first, another run: differences are noise.
	"i3-16xlarge-rerun": {Seconds: 40, Instance: "i3.16xlarge", Seed: 3, IntervalHists: true},
	// A fixed-rate run of another workload on Graviton (labelled), one op.
	"graviton-write": {Seconds: 30, Label: "m6g.4xlarge", Arch: "aarch64", CPU: "Neoverse-N1", Seed: 4, Open: true, Ops: []string{"WRITE"}, Workload: "cassandra-write", IntervalHists: true},
}

func fixturePath(name string) string { return filepath.Join("testdata", name+".result.json") }

// loadFixture reads a fixture file (writing it first under -update).
func loadFixture(t testing.TB, name string) *result.Result {
	t.Helper()
	path := fixturePath(name)
	// Synthetic fixtures are remade by -update; the others are real result
	// files, kept as they were written.
	if o, ok := fixtures[name]; ok && *update {
		if err := result.Write(path, synthResult(o)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := result.Read(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create the fixtures)", err)
	}
	return r
}

// golden compares got with testdata/golden/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./report -update to create it)", err)
	}
	if string(want) != string(got) {
		out := filepath.Join(os.TempDir(), "platbench-golden", name)
		os.MkdirAll(filepath.Dir(out), 0o755)
		os.WriteFile(out, got, 0o644)
		t.Errorf("%s differs from the golden file; got written to %s (diff them; -update accepts)", name, out)
	}
}
