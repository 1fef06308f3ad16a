package registry

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/adapter/fake"
	"github.com/platbench/platbench/internal/usererr"
)

// Every declaration is sound: defaults parse (Parse panics on one that does
// not), enum defaults are among the values, every option has a doc, and no
// name or alias is used twice in one target.
func TestDeclarations(t *testing.T) {
	for _, e := range Entries {
		if e.Options == nil {
			t.Errorf("%s: no Options in its registry entry", e.Name)
			continue
		}
		s := e.Options()
		s.Parse(adapter.Sources{})
		if err := s.Err(); err != nil {
			t.Errorf("%s: defaults alone give %v", e.Name, err)
		}
		seen := map[string]bool{}
		for _, o := range s.Options() {
			for _, n := range append([]string{o.Name}, o.Aliases...) {
				if seen[n] {
					t.Errorf("%s: %s declared twice", e.Name, n)
				}
				seen[n] = true
			}
			if o.Doc == "" {
				t.Errorf("%s: option %s has no doc", e.Name, o.Name)
			}
			if o.Kind == adapter.KindEnum && o.Default != "" && !slices.Contains(o.Values, o.Default) {
				t.Errorf("%s: option %s defaults to %q, not one of %v", e.Name, o.Name, o.Default, o.Values)
			}
		}
	}
}

func TestLookup(t *testing.T) {
	if e, err := Lookup("kafka"); err != nil || e.Name != "kafka" {
		t.Fatalf("Lookup(kafka) = %v, %v", e.Name, err)
	}
	_, err := Lookup("mongo")
	if !usererr.Is(err) || !strings.Contains(err.Error(), `unknown target "mongo" (fix: one of embedded, null,`) {
		t.Fatalf("Lookup(mongo): %v", err)
	}
	if _, err := Open(context.Background(), "mongo://h", nil); !usererr.Is(err) || !strings.Contains(err.Error(), "unknown target \"mongo\"") {
		t.Fatalf("Open(mongo://h): %v", err)
	}
}

// docRow is one row of an option table in the docs.
type docRow struct {
	name, def string
	aliases   []string
	line      int
}

var (
	markerRE = regexp.MustCompile(`^<!-- options: ([a-z ]+?) \(`)
	codeRE   = regexp.MustCompile("`([^`]*)`")
)

// docTables reads the option tables of docs/targets-*.md: a table right
// after a line "<!-- options: NAME... (...) -->", with the columns option,
// default, meaning. The option cell is "`name`", maybe followed by
// "(also `alias`, ...)".
func docTables(t *testing.T) map[string][]docRow {
	files, _ := filepath.Glob("../docs/targets-*.md")
	if len(files) == 0 {
		t.Fatal("no docs/targets-*.md")
	}
	tables := map[string][]docRow{}
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			if m := markerRE.FindStringSubmatch(line); m != nil {
				names = strings.Fields(m[1])
				for _, name := range names {
					tables[name] = []docRow{}
				}
				continue
			}
			if names == nil {
				continue
			}
			if !strings.HasPrefix(line, "|") {
				if len(tables[names[0]]) > 0 {
					names = nil // the end of the table
				}
				continue
			}
			cells := strings.Split(strings.Trim(line, "|"), "|")
			if len(cells) < 3 || strings.TrimSpace(cells[0]) == "option" || strings.HasPrefix(cells[0], "---") {
				continue
			}
			codes := codeRE.FindAllStringSubmatch(cells[0], -1)
			if len(codes) == 0 {
				t.Errorf("%s:%d: no `option` in the first cell", f, n)
				continue
			}
			row := docRow{name: codes[0][1], def: strings.ReplaceAll(strings.TrimSpace(cells[1]), "`", ""), line: n}
			for _, c := range codes[1:] {
				row.aliases = append(row.aliases, c[1])
			}
			for _, name := range names {
				tables[name] = append(tables[name], row)
			}
		}
		fh.Close()
	}
	return tables
}

// The docs' option tables match the declarations: every declared option is
// documented with the same default and aliases, and every documented option
// is declared.
func TestDocsOptionTables(t *testing.T) {
	tables := docTables(t)
	for _, e := range Entries {
		if e.Options == nil {
			continue // TestDeclarations reports it
		}
		opts := e.Options().Options()
		rows, ok := tables[e.Name]
		if !ok {
			if len(opts) > 0 {
				t.Errorf("%s: no option table in docs/targets-*.md (a line <!-- options: %s (...) --> before it)", e.Name, e.Name)
			}
			continue
		}
		documented := map[string]docRow{}
		for _, r := range rows {
			documented[r.name] = r
		}
		s := e.Options()
		for _, r := range rows {
			if o := s.Lookup(r.name); o == nil || o.Name != r.name {
				t.Errorf("%s: docs line %d documents %q, which is not a declared option name", e.Name, r.line, r.name)
			}
		}
		for _, o := range opts {
			r, ok := documented[o.Name]
			switch {
			case !ok:
				t.Errorf("%s: option %s is not in the docs' table", e.Name, o.Name)
			case r.def != o.DefaultText():
				t.Errorf("%s: docs line %d: %s defaults to %q, the declaration to %q", e.Name, r.line, o.Name, r.def, o.DefaultText())
			case !slices.Equal(r.aliases, o.Aliases):
				t.Errorf("%s: docs line %d: %s also takes %v, the declaration %v", e.Name, r.line, o.Name, r.aliases, o.Aliases)
			}
		}
	}
}

// A bare name takes options as a query, as a URL with a host does.
func TestBareNameWithQuery(t *testing.T) {
	tg, err := Open(context.Background(), "fake?latency=2ms&error_every=10", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	f, ok := tg.(*fake.Target)
	if !ok || f.Latency != 2*time.Millisecond || f.ErrorEvery != 10 {
		t.Fatalf("fake?latency=2ms&error_every=10 opened %+v", tg)
	}
	if _, err := Open(context.Background(), "fake?latency=soon", nil); err == nil || !strings.Contains(err.Error(), "latency") {
		t.Fatalf("a bad option in a bare name's query: %v", err)
	}
}

// A URL that does not parse, or whose port is out of range, is bad input
// for every scheme, and the refusal quotes no password.
func TestMalformedURLs(t *testing.T) {
	for _, raw := range []string{"redis://127.0.0.1:99999", "redis://:s3cret@127.0.0.1:99999", "rediss://h:0", "kafka://a:s3cret@h:65536",
		"hazelcast://h:70000", "cql://h1:9042,h2:99999", "cql://admin:s3cret@db:9042/%zz", "cql://admin:s3cret@[db:9042",
		"redis://admin:s3cret,h:6379", "cql://admin:12/s3cret@db", "kafka://[::1]:123456"} {
		_, err := Open(context.Background(), raw, nil)
		if err == nil || !usererr.Is(err) || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("Open(%q) = %v: want bad input with the fix, without the password", raw, err)
		}
	}
}

// A target that is neither a name nor a URL with scheme:// is refused
// without being quoted: it may hold a password.
func TestBadTargetNotQuoted(t *testing.T) {
	for _, raw := range []string{"cql:u:s3cret@h", "u:s3cret@h:9042"} {
		_, err := Open(context.Background(), raw, nil)
		if err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "neither a target name nor a URL") {
			t.Errorf("Open(%q) = %v", raw, err)
		}
	}
}
