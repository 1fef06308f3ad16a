package adapter

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// templateFiles are the adapter template's files (README.md, "The files").
var templateFiles = []string{"open.go", "config.go", "worker.go", "pipeline.go", "errors.go", "dataset.go", "telemetry.go"}

// templateMust is what a template file must declare, when it is there: a
// pattern, and what it is in words.
var templateMust = map[string][][2]string{
	"open.go": {
		{`(?m)^// Package \w+ `, "the package doc"},
		{`(?m)^type Target struct`, "type Target struct"},
		{`_ adapter\.Target\s*=\s*\(\*Target\)\(nil\)`, "the compile-time check _ adapter.Target = (*Target)(nil)"},
		{`func Open\(\w+ context\.Context, \w+ \*url\.URL, \w+ map\[string\]string\) \(adapter\.Target, error\)`, "func Open(ctx context.Context, u *url.URL, opts map[string]string) (adapter.Target, error)"},
	},
	"config.go": {
		{`(?m)^type Config struct`, "type Config struct"},
		{`func ParseConfig\(\w+ \*url\.URL, \w+ map\[string\]string\) \(\*Config, error\)`, "func ParseConfig(u *url.URL, opts map[string]string) (*Config, error)"},
		{`func Options\(\) \*adapter\.OptionSet`, "func Options() *adapter.OptionSet"},
	},
	"worker.go": {
		{`func \(\w* ?\*Target\) NewWorker\(\w+ int\) \(adapter\.Worker, error\)`, "func (t *Target) NewWorker(id int) (adapter.Worker, error)"},
		{`(?m)^type worker struct`, "type worker struct"},
		{`_ adapter\.Worker\s*=\s*\(\*worker\)\(nil\)`, "the compile-time check _ adapter.Worker = (*worker)(nil)"},
	},
	"pipeline.go": {
		{`func \(\w+ \*Target\) PipelineShape\(`, "func (t *Target) PipelineShape"},
		{`(?m)^type pworker struct`, "type pworker struct"},
		{`_ adapter\.Pipeliner\s*=\s*\(\*pworker\)\(nil\)`, "the compile-time check _ adapter.Pipeliner = (*pworker)(nil)"},
	},
	"errors.go": {{`func classOf\(\w+ error\) vocab\.Class`, "func classOf(err error) vocab.Class"}},
}

// readmeList reads README.md's "Extras and absences": the files listed as
// extras, and the template files listed as absent, each "system/file.go".
func readmeList(t *testing.T) (extras, absent map[string]bool) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	extras, absent = map[string]bool{}, map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^- `([a-z0-9_]+/[a-z0-9_]+\\.go)`( \\(absent\\))?:").FindAllStringSubmatch(string(b), -1) {
		if m[2] != "" {
			absent[m[1]] = true
		} else {
			extras[m[1]] = true
		}
	}
	return extras, absent
}

// adapterFiles lists each adapter's folder and its non-test Go files.
func adapterFiles(t *testing.T) map[string]map[string]string {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		names, _ := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			b, err := os.ReadFile(n)
			if err != nil {
				t.Fatal(err)
			}
			if out[d.Name()] == nil {
				out[d.Name()] = map[string]string{}
			}
			out[d.Name()][filepath.Base(n)] = string(b)
		}
	}
	if len(out) < 7 {
		t.Fatalf("found %d adapters, want at least 7 (null, fake, embedded, redis, hazelcast, cql, kafka)", len(out))
	}
	return out
}

// Every adapter follows the template (README.md): it has the template's
// files, or README.md lists the one it lacks with why; any other file is
// listed there as an extra, with why; the files declare what the template
// says (the compile-time check of Target, Open, ParseConfig, classOf...);
// no worker type is exported. The list stays true: a file it names as
// absent is not there, and one it names as an extra is.
func TestAdapterTemplate(t *testing.T) {
	extras, absent := readmeList(t)
	seen := map[string]bool{}
	all := adapterFiles(t)
	var names []string
	for a := range all {
		names = append(names, a)
	}
	sort.Strings(names)
	exported := regexp.MustCompile(`(?m)^type ([A-Z]\w*Worker) `)
	for _, a := range names {
		files := all[a]
		for _, f := range templateFiles {
			key := a + "/" + f
			seen[key] = true
			src, has := files[f]
			switch {
			case has && absent[key]:
				t.Errorf("adapter/README.md lists %s as absent, but it is there: drop the line", key)
			case !has && !absent[key]:
				t.Errorf("adapter/%s lacks %s: add it, or list it in adapter/README.md's \"Extras and absences\" with why", a, f)
			}
			for _, must := range templateMust[f] {
				if has && !regexp.MustCompile(must[0]).MatchString(src) {
					t.Errorf("adapter/%s does not declare %s (adapter/README.md, \"The files\")", key, must[1])
				}
			}
		}
		for f, src := range files {
			key := a + "/" + f
			if !seen[key] && !extras[key] {
				t.Errorf("adapter/%s is beyond the template: list it in adapter/README.md's \"Extras and absences\" with why, or fold it into a template file", key)
			}
			seen[key] = true
			if m := exported.FindStringSubmatch(src); m != nil {
				t.Errorf("adapter/%s exports the worker type %s: a worker type is unexported (adapter/README.md, \"Names\")", key, m[1])
			}
		}
	}
	for key := range extras {
		if !seen[key] {
			t.Errorf("adapter/README.md lists %s as an extra, but there is no such file: drop the line", key)
		}
	}
	for key := range absent {
		if !seen[key] {
			t.Errorf("adapter/README.md lists %s as absent, but there is no adapter or template file of that name", key)
		}
	}
}
