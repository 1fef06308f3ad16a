package result

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// The stored interval series of a streamed phase (docs/result-schema.md,
// "Long runs"): 1 s intervals for the first hour, then 10 s ones up to a
// day, then 1 min ones, so a week-long phase keeps about 12,000 intervals
// rather than 600,000. Every second, with its histograms, is in the run's
// seconds file (the sidecar, SecondsSuffix).
const (
	SeriesFineNs   int64 = 3600e9  // 1 s intervals before this offset
	SeriesMediumNs int64 = 86400e9 // 10 s intervals before this one, 1 min after
)

// SeriesWidth is the width of the stored interval that holds the second
// starting at offset startNs of a phase, and where that tier begins.
func SeriesWidth(startNs int64) (width, tierStart int64) {
	switch {
	case startNs < SeriesFineNs:
		return 1e9, 0
	case startNs < SeriesMediumNs:
		return 10e9, SeriesFineNs
	}
	return 60e9, SeriesMediumNs
}

// Coarsener folds a phase's 1 s intervals, in order, into its stored series
// (SeriesWidth): the intervals it keeps carry counts, errors, bytes and the
// latency summary of the seconds they hold, without histograms (those are
// in the seconds file). Its memory is that series plus one histogram per op
// type of the interval being filled. The zero value is ready.
type Coarsener struct {
	out   []Interval
	cur   *Interval
	curW  int64 // intended x duration of cur, summed
	hists map[string]*hdr.Histogram
	nOps  int // op types of the last stored interval (room for the next)
}

// Open readies the stored interval that the second starting at startNs
// falls in, closing the one being filled if it is another, and says
// whether that second is stored whole (the first hour's 1 s tier). A
// caller that holds the second's latencies as counts rather than an
// encoded histogram adds them to Hist(op) after Open and before AddCounted.
func (c *Coarsener) Open(startNs int64) (whole bool) {
	w, tier := SeriesWidth(startNs)
	if w == 1e9 {
		c.flush()
		return true
	}
	start := tier + (startNs-tier)/w*w
	if c.cur != nil && c.cur.StartNs != start {
		c.flush()
	}
	if c.cur == nil {
		c.cur = &Interval{StartNs: start}
		c.curW = 0
	}
	return false
}

// Hist is the latency histogram of op in the stored interval being filled
// (after Open).
func (c *Coarsener) Hist(op string) *hdr.Histogram {
	if c.hists == nil {
		c.hists = map[string]*hdr.Histogram{}
	}
	h := c.hists[op]
	if h == nil {
		h = NewHist()
		c.hists[op] = h
	}
	return h
}

// Add folds the next 1 s interval in. A histogram that does not decode is
// an error wrapping ErrMalformed (the interval's counts are still added).
func (c *Coarsener) Add(iv Interval) error { return c.add(iv, true) }

// AddCounted is Add for a second whose latencies went into Hist already:
// its encoded histograms are not read.
func (c *Coarsener) AddCounted(iv Interval) { _ = c.add(iv, false) }

func (c *Coarsener) add(iv Interval, decode bool) error {
	w, tier := SeriesWidth(iv.StartNs)
	if w == 1e9 {
		c.flush()
		ops := make([]IntervalOp, len(iv.Ops))
		for i, o := range iv.Ops {
			o.Hist = ""
			ops[i] = o
		}
		iv.Ops = ops
		c.out = append(c.out, iv)
		return nil
	}
	start := tier + (iv.StartNs-tier)/w*w
	if c.cur != nil && c.cur.StartNs != start {
		c.flush()
	}
	if c.cur == nil {
		c.cur = &Interval{StartNs: start}
		c.curW = 0
	}
	cur := c.cur
	cur.DurationNs = iv.StartNs + iv.DurationNs - cur.StartNs
	c.curW += int64(iv.IntendedOpsPerS * float64(iv.DurationNs))
	if cur.DurationNs > 0 {
		cur.IntendedOpsPerS = float64(c.curW) / float64(cur.DurationNs)
	}
	var err error
	for _, o := range iv.Ops {
		if !decode {
			o.Hist = ""
		}
		if e := c.addOp(o); e != nil && err == nil {
			err = e
		}
	}
	return err
}

func (c *Coarsener) addOp(o IntervalOp) error {
	cur := c.cur
	if cur.Ops == nil {
		cur.Ops = make([]IntervalOp, 0, c.nOps)
	}
	opOf(&cur.Ops, o.Op).addCounts(&o)
	if o.Hist == "" {
		return nil
	}
	h, err := DecodeHist(o.Hist)
	if err != nil {
		return err
	}
	if dropped := c.Hist(o.Op).Merge(h); dropped > 0 {
		return fmt.Errorf("%w: %d values outside the histogram range", ErrMalformed, dropped)
	}
	return nil
}

// flush closes the interval being filled.
func (c *Coarsener) flush() {
	if c.cur == nil {
		return
	}
	for i := range c.cur.Ops {
		if h := c.hists[c.cur.Ops[i].Op]; h != nil && h.TotalCount() > 0 {
			// hdr's own walks: the same figures as Summarize without
			// Summarize's copy of the counts (a quarter megabyte per op
			// every stored interval).
			c.cur.Ops[i].Latency = summarizeHdr(h)
			h.Reset()
		}
	}
	c.nOps = len(c.cur.Ops)
	c.out = append(c.out, *c.cur)
	c.cur = nil
}

// Finish closes the interval being filled and returns the series.
func (c *Coarsener) Finish() []Interval {
	c.flush()
	return c.out
}

// Snapshot is a copy of the series so far, the interval being filled
// included as it stands (a live reader's view); Add goes on after it.
func (c *Coarsener) Snapshot() []Interval {
	out := make([]Interval, len(c.out), len(c.out)+1)
	copy(out, c.out)
	if c.cur != nil {
		cur := *c.cur
		cur.Ops = append([]IntervalOp(nil), cur.Ops...)
		for i := range cur.Ops {
			if h := c.hists[cur.Ops[i].Op]; h != nil && h.TotalCount() > 0 {
				cur.Ops[i].Latency = Summarize(h)
			}
		}
		out = append(out, cur)
	}
	return out
}

// opOf is the entry of op in *ops, appended when there is none.
func opOf(ops *[]IntervalOp, op string) *IntervalOp {
	for i := range *ops {
		if (*ops)[i].Op == op {
			return &(*ops)[i]
		}
	}
	*ops = append(*ops, IntervalOp{Op: op})
	return &(*ops)[len(*ops)-1]
}

// addCounts adds o's completions, bytes and errors by class to t.
func (t *IntervalOp) addCounts(o *IntervalOp) {
	t.Count += o.Count
	t.Bytes += o.Bytes
	for cl, n := range o.Errors {
		if t.Errors == nil {
			t.Errors = map[string]uint64{}
		}
		t.Errors[cl] += n
	}
}
