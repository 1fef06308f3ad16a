package nearest

import (
	"strings"
	"testing"
)

func TestName(t *testing.T) {
	names := []string{"concurrency", "duration", "rate", "records", "replication_factor"}
	for k, want := range map[string]string{"concurency": "concurrency", "DURATION": "duration", "rat": "rate", "recrods": "records", "threads": "", "x": "", "": ""} {
		if got := Name(k, names, 2); got != want {
			t.Errorf("Name(%q) = %q, want %q", k, got, want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"flaw", "lawn", 2}, {"same", "same", 0}, {"pipelin", "pipeline", 1}, {"conns", "cons", 1}} {
		if got := Distance(c.a, c.b); got != c.d || Distance(c.b, c.a) != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

// FuzzName: never panics; a name it returns is one of the names, within
// the edits allowed.
func FuzzName(f *testing.F) {
	f.Add("concurency", "concurrency")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, k, name string) {
		got := Name(k, []string{name, "duration"}, 2)
		if got != "" && got != name && got != "duration" {
			t.Fatalf("Name(%q) = %q, not a name given", k, got)
		}
		if got != "" && Distance(k, got) > 2 && Distance(strings.ToLower(k), strings.ToLower(got)) > 2 {
			t.Fatalf("Name(%q) = %q, %d edits away", k, got, Distance(k, got))
		}
	})
}
