package cli

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/adapter/embedded"
	"github.com/platbench/platbench/adapter/fake"
	"github.com/platbench/platbench/bench"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/suite"
	"github.com/platbench/platbench/workload"
)

// grammarLeg is one place a person types a value. read returns what the leg
// makes of s as a value of kind k, and false when the leg has no setting of
// that kind.
type grammarLeg struct {
	name string
	read func(t *testing.T, k units.Kind, s string) (float64, bool)
}

// grammarLegs are the places TestSameGrammarEverywhere checks. Add a leg per
// new place a person types a value.
var grammarLegs = []grammarLeg{
	{"flag", flagLeg},
	{"workload file", workloadFileLeg},
	{"suite file", suiteFileLeg},
	{"target option", targetOptionLeg},
	{"target URL", targetURLLeg},
}

// A value means the same thing on the command line, in a workload file and
// in a suite file: `--records 1m` is `records: 1m`.
func TestSameGrammarEverywhere(t *testing.T) {
	cases := []struct {
		in   string
		kind units.Kind
		want float64
	}{
		{"1m", units.KindCount, 1e6},
		{"1.5M", units.KindCount, 1.5e6},
		{"20k", units.KindCount, 20e3},
		{"100_000", units.KindCount, 1e5},
		{"4KiB", units.KindSize, 4096},
		{"4k", units.KindSize, 4096},
		{"1.5KB", units.KindSize, 1536},
		{"20k", units.KindRate, 20e3},
		{"1.5M/s", units.KindRate, 1.5e6},
		{"90s", units.KindDuration, 90e9},
		{"1m30s", units.KindDuration, 90e9},
		{"75", units.KindDuration, 75e9},
	}
	for _, c := range cases {
		legs := 0
		for _, leg := range grammarLegs {
			got, ok := leg.read(t, c.kind, c.in)
			if !ok {
				continue
			}
			legs++
			if got != c.want {
				t.Errorf("%s %q in a %s: %v, want %v", c.kind, c.in, leg.name, got, c.want)
			}
		}
		if legs < 2 {
			t.Errorf("%s %q: only %d place reads it; the test compares at least two", c.kind, c.in, legs)
		}
	}
}

// flagLeg: --records (count), --field-length (size), --rate, --duration.
func flagLeg(t *testing.T, k units.Kind, s string) (float64, bool) {
	flag := map[units.Kind]string{units.KindCount: "--records", units.KindSize: "--field-length", units.KindRate: "--rate", units.KindDuration: "--duration"}[k]
	b := newBenchFlags(&Env{}, "run", "")
	if err := parseFlags(b.fs, []string{"--target", "null", flag, s}); err != nil {
		t.Fatalf("%s %s: %v", flag, s, err)
	}
	cfg, err := b.config(false)
	if err != nil {
		t.Fatalf("%s %s: %v", flag, s, err)
	}
	return valueOf(cfg, k), true
}

// valueOf is the setting of kind k the legs set in a bench config.
func valueOf(cfg bench.Config, k units.Kind) float64 {
	switch k {
	case units.KindCount:
		return float64(cfg.Workload.Records)
	case units.KindSize:
		return float64(cfg.Workload.FieldLength)
	case units.KindRate:
		return cfg.Runner.Rate
	}
	return float64(cfg.Runner.Duration)
}

// workloadFileLeg: records (count) and field_length (size); a workload file
// has no rate or duration.
func workloadFileLeg(t *testing.T, k units.Kind, s string) (float64, bool) {
	key := map[units.Kind]string{units.KindCount: "records", units.KindSize: "field_length"}[k]
	if key == "" {
		return 0, false
	}
	p := filepath.Join(t.TempDir(), "w.yaml")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("base: ycsb-a\n%s: %q\n", key, s)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := workload.LoadFile(p)
	if err != nil {
		t.Fatalf("%s: %s: %v", key, s, err)
	}
	if k == units.KindCount {
		return float64(spec.Records), true
	}
	return float64(spec.FieldLength), true
}

// suiteFileLeg: records (count), field_length (size), rate and duration.
func suiteFileLeg(t *testing.T, k units.Kind, s string) (float64, bool) {
	line := map[units.Kind]string{units.KindCount: "records: [%q]", units.KindSize: "field_length: %q", units.KindRate: "rate: %q", units.KindDuration: "duration: %q"}[k]
	f, err := suite.Parse([]byte(fmt.Sprintf("targets: [{url: \"null\"}]\nworkloads: [ycsb-a]\n"+line+"\n", s)))
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(line, s), err)
	}
	cells, err := f.Cells()
	if err != nil || len(cells) != 1 {
		t.Fatalf("%s: %d cells, %v", fmt.Sprintf(line, s), len(cells), err)
	}
	return valueOf(cells[0].Config, k), true
}

// targetOptionLeg: --target-opt of the fake target (error_every, a count;
// latency, a duration) and of the embedded store (cache, a size); a target
// option has no rate.
func targetOptionLeg(t *testing.T, k units.Kind, s string) (float64, bool) {
	return targetLeg(t, k, s, false)
}

// targetURLLeg: the same options as URL query parameters.
func targetURLLeg(t *testing.T, k units.Kind, s string) (float64, bool) {
	return targetLeg(t, k, s, true)
}

func targetLeg(t *testing.T, k units.Kind, s string, inURL bool) (float64, bool) {
	o, ok := map[units.Kind]struct{ target, key string }{
		units.KindCount:    {"fake", "error_every"},
		units.KindSize:     {"embedded", "cache"},
		units.KindDuration: {"fake", "latency"},
	}[k]
	if !ok {
		return 0, false
	}
	name, key := o.target, o.key
	raw := name + "://"
	opts := map[string]string{}
	if inURL {
		raw += "?" + url.Values{key: {s}}.Encode()
	} else {
		opts[key] = s
	}
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	switch name {
	case "embedded":
		c, err := embedded.ParseConfig(u, opts)
		if err != nil {
			t.Fatalf("%s %s=%s: %v", name, key, s, err)
		}
		return float64(c.Cache), true
	}
	tg, err := fake.Open(context.Background(), u, opts)
	if err != nil {
		t.Fatalf("%s %s=%s: %v", name, key, s, err)
	}
	f := tg.(*fake.Target)
	if k == units.KindCount {
		return float64(f.ErrorEvery), true
	}
	return float64(f.Latency), true
}
