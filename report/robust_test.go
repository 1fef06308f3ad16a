package report

import (
	"bytes"
	"testing"

	"github.com/platbench/platbench/result"
)

// TestOddResults: files that pass result.Validate but hold little or odd
// data render in every format without a panic, and show no chart without data.
func TestOddResults(t *testing.T) {
	base := func() *result.Result {
		return &result.Result{Schema: result.SchemaVersion, Phases: []result.Phase{{Name: "run", Mode: "closed"}}}
	}
	cases := []struct {
		name string
		edit func(r *result.Result)
		err  bool // a render error (not a panic) is acceptable
	}{
		{"empty phase", func(r *result.Result) {}, false},
		{"zero duration with ops", func(r *result.Result) {
			r.Phases[0].Ops = []result.OpTotal{{Op: "READ", Count: 10}}
		}, false},
		{"interval of zero length", func(r *result.Result) {
			r.Phases[0].DurationNs = 1e9
			r.Phases[0].Intervals = []result.Interval{{StartNs: 0, DurationNs: 0, Ops: []result.IntervalOp{{Op: "READ", Count: 5}}}}
		}, false},
		{"buckets longer than outstanding", func(r *result.Result) {
			r.Phases[0].DurationNs = 1e9
			r.Phases[0].Buckets = result.Buckets{WidthNs: 1e8, Counts: map[string][]uint32{"READ": {1, 0, 0, 3, 0}}, Outstanding: []bool{true, true}}
		}, false},
		{"bucket width zero", func(r *result.Result) {
			r.Phases[0].Buckets = result.Buckets{Counts: map[string][]uint32{"READ": {1, 2}}}
		}, false},
		{"bad histogram", func(r *result.Result) {
			r.Phases[0].Ops = []result.OpTotal{{Op: "READ", Count: 1, Hist: "not base64 at all!"}}
		}, true},
		{"host samples without a phase start", func(r *result.Result) {
			r.Phases[0].DurationNs = 2e9
			r.Host = &result.HostSeries{Samples: []result.HostSample{{CPUUser: 0.5}, {CPUUser: 0.7, MemUsedBytes: 1 << 30}}}
		}, false},
		{"events outside the phase", func(r *result.Result) {
			r.Events = []result.Event{{AtNs: -5e9, Kind: "kill", Arg: "1"}, {AtNs: 1e15, Kind: "exec", Arg: "x"}}
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := base()
			c.edit(r)
			if err := r.Validate(); err != nil {
				t.Fatalf("the case is not a valid result: %v", err)
			}
			for name, w := range map[string]func(*bytes.Buffer) error{
				"md":   func(b *bytes.Buffer) error { return WriteMarkdown(b, r) },
				"html": func(b *bytes.Buffer) error { return WriteHTML(b, r) },
				"csv":  func(b *bytes.Buffer) error { return WriteCSV(b, r) },
				"json": func(b *bytes.Buffer) error { return WriteJSON(b, r) },
			} {
				var b bytes.Buffer
				err := w(&b)
				if err != nil && !c.err {
					t.Errorf("%s: %v", name, err)
				}
				if name == "html" && err == nil && bytes.Contains(b.Bytes(), []byte(`data-series="0"`)) {
					t.Errorf("html: a chart without series")
				}
			}
			if _, err := Compare([]*result.Result{r, r}, CompareOptions{}); err != nil && !c.err {
				t.Errorf("compare: %v", err)
			}
		})
	}
}
