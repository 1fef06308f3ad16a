package host

import (
	"maps"
	"strings"
	"testing"
)

func TestParseLinkLimits(t *testing.T) {
	for _, c := range []struct {
		in   string
		want map[string]int64
	}{
		{"1Gbit", map[string]int64{"": 1e9}},
		{"2.5gbit", map[string]int64{"": 2.5e9}},
		{"20mbit", map[string]int64{"": 20e6}},
		{"eth0=1Gbit", map[string]int64{"eth0": 1e9}},
		{"eth0=1Gbit, eth1 = 500Mbit,100Mbit", map[string]int64{"eth0": 1e9, "eth1": 500e6, "": 100e6}},
		{"1000bit", map[string]int64{"": 1000}},
		{"64kbit", map[string]int64{"": 64000}},
		{"1Tbit", map[string]int64{"": 1e12}},
	} {
		got, err := ParseLinkLimits(c.in)
		if err != nil || !maps.Equal(got, c.want) {
			t.Errorf("%q: got %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct{ in, says string }{
		{"", "empty entry"},
		{"1Gbps", "bps is bits"},
		{"125MB/s", "bps is bits"},
		{"1G", "not a link rate"},
		{"fast", "not a link rate"},
		{"-1Gbit", "not a link rate"},
		{"0bit", "not a link rate"},
		{"NaNgbit", "not a link rate"},
		{"eth0=", "not a link rate"},
		{"=1Gbit", "not an interface name"},
		{"eth0=1Gbit,eth0=2Gbit", "interface eth0 two limits"},
		{"1Gbit,2Gbit", "every interface two limits"},
		{"eth0=1Gbit,", "empty entry"},
		{"9999Tbit", "not a link rate"},
	} {
		_, err := ParseLinkLimits(c.in)
		if err == nil || !strings.Contains(err.Error(), c.says) || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("%q: got %v, want an error saying %q with its fix", c.in, err, c.says)
		}
	}
}

func FuzzParseLinkLimits(f *testing.F) {
	for _, s := range []string{"1Gbit", "eth0=1Gbit,eth1=500Mbit", "2.5gbit", "1Gbps", "=", ",", "eth0=1e3kbit"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseLinkLimits(s)
		if err != nil {
			if m != nil {
				t.Fatal("a map with an error")
			}
			return
		}
		for k, v := range m {
			if v < 1 || v > 1e15 {
				t.Fatalf("%q: %s=%d out of range", s, k, v)
			}
		}
	})
}
