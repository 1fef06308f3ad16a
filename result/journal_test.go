package result

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	if err := j.Close(false); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"phase":"run","interval":{"start_ns":20000`) // killed mid-write
	f.Close()
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
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadJournal(bytes.NewReader(data))
		if err == nil && (r == nil || len(r.Phases) == 0) {
			t.Fatal("a journal read without error has no phase")
		}
	})
}
