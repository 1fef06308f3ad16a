package result

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func sample() *Result {
	h := NewHist()
	for v := int64(1000); v < 2_000_000; v += 997 {
		h.RecordValue(v)
	}
	enc := EncodeHist(h)
	return &Result{
		Schema:    SchemaVersion,
		Tool:      Tool{Name: "platbench", Version: "test", GoVersion: "go"},
		StartedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC),
		EndedAt:   time.Date(2026, 11, 22, 10, 0, 2, 0, time.UTC),
		Platform:  Platform{Arch: "amd64", Cores: 2, Threads: 2, RAMBytes: 1 << 30},
		Phases: []Phase{{
			Name: "run", Mode: "closed", Concurrency: 2, StartedAt: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC), DurationNs: 2e9,
			Ops:       []OpTotal{{Op: "READ", Count: uint64(h.TotalCount()), Latency: Summarize(h), Service: Summarize(h), Hist: enc, ServiceHist: enc, Errors: map[string]uint64{"timeout": 2}}},
			Intervals: []Interval{{StartNs: 0, DurationNs: 1e9, Ops: []IntervalOp{{Op: "READ", Count: 5, Hist: enc}}}},
			Buckets:   Buckets{WidthNs: 1e8, Counts: map[string][]uint32{"READ": {1, 2, 0}}, Outstanding: []bool{true, true, false}},
		}},
	}
}

// A result survives a write and a read unchanged, and the histogram decodes
// to the same percentiles.
func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	r := sample()
	if err := Write(path, r); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, got) {
		t.Fatalf("round trip changed the result:\nwant %+v\ngot  %+v", r, got)
	}
	h, err := DecodeHist(got.Phases[0].Ops[0].Hist)
	if err != nil {
		t.Fatal(err)
	}
	if s := Summarize(h); s != r.Phases[0].Ops[0].Latency {
		t.Errorf("decoded summary %+v, want %+v", s, r.Phases[0].Ops[0].Latency)
	}
}

func TestReadRejectsMalformed(t *testing.T) {
	cases := map[string]string{
		"truncated":      `{"schema": "platbench.result/v1", "phases": [`,
		"other json":     `{"a": 1}`,
		"future schema":  `{"schema": "platbench.result/v9", "phases": [{"name": "run"}]}`,
		"no phases":      `{"schema": "platbench.result/v1"}`,
		"bad histogram?": `{"schema": "platbench.result/v1", "phases": [{"name": ""}]}`,
	}
	for name, body := range cases {
		_, err := Decode(strings.NewReader(body))
		if !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err = %v, want ErrMalformed", name, err)
		}
	}
	// A whole result with something after it (a file appended to, two
	// results in one) is refused on one line that says so, where it read
	// as the first result before.
	var b bytes.Buffer
	if err := Encode(&b, sample()); err != nil {
		t.Fatal(err)
	}
	whole := b.Len()
	for _, tail := range []string{"junk", "\n{}\n", "\n" + b.String()} {
		_, err := Decode(strings.NewReader(b.String() + tail))
		at := whole + len(tail) - len(strings.TrimLeft(tail, " \n"))
		want := fmt.Sprintf("more data after the result's JSON, from byte %d of %d on", at, whole+len(tail))
		if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("a result followed by %q: err = %v, want one line saying %q", tail, err, want)
		}
	}
	if _, err := Decode(strings.NewReader(b.String() + " \n\t\r\n")); err != nil {
		t.Errorf("a result followed by white space: %v", err)
	}
	// "0000" is base64 for 3 bytes, which hdrhistogram-go's Decode sliced
	// to 8 and panicked on (found by FuzzDecode).
	for _, bad := range []string{"not base64!", "0000", "HISTFAAAAA=="} {
		if _, err := DecodeHist(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("bad histogram %q: %v", bad, err)
		}
	}
}

// A failed write leaves no file behind, and an existing file is replaced whole.
func TestWriteIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.json")
	os.WriteFile(path, []byte("old"), 0o644)
	if err := Write(path, sample()); err != nil {
		t.Fatal(err)
	}
	if err := Write(filepath.Join(dir, "missing-dir", "r.json"), sample()); err == nil {
		t.Error("write into a missing directory succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte("{")) {
		t.Error("old content not replaced")
	}
}

func TestHlogLines(t *testing.T) {
	var b bytes.Buffer
	err := WriteHlog(&b, sample())
	data := b.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for _, want := range []string{"#[Histogram log format version 1.3]", "#[StartTime: 1795341600.000", `"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"`, "Tag=READ,0.000,1.000,"} {
		if !strings.Contains(s, want) {
			t.Errorf("hlog lacks %q:\n%s", want, s)
		}
	}
}

// EncodeHist writes exactly what hdrhistogram-go's own encoder writes, for
// empty-tailed, zero-run and large-count histograms alike.
func TestEncodeHistMatchesHdr(t *testing.T) {
	cases := [][]int64{{1}, {1000, 1000, 1000}, {1, 5_000_000_000, 3_600_000_000_000}}
	big := NewHist()
	for v := int64(1); v < 10_000_000; v = v*11/10 + 1 {
		big.RecordValues(v, v%1000+1)
	}
	for _, vals := range cases {
		h := NewHist()
		for _, v := range vals {
			h.RecordValue(v)
		}
		want, _ := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if got := EncodeHist(h); got != string(want) {
			t.Errorf("values %v: encoding differs from hdrhistogram-go's", vals)
		}
	}
	want, _ := big.Encode(hdr.V2CompressedEncodingCookieBase)
	if EncodeHist(big) != string(want) {
		t.Error("large histogram: encoding differs from hdrhistogram-go's")
	}
	if d, err := DecodeHist(EncodeHist(big)); err != nil || d.TotalCount() != big.TotalCount() || d.ValueAtQuantile(99.9) != big.ValueAtQuantile(99.9) {
		t.Errorf("round trip: %v", err)
	}
}

// A verification record whose ranges overlap, are reversed or do not add up
// is refused: `platbench verify` would read the wrong keys.
func TestVerificationValidate(t *testing.T) {
	base := func() *Result {
		return &Result{Schema: SchemaVersion, Phases: []Phase{{Name: "run"}}}
	}
	for name, v := range map[string]*Verification{
		"reversed":   {Version: 1, Acked: [][2]uint64{{5, 3}}, AckedKeys: 0},
		"overlap":    {Version: 1, Acked: [][2]uint64{{0, 5}, {3, 8}}, AckedKeys: 10},
		"count":      {Version: 1, Acked: [][2]uint64{{0, 5}}, AckedKeys: 6},
		"checked":    {Version: 1, Acked: [][2]uint64{{0, 5}}, AckedKeys: 5, Checked: 2, Missing: 2, Wrong: 1},
		"no version": {Acked: [][2]uint64{{0, 5}}, AckedKeys: 5},
	} {
		r := base()
		r.Verification = v
		if r.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	r := base()
	r.Verification = &Verification{Version: 1, Acked: [][2]uint64{{0, 5}, {7, 9}}, AckedKeys: 7, Checked: 7, Missing: 1, Wrong: 1}
	if err := r.Validate(); err != nil {
		t.Errorf("a sound record refused: %v", err)
	}
}

// ReadFiles reads files side by side and hands them back in the order
// given, each passed to each once; the error is the first file's, in that
// order, that could not be read or that each refused.
func TestReadFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 7 {
		r := sample()
		r.Label = fmt.Sprintf("run-%d", i)
		p := filepath.Join(dir, r.Label+".json")
		if err := Write(p, r); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	var seen [7]atomic.Int32
	rs, err := ReadFiles(paths, func(i int, r *Result) error {
		seen[i].Add(1)
		if r.Label != fmt.Sprintf("run-%d", i) {
			return fmt.Errorf("result %d is %s", i, r.Label)
		}
		return nil
	})
	if err != nil || len(rs) != 7 {
		t.Fatalf("%d results, %v", len(rs), err)
	}
	for i, r := range rs {
		if r.Label != fmt.Sprintf("run-%d", i) || seen[i].Load() != 1 {
			t.Errorf("result %d: %s, seen %d times", i, r.Label, seen[i].Load())
		}
	}
	bad := append([]string{}, paths...)
	bad[5] = filepath.Join(dir, "missing.json")
	os.WriteFile(filepath.Join(dir, "junk.json"), []byte("{"), 0o644)
	bad[2] = filepath.Join(dir, "junk.json")
	if _, err := ReadFiles(bad, nil); err == nil || !strings.Contains(err.Error(), "junk.json") {
		t.Errorf("the first bad file in order is junk.json: %v", err)
	}
	refuse := errors.New("refused")
	if _, err := ReadFiles(paths, func(i int, _ *Result) error {
		if i >= 4 {
			return fmt.Errorf("%d: %w", i, refuse)
		}
		return nil
	}); err == nil || err.Error() != "4: refused" {
		t.Errorf("each refusing from the fifth on: %v, want the fifth's", err)
	}
}
