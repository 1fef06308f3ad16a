package workload

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/vocab"
)

func TestEnsureDefaults(t *testing.T) {
	var s Spec
	s.EnsureDefaults()
	want := Spec{Records: 100000, FieldCount: 10, FieldLength: 100, KeyPrefix: "user", Distribution: DistZipfian,
		ZipfConstant: 0.99, HotsetFraction: 0.2, HotOpnFraction: 0.8, MaxScanLength: 100,
		Mix: MixList{{Op: vocab.OpRead, Weight: 0.5}, {Op: vocab.OpUpdate, Weight: 0.5}}}
	if got, w := mustJSON(t, s), mustJSON(t, want); got != w {
		t.Errorf("defaults\n got %s\nwant %s", got, w)
	}
	if err := s.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
	// Set fields are kept.
	s = Spec{Records: 5, Distribution: DistUniform, Mix: MixList{{Op: vocab.OpScan, Weight: 1}}}
	s.EnsureDefaults()
	if s.Records != 5 || s.Distribution != DistUniform || len(s.Mix) != 1 {
		t.Errorf("EnsureDefaults overwrote set fields: %+v", s)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestValidateReportsEveryProblem(t *testing.T) {
	// Each case breaks one thing of a valid spec; the error must name it
	// and give a fix.
	cases := []struct {
		name   string
		break_ func(*Spec)
		want   string
	}{
		{"zero records", func(s *Spec) { s.Records = 0 }, "records is 0"},
		{"huge records", func(s *Spec) { s.Records = math.MaxUint64 }, "too large"},
		{"zero field count", func(s *Spec) { s.FieldCount = 0 }, "field_count is 0"},
		{"negative field count", func(s *Spec) { s.FieldCount = -1 }, "field_count is -1"},
		{"negative field length", func(s *Spec) { s.FieldLength = -5 }, "field_length is -5"},
		{"huge record", func(s *Spec) { s.FieldCount, s.FieldLength = 1000, 1<<20 }, "exceeds 64 MiB"},
		{"unknown distribution", func(s *Spec) { s.Distribution = "zipf" }, `distribution "zipf" is unknown`},
		{"zipf constant 1", func(s *Spec) { s.ZipfConstant = 1 }, "zipf_constant is 1"},
		{"zipf constant negative", func(s *Spec) { s.ZipfConstant = -0.5 }, "zipf_constant is -0.5"},
		{"hotset fraction 1", func(s *Spec) { s.Distribution, s.HotsetFraction = DistHotspot, 1 }, "hotset_fraction is 1"},
		{"hot op fraction 2", func(s *Spec) { s.Distribution, s.HotOpnFraction = DistHotspot, 2 }, "hot_opn_fraction is 2"},
		{"empty mix", func(s *Spec) { s.Mix = nil }, "mix is empty"},
		{"negative weight", func(s *Spec) { s.Mix = MixList{{Op: vocab.OpRead, Weight: -1}} }, "mix weight of READ is -1"},
		{"NaN weight", func(s *Spec) {
			s.Mix = MixList{{Op: vocab.OpRead, Weight: math.NaN()}, {Op: vocab.OpUpdate, Weight: 1}}
		}, "mix weight of READ is NaN"},
		{"zero weights", func(s *Spec) { s.Mix = MixList{{Op: vocab.OpRead, Weight: 0}} }, "sum to 0"},
		{"unknown op", func(s *Spec) { s.Mix = MixList{{Op: vocab.NumOps + 3, Weight: 1}} }, "unknown op 32"},
		{"scan without length", func(s *Spec) { s.Mix, s.MaxScanLength = MixList{{Op: vocab.OpScan, Weight: 1}}, -1 }, "max_scan_length is -1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := spec(DistZipfian, 1000, vocab.Mix{Op: vocab.OpRead, Weight: 1})
			c.break_(s)
			err := s.Validate()
			if err == nil {
				t.Fatalf("Validate accepted it")
			}
			msg := err.Error()
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, "fix:") || strings.Contains(msg, "\n") {
				t.Errorf("error %q: want one line containing %q and a fix", msg, c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error does not wrap ErrInvalid")
			}
		})
	}
	// Several problems at once are all reported.
	s := Spec{Name: "bad", Distribution: "nope", Mix: MixList{{Op: vocab.OpRead, Weight: -1}}}
	err := s.Validate()
	for _, w := range []string{"records is 0", "field_count is 0", "field_length is 0", `distribution "nope" is unknown`, "weight of READ"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v does not mention %q", err, w)
		}
	}
}

func TestParseMix(t *testing.T) {
	cases := []struct {
		in      string
		want    string // formatted back, or the error substring
		wantErr bool
	}{
		{"read=3,write=1", "read=3,write=1", false},
		{" READ = 0.95 , update=0.05 ", "read=0.95,update=0.05", false},
		{"rmw=1,scan=2,insert=0", "read-modify-write=1,scan=2,insert=0", false},
		{"", "empty mix", true},
		{"read", "has no weight", true},
		{"reed=1", `unknown op "reed"`, true},
		{"read=x", `weight "x"`, true},
		{"read=-1", `weight "-1"`, true},
		{"read=NaN", `weight "NaN"`, true},
		{"read=1,read=2", "names READ twice", true},
	}
	for _, c := range cases {
		m, err := ParseMix(c.in)
		switch {
		case c.wantErr && err == nil:
			t.Errorf("ParseMix(%q) accepted it: %v", c.in, m)
		case c.wantErr && !strings.Contains(err.Error(), c.want):
			t.Errorf("ParseMix(%q) error %q, want %q", c.in, err, c.want)
		case !c.wantErr && err != nil:
			t.Errorf("ParseMix(%q): %v", c.in, err)
		case !c.wantErr && MixList(m).String() != c.want:
			t.Errorf("ParseMix(%q) = %s, want %s", c.in, MixList(m), c.want)
		}
	}
}

func TestPresets(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Presets() {
		if names[p.Name] {
			t.Errorf("preset %s listed twice", p.Name)
		}
		names[p.Name] = true
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", p.Name, err)
		}
		if p.Description == "" || strings.Contains(p.Description, "\n") {
			t.Errorf("preset %s: description must be one line", p.Name)
		}
	}
	for _, n := range []string{"ycsb-a", "ycsb-f", "write", "read", "mixed", "ds-80-20"} {
		if !names[n] {
			t.Errorf("preset %s missing", n)
		}
	}
	for alias, want := range map[string]string{"a": "ycsb-a", "D": "ycsb-d", "workloade": "ycsb-e", "YCSB-B": "ycsb-b"} {
		p, err := Preset(alias)
		if err != nil || p.Name != want {
			t.Errorf("Preset(%q) = %s, %v; want %s", alias, p.Name, err, want)
		}
	}
	d, _ := Preset("d")
	if d.Distribution != DistLatest || MixList(d.Mix).String() != "read=0.95,insert=0.05" {
		t.Errorf("ycsb-d is %s %s", d.Distribution, d.Mix)
	}
	e, _ := Preset("e")
	if e.MaxScanLength != 100 || MixList(e.Mix).String() != "scan=0.95,insert=0.05" {
		t.Errorf("ycsb-e is %s max scan %d", e.Mix, e.MaxScanLength)
	}
	// Presets are copies: changing one does not change the table.
	e.Mix[0].Weight = 7
	if e2, _ := Preset("e"); e2.Mix[0].Weight != 0.95 {
		t.Error("Preset returned a shared Mix")
	}
	_, err := Preset("ycsb-z")
	if err == nil || !strings.Contains(err.Error(), "ycsb-a, ycsb-b") || !strings.Contains(err.Error(), `"ycsb-z"`) {
		t.Errorf("unknown preset error %v does not list the names", err)
	}
}

func writeFile(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadFile(t *testing.T) {
	ok := []struct {
		name, body string
		check      func(*testing.T, Spec)
	}{
		{"base and overrides", "base: ycsb-b\nrecords: 5000\nfield_length: 10\n", func(t *testing.T, s Spec) {
			if s.Records != 5000 || s.FieldLength != 10 || s.FieldCount != 10 || MixList(s.Mix).String() != "read=0.95,update=0.05" {
				t.Errorf("got %+v", s)
			}
		}},
		{"mix string", "name: m\nmix: read=3,write=1\ndistribution: uniform\n", func(t *testing.T, s Spec) {
			if s.Name != "m" || MixList(s.Mix).String() != "read=3,write=1" || s.Distribution != DistUniform || s.Records != DefaultRecords {
				t.Errorf("got %+v", s)
			}
		}},
		{"mix list of strings", "mix: [read=1, scan=2]\n", func(t *testing.T, s Spec) {
			if MixList(s.Mix).String() != "read=1,scan=2" {
				t.Errorf("got %s", s.Mix)
			}
		}},
		{"mix list of maps", "mix:\n  - {op: read, weight: 0.5}\n  - op: RMW\n    weight: 0.5\n", func(t *testing.T, s Spec) {
			if MixList(s.Mix).String() != "read=0.5,read-modify-write=0.5" {
				t.Errorf("got %s", s.Mix)
			}
		}},
		{"units as on the command line", "records: 1.5M\nfield_count: 1k\nfield_length: 4KiB\nmax_scan_length: \"20k\"\n", func(t *testing.T, s Spec) {
			if s.Records != 1_500_000 || s.FieldCount != 1000 || s.FieldLength != 4096 || s.MaxScanLength != 20000 {
				t.Errorf("got %+v", s)
			}
		}},
		{"base mix replaced", "base: ycsb-a\nmix: read=1\noptions: {value_size: \"128\"}\n", func(t *testing.T, s Spec) {
			if MixList(s.Mix).String() != "read=1" || s.Options["value_size"] != "128" {
				t.Errorf("got %+v", s)
			}
		}},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, c.body)
			s, err := LoadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if s.Name == "" {
				t.Error("no name")
			}
			c.check(t, s)
		})
	}

	bad := []struct{ name, body, want string }{
		{"unknown field", "base: a\nrecrods: 10\n", `line 2: unknown field "recrods"`},
		{"unknown field line", "records: 10\n\nfoo: 1\n", "line 3"},
		{"malformed", "records: [1,\n", "fix: correct the YAML syntax"},
		{"wrong type", "records: many\n", `line 1: records "many" is not a non-negative whole number`},
		{"wrong type of a plain field", "zipf_constant: many\n", "cannot unmarshal"},
		{"not whole", "records: 1.5\n", `records "1.5" is not`},
		{"size not a count", "field_count: 4KiB\n", `field_count "4KiB"`},
		// 0 would silently become the default: it is an error instead.
		{"zero records", "records: 0\n", "records is 0, which is not a value here (fix: leave records out for the default 100000"},
		{"zero fraction", "distribution: hotspot\nhot_opn_fraction: 0.0\n", "hot_opn_fraction is 0"},
		{"invalid after defaults", "distribution: pareto\n", `distribution "pareto" is unknown`},
		{"not a map", "- records: 1\n", "a workload file is a map"},
		{"unknown base", "base: ycsb-z\n", "use one of ycsb-a"},
		{"bad mix op", "mix: read=1,fly=2\n", `unknown op "fly"`},
		{"bad mix map", "mix:\n  - {op: read, weight: 1, extra: 2}\n", `field "extra" not known`},
		{"mix map without weight", "mix:\n  - {op: read}\n", "needs both op and weight"},
		{"mix not a list", "mix: {read: 1}\n", "not a string or a list"},
		{"empty", "", "file is empty"},
		{"two documents", "records: 1\n---\nrecords: 2\n", "more than one YAML document"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, c.body)
			_, err := LoadFile(p)
			if err == nil {
				t.Fatalf("accepted %q", c.body)
			}
			// A units error gives examples ("e.g.") as its fix.
			msg := err.Error()
			fixes := strings.Count(msg, "fix:") + strings.Count(msg, "(e.g.")
			if !strings.Contains(msg, c.want) || !strings.Contains(msg, p) || strings.Contains(msg, "\n") || fixes != 1 {
				t.Errorf("error %q: want one line with %q, the path and one fix", err, c.want)
			}
			if !usererr.Is(err) {
				t.Errorf("error %q is not a user error", err)
			}
		})
	}

	_, err := LoadFile(filepath.Join(t.TempDir(), "missing.yaml"))
	if err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("missing file: %v", err)
	}
}

func TestExampleWorkloadFilesLoad(t *testing.T) {
	files, _ := filepath.Glob("../examples/workloads/*.yaml")
	if len(files) == 0 {
		t.Fatal("no example workload files in examples/workloads")
	}
	for _, f := range files {
		s, err := LoadFile(f)
		if err == nil {
			err = s.Validate()
		}
		if err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

func TestOpJSONUsesNames(t *testing.T) {
	b, err := json.Marshal(MixList{{Op: vocab.OpRMW, Weight: 1}})
	if err != nil || string(b) != `[{"op":"READ-MODIFY-WRITE","weight":1}]` {
		t.Errorf("json %s, %v", b, err)
	}
	var m MixList
	if err := json.Unmarshal([]byte(`[{"op":"scan","weight":2}]`), &m); err != nil || m[0].Op != vocab.OpScan {
		t.Errorf("unmarshal: %v %v", m, err)
	}
	if err := json.Unmarshal([]byte(`[{"op":"fly","weight":2}]`), &m); err == nil {
		t.Error("unknown op name accepted")
	}
}

// The workload file parser never panics, and what it accepts is valid.
func FuzzParseFile(f *testing.F) {
	for _, s := range []string{
		"base: ycsb-b\nrecords: 1M\nfield_length: 4KiB\n",
		"mix: read=3,write=1\ndistribution: uniform\n",
		"mix:\n  - {op: read, weight: 0.5}\n  - op: RMW\n    weight: 0.5\n",
		"records: 0\n", "records: [1,\n", "- a\n", "", "records: 1\n---\nrecords: 2\n",
		"options: {value_size: \"128\"}\nmax_scan_length: 20k\n", "base: ycsb-z\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseFile(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("error on several lines: %q", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("accepted an invalid spec %+v: %v", s, err)
		}
	})
}
