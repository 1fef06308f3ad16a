package layout

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// folderOf is the top-level folder of a module-relative package directory:
// the unit of docs/architecture.md's picture.
func folderOf(dir string) string {
	top, _, _ := strings.Cut(dir, "/")
	return top
}

// between returns the text of docs/architecture.md between two markers.
func between(t *testing.T, name string) string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	b, e := strings.Index(text, "<!-- "+name+": begin -->"), strings.Index(text, "<!-- "+name+": end -->")
	if b < 0 || e < b {
		t.Fatalf("docs/architecture.md has no %s block between <!-- %s: begin --> and <!-- %s: end -->", name, name, name)
	}
	return text[b:e]
}

// folderPicture reads the picture of folders: "N  folder folder ... words".
// A line's folders are its lowercase words up to the first that is not a
// folder of the module (the description that follows).
func folderPicture(t *testing.T, folders map[string]bool) map[string]int {
	t.Helper()
	line := regexp.MustCompile(`^(\d+)\s+(.*)$`)
	layer := map[string]int{}
	for _, l := range strings.Split(between(t, "folders"), "\n") {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		for _, w := range strings.Fields(m[2]) {
			if !folders[w] {
				break
			}
			if prev, dup := layer[w]; dup {
				t.Errorf("docs/architecture.md draws %s on lines %d and %d", w, prev, n)
			}
			layer[w] = n
		}
	}
	return layer
}

// testImports reads which folders' test files may import folders above
// them, and why: "| `folder` | `a`, `b` | why |".
func testImports(t *testing.T) map[[2]string]bool {
	t.Helper()
	row := regexp.MustCompile("^\\|\\s*`([a-z0-9]+)`\\s*\\|([^|]*)\\|\\s*([^|]*\\S)\\s*\\|")
	name := regexp.MustCompile("`([a-z0-9]+)`")
	allowed := map[[2]string]bool{}
	for _, l := range strings.Split(between(t, "test imports"), "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if len(m[3]) < 20 {
			t.Errorf("docs/architecture.md allows %s's tests upward imports without saying why", m[1])
		}
		for _, d := range name.FindAllStringSubmatch(m[2], -1) {
			allowed[[2]string{m[1], d[1]}] = false
		}
	}
	return allowed
}

// goFile is one Go file of the module, test or not, with its imports.
type goFile struct {
	path, dir string
	test      bool
	imports   []string // module-relative directories of this module's packages
}

func allFiles(t *testing.T) []goFile {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var out []goFile
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if p != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "bin" || n == "scripts") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		g := goFile{path: rel, dir: filepath.ToSlash(filepath.Dir(rel)), test: strings.HasSuffix(rel, "_test.go")}
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if dep, ours := strings.CutPrefix(ip, module+"/"); ours {
				g.imports = append(g.imports, dep)
			}
		}
		out = append(out, g)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestFolderLayers holds docs/architecture.md's picture of folders against
// the code: every folder on one line; every import, of source and test
// files, to a folder on a lower line (tests: or a pair the doc allows, with
// why); every folder on the lowest line its source files' imports allow,
// so the picture is the code's and not a wish.
func TestFolderLayers(t *testing.T) {
	files := allFiles(t)
	folders := map[string]bool{}
	for _, f := range files {
		folders[folderOf(f.dir)] = true
	}
	delete(folders, ".")
	layer := folderPicture(t, folders)
	allowed := testImports(t)
	for f := range folders {
		if _, ok := layer[f]; !ok {
			t.Errorf("folder %s/ is on no line of docs/architecture.md's picture (fix: draw it on the line above the highest folder it imports)", f)
		}
	}
	lowest := map[string]int{}
	seen := map[string]bool{}
	for _, f := range files {
		own := folderOf(f.dir)
		for _, dep := range f.imports {
			to := folderOf(dep)
			if to == own {
				continue
			}
			if !f.test && layer[to]+1 > lowest[own] {
				lowest[own] = layer[to] + 1
			}
			if layer[to] < layer[own] {
				continue
			}
			pair := [2]string{own, to}
			if _, ok := allowed[pair]; ok && f.test {
				allowed[pair] = true
				continue
			}
			if key := f.path + to; !seen[key] {
				seen[key] = true
				t.Errorf("%s imports %s: folder %s/ (line %d) imports %s/ (line %d), not below it (fix: move what it needs down%s)",
					f.path, dep, own, layer[own], to, layer[to], map[bool]string{true: ", or allow the pair in the doc's test-imports table with why", false: ""}[f.test])
			}
		}
	}
	for f, l := range layer {
		if lowest[f] < l {
			t.Errorf("folder %s/ is drawn on line %d but its imports put it on line %d: redraw docs/architecture.md's picture", f, l, lowest[f])
		}
	}
	var stale []string
	for pair, used := range allowed {
		if !used {
			stale = append(stale, pair[0]+" -> "+pair[1])
		}
	}
	sort.Strings(stale)
	for _, s := range stale {
		t.Errorf("docs/architecture.md allows tests of %s, which no test file imports: delete it from the test-imports table", s)
	}
}

// TestTestImportLayers: test files follow the package layers of
// docs/architecture.md's table too. Between folders the picture rules
// (TestFolderLayers, with its allowed test pairs); this holds the
// packages of one folder to their layers.
func TestTestImportLayers(t *testing.T) {
	layerOf := layerTable(t)
	allowed := testImports(t)
	files := allFiles(t)
	folders := map[string]bool{}
	for _, f := range files {
		folders[folderOf(f.dir)] = true
	}
	line := folderPicture(t, folders)
	seen := map[string]bool{}
	for _, f := range files {
		own, ok := layerOf[f.dir]
		if !f.test || !ok {
			continue // packages on no layer fail TestImportLayers
		}
		for _, dep := range f.imports {
			l, ok := layerOf[dep]
			if ok && l <= own {
				continue
			}
			from, to := folderOf(f.dir), folderOf(dep)
			if _, ok := allowed[[2]string{from, to}]; ok || from != to && line[to] < line[from] {
				continue // TestFolderLayers holds imports between folders
			}
			if !seen[f.path+dep] {
				seen[f.path+dep] = true
				t.Errorf("%s imports %s: a test of layer %d imports layer %d (fix: test it where both are below, or allow the folders' pair in the doc's test-imports table with why)", f.path, dep, own, l)
			}
		}
	}
}
