package scrape

import (
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	cases := []struct {
		in       string
		needPort bool
		want     string // "" for refused
	}{
		{"10.0.0.5:9100", false, "http://10.0.0.5:9100/metrics"}, // host:port reads as its /metrics URL
		{"https://h:1/m", true, "https://h:1/m"},                 // a path is kept
		{"http://h:1/#x", false, "http://h:1/metrics"},           // "/" gets /metrics, the fragment goes
		{"http://h/", false, "http://h/metrics"},                 // no port is fine unless needed
		{"http://h", true, ""},                                   // ... and refused when needed
		{"ftp://h:1", false, ""},                                 // not http
		{"http://u:p@h:1", false, ""},                            // a password would reach the result
		{"h:99999", false, ""},                                   // not a port
		{" ", false, ""},                                         // empty
		{"0? #", false, ""},                                      // a space inside (found by FuzzURL)
		{" h:1 ", true, "http://h:1/metrics"},                    // spaces around are trimmed
	}
	for _, c := range cases {
		got, err := URL(c.in, "f", "an example", c.needPort)
		if c.want == "" {
			if err == nil || err.Field != "f" || !strings.Contains(err.Error(), "fix: an example, or host:port") {
				t.Errorf("%q: %q %v, want an error naming f", c.in, got, err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q: %q %v, want %q", c.in, got, err, c.want)
		}
	}
}

// FuzzURL: URL never panics, and what it accepts reads as itself.
func FuzzURL(f *testing.F) {
	for _, s := range []string{"10.0.0.5:9100", "http://h:9100/metrics", "https://[::1]:9100", "ftp://x", "http://u:p@h/", "h:99999", " ", "http://%zz"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, s string, needPort bool) {
		u, err := URL(s, "f", "x", needPort)
		if err != nil {
			if err.Field != "f" {
				t.Fatalf("error names %q", err.Field)
			}
			return
		}
		if again, err := URL(u, "f", "x", needPort); err != nil || again != u {
			t.Fatalf("%q -> %q -> %q, %v", s, u, again, err)
		}
	})
}
