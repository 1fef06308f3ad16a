package result

import (
	"errors"
	"strings"
	"testing"
)

// histOf encodes a histogram holding values (ns).
func histOf(values ...int64) string {
	h := NewHist()
	for _, v := range values {
		h.RecordValue(v)
	}
	return EncodeHist(h)
}

// mergedPhase: two ops over three intervals. READ takes 1 µs, 2 µs, 3 µs in
// seconds 0, 1, 2; UPDATE 10 µs in each; service time is 100 ns for every op
// and only in the totals.
func mergedPhase() *Phase {
	iv := func(i int64, read int64) Interval {
		return Interval{StartNs: i * 1e9, DurationNs: 1e9, Ops: []IntervalOp{
			{Op: "READ", Count: 1, Hist: histOf(read)},
			{Op: "UPDATE", Count: 1, Hist: histOf(10_000)},
		}}
	}
	return &Phase{
		Name: "run",
		Ops: []OpTotal{
			{Op: "READ", Count: 3, Hist: histOf(1000, 2000, 3000), ServiceHist: histOf(100, 100, 100)},
			{Op: "UPDATE", Count: 3, Hist: histOf(10_000, 10_000, 10_000), ServiceHist: histOf(100, 100, 100)},
		},
		Intervals: []Interval{iv(0, 1000), iv(1, 2000), iv(2, 3000)},
	}
}

func TestMergedHist(t *testing.T) {
	p := mergedPhase()
	cases := []struct {
		name     string
		from, to int
		kind     HistKind
		ops      []string
		count    int64
		min, max int64 // ns, within the histogram's 3 significant digits
	}{
		{"whole phase, every op, from the totals", 0, 3, HistLatency, nil, 6, 1000, 10_000},
		{"whole phase asked with a wide range", -5, 99, HistLatency, nil, 6, 1000, 10_000},
		{"a window: intervals 1 and 2", 1, 3, HistLatency, nil, 4, 2000, 10_000},
		{"one op over a window", 1, 3, HistLatency, []string{"READ"}, 2, 2000, 3000},
		{"one interval, one op", 2, 3, HistLatency, []string{"READ"}, 1, 3000, 3000},
		{"two ops named", 0, 1, HistLatency, []string{"READ", "UPDATE"}, 2, 1000, 10_000},
		{"an op the phase lacks", 0, 3, HistLatency, []string{"SCAN"}, 0, 0, 0},
		{"service time of the whole phase", 0, 3, HistService, []string{"READ"}, 3, 100, 100},
		{"service time of a window: intervals keep none", 1, 3, HistService, nil, 0, 0, 0},
		{"an empty window", 2, 2, HistLatency, nil, 0, 0, 0},
	}
	for _, c := range cases {
		h, err := p.MergedHist(c.from, c.to, c.kind, c.ops...)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if h.TotalCount() != c.count {
			t.Errorf("%s: %d values, want %d", c.name, h.TotalCount(), c.count)
			continue
		}
		if c.count > 0 && (!near(h.Min(), c.min) || !near(h.Max(), c.max)) {
			t.Errorf("%s: min %d max %d, want %d and %d", c.name, h.Min(), h.Max(), c.min, c.max)
		}
	}
}

// A histogram that does not decode is an error naming where it is, whatever
// the window; a missing one contributes nothing.
func TestMergedHistErrors(t *testing.T) {
	p := mergedPhase()
	p.Intervals[1].Ops[0].Hist = "not base64!"
	if _, err := p.MergedHist(0, 2, HistLatency); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "op READ, interval 1") {
		t.Errorf("bad interval histogram: %v", err)
	}
	if h, err := p.MergedHist(2, 3, HistLatency); err != nil || h.TotalCount() != 2 {
		t.Errorf("a window without the bad histogram: %v, %d values", err, h.TotalCount())
	}
	p.Ops[1].ServiceHist = "%%%"
	if _, err := p.MergedHist(0, 3, HistService); !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "op UPDATE totals") {
		t.Errorf("bad totals histogram: %v", err)
	}
	if h, err := p.MergedHist(0, 3, HistService, "READ"); err != nil || h.TotalCount() != 3 {
		t.Errorf("an op not asked for is not decoded: %v", err)
	}
	q := mergedPhase()
	for i := range q.Intervals {
		for k := range q.Intervals[i].Ops {
			q.Intervals[i].Ops[k].Hist = ""
		}
	}
	if q.HasIntervalHists() || !mergedPhase().HasIntervalHists() {
		t.Error("HasIntervalHists")
	}
	if h, err := q.MergedHist(1, 3, HistLatency); err != nil || h.TotalCount() != 0 {
		t.Errorf("intervals without histograms: %v, %d values, want an empty histogram", err, h.TotalCount())
	}
	// Totals without histograms: the whole phase is merged from the intervals.
	r := mergedPhase()
	r.Ops[0].Hist, r.Ops[1].Hist = "", ""
	if h, err := r.MergedHist(0, 3, HistLatency); err != nil || h.TotalCount() != 6 {
		t.Errorf("whole phase from the intervals: %v, %d values, want 6", err, h.TotalCount())
	}
}

// near: a and b agree to the histogram's 3 significant digits.
func near(a, b int64) bool { return a-b <= b/500 && b-a <= b/500 }
