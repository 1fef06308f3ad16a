package result

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A journal of a load phase that ended and a run phase cut short after two
// seconds reads as a result: the load whole, the run interrupted with its
// two seconds and totals merged from them; a torn last line is ignored.
func TestReadJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json.partial")
	j, err := CreateJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	j.Begin(&Result{Schema: SchemaVersion, Label: "x", Config: Config{RateOpsPerS: 100, Concurrency: 4}})
	h := NewHist()
	_ = h.RecordValues(2e6, 100)
	iv := func(i int64) Interval {
		return Interval{StartNs: i * 1e9, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: 100, Hist: EncodeHist(h), Latency: Summarize(h)}}}
	}
	j.Interval("load", iv(0))
	j.PhaseDone(&Phase{Name: "load", Mode: "closed", DurationNs: 1e9, Intervals: []Interval{iv(0)},
		Ops: []OpTotal{{Op: "INSERT", Count: 100, Hist: EncodeHist(h), Latency: Summarize(h)}}})
	j.Interval("run", iv(0))
	j.Interval("run", iv(1))
	// Killed mid-write: the last line's block is half on disk, the stream
	// never ended.
	before := size(t, path)
	j.Interval("run", iv(20))
	if err := os.Truncate(path, before+(size(t, path)-before)/2); err != nil {
		t.Fatal(err)
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	load, run := r.Phase("load"), r.Phase("run")
	if !r.CutShort || load == nil || load.Interrupted || load.Ops[0].Op != "INSERT" {
		t.Fatalf("cut short %v, load %+v", r.CutShort, load)
	}
	if run == nil || !run.Interrupted || len(run.Intervals) != 2 || run.DurationNs != 2e9 || run.Mode != "open" ||
		len(run.Ops) != 1 || run.Ops[0].Count != 200 || run.Ops[0].Latency.P50Ns < 1.99e6 {
		t.Fatalf("run %+v", run)
	}
	if len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "cut short") {
		t.Errorf("notes %q", r.Notes)
	}
	v1 := `{"journal":"platbench.journal/v1","result":{"schema":"platbench.result/v1"}}` + "\n" +
		`{"phase":"run","interval":{"start_ns":0,"duration_ns":1000000000,"ops":[{"op":"READ","count":3,"latency":{}}]}}` + "\n"
	if r, err := ReadJournal(strings.NewReader(v1)); err != nil || !r.CutShort || r.Phase("run").Ops[0].Count != 3 {
		t.Errorf("a journal of format v1 (before issue 34): %v", err)
	}
	for _, bad := range []string{"", `{"journal":"other"}`, `{"journal":"platbench.journal/v1","result":{"schema":"platbench.result/v9"}}`,
		"{\"journal\":\"platbench.journal/v1\",\"result\":{}}\nnot json\n{}\n"} {
		if _, err := ReadJournal(strings.NewReader(bad)); err == nil {
			t.Errorf("journal %q read without error", bad)
		}
	}
}

// FuzzReadJournal: any bytes read as a journal give a result or an error,
// never a panic.
func FuzzReadJournal(f *testing.F) {
	var b bytes.Buffer
	b.WriteString(`{"journal":"platbench.journal/v1","result":{"schema":"` + SchemaVersion + `"}}` + "\n")
	b.WriteString(`{"phase":"run","interval":{"start_ns":0,"duration_ns":1000000000,"ops":[{"op":"READ","count":3,"latency":{}}]}}` + "\n")
	f.Add(b.Bytes())
	f.Add([]byte(`{"journal":"platbench.journal/v1"}`))
	var z bytes.Buffer // the same, compressed as journals are since issue 47
	zw := NewSecondsWriter(&z)
	zw.Write(b.Bytes())
	zw.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJournal(bytes.NewReader(data))
		if err == nil && (r == nil || len(r.Phases) == 0) {
			t.Fatal("a journal read without error has no phase")
		}
	})
}

// A run that ends keeps its journal as the seconds file: the result's
// streamed phase (no interval histograms) merges a window's latency from
// it, exactly the window's operations, whichever way round it reads (the
// window itself, or the rest taken off the totals); the .hlog is written
// from it; the file reads as a whole result; a journal cut short gets its
// host series back from the samples.
func TestSecondsFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	j, err := CreateJournal(out + JournalSuffix)
	if err != nil {
		t.Fatal(err)
	}
	r := &Result{Schema: SchemaVersion, Label: "x"}
	j.Begin(r)
	j.Sample(TelemetrySample{Host: &HostSample{OffsetNs: 0, DurationNs: 1e9, CPUUser: 0.5}})
	var c Coarsener
	tot := NewHist()
	for s := int64(0); s < 10; s++ {
		h := NewHist()
		_ = h.RecordValues(1000*(s+1), s+1) // second s: s+1 ops of (s+1) µs
		tot.Merge(h)
		iv := Interval{StartNs: s * 1e9, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: uint64(s + 1), Hist: EncodeHist(h), Latency: Summarize(h)}}}
		j.Interval("load", iv)
		if err := c.Add(iv); err != nil {
			t.Fatal(err)
		}
	}
	p := Phase{Name: "load", Mode: "closed", DurationNs: 10e9, Intervals: c.Finish(),
		Ops: []OpTotal{{Op: "READ", Count: 55, Hist: EncodeHist(tot), Latency: Summarize(tot)}}}
	j.PhaseDone(&p)
	r.Phases = []Phase{p}
	if err := Write(out, r); err != nil {
		t.Fatal(err)
	}
	cut, err := Read(out + JournalSuffix) // as a kill would leave it
	if err != nil || !cut.CutShort || cut.Host == nil || len(cut.Host.Samples) != 1 {
		t.Fatalf("the journal before its end: %v, cut short %v, host %+v", err, cut != nil && cut.CutShort, cut)
	}
	if err := j.Keep(SecondsPath(out)); err != nil {
		t.Fatal(err)
	}
	got, err := Read(out)
	if err != nil {
		t.Fatal(err)
	}
	lp := got.Phase("load")
	if lp.HasIntervalHists() || !lp.HasSeconds() {
		t.Fatalf("streamed phase: interval histograms %v, seconds %v", lp.HasIntervalHists(), lp.HasSeconds())
	}
	for _, w := range [][2]int{{2, 4}, {1, 10}, {0, 3}} { // short window; most of the phase; from the start
		h, err := lp.MergedHist(w[0], w[1], HistLatency)
		var want int64
		for s := w[0]; s < w[1]; s++ {
			want += int64(s + 1)
		}
		if err != nil || h.TotalCount() != want || h.Min() < int64(w[0]+1)*1000-1 {
			t.Errorf("window %v: %d latencies from %d ns (err %v), want %d from %d µs", w, h.TotalCount(), h.Min(), err, want, w[0]+1)
		}
	}
	var b bytes.Buffer
	if err := WriteHlog(&b, got); err != nil || strings.Count(b.String(), "Tag=READ,") != 10 {
		t.Errorf("hlog from the seconds file: %v\n%s", err, b.String())
	}
	s, err := Read(SecondsPath(out))
	if err != nil || s.CutShort || s.Phase("load") == nil {
		t.Errorf("the seconds file as a result: %v, cut short %v", err, s != nil && s.CutShort)
	}
	// Another run's result beside this seconds file (copied or renamed to
	// match) is refused: its windows would be read from the wrong run.
	other := filepath.Join(dir, "other.json")
	r.StartedAt = time.Date(2026, 11, 26, 22, 30, 0, 0, time.UTC)
	if err := Write(other, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(SecondsPath(out))
	os.WriteFile(SecondsPath(other), data, 0o644)
	if _, err := Read(other); err == nil || !strings.Contains(err.Error(), "is of another run") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("a seconds file of another run: %v, want refused, with the fix", err)
	}
}

// FuzzSecondsFile: any bytes beside a streamed result as its seconds file
// give a window's latency or an error, never a panic.
func FuzzSecondsFile(f *testing.F) {
	h := NewHist()
	_ = h.RecordValues(1000, 3)
	var b bytes.Buffer
	b.WriteString(`{"journal":"platbench.journal/v1","result":{"schema":"` + SchemaVersion + `"}}` + "\n")
	b.WriteString(`{"phase":"run","interval":{"start_ns":1000000000,"duration_ns":1000000000,"ops":[{"op":"READ","count":3,"latency":{},"hist":"` + EncodeHist(h) + `"}]}}` + "\n")
	b.WriteString(`{"done":{"name":"run","mode":"closed"}}` + "\n")
	f.Add(b.Bytes())
	f.Add([]byte(`{"phase":"run","interval":{"start_ns":x`))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "s.seconds.jsonl")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		p := Phase{Name: "run", DurationNs: 3e9, Intervals: []Interval{{StartNs: 0, DurationNs: 1e9}, {StartNs: 1e9, DurationNs: 1e9}, {StartNs: 2e9, DurationNs: 1e9}},
			Ops: []OpTotal{{Op: "READ", Count: 3, Hist: EncodeHist(h)}}}
		p.UseSeconds(NewSecondsFile(path), 0, 0)
		for _, w := range [][2]int{{1, 2}, {1, 3}} {
			if hh, err := p.MergedHist(w[0], w[1], HistLatency); err == nil && hh == nil {
				t.Fatal("no histogram and no error")
			}
		}
	})
}

// A journal cut short past its first hour reads into the stored series:
// 1 s intervals for the hour, then 10 s ones whose latency is their
// seconds' merged; the totals hold every second.
func TestReadJournalPastAnHour(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"journal":"` + JournalKind + `","result":{"schema":"` + SchemaVersion + `"}}` + "\n")
	h := NewHist()
	_ = h.RecordValues(5000, 2)
	enc := EncodeHist(h)
	for s := int64(0); s < 3620; s++ {
		fmt.Fprintf(&b, `{"phase":"run","interval":{"start_ns":%d,"duration_ns":1000000000,"ops":[{"op":"READ","count":2,"latency":{},"hist":"%s"}]}}`+"\n", s*1e9, enc)
	}
	r, err := ReadJournal(&b)
	if err != nil {
		t.Fatal(err)
	}
	p := r.Phase("run")
	last := p.Intervals[len(p.Intervals)-1]
	if len(p.Intervals) != 3602 || last.DurationNs != 10e9 || last.Ops[0].Count != 20 || last.Ops[0].Latency.Count != 20 ||
		p.Ops[0].Count != 7240 || p.Ops[0].Latency.Count != 7240 {
		t.Errorf("%d intervals, the last %+v; totals %+v", len(p.Intervals), last, p.Ops)
	}
}

// The telemetry a streaming collector keeps in memory is at most 16
// samples a series (Thin.Wide); the series read back from the journal at the end are the
// ones a collector keeping them made: the first hour whole, then 10 s.
func TestJournalTelemetryReadBack(t *testing.T) {
	j, err := CreateJournal(filepath.Join(t.TempDir(), "r.json.partial"))
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close(true)
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	j.Begin(&Result{Schema: SchemaVersion, StartedAt: start})
	host, node := HostThin(), NodeThin()
	wideHost, wideNode := HostThin(), NodeThin()
	wideHost.Wide, wideNode.Wide = true, true
	const n = 3600 + 100
	for i := int64(0); i < n; i++ {
		h := HostSample{OffsetNs: i * 1e9, DurationNs: 1e9, CPUUser: float64(i%3) / 4, CtxSwitches: 7}
		s := NodeSample{OffsetNs: i * 1e9, DurationNs: 1e9, Missing: i%500 == 7, CPUUser: 0.5, MemUsedBytes: i}
		if i%2 == 0 {
			j.Interval("run", Interval{StartNs: i * 1e9, DurationNs: 1e9}) // other lines between
		}
		j.Sample(TelemetrySample{StartedAt: start, Host: &h})
		j.Sample(TelemetrySample{StartedAt: start, Node: "db1:9100", NodeSample: &s})
		host.Add(h)
		node.Add(s)
		wideHost.Add(h)
		wideNode.Add(s)
	}
	back, err := j.Telemetry()
	if err != nil {
		t.Fatal(err)
	}
	if back.Host == nil || !reflect.DeepEqual(back.Host.Samples, host.Samples()) {
		t.Fatalf("host samples read back differ from a kept series (%d kept)", len(host.Samples()))
	}
	if len(back.Nodes) != 1 || back.Nodes[0].Node != "db1:9100" || !reflect.DeepEqual(back.Nodes[0].Samples, node.Samples()) {
		t.Fatalf("node samples read back differ from a kept series")
	}
	if got := len(host.Samples()); got != 3600+10 {
		t.Errorf("kept series: %d host samples, want %d", got, 3600+10)
	}
	// In memory: at most wideMax, widened from one a minute (at 3,700 s,
	// 8 of 8 min; a missing scrape starts a sample of its own).
	if got := len(wideHost.Samples()); got != wideMax/2 || wideHost.Samples()[0].DurationNs != 8*60e9 {
		t.Errorf("a wide series keeps %d host samples of %d s, want %d of 8 min", got, n, wideMax/2)
	}
	if got := len(wideNode.Samples()); got > 2*wideMax {
		t.Errorf("a wide series keeps %d node samples of %d s, want about %d", got, n, wideMax)
	}
}

func size(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// A fine-bucket file left by an earlier run beside a new journal is removed
// (it would be taken for this run's); a file at that name that platbench
// did not write (no fine header) is kept and the journal refused, naming it.
func TestCreateJournalStaleFine(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json.partial")
	fine := FinePath(path)
	if err := os.WriteFile(fine, append(FineHeader("run", 1e8), make([]byte, 3*FineRecLen)...), 0o644); err != nil {
		t.Fatal(err)
	}
	j, err := CreateJournal(path)
	if err != nil {
		t.Fatalf("over an earlier run's fine file: %v", err)
	}
	j.Close(true)
	if _, err := os.Stat(fine); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the earlier run's fine file is still there: %v", err)
	}
	os.Remove(path)
	mine := []byte("a user's notes\n")
	if err := os.WriteFile(fine, mine, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CreateJournal(path); err == nil || !strings.Contains(err.Error(), fine) || !strings.Contains(err.Error(), "not a file platbench wrote") {
		t.Errorf("over a file platbench did not write: %v", err)
	}
	if b, _ := os.ReadFile(fine); !bytes.Equal(b, mine) {
		t.Errorf("the user's file changed: %q", b)
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused journal was created: %v", err)
	}
}
