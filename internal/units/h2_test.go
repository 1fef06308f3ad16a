package units

import "testing"

func TestCompact(t *testing.T) {
	cases := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {500, "500"}, {1000, "1k"}, {1500, "1.5k"}, {1234, "1234"}, {2e6, "2M"},
		{2.5e6, "2.5M"}, {1e9, "1G"}, {1e10, "10G"}, {0.5, "0.5"}, {0.123456, "0.123"}, {12.6, "13"},
	}
	for _, c := range cases {
		got := Compact(c.in)
		if got != c.want {
			t.Errorf("Compact(%v) = %q, want %q", c.in, got, c.want)
		}
		// What it writes reads back as the value (whole values, and rates).
		if c.in == float64(uint64(c.in)) {
			if n, err := ParseCount(got); err != nil || float64(n) != c.in {
				t.Errorf("ParseCount(%q) = %d, %v; want %v", got, n, err, c.in)
			}
		}
	}
}
