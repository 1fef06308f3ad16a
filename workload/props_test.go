package workload

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/vocab"
)

func parseProps(t *testing.T, text string) Loaded {
	t.Helper()
	l, err := ParsePropertyFile([]byte(text))
	if err != nil {
		t.Fatalf("ParsePropertyFile(%q): %v", text, err)
	}
	return l
}

// A file that says nothing is YCSB CoreWorkload's defaults: 95% read, 5%
// update, uniform keys, 10 x 100 B, scans up to 1000, hashed keys.
func TestPropertyFileDefaults(t *testing.T) {
	l := parseProps(t, "# nothing but a comment\n\n! and another\n")
	s := l.Spec
	if !reflect.DeepEqual(s.Mix, MixList{{Op: vocab.OpRead, Weight: 0.95}, {Op: vocab.OpUpdate, Weight: 0.05}}) {
		t.Errorf("mix = %v", s.Mix)
	}
	if s.Distribution != DistUniform || s.FieldCount != 10 || s.FieldLength != 100 || s.MaxScanLength != 1000 ||
		s.OrderedInserts || s.WriteAllFields || s.KeyPadding != 0 || s.Records != DefaultRecords {
		t.Errorf("defaults: %+v", s)
	}
	if l.Ops != 0 || l.Shards != 0 || len(l.Warnings) != 0 {
		t.Errorf("ops %d shards %d warnings %v", l.Ops, l.Shards, l.Warnings)
	}
}

// Each property the parser uses lands in the Spec (or the Loaded).
func TestPropertyFileEachProperty(t *testing.T) {
	for _, c := range []struct {
		text  string
		check func(l Loaded) bool
	}{
		{"recordcount=1M", func(l Loaded) bool { return l.Spec.Records == 1000000 }},
		{"recordcount = 2500", func(l Loaded) bool { return l.Spec.Records == 2500 }},
		{"operationcount=10k", func(l Loaded) bool { return l.Ops == 10000 }},
		{"operationcount=0", func(l Loaded) bool { return l.Ops == 0 }},
		{"readproportion=0.5\nupdateproportion=0.5", func(l Loaded) bool {
			return reflect.DeepEqual(l.Spec.Mix, MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}})
		}},
		{"readproportion=0.1\nupdateproportion=0.2\ninsertproportion=0.3\nscanproportion=0.15\nreadmodifywriteproportion=0.25", func(l Loaded) bool {
			return reflect.DeepEqual(l.Spec.Mix, MixList{{Op: vocab.OpRead, Weight: 0.1}, {Op: vocab.OpUpdate, Weight: 0.2}, {Op: vocab.OpInsert, Weight: 0.3}, {Op: vocab.OpScan, Weight: 0.15}, {Op: vocab.OpRMW, Weight: 0.25}})
		}},
		{"readproportion=0.7\nupdateproportion=0.2\ninsertproportion=0.1", func(l Loaded) bool { return len(l.Spec.Mix) == 3 }},
		{"requestdistribution=zipfian", func(l Loaded) bool { return l.Spec.Distribution == DistZipfian }},
		{"requestdistribution=latest", func(l Loaded) bool { return l.Spec.Distribution == DistLatest }},
		{"requestdistribution=hotspot", func(l Loaded) bool { return l.Spec.Distribution == DistHotspot }},
		{"requestdistribution=sequential", func(l Loaded) bool { return l.Spec.Distribution == DistSequential }},
		{"requestdistribution=Uniform", func(l Loaded) bool { return l.Spec.Distribution == DistUniform }},
		{"fieldcount=3", func(l Loaded) bool { return l.Spec.FieldCount == 3 }},
		{"fieldlength=1KiB", func(l Loaded) bool { return l.Spec.FieldLength == 1024 }},
		{"fieldlength=84", func(l Loaded) bool { return l.Spec.FieldLength == 84 }},
		{"fieldlengthdistribution=constant", func(l Loaded) bool { return l.Spec.FieldLength == 100 }},
		{"readallfields=true", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"writeallfields=true", func(l Loaded) bool { return l.Spec.WriteAllFields }},
		{"writeallfields=FALSE", func(l Loaded) bool { return !l.Spec.WriteAllFields }},
		{"insertorder=ordered", func(l Loaded) bool { return l.Spec.OrderedInserts }},
		{"insertorder=hashed", func(l Loaded) bool { return !l.Spec.OrderedInserts }},
		{"zeropadding=12", func(l Loaded) bool { return l.Spec.KeyPadding == 12 }},
		{"zeropadding=1", func(l Loaded) bool { return l.Spec.KeyPadding == 0 }},
		{"maxscanlength=50", func(l Loaded) bool { return l.Spec.MaxScanLength == 50 }},
		{"minscanlength=1", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"scanlengthdistribution=uniform", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"hotspotdatafraction=0.1\nhotspotopnfraction=0.9", func(l Loaded) bool {
			return l.Spec.HotsetFraction == 0.1 && l.Spec.HotOpnFraction == 0.9
		}},
		{"workload=site.ycsb.workloads.CoreWorkload", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"workload=core", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"maxscanrate=0\nscanoptimelimit=0\ndiscardscannedrecord=false", func(l Loaded) bool { return len(l.Warnings) == 0 }},
		{"recordcount=1000\ninsertstart=0\ninsertcount=1000", func(l Loaded) bool { return l.Shards == 0 }},
		{"recordcount=1000\ninsertstart=500\ninsertcount=250", func(l Loaded) bool { return l.Shard == 2 && l.Shards == 4 }},
		{"recordcount=1000\ninsertstart=500", func(l Loaded) bool { return l.Shard == 1 && l.Shards == 2 }},
		{"recordcount=1000\ninsertcount=500", func(l Loaded) bool { return l.Shard == 0 && l.Shards == 2 }},
		{"recordcount:300", func(l Loaded) bool { return l.Spec.Records == 300 }},
		{"threadcount=500 ", func(l Loaded) bool { return l.Threads == 500 }},
		{"target=2000", func(l Loaded) bool { return l.RateOpsPerS == 2000 }},
		{"target=0", func(l Loaded) bool { return l.RateOpsPerS == 0 }},
		{"maxexecutiontime=90", func(l Loaded) bool { return l.MaxExecution == 90*time.Second }},
		{"maxexecutiontime=0", func(l Loaded) bool { return l.MaxExecution == 0 }},
	} {
		l := parseProps(t, c.text)
		if !c.check(l) {
			t.Errorf("%q: got %+v (ops %d, shard %d/%d, warnings %v)", c.text, l.Spec, l.Ops, l.Shard, l.Shards, l.Warnings)
		}
		if err := l.Spec.Validate(); err != nil {
			t.Errorf("%q: spec invalid: %v", c.text, err)
		}
	}
}

// What platbench cannot honour is refused with the line it is on, on one line.
func TestPropertyFileRefusals(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"recordcount=1M\nrecordcount=2M", "line 2: recordcount is given again (first on line 1)"},
		{"# c\nrecordcount=lots", "line 2: recordcount=lots "},
		{"recordcount=0", "line 1: recordcount=0 is 0"},
		{"\n\nfieldcount=0", "line 3: fieldcount=0 is 0"},
		{"fieldlength=-3", "line 1: fieldlength=-3"},
		{"fieldlength=0", "line 1: fieldlength=0 is out of range"},
		{"just words", `line 1: "just words" is not key=value`},
		{"table=usertable \\", "line 1: table continues on the next line"},
		{"readproportion=1.5", "line 1: readproportion=1.5 is not a number from 0 to 1"},
		{"readproportion=x", "line 1: readproportion=x is not a number"},
		{"readproportion=0.5\nupdateproportion=0.4", "readproportion=0.5, updateproportion=0.4 sum to 0.9, not 1"},
		{"insertproportion=1", "readproportion=0.95 (YCSB's default), updateproportion=0.05 (YCSB's default), insertproportion=1 sum to 2, not 1"},
		{"x=1\nrequestdistribution=exponential", "line 2: requestdistribution=exponential is not supported: platbench has no exponential key distribution"},
		{"requestdistribution=pareto", "line 1: requestdistribution=pareto is unknown (fix: use uniform or zipfian or latest or hotspot or sequential)"},
		{"fieldlengthdistribution=uniform", "line 1: fieldlengthdistribution=uniform is not supported: platbench writes fields of one length (fix: use constant)"},
		{"fieldlengthdistribution=zipfian", "line 1: fieldlengthdistribution=zipfian is not supported"},
		{"fieldlengthdistribution=histogram", "line 1: fieldlengthdistribution=histogram is not supported"},
		{"readallfields=false", "line 1: readallfields=false is not supported: platbench reads whole records"},
		{"readallfields=yes", "line 1: readallfields=yes is not true or false"},
		{"writeallfields=1", "line 1: writeallfields=1 is not true or false"},
		{"insertorder=random", "line 1: insertorder=random is unknown (fix: use hashed or ordered)"},
		{"zeropadding=40", "line 1: zeropadding=40 is out of range (fix: use 0 to 32)"},
		{"maxscanlength=0", "line 1: maxscanlength=0 is 0"},
		{"minscanlength=5", "line 1: minscanlength=5 is not supported"},
		{"scanlengthdistribution=zipfian", "line 1: scanlengthdistribution=zipfian is not supported: platbench draws scan lengths uniformly"},
		{"hotspotdatafraction=1", "line 1: hotspotdatafraction=1 leaves no cold keys"},
		{"hotspotdatafraction=0", "line 1: hotspotdatafraction=0 is not a number from above 0 to 1"},
		{"hotspotopnfraction=2", "line 1: hotspotopnfraction=2 is not a number"},
		{"recordcount=1000\ninsertstart=1000", "line 2: insertstart=1000 is not below recordcount 1000"},
		{"recordcount=1000\ninsertstart=100\ninsertcount=950", "line 3: insertcount=950 runs past recordcount 1000"},
		{"recordcount=1000\ninsertstart=100\ninsertcount=300", "line 3: insertcount=300 is not one of equal parts of recordcount"},
		{"recordcount=1000\ninsertstart=300", "line 2: insertstart=300 is not one of equal parts"},
		{"workload=site.ycsb.workloads.TimeSeriesWorkload", "line 1: workload=site.ycsb.workloads.TimeSeriesWorkload is not YCSB's CoreWorkload"},
		{"fieldcount=1k\nfieldlength=1MiB", "field_length x field_count"},
		{"threadcount=0", "line 1: threadcount=0 is 0"},
		{"threadcount=5B", "line 1: threadcount=5B is out of range"},
		{"target=fast", "line 1: target=fast "},
		{"target=-5", "line 1: target=-5 "},
		{"maxexecutiontime=1m", "line 1: maxexecutiontime=1m "},
		{"maxscanrate=100", "line 1: maxscanrate=100 is not supported: platbench does not pace"},
		{"scanoptimelimit=5", "line 1: scanoptimelimit=5 is not supported"},
		{"discardscannedrecord=true", "line 1: discardscannedrecord=true is not supported"},
	} {
		_, err := ParsePropertyFile([]byte(c.text))
		if err == nil {
			t.Errorf("%q: accepted, want %q", c.text, c.want)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, c.want) || strings.Contains(msg, "\n") {
			t.Errorf("%q:\n got %s\nwant %s", c.text, msg, c.want)
		}
	}
}

// Every problem of a file is reported at once, in one line.
func TestPropertyFileAllProblemsAtOnce(t *testing.T) {
	_, err := ParsePropertyFile([]byte("recordcount=x\nfieldcount=y\nrequestdistribution=exponential\n"))
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{"line 1: recordcount", "line 2: fieldcount", "line 3: requestdistribution"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v lacks %q", err, want)
		}
	}
}

// The properties platbench does not use are named in one warning, with lines.
func TestPropertyFileWarnsOnceForUnused(t *testing.T) {
	l := parseProps(t, "workload=site.ycsb.workloads.CoreWorkload\ndb=site.ycsb.BasicDB\nrecordcount=1000\ntable=usertable\nmeasurementtype=hdrhistogram\nreadproportoin=1\n")
	if len(l.Warnings) != 1 {
		t.Fatalf("warnings = %q, want one", l.Warnings)
	}
	want := "YCSB properties platbench does not use, ignored: db (line 2), table (line 4), measurementtype (line 5), readproportoin (line 6)"
	if l.Warnings[0] != want {
		t.Errorf("warning:\n got %s\nwant %s", l.Warnings[0], want)
	}
}

func TestIsPropertyFile(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{"workloada", "# YCSB\nrecordcount=1000\n", true},
		{"w.properties", "\n\nreadproportion = 0.5", true},
		{"w.yaml", "recordcount=1000\n", false},
		{"w.YML", "recordcount=1000\n", false},
		{"w", "base: ycsb-a\nrecords: 1M\n", false},
		{"w", "# comment\nmix: read=1\n", false},
		{"w", "", false},
		{"w", "name: \"a=b\"\n", false},
		{"w", "- read=1\n", false},
	} {
		if got := IsPropertyFile(c.name, []byte(c.text)); got != c.want {
			t.Errorf("IsPropertyFile(%q, %q) = %v", c.name, c.text, got)
		}
	}
}

// Open tells the formats apart and names the workload after the file.
func TestOpenPropertyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "myworkload")
	if err := os.WriteFile(p, []byte("recordcount=5000\noperationcount=200\ntable=t\nrequestdistribution=zipfian\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	if l.Spec.Name != p || l.Spec.Records != 5000 || l.Ops != 200 || l.Spec.Distribution != DistZipfian {
		t.Errorf("Open: %+v ops %d", l.Spec, l.Ops)
	}
	if len(l.Warnings) != 1 || !strings.HasPrefix(l.Warnings[0], "workload file "+p+": ") || !strings.Contains(l.Warnings[0], "table (line 3)") {
		t.Errorf("warnings %q", l.Warnings)
	}
	if err := os.WriteFile(p, []byte("recordcount=5000\nrequestdistribution=exponential\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(p); err == nil || !strings.Contains(err.Error(), "workload file "+p+": line 2: requestdistribution=exponential") {
		t.Errorf("Open of a refused file: %v", err)
	}
	y := filepath.Join(dir, "yamlfile")
	if err := os.WriteFile(y, []byte("base: ycsb-c\nrecords: 7000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := LoadFile(y); err != nil || s.Records != 7000 || s.Mix[0].Op != vocab.OpRead {
		t.Errorf("YAML without extension: %+v, %v", s, err)
	}
}

// key_padding pads key numbers with zeros as YCSB's zeropadding does.
func TestKeyPadding(t *testing.T) {
	s := Spec{Records: 100, OrderedInserts: true, KeyPadding: 8, Mix: MixList{{Op: vocab.OpRead, Weight: 1}}}
	s.EnsureDefaults()
	g := NewGenerator(&s, NewKeyspace(&s, 0, 1), 1, 0)
	var req Request
	for _, c := range []struct {
		n    uint64
		want string
	}{{5, "user00000005"}, {12345678, "user12345678"}, {123456789, "user123456789"}, {0, "user00000000"}} {
		g.Load(&req, c.n)
		if string(req.Key) != c.want {
			t.Errorf("key of %d = %q, want %q", c.n, req.Key, c.want)
		}
	}
	s.OrderedInserts = false
	g = NewGenerator(&s, NewKeyspace(&s, 0, 1), 1, 0)
	g.Load(&req, 5)
	if len(req.Key) < 12 || !strings.HasPrefix(string(req.Key), "user") {
		t.Errorf("hashed padded key %q", req.Key)
	}
	if allocs := testing.AllocsPerRun(100, func() { g.Next(&req) }); allocs != 0 {
		t.Errorf("Next with padding allocates %v", allocs)
	}
}

// Whatever the bytes, the parser returns a valid workload whose mix sums to
// 1, or one error line.
func FuzzPropertyFile(f *testing.F) {
	for _, seed := range []string{
		"recordcount=1000\noperationcount=1000\nreadproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n",
		"# c\n! c\nfieldlength=1KiB\nzeropadding=8\ninsertorder=ordered\n",
		"recordcount=1000\ninsertstart=500\ninsertcount=250\n",
		"requestdistribution=hotspot\nhotspotdatafraction=0.3\nhotspotopnfraction=0.7\n",
		"readproportion=0\nupdateproportion=0\nscanproportion=1\nmaxscanlength=10\n",
		"a:b\nc = d\n",
		"x\n",
		"workload=core\nreadallfields=true\nreadproportion=0\nupdateproportion=0\nscanproportion=0.95\ninsertproportion=0.05\nmaxscanlength=1\nscanlengthdistribution=uniform\n",
		"threadcount=16\ntarget=1k\nmaxexecutiontime=60\n",
		"workload=com.yahoo.ycsb.workloads.CoreWorkload\nmaxscanrate=0\nscanoptimelimit=0\ndiscardscannedrecord=false\n",
	} {
		f.Add([]byte(seed))
	}
	// The tools' own files (TestStockWorkloadFiles) seed the corpus too.
	stock, _ := filepath.Glob("testdata/*ycsb/workload*")
	if len(stock) == 0 {
		f.Fatal("no stock workload files under testdata")
	}
	for _, p := range stock {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := ParsePropertyFile(data)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n") {
				t.Fatalf("error spans lines: %q", err)
			}
			return
		}
		if err := l.Spec.Validate(); err != nil {
			t.Fatalf("accepted an invalid spec: %v", err)
		}
		var sum float64
		for _, m := range l.Spec.Mix {
			sum += m.Weight
		}
		if math.Abs(sum-1) > 1e-9 || len(l.Warnings) > 1 {
			t.Fatalf("mix %v sums to %v; warnings %q", l.Spec.Mix, sum, l.Warnings)
		}
		if l.Shards > 0 && (l.Shard < 0 || l.Shard >= l.Shards) {
			t.Fatalf("shard %d/%d", l.Shard, l.Shards)
		}
	})
}
