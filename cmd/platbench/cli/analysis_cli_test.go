package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/report"
	"github.com/platbench/platbench/result"
)

func TestCatalogCommand(t *testing.T) {
	defer report.SetWidth(500)() // rows read whole, whatever the terminal
	code, out, errs := runCLI(t, "catalog", "--filter", "i3.")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, typ := range []string{"i3.large", "i3.2xlarge", "i3.16xlarge", "i3.metal"} {
		if !regexp.MustCompile(`(?m)^aws\s+` + regexp.QuoteMeta(typ) + `\s`).MatchString(out) {
			t.Errorf("no %s row in:\n%s", typ, out)
		}
	}
	if !strings.Contains(out, "455.52") || !strings.Contains(out, "7 instance types") || strings.Contains(out, "i3en") {
		t.Errorf("output:\n%s", out)
	}

	// The DataStax report's Table 3 from the command line.
	code, out, _ = runCLI(t, "catalog", "--nodes", "3,6,9", "i3.2xlarge")
	if code != 0 || !regexp.MustCompile(`i3\.2xlarge .*\$455\.52\s+\$1,366\.56\s+\$2,733\.12\s+\$4,099\.68\s`).MatchString(out) {
		t.Errorf("--nodes 3,6,9: exit %d\n%s", code, out)
	}
	code, out, _ = runCLI(t, "catalog", "--nodes", "3,6,9", "i3.16xlarge")
	if code != 0 || !regexp.MustCompile(`\$3,644\.16\s+\$10,932\.48\s+\$21,864\.96\s+\$32,797\.44\s`).MatchString(out) {
		t.Errorf("--nodes 3,6,9: exit %d\n%s", code, out)
	}
	if code, _, errs := runCLI(t, "catalog", "--nodes", "3,x"); code != 2 || !strings.Contains(errs, "--nodes") {
		t.Errorf("bad --nodes: exit %d %q", code, errs)
	}
	// --csv prints what --catalog reads back.
	code, csvOut, errs := runCLI(t, "catalog", "--csv", "--filter", "gcp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	c, err := catalog.Parse(strings.NewReader(csvOut), "csv output")
	if err != nil {
		t.Fatal(err)
	}
	if in, err := c.Lookup("t2a-standard-8"); err != nil || in.Arch != "arm64" || in.Provider != "gcp" {
		t.Errorf("round trip: %+v %v", in, err)
	}

	// A user file overrides a price.
	path := filepath.Join(t.TempDir(), "p.csv")
	os.WriteFile(path, []byte("provider,instance_type,price_per_hour_usd\naws,i3.large,0.1\n"), 0o644)
	if code, out, _ := runCLI(t, "catalog", "--catalog", path, "i3.large"); code != 0 || !strings.Contains(out, "0.1 ") || !strings.Contains(out, "["+path+"]") {
		t.Errorf("override: exit %d\n%s", code, out)
	}
	// Bad files and filters: one line naming the problem and the fix, and
	// the exit status of bad input.
	os.WriteFile(path, []byte("provider,instance_type,price_per_hour_usd\naws,i3.large,free\n"), 0o644)
	for _, args := range [][]string{
		{"catalog", "--catalog", path},
		{"catalog", "--catalog", path + ".missing"},
		{"catalog", "--filter", "no-such-thing"},
	} {
		code, _, errs := runCLI(t, args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, "fix:") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errs)
		}
	}
}

// planResult writes a result of phases (name, ops/s, p99) measured on nodes
// nodes of typ, and returns its path.
func planResult(t *testing.T, typ string, nodes int, phases ...any) string {
	t.Helper()
	r := &result.Result{Schema: result.SchemaVersion}
	r.Platform.InstanceType = typ
	r.Target.Kind = "cql"
	for i := 0; i < nodes; i++ {
		r.Target.Nodes = append(r.Target.Nodes, "10.0.0.1")
	}
	for i := 0; i < len(phases); i += 3 {
		name, rate, lat := phases[i].(string), phases[i+1].(int), phases[i+2].(time.Duration)
		p := result.Phase{Name: name, Mode: "closed", DurationNs: int64(60 * time.Second)}
		h := result.NewHist()
		h.RecordValues(int64(lat), int64(rate)*60)
		for s := 0; s < 60; s++ {
			p.Intervals = append(p.Intervals, result.Interval{StartNs: int64(s) * int64(time.Second), DurationNs: int64(time.Second),
				Ops: []result.IntervalOp{{Op: "READ", Count: uint64(rate)}}})
		}
		p.Ops = []result.OpTotal{{Op: "READ", Count: uint64(rate) * 60, Hist: result.EncodeHist(h)}}
		r.Phases = append(r.Phases, p)
	}
	path := filepath.Join(t.TempDir(), strings.ReplaceAll(typ, ".", "-")+".json")
	if err := result.Write(path, r); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestPlanCommand(t *testing.T) {
	big := planResult(t, "i3.16xlarge", 3, "step-1", 600000, 8*time.Millisecond, "step-2", 900000, 25*time.Millisecond)
	small := planResult(t, "", 3, "run", 90000, 5*time.Millisecond)
	code, out, errs := runCLI(t, "plan", big, small+"=i3.2xlarge", "--throughput", "500k", "--p99", "10ms")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// 90k on 3 nodes -> 30k/node -> 17 -> 18 nodes x $455.52; 600k on 3 -> 3 nodes x $3,644.16.
	rows := regexp.MustCompile(`(?m)^(\d)\s+(\S+)\s+\S+\s+(\S+)\s.*\s(\d+)\s+\$[\d.]+\s+\$([\d,.]+)$`).FindAllStringSubmatch(out, -1)
	if len(rows) != 2 || rows[0][2] != "i3.2xlarge" || rows[0][4] != "18" || rows[0][5] != "8,199.36" ||
		rows[1][2] != "i3.16xlarge" || rows[1][3] != "step-1" || rows[1][4] != "3" || rows[1][5] != "10,932.48" {
		t.Errorf("rows %q in:\n%s", rows, out)
	}
	for _, s := range []string{"Capacity plan: 500,000 ops/s with p99 <= 10ms", "Assumptions", "linearly", "sets of 3"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	// JSON form.
	code, out, _ = runCLI(t, "plan", "--format", "json", big, "--throughput", "500000", "--p99", "30ms", "--rf", "1", "--step", "1")
	if code != 0 || !strings.Contains(out, `"nodes": 2`) || !strings.Contains(out, `"phase": "step-2"`) {
		t.Errorf("json: exit %d\n%s", code, out)
	}
	// Bad input.
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"plan", big, "--p99", "10ms"}, 2, "--throughput"},
		{[]string{"plan", big, "--throughput", "1000"}, 2, "--p99"},
		{[]string{"plan", "--throughput", "1000", "--p99", "1ms"}, 2, "at least one result file"},
		{[]string{"plan", big + "=i9.huge", "--throughput", "1000", "--p99", "10ms"}, 2, `unknown instance type "i9.huge"`},
		{[]string{"plan", "nothing.json", "--throughput", "1000", "--p99", "10ms"}, 2, "nothing.json"},
	} {
		code, _, errs := runCLI(t, tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) || strings.Count(strings.TrimSpace(errs), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}
