// Package otavatest runs Apache Otava (installed by scripts/check-otava.sh)
// on series a test gives, through its own command line and CSV data source,
// so tests can require platbench's change points to be Otava's.
package otavatest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/testenv"
)

// Env names the otava executable scripts/check-otava.sh installed.
const Env = "PLATBENCH_OTAVA"

// Change is one change point as Otava reports it.
type Change struct {
	Index      int
	MeanBefore float64
	MeanAfter  float64
	PValue     float64
}

// Options are Otava's analysis flags (zero: Otava's default).
type Options struct {
	Window       int
	PValue       float64
	MinMagnitude float64
}

// Run analyses every series (a name of letters and digits → its values)
// with `otava analyze --output json` and returns each one's change points in
// index order. It skips the test (fails it in CI) when Env is not set.
//
// A variable rather than a func: only tests call it (see testenv.URL).
var Run = func(t testing.TB, series map[string][]float64, o Options) map[string][]Change {
	t.Helper()
	bin := testenv.URL(t, Env)
	dir := t.TempDir()
	var cfg strings.Builder
	cfg.WriteString("tests:\n")
	names := make([]string, 0, len(series))
	for name, xs := range series {
		names = append(names, name)
		var csv strings.Builder
		csv.WriteString("time,value\n")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i, x := range xs {
			fmt.Fprintf(&csv, "%s,%s\n", t0.Add(time.Duration(i)*time.Minute).Format(time.RFC3339), strconv.FormatFloat(x, 'g', -1, 64))
		}
		file := filepath.Join(dir, name+".csv")
		if err := os.WriteFile(file, []byte(csv.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&cfg, "  %s:\n    type: csv\n    file: %s\n    time_column: time\n    metrics: [value]\n", name, file)
	}
	sort.Strings(names)
	conf := filepath.Join(dir, "otava.yaml")
	if err := os.WriteFile(conf, []byte(cfg.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"analyze", "--config-file", conf, "--output", "json"}
	if o.Window > 0 {
		args = append(args, "--window", strconv.Itoa(o.Window))
	}
	if o.PValue > 0 {
		// Otava 0.8.0 declares this option as the one string "-P, --p-value".
		args = append(args, "-P, --p-value", strconv.FormatFloat(o.PValue, 'g', -1, 64))
	}
	if o.MinMagnitude > 0 {
		args = append(args, "--magnitude", strconv.FormatFloat(o.MinMagnitude, 'g', -1, 64))
	}
	cmd := exec.Command(bin, append(args, names...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("otava %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	type report map[string][]struct {
		Changes []struct {
			Index      int    `json:"index"`
			MeanBefore string `json:"mean_before"`
			MeanAfter  string `json:"mean_after"`
			PValue     string `json:"pvalue"`
		} `json:"changes"`
	}
	// One JSON object per test, one after the other.
	all := report{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var rep report
		if err := dec.Decode(&rep); err != nil {
			t.Fatalf("otava's JSON: %v\n%s", err, out)
		}
		maps.Copy(all, rep)
	}
	num := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("otava printed %q for a number", s)
		}
		return v
	}
	res := map[string][]Change{}
	for _, name := range names {
		if _, ok := all[name]; !ok {
			t.Fatalf("otava reported nothing for %s:\n%s", name, out)
		}
		res[name] = []Change{}
		for _, g := range all[name] {
			for _, c := range g.Changes {
				res[name] = append(res[name], Change{Index: c.Index, MeanBefore: num(c.MeanBefore),
					MeanAfter: num(c.MeanAfter), PValue: num(c.PValue)})
			}
		}
		sort.Slice(res[name], func(i, j int) bool { return res[name][i].Index < res[name][j].Index })
	}
	return res
}
