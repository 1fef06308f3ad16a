package result

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
// in the seconds file). Its memory is that series plus one counts array of
// NewHist's layout per op type of the interval being filled (no
// hdr.Histogram: summarizing one through its walks, and merging a decoded
// second into it, were most of a day-long merge's time). The zero value is
// ready.
type Coarsener struct {
	out   []Interval
	cur   *Interval
	curW  int64 // intended x duration of cur, summed
	hists secondHists
	nOps  int // op types of the last stored interval (room for the next)
}

// opCounts is a counts array of NewHist's layout and the highest index
// added to since it was last emptied (-1: none).
type opCounts struct {
	c  []uint64
	hi int
}

// add adds src (NewHist's layout, up to its highest index that counts).
func (o *opCounts) add(src []uint64) {
	for i, n := range src {
		o.c[i] += n
	}
	o.hi = max(o.hi, len(src)-1)
}

// take summarizes the counts and empties them; ok is false when none.
func (o *opCounts) take() (s Summary, ok bool) {
	if o.hi < 0 {
		return Summary{}, false
	}
	c := o.c[:o.hi+1]
	s = summarizeCounts(c)
	clear(c)
	o.hi = -1
	return s, s.Count > 0
}

// Open readies the stored interval that the second starting at startNs
// falls in, closing the one being filled if it is another, and says
// whether that second is stored whole (the first hour's 1 s tier). A
// caller that holds the second's latencies as counts rather than an
// encoded histogram adds them (Counts or AddCounts) after Open and before
// AddCounted.
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

// Counts is the latency counts array (NewHist's layout, histCountsLen
// long) of op in the stored interval being filled (after Open), for the
// caller to add to.
func (c *Coarsener) Counts(op string) []uint64 {
	o := c.hists.of(op)
	o.hi = len(o.c) - 1
	return o.c
}

// AddCounts adds src, latency counts of op (NewHist's layout, up to its
// highest index that counts), to the stored interval being filled (after
// Open).
func (c *Coarsener) AddCounts(op string, src []uint64) { c.hists.of(op).add(src) }

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
	return c.hists.add(o.Op, o.Hist)
}

// flush closes the interval being filled.
func (c *Coarsener) flush() {
	if c.cur == nil {
		return
	}
	for i := range c.cur.Ops {
		if o := c.hists.ops[c.cur.Ops[i].Op]; o != nil {
			if s, ok := o.take(); ok {
				c.cur.Ops[i].Latency = s
			}
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
			if o := c.hists.ops[cur.Ops[i].Op]; o != nil && o.hi >= 0 {
				if s := summarizeCounts(o.c[:o.hi+1]); s.Count > 0 {
					cur.Ops[i].Latency = s
				}
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

// secondHists is latency per op as counts arrays of NewHist's layout (a
// merged second's, a stored interval's), reused from second to second
// (addCounts adds to them without an hdr.Histogram).
type secondHists struct {
	ops map[string]*opCounts
}

// add adds one part's histogram of op (addEncoded: another layout is
// merged into NewHist's first, as MergeHist merges it).
func (a *secondHists) add(op, enc string) error {
	if enc == "" {
		return nil
	}
	o := a.of(op)
	hi, err := addEncoded(o.c, enc)
	o.hi = max(o.hi, hi)
	return err
}

// of is op's counts, made empty when op has none yet.
func (a *secondHists) of(op string) *opCounts {
	if a.ops == nil {
		a.ops = map[string]*opCounts{}
	}
	o := a.ops[op]
	if o == nil {
		o = &opCounts{c: make([]uint64, histCountsLen()), hi: -1}
		a.ops[op] = o
	}
	return o
}

// counts is op's merged latency counts up to the highest index that
// counts; nil when nothing was added.
func (a *secondHists) counts(op string) []uint64 {
	o := a.ops[op]
	if o == nil || o.hi < 0 {
		return nil
	}
	return o.c[:o.hi+1]
}

// encode gives each op of iv its merged latency, summarized and encoded
// (what Summarize gives of the hdr merge; its encoding decodes to the hdr
// merge, compressed at BestSpeed: fastEncoders).
func (a *secondHists) encode(iv *Interval) {
	for i := range iv.Ops {
		if c := a.counts(iv.Ops[i].Op); c != nil {
			iv.Ops[i].Latency, iv.Ops[i].Hist = SummarizeCounts(c), encodeWith(&fastEncoders, c)
		}
	}
}

// clear empties every op's counts for the next second.
func (a *secondHists) clear() {
	for _, o := range a.ops {
		if o.hi >= 0 {
			clear(o.c[:o.hi+1])
			o.hi = -1
		}
	}
}
