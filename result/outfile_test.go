package result

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/internal/usererr"
)

// An existing file among a command's outputs is refused in one line
// naming it and the fix; --force lets all but a journal's through.
func TestCheckOutputs(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	outs := RunOutputs(out, true)
	if err := CheckOutputs(outs, false, OutFlags{Out: "--out", Force: "--force"}); err != nil {
		t.Fatalf("nothing there: %v", err)
	}
	os.WriteFile(out, []byte("old"), 0o644)
	os.WriteFile(HlogPath(out), []byte("old"), 0o644)
	err := CheckOutputs(outs, false, OutFlags{Out: "--out", Force: "--force"})
	if err == nil || !usererr.Is(err) || strings.Contains(err.Error(), "\n") ||
		!strings.Contains(err.Error(), out+" (result), "+HlogPath(out)+" (HdrHistogram log) already exist") ||
		!strings.Contains(err.Error(), "--force to replace them, or another --out") {
		t.Errorf("result and .hlog there: %v", err)
	}
	if err := CheckOutputs(outs, true, OutFlags{Out: "--out", Force: "--force"}); err != nil {
		t.Errorf("--force: %v", err)
	}
	for _, p := range []string{out + JournalSuffix, FinePath(out + JournalSuffix), PartialHlogPath(out)} {
		os.WriteFile(p, []byte("journal"), 0o644)
		for _, force := range []bool{false, true} {
			err := CheckOutputs(outs, force, OutFlags{Out: "--out", Force: "--force"})
			if err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "platbench report "+out+JournalSuffix) ||
				!strings.Contains(err.Error(), "not even with --force") || !strings.Contains(err.Error(), "rm "+out+JournalSuffix+"*") {
				t.Errorf("%s there (force %v): %v", filepath.Base(p), force, err)
			}
		}
		os.Remove(p)
	}
	os.Mkdir(SecondsPath(out), 0o755)
	if err := CheckOutputs(outs, true, OutFlags{Out: "--out", Force: "--force"}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("a directory where the seconds file goes: %v", err)
	}
}

// A journal is never truncated: creating one where one is (a run killed
// earlier) fails, and the old bytes are intact.
func TestCreateJournalKeepsAnEarlierOne(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json"+JournalSuffix)
	old := []byte(`{"journal":"platbench.journal/v2","result":{}}` + "\n" + `{"phase":"run","interval":{}}` + "\n")
	os.WriteFile(path, old, 0o644)
	os.WriteFile(FinePath(path), []byte("fine"), 0o644)
	if j, err := CreateJournal(path); err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "platbench report "+path) {
		j.Close(false)
		t.Fatalf("CreateJournal over a journal: %v", err)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, old) {
		t.Errorf("the journal was changed: %q", b)
	}
	if b, _ := os.ReadFile(FinePath(path)); string(b) != "fine" {
		t.Errorf("its fine-bucket file was changed: %q", b)
	}
	hl := filepath.Join(filepath.Dir(path), "r.json.partial.hlog")
	os.WriteFile(hl, []byte("log"), 0o644)
	if _, err := CreateHlogStream(hl, "run"); err == nil || !usererr.Is(err) {
		t.Errorf("CreateHlogStream over a log: %v", err)
	}
	if b, _ := os.ReadFile(hl); string(b) != "log" {
		t.Errorf("the log was changed: %q", b)
	}
}

// Read of a result that is not there, beside its journal, names the
// journal and the command that reads it.
func TestReadNamesTheJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if _, err := Read(path); err == nil || strings.Contains(err.Error(), "partial") {
		t.Errorf("no journal either: %v", err)
	}
	os.WriteFile(path+JournalSuffix, nil, 0o644)
	_, err := Read(path)
	if err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), "platbench report "+path+JournalSuffix) {
		t.Errorf("with a journal: %v", err)
	}
}

// A directory given as a result is bad input (exit status 2), named.
func TestReadDirectory(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(dir); err == nil || !usererr.Is(err) || !strings.Contains(err.Error(), dir+" is a directory") {
		t.Errorf("Read(a directory): %v; want a usererr naming it", err)
	}
}

// A file that is no JSON (a password file given by mistake) is refused
// without quoting any of it.
func TestReadQuotesNoContent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pgpass")
	os.WriteFile(path, []byte("db:5432:*:perf:hunter2-s3cret\n"), 0o600)
	_, err := Read(path)
	if err == nil || !errors.Is(err, ErrMalformed) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "byte") {
		t.Errorf("Read(a password file) = %v; want ErrMalformed naming the byte, quoting none of the file", err)
	}
}

// A result file past MaxResultBytes is refused by its size; one within it
// is read in chunks and refused at its first NUL byte.
func TestReadBounded(t *testing.T) {
	dir := t.TempDir()
	defer func(m int64) { MaxResultBytes = m }(MaxResultBytes)
	MaxResultBytes = 1 << 20
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(MaxResultBytes + 1)
	f.Close()
	if _, err := Read(big); err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "more than the 1.0 MiB a result file may be") {
		t.Errorf("past the limit: %v", err)
	}
	zero := filepath.Join(dir, "zero.json")
	os.WriteFile(zero, append([]byte(`{"schema":`), make([]byte, 1000)...), 0o644)
	if _, err := Read(zero); err == nil || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "byte 10 is a NUL") {
		t.Errorf("zeros within the limit: %v", err)
	}
	// A reader without a size that reads on past the limit (a pipe).
	if _, err := Decode(io.LimitReader(infinite('x'), MaxResultBytes+10)); err == nil || !strings.Contains(err.Error(), "more than 1.0 MiB") {
		t.Errorf("a stream past the limit: %v", err)
	}
}

type infinite byte

func (c infinite) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(c)
	}
	return len(p), nil
}

// A journal whose end is zeros (what a crash of the machine can leave)
// reads as far as its last whole line; a line of zeros does not make the
// scanner hold it.
func TestJournalEndingInZeros(t *testing.T) {
	var b bytes.Buffer
	lines := []string{"a", "bb", "ccc"}
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	b.WriteString("tor")
	b.Write(make([]byte, 1<<20))
	b.WriteString("\nafter\n")
	var got []string
	sc := newLineScanner(&b)
	for sc.Scan() {
		got = append(got, sc.Text())
	}
	if sc.Err() != nil || strings.Join(got, ",") != "a,bb,ccc,tor" {
		t.Errorf("lines %q, err %v", got, sc.Err())
	}
}

// FuzzScanJournalLines holds the journal's line splitter to bufio.ScanLines
// on input without a NUL byte, and, with one, to ScanLines of the input
// cut at the first NUL.
func FuzzScanJournalLines(f *testing.F) {
	for _, s := range []string{"", "a\nb\n", "a\r\nb", "x\x00y\nz", "\x00", "a\n\x00\n", "{\"journal\":1}\n\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		scan := func(split bufio.SplitFunc, in []byte) []string {
			sc := bufio.NewScanner(bytes.NewReader(in))
			sc.Buffer(make([]byte, 0, 16), 1<<20)
			sc.Split(split)
			var out []string
			for sc.Scan() {
				out = append(out, sc.Text())
			}
			if sc.Err() != nil {
				t.Fatalf("%v", sc.Err())
			}
			return out
		}
		got := scan(scanJournalLines, data)
		in := data
		cut := false
		if z := bytes.IndexByte(data, 0); z >= 0 {
			in, cut = data[:z], true
		}
		want := scan(bufio.ScanLines, in)
		if cut && (len(in) == 0 || in[len(in)-1] == '\n') {
			want = append(want, "") // the (empty) text before the NUL is a last token
		}
		if strings.Join(got, "\n|") != strings.Join(want, "\n|") || len(got) != len(want) {
			t.Errorf("%q: got %q, want %q", data, got, want)
		}
	})
}

// FuzzReadBounded holds the chunked reader to io.ReadAll on input without
// a NUL byte, and to an error at the first NUL's offset with one.
func FuzzReadBounded(f *testing.F) {
	f.Add([]byte(`{"schema":"x"}`), 0)
	f.Add([]byte("ab\x00cd"), 3)
	f.Add(bytes.Repeat([]byte("z"), 3000), 100)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if n < 0 || n > 1<<16 {
			return
		}
		got, err := readBounded(bytes.NewReader(data), n)
		if z := bytes.IndexByte(data, 0); z >= 0 {
			if err == nil || !strings.Contains(err.Error(), "byte "+itoa(z)+" is a NUL") {
				t.Fatalf("%q: err %v, want the NUL at %d", data, err, z)
			}
			return
		}
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%q: got %q, %v", data, got, err)
		}
	})
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}
