package workload

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/platbench/platbench/vocab"
)

// The stock workloads A-F of YCSB and of go-ycsb, as each tool publishes
// them (testdata/ycsb, testdata/go-ycsb: copied unchanged, source and commit
// in each file's first lines), run as they are: each file's mix is the one
// YCSB's documentation gives its letter, the key distribution is the file's
// (YCSB's files say zipfian, go-ycsb's uniform; D is latest in both), and no
// property of theirs is left unused. go-ycsb names the workload "core",
// YCSB "site.ycsb.workloads.CoreWorkload".
func TestStockWorkloadFiles(t *testing.T) {
	mixes := map[string]MixList{
		"a": {{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}},
		"b": {{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpUpdate, Weight: 0.05}},
		"c": {{Op: vocab.OpRead, Weight: 1}},
		"d": {{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpInsert, Weight: 0.05}},
		"e": {{Op: vocab.OpInsert, Weight: 0.05}, {Op: vocab.OpScan, Weight: 0.95}},
		"f": {{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpRMW, Weight: 0.5}},
	}
	for _, c := range []struct {
		tool string
		dist Dist
		scan int // workload E's maxscanlength
	}{
		{"ycsb", DistZipfian, 100},
		{"go-ycsb", DistUniform, 1},
	} {
		for letter, mix := range mixes {
			path := filepath.Join("testdata", c.tool, "workload"+letter)
			l, err := Open(path)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			want := c.dist
			if letter == "d" {
				want = DistLatest
			}
			if !reflect.DeepEqual(l.Spec.Mix, mix) || l.Spec.Distribution != want || l.Spec.Records != 1000 || l.Ops != 1000 {
				t.Errorf("%s: mix %v distribution %s records %d ops %d", path, l.Spec.Mix, l.Spec.Distribution, l.Spec.Records, l.Ops)
			}
			if letter == "e" && l.Spec.MaxScanLength != c.scan {
				t.Errorf("%s: maxscanlength %d, want %d", path, l.Spec.MaxScanLength, c.scan)
			}
			if len(l.Warnings) != 0 {
				t.Errorf("%s: warnings %q", path, l.Warnings)
			}
		}
	}
}

// The tools' templates, which list every CoreWorkload property with its
// default, parse (go-ycsb's threadcount=500 is the run's concurrency); the
// table and measurement properties are named in one warning.
func TestStockWorkloadTemplates(t *testing.T) {
	for path, unused := range map[string]string{
		"testdata/ycsb/workload_template":    "table (line 127), measurementtype (line 133), histogram.buckets (line 168), timeseries.granularity (line 171)",
		"testdata/go-ycsb/workload_template": "table (line 115), measurementtype (line 121), histogram.buckets (line 152), timeseries.granularity (line 155)",
	} {
		l, err := Open(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		s := l.Spec
		if path == "testdata/go-ycsb/workload_template" && l.Threads != 500 {
			t.Errorf("%s: threadcount %d, want 500", path, l.Threads)
		}
		if s.Records != 1000000 || l.Ops != 3000000 || s.FieldCount != 10 || s.FieldLength != 100 || s.Distribution != DistZipfian ||
			s.MaxScanLength != 1000 || s.HotsetFraction != 0.2 || s.HotOpnFraction != 0.8 || !reflect.DeepEqual(s.Mix, MixList{{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpUpdate, Weight: 0.05}}) {
			t.Errorf("%s: %+v ops %d", path, s, l.Ops)
		}
		want := "workload file " + path + ": YCSB properties platbench does not use, ignored: " + unused
		if len(l.Warnings) != 1 || l.Warnings[0] != want {
			t.Errorf("%s: warnings\n got %q\nwant %q", path, l.Warnings, want)
		}
	}
}

// Every name the tools give CoreWorkload is accepted; a near miss or another
// workload class is refused, saying which name to write.
func TestWorkloadClassNames(t *testing.T) {
	for _, name := range []string{"core", "site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload"} {
		l := parseProps(t, "workload="+name+"\nrecordcount=10\n")
		if len(l.Warnings) != 0 {
			t.Errorf("workload=%s: warnings %q", name, l.Warnings)
		}
	}
	for _, name := range []string{"Core", "CoreWorkload", "site.ycsb.workloads.TimeSeriesWorkload", "site.ycsb.workloads.ConstantOccupancyWorkload", "x.CoreWorkload", ""} {
		_, err := ParsePropertyFile([]byte("workload=" + name + "\n"))
		if err == nil || !strings.Contains(err.Error(), "is not YCSB's CoreWorkload (fix: platbench reads CoreWorkload property files only; write workload=core") {
			t.Errorf("workload=%q: %v", name, err)
		}
	}
}
