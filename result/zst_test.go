package result

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// realSeconds is the text of eight real seconds of a run (null target, ten
// op types at 100k op/s: `platbench run --target null --mix <ten ops>
// --rate 100k`), its lines and its header.
func realSeconds(tb testing.TB) [][]byte {
	tb.Helper()
	f, err := os.Open("testdata/null-10ops-100k.seconds.jsonl.zst")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(PlainLines(f))
	if err != nil {
		tb.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// A journal is flushed a line at a time and read back whole: every line,
// in order, as written; and a stream cut anywhere reads as the lines whose
// blocks are whole, never a line that was not written.
func TestSecondsStreamCutAnywhere(t *testing.T) {
	lines := realSeconds(t)
	var buf bytes.Buffer
	zw := NewSecondsWriter(&buf)
	var ends []int // the stream's length after each line's flush
	for _, l := range lines {
		zw.Write(l)
		if err := zw.Flush(); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, buf.Len())
	}
	whole := buf.Bytes()
	for cut := 0; cut <= len(whole); cut += max(len(whole)/97, 1) {
		got, err := io.ReadAll(PlainLines(bytes.NewReader(whole[:cut])))
		if err != nil && cut > len(zstdMagic) {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		n := 0 // lines whose flush is within the cut
		for n < len(ends) && ends[n] <= cut {
			n++
		}
		want := bytes.Join(lines[:n], nil)
		if !bytes.Equal(got, want) {
			t.Fatalf("cut at %d of %d: read %d bytes, want the %d of the %d lines flushed before it", cut, len(whole), len(got), len(want), n)
		}
	}
}

// Plain lines (a journal or seconds file written before issue 47) read as
// they are.
func TestPlainLinesLeavesPlainText(t *testing.T) {
	in := `{"journal":"platbench.journal/v2","result":{}}` + "\n"
	got, err := io.ReadAll(PlainLines(bytes.NewReader([]byte(in))))
	if err != nil || string(got) != in {
		t.Fatalf("%q, %v", got, err)
	}
}

// BenchmarkSecondsCompression: the size kept and the CPU a second of run
// costs at each zstd level, on real seconds, flushed a line at a time as
// the journal is. It chose SecondsLevel (docs/result-schema.md, "Long
// runs"): go test -run '^$' -bench SecondsCompression ./result
func BenchmarkSecondsCompression(b *testing.B) {
	lines := realSeconds(b)
	plain := 0
	for _, l := range lines {
		plain += len(l)
	}
	for _, lv := range []zstd.EncoderLevel{zstd.SpeedFastest, zstd.SpeedDefault, zstd.SpeedBetterCompression, zstd.SpeedBestCompression} {
		b.Run(lv.String(), func(b *testing.B) {
			var out countWriter
			for b.Loop() {
				out = 0
				zw, err := zstd.NewWriter(&out, zstd.WithEncoderLevel(lv), zstd.WithEncoderConcurrency(1),
					zstd.WithWindowSize(secondsWindow), zstd.WithLowerEncoderMem(true))
				if err != nil {
					b.Fatal(err)
				}
				for _, l := range lines {
					zw.Write(l)
					zw.Flush()
				}
				zw.Close()
			}
			b.ReportMetric(float64(out)/float64(plain), "kept")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines))/1e6, "ms/second")
		})
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// BenchmarkJournalSecond: what one second of a run costs the journal, on a
// real second of ten op types (the interval as the recorder hands it):
// its JSON line, compressed and written, and its .hlog lines written. A
// part of the per-second cost of a run (docs/benchmarks.md, "What a second
// of run costs").
func BenchmarkJournalSecond(b *testing.B) {
	lines := realSeconds(b)
	var l journalLine
	if err := json.Unmarshal(lines[len(lines)-1], &l); err != nil || l.Interval == nil {
		b.Fatalf("no second in the fixture: %v", err)
	}
	var head journalLine
	if err := json.Unmarshal(lines[0], &head); err != nil || head.Result == nil {
		b.Fatalf("no header in the fixture: %v", err)
	}
	dir := b.TempDir()
	j, err := CreateJournal(dir + "/r.json.partial")
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close(true)
	h, err := CreateHlogStream(dir+"/r.json.partial.hlog", "run")
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	j.TeeHlog(h)
	j.Begin(head.Result)
	for b.Loop() {
		j.Interval(l.Phase, *l.Interval)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/second")
}
