package units

import (
	"errors"
	"flag"
	"math"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestParseCount(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"100000", 100000, true},
		{"100_000", 100000, true},
		{"1,000", 1000, true},
		{"10k", 10000, true},
		{"10K", 10000, true},
		{"1m", 1000000, true}, // lower-case m is a million for counts, as on the command line
		{"1.5M", 1500000, true},
		{"2G", 2000000000, true},
		{" 7 ", 7, true},
		{"1.5", 0, false}, // not whole
		{"-1", 0, false},
		{"", 0, false},
		{"k", 0, false},
		{"1e6", 0, false},
		{"inf", 0, false},
		{"0x10", 0, false},
	}
	for _, c := range cases {
		got, err := ParseCount(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseCount(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseSize(t *testing.T) {
	cases := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"4096", 4096, true},
		{"100B", 100, true},
		{"4k", 4096, true},
		{"4KB", 4096, true},
		{"4KiB", 4096, true},
		{"64MiB", 64 << 20, true},
		{"64 MiB", 64 << 20, true},
		{"1.5GB", 3 << 29, true},
		{"1M", 1 << 20, true},
		{"2T", 2 << 40, true},
		{"1.5", 0, false},
		{"0.3KB", 0, false}, // 307.2 bytes
		{"-4k", 0, false},
		{"GB", 0, false},
		{"4XB", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseRate(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"5000", 5000, true},
		{"20k", 20000, true},
		{"1.5M/s", 1.5e6, true},
		{"250ops/s", 250, true},
		{"0.5", 0.5, true},
		{"-1", 0, false},
		{"fast", 0, false},
		{"NaN", 0, false},
	}
	for _, c := range cases {
		got, err := ParseRate(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseDuration(t *testing.T) {
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"30s", 30 * time.Second, true},
		{"1m30s", 90 * time.Second, true},
		{"250ms", 250 * time.Millisecond, true},
		{"75", 75 * time.Second, true},
		{"0.5", 500 * time.Millisecond, true},
		{"2d", 48 * time.Hour, true},
		{"1d12h", 36 * time.Hour, true},
		{"0", 0, true},
		{"-5s", 0, false},
		{"5 parsecs", 0, false},
		{"d", 0, false},
		{"", 0, false},
	}
	for _, c := range cases {
		got, err := ParseDuration(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

// The same string means the same thing as a flag and in a YAML file.
func TestFlagAndYAMLAgree(t *testing.T) {
	var doc struct {
		Records Count    `yaml:"records"`
		Value   Size     `yaml:"value"`
		Rate    Rate     `yaml:"rate"`
		For     Duration `yaml:"for"`
	}
	if err := yaml.Unmarshal([]byte("records: 1m\nvalue: 1.5KB\nrate: 20k\nfor: 2m\n"), &doc); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	var c Count
	var z Size
	var r Rate
	var d Duration
	fs.Var(&c, "records", "")
	fs.Var(&z, "value", "")
	fs.Var(&r, "rate", "")
	fs.Var(&d, "for", "")
	if err := fs.Parse([]string{"--records", "1m", "--value", "1.5KB", "--rate", "20k", "--for", "2m"}); err != nil {
		t.Fatal(err)
	}
	if c != doc.Records || z != doc.Value || r != doc.Rate || d != doc.For {
		t.Fatalf("flag %v %v %v %v, yaml %+v", c, z, r, d, doc)
	}
	if c != 1000000 || z != 1536 || r != 20000 || time.Duration(d) != 2*time.Minute {
		t.Fatalf("values: %v %v %v %v", c, z, r, d)
	}
	err := yaml.Unmarshal([]byte("records: [1, 2]\n"), &doc)
	if err == nil || !strings.Contains(err.Error(), "single value") {
		t.Fatalf("a list for a count: %v", err)
	}
	err = yaml.Unmarshal([]byte("records: lots\n"), &doc)
	var ue *Error
	if !errors.As(err, &ue) || ue.Kind != KindCount {
		t.Fatalf("a bad count: %v", err)
	}
}

func TestFormat(t *testing.T) {
	cases := []struct{ got, want string }{
		{Latency(0), "0"},
		{Latency(512), "512 ns"},
		{Latency(912_000), "912 µs"},
		{Latency(8_400_000), "8.40 ms"},
		{Latency(1_230_000_000), "1.23 s"},
		{Int(1234567.4), "1,234,567"},
		{Int(-1234), "-1,234"},
		{Int(-0.2), "0"},
		{Fixed(1234.5, 2), "1,234.50"},
		{Fixed(-0.25, 1), "-0.2"},
		{OpsPerSec(272544), "272,544 op/s"},
		{Bytes(512), "512 B"},
		{Bytes(1.5 * (1 << 30)), "1.50 GiB"},
		{Percent(0.0123), "1.23%"},
		{USD(1234.5), "$1,234"}, // rounds half to even in FormatFloat: 1234.5 -> 1234
		{USD(12.5), "$12.50"},
		{USD(0.00123), "$0.00123"},
		{Seconds(0.75), "750 ms"},
		{Seconds(75), "75 s"},
		{Seconds(200), "3 min 20 s"},
		{Seconds(3720), "1 h 2 min"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}

// Parsers never panic, and what they accept is in range.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"1M", "4KiB", "1.5GB", "20k/s", "1d12h", "75", "-1", "", "1e309", "9999999999999999999G"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, err := ParseCount(s); err != nil && !strings.Contains(err.Error(), "whole number") {
			t.Fatalf("count error %v", err)
		}
		if v, err := ParseSize(s); err == nil && v < 0 {
			t.Fatalf("size %q -> %d", s, v)
		}
		if v, err := ParseRate(s); err == nil && (v < 0 || v != v) {
			t.Fatalf("rate %q -> %v", s, v)
		}
		if v, err := ParseDuration(s); err == nil && v < 0 {
			t.Fatalf("duration %q -> %v", s, v)
		}
		if v, err := ParsePercent(s); err == nil && (v < 0 || v != v) {
			t.Fatalf("percent %q -> %v", s, v)
		}
		if v, err := ParseFraction(s); err == nil && !(v > 0 && v <= 1) {
			t.Fatalf("fraction %q -> %v", s, v)
		}
	})
}

func TestParsePercent(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0.1%", 0.001, true},
		{"50%", 0.5, true},
		{" 5 % ", 0.05, true},
		{"200%", 2, true},
		{"5", 0, false}, // a bare number is not a percentage
		{"0", 0, true},  // but zero is zero in any unit
		{" 0.0 ", 0, true},
		{"0.5", 0, false},
		{"-1%", 0, false},
		{"%", 0, false},
		{"1e2%", 0, false},
	} {
		got, err := ParsePercent(c.in)
		if (err == nil) != c.ok || (c.ok && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("ParsePercent(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}

func TestParseFraction(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"10%", 0.1, true},
		{"0.25", 0.25, true},
		{"1", 1, true},
		{"100%", 1, true},
		{"0", 0, false},
		{"0%", 0, false},
		{"1.5", 0, false},
		{"150%", 0, false},
		{"-0.1", 0, false},
		{"half", 0, false},
	} {
		got, err := ParseFraction(c.in)
		if (err == nil) != c.ok || (c.ok && math.Abs(got-c.want) > 1e-12) {
			t.Errorf("ParseFraction(%q) = %v, %v; want %v ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
}
