package analysis

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
)

func TestGroupRuns(t *testing.T) {
	k := func(label, platform, target, file string) RunKey {
		return RunKey{Label: label, Platform: platform, Target: target, File: file}
	}
	cases := []struct {
		name string
		keys []RunKey
		by   GroupBy
		want string // groups as "name:runs;..."
		how  string // a part of How
	}{
		// run --repeat 2 of two labelled alternatives, interleaved.
		{"labels", []RunKey{k("redis", "h", "redis", "redis-r1.json"), k("valkey", "h", "valkey", "valkey-r1.json"),
			k("valkey", "h", "valkey", "valkey-r2.json"), k("redis", "h", "redis", "redis-r2.json")}, GroupByLabel,
			"redis:0,3;valkey:1,2", "by label"},
		// No labels, one host, two targets: platform alone would be one group.
		{"unlabelled, two targets", []RunKey{k("", "c7i", "redis 7", "a.json"), k("", "c7i", "valkey 8", "b.json"),
			k("", "c7i", "redis 7", "c.json")}, GroupByLabel, "c7i, redis 7:0,2;c7i, valkey 8:1", "split by target"},
		// No labels, two platforms: grouped by platform.
		{"unlabelled, two hosts", []RunKey{k("", "c7i", "redis", "a.json"), k("", "m7g", "redis", "b.json")}, GroupByLabel,
			"c7i:0;m7g:1", "without a label by platform"},
		// The same setup twice: each file its own group, said so.
		{"one setup, two files", []RunKey{k("", "c7i", "redis", "x/a.json"), k("", "c7i", "redis", "x/b.json")}, GroupByLabel,
			"a.json:0;b.json:1", "by file"},
		// One file given twice: by position.
		{"one file twice", []RunKey{k("", "c7i", "redis", "x/a.json"), k("", "c7i", "redis", "x/a.json")}, GroupByLabel,
			"a.json #1:0;a.json #2:1", "by position"},
		// One label over two targets: by target.
		{"one label, two targets", []RunKey{k("ci", "h", "redis", "a.json"), k("ci", "h", "valkey", "b.json")}, GroupByLabel,
			"redis:0;valkey:1", "by target"},
		{"by platform", []RunKey{k("x", "c7i", "redis", "a.json"), k("y", "m7g", "redis", "b.json"), k("z", "c7i", "redis", "c.json")},
			GroupByPlatform, "c7i:0,2;m7g:1", "by platform"},
		{"by file, same base name", []RunKey{k("", "h", "r", "a/r.json"), k("", "h", "r", "b/r.json")}, GroupByFile,
			"r.json:0,1", ""},
	}
	for _, c := range cases {
		g, err := GroupRuns(c.keys, c.by)
		if c.name == "by file, same base name" {
			// Two files of one base name are one group by file: one group is refused.
			if err == nil || !usererr.Is(err) {
				t.Errorf("%s: %v, want a usererr", c.name, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var parts []string
		for _, gr := range g.Groups {
			var rs []string
			for _, r := range gr.Runs {
				rs = append(rs, string(rune('0'+r)))
			}
			parts = append(parts, gr.Name+":"+strings.Join(rs, ","))
		}
		if got := strings.Join(parts, ";"); got != c.want {
			t.Errorf("%s: groups %s, want %s", c.name, got, c.want)
		}
		if !strings.Contains(g.How, c.how) {
			t.Errorf("%s: how %q, want it to say %q", c.name, g.How, c.how)
		}
	}
}

func TestPickGroup(t *testing.T) {
	keys := []RunKey{{Label: "redis", File: "out/redis-r1.json"}, {Label: "valkey", File: "out/valkey-r1.json"}}
	g, err := GroupRuns(keys, GroupByLabel)
	if err != nil {
		t.Fatal(err)
	}
	for s, want := range map[string]int{"": 0, "valkey": 1, "out/valkey-r1.json": 1, "redis-r1.json": 0, "2": 1} {
		if got, err := g.PickGroup(s, keys); err != nil || got != want {
			t.Errorf("PickGroup(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"3", "0", "memcached", " 1x"} {
		if _, err := g.PickGroup(s, keys); err == nil || !usererr.Is(err) {
			t.Errorf("PickGroup(%q): %v, want a usererr", s, err)
		}
	}
}

// FuzzParseGroupBy: --group-by is user input; any string is a GroupBy or a
// usererr, never a panic.
func FuzzParseGroupBy(f *testing.F) {
	for _, s := range []string{"", "label", "PLATFORM", " target ", "file", "files", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ParseGroupBy(s)
		if err != nil && !usererr.Is(err) {
			t.Fatalf("%q: %v is not a usererr", s, err)
		}
		if err == nil {
			if _, err := GroupRuns([]RunKey{{File: "a"}, {File: "b"}}, g); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}

// FuzzPickGroup: --baseline is user input.
func FuzzPickGroup(f *testing.F) {
	for _, s := range []string{"", "1", "2", "a", "x.json", "-1", "99999999999999999999"} {
		f.Add(s)
	}
	keys := []RunKey{{Label: "a", File: "x.json"}, {Label: "b", File: "y.json"}}
	g, _ := GroupRuns(keys, GroupByLabel)
	f.Fuzz(func(t *testing.T, s string) {
		i, err := g.PickGroup(s, keys)
		if err != nil && !usererr.Is(err) {
			t.Fatalf("%q: %v is not a usererr", s, err)
		}
		if err == nil && (i < 0 || i >= len(g.Groups)) {
			t.Fatalf("%q: group %d out of range", s, i)
		}
	})
}

// Unlabelled runs of run --repeat against two servers of one version: one
// group per server (its address), not one per file; against one server,
// one group per --repeat (its files' common name).
func TestGroupRepeatsWithoutLabel(t *testing.T) {
	k := func(file, where string) RunKey {
		return RunKey{Platform: "epyc", Target: "redis 7.0.15", File: file, Where: where}
	}
	g, err := GroupRuns([]RunKey{k("a.r01.json", "127.0.0.1:6379"), k("a.r02.json", "127.0.0.1:6379"), k("b.r01.json", "127.0.0.1:6380"), k("b.r02.json", "127.0.0.1:6380")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) != 2 || g.Groups[0].Name != "redis 7.0.15 at 127.0.0.1:6379" || len(g.Groups[0].Runs) != 2 || len(g.Groups[1].Runs) != 2 {
		t.Errorf("two servers: %+v (%s)", g.Groups, g.How)
	}
	g, err = GroupRuns([]RunKey{k("dir/a.r01.json", "h:1"), k("dir/a.r02.json", "h:1"), k("b.r01.json", "h:1"), k("b.r02.json", "h:1"), k("b.r10.json", "h:1")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) != 2 || g.Groups[0].Name != "a.json" || len(g.Groups[1].Runs) != 3 {
		t.Errorf("two repeats of one server: %+v (%s)", g.Groups, g.How)
	}
	// Files that are not a repeat's keep a group each.
	g, err = GroupRuns([]RunKey{k("x.json", ""), k("y.json", ""), k("run.rx.json", "")}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Groups) != 3 {
		t.Errorf("three files: %+v (%s)", g.Groups, g.How)
	}
}
