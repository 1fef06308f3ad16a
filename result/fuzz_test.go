package result

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// A result file is user input (`platbench report`, `compare`, `plan`,
// `merge` read files from anywhere): whatever its bytes, Decode returns a
// result or an error, never panics; an accepted result encodes and decodes
// again, and its histograms merge or fail with an error.
func FuzzDecode(f *testing.F) {
	addDecodeSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for i := range r.Phases {
			p := &r.Phases[i]
			_, _ = p.MergedHist(0, len(p.Intervals), HistLatency)
			_, _ = p.MergedHist(len(p.Intervals)/2, len(p.Intervals), HistService)
		}
		if v := r.Verification; v != nil {
			var n uint64
			v.Keys(func(k uint64) bool { n++; return n < 1000 })
			if v.AckedKeys > 0 && n == 0 || v.Missing+v.Wrong > v.Checked {
				t.Fatalf("an accepted verification does not hold together: %+v", *v)
			}
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("an accepted result does not encode: %v", err)
		}
		if _, err := Decode(bytes.NewReader(b)); err != nil {
			t.Fatalf("an accepted result, encoded again, is refused: %v", err)
		}
	})
}

// Result files are decoded with github.com/segmentio/encoding/json for
// speed (decodeJSON); it must read every input as encoding/json does:
// accept the same bytes (one valid result, white space around it) into
// the same Result, and refuse the same ones. The seeds are FuzzDecode's:
// the results in report/testdata are checked on every go test.
func FuzzDecodeLikeStd(f *testing.F) {
	addDecodeSeeds(f)
	f.Add([]byte(`{"schema":"x","label":"a\u00e9\ud83d\ude00\"","phases":null} `))
	f.Add([]byte(`{"SCHEMA":"x","Label":"\xff","phases":[{"name":"run","duration_ns":1e3}]}`))
	f.Add([]byte(`{"schema":"x"}{"schema":"y"}`))
	f.Add([]byte("{\"schema\":\"platbench.result/v2\",\"label\":\"\xff\xfe\",\"phases\":[{\"name\":\"run\",\"intervals\":[{\"ops\":[]},{}]}]}"))
	f.Add([]byte(`{"phases":[{"buckets":{"counts":{"READ":[1,2,4294967296]}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var std Result
		stdErr := json.Unmarshal(data, &std)
		if stdErr == nil {
			stdErr = std.Validate()
		}
		got, err := decodeJSON(data)
		if (stdErr == nil) != (err == nil) {
			t.Fatalf("encoding/json: %v; decodeJSON: %v", stdErr, err)
		}
		if err == nil && !reflect.DeepEqual(&std, got) {
			t.Fatalf("decoded differently:\nencoding/json %+v\ndecodeJSON    %+v", std, *got)
		}
	})
}

// addDecodeSeeds adds results of every kind to f's corpus: a minimal one,
// one with a verification record, bad ones, and report/testdata's.
func addDecodeSeeds(f *testing.F) {
	h := NewHist()
	_ = h.RecordValue(1000)
	ok := Result{Schema: SchemaVersion, Phases: []Phase{{Name: "run", DurationNs: 2e9,
		Ops:       []OpTotal{{Op: "READ", Count: 1, Hist: EncodeHist(h)}},
		Intervals: []Interval{{StartNs: 0, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: 1, Hist: EncodeHist(h)}}}}}}}
	b, err := json.Marshal(ok)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"schema":"platbench.result/v0","phases":[]}`))
	// The verification record (`platbench verify` reads its ranges back).
	vr := ok
	vr.Verification = &Verification{Version: 1, Acked: [][2]uint64{{0, 10}, {20, 25}}, AckedKeys: 15, Checked: 15, Missing: 1, Wrong: 2}
	if b, err := json.Marshal(vr); err == nil {
		f.Add(b)
	}
	f.Add([]byte(`{"schema":"` + SchemaVersion + `","phases":[{"name":"x","ops":[{"op":"READ","hist":"!!"}]}]}`))
	seeds, _ := filepath.Glob("../report/testdata/*.result.json")
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
}
