package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Whatever a fine-bucket file holds (a kill leaves one beside a journal,
// and a user may bring any file of that name), ReadFine reads its whole
// buckets or says it is not one; never a panic.
func FuzzReadFine(f *testing.F) {
	var rec [FineRecLen]byte
	PutFine(rec[:], 7, 700, true)
	good := append(FineHeader("run", 100e6), rec[:]...)
	f.Add(good)
	f.Add(append(good, rec[:5]...)) // a torn last bucket
	f.Add([]byte(`{"fine":"platbench.fine/v1","phase":"run","width_ns":0}` + "\n"))
	f.Add([]byte("not a header\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "r.json.partial"+FineSuffix)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, b, err := ReadFine(path)
		if err != nil {
			return
		}
		if b.WidthNs <= 0 || len(b.All) != len(b.Outstanding) || (b.AllBytes != nil && len(b.AllBytes) != len(b.All)) {
			t.Fatalf("buckets read without error: width %d, %d counts, %d outstanding, %d bytes", b.WidthNs, len(b.All), len(b.Outstanding), len(b.AllBytes))
		}
	})
}

// A journal cut short during a phase gets that phase's fine buckets from
// the fine-bucket file beside it, those of its complete seconds; a file
// of another phase gives none; one that does not read is said in a note.
func TestCutShortTakesItsFineBuckets(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json"+JournalSuffix)
	j, err := CreateJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Begin(&Result{Schema: SchemaVersion})
	for s := range int64(3) {
		j.Interval("run", Interval{StartNs: s * 1e9, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: 35}}})
	}
	fine := func(phase string, n int) {
		data := FineHeader(phase, 100e6)
		var rec [FineRecLen]byte
		for i := range n {
			PutFine(rec[:], uint32(i), 0, i%2 == 0)
			data = append(data, rec[:]...)
		}
		if err := os.WriteFile(FinePath(path), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func() (*Phase, []string) {
		r, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		return r.Phase("run"), r.Notes
	}
	fine("run", 35) // half a second past the last complete one
	if p, notes := read(); len(p.Buckets.All) != 30 || p.Buckets.All[29] != 29 || !p.Buckets.Outstanding[28] || p.Buckets.AllBytes != nil || p.Buckets.WidthNs != 100e6 {
		t.Errorf("the phase cut short has buckets %+v; notes %q", p.Buckets, notes)
	}
	fine("load", 35)
	if p, _ := read(); len(p.Buckets.All) != 0 {
		t.Errorf("another phase's fine buckets were taken: %d", len(p.Buckets.All))
	}
	if err := os.WriteFile(FinePath(path), []byte("not one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, notes := read(); len(p.Buckets.All) != 0 || len(notes) < 2 || !strings.Contains(notes[0], "could not be read") {
		t.Errorf("a fine-bucket file that does not read: %d buckets, notes %q", len(p.Buckets.All), notes)
	}
}
