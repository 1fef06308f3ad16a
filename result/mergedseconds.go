package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
)

// WriteMergedSeconds writes the seconds file of m, a merged result whose
// phases read their loaders' seconds files (UseSecondsOf), to path
// (SecondsPath of m's file), and points m's phases at it: every merged
// second, the seconds of every loader that start in it added together
// (histograms merged, counts, errors and bytes summed, as package merge
// adds the stored intervals), read from the loaders' files side by side,
// one second of each at a time. A later reader of m finds it beside the
// file as it finds a run's own: a window's latency and the .hlog of the
// merged result come from every loader. A phase without seconds (a loader
// without a seconds file) has none in it.
func WriteMergedSeconds(path string, m *Result) error {
	sf := NewSecondsFile(path)
	err := WriteAtomic(path, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		enc := json.NewEncoder(bw)
		head := *m
		head.Phases, head.Analysis = nil, nil
		if err := enc.Encode(journalLine{Journal: JournalKind, Result: &head}); err != nil {
			return err
		}
		for i := range m.Phases {
			p := &m.Phases[i]
			if err := mergeSecondsOf(p, func(iv *Interval) error {
				return enc.Encode(journalLine{Phase: p.Name, Interval: iv})
			}); err != nil {
				return fmt.Errorf("phase %s: %w", p.Name, err)
			}
			if err := enc.Encode(journalLine{Done: p}); err != nil {
				return err
			}
		}
		if err := enc.Encode(journalLine{End: true}); err != nil {
			return err
		}
		return bw.Flush()
	})
	if err != nil {
		return fmt.Errorf("writing the merged seconds file %s: %w", path, err)
	}
	seen := map[string]int{}
	for i := range m.Phases {
		p := &m.Phases[i]
		if p.HasSeconds() {
			p.seconds = nil
			p.UseSeconds(sf, seen[p.Name], 0)
		}
		seen[p.Name]++
	}
	return nil
}

// MergedSeries is the stored series (SeriesWidth) of p, a merged phase
// whose loaders' seconds are at hand (UseSecondsOf): the merged seconds
// (as WriteMergedSeconds writes them) coarsened, so each stored interval
// has the latency summary of every loader's seconds in it, which the
// loaders' stored intervals, without histograms, cannot give. It reads
// the loaders' seconds files once, side by side.
func MergedSeries(p *Phase) ([]Interval, error) {
	var c Coarsener
	if err := mergeSecondsOf(p, func(iv *Interval) error { return c.Add(*iv) }); err != nil {
		return nil, fmt.Errorf("phase %s: %w", p.Name, err)
	}
	return c.Finish(), nil
}

// mergeSecondsOf calls f with every merged second of p, in order: the
// seconds of its loaders (p.seconds, each shifted by its offset) whose
// start rounds to the same second, added together.
func mergeSecondsOf(p *Phase, f func(iv *Interval) error) error {
	if len(p.seconds) == 0 {
		return nil
	}
	type head struct {
		next func() (*Interval, bool)
		iv   *Interval
		slot int64
	}
	var heads []*head
	var errs []error
	var acc secondHists
	for _, ref := range p.seconds {
		next, stop := iter.Pull(secondsOf(ref, &errs))
		defer stop()
		h := &head{next: next}
		heads = append(heads, h)
	}
	advance := func(h *head) {
		iv, ok := h.next()
		h.iv = nil
		if ok {
			h.iv, h.slot = iv, int64(math.Round(float64(iv.StartNs)/1e9))
		}
	}
	for _, h := range heads {
		advance(h)
	}
	for {
		slot := int64(math.MaxInt64)
		for _, h := range heads {
			if h.iv != nil && h.slot < slot {
				slot = h.slot
			}
		}
		if slot == math.MaxInt64 {
			break
		}
		out := &Interval{StartNs: slot * 1e9}
		for _, h := range heads {
			for h.iv != nil && h.slot == slot {
				if err := addSecond(out, h.iv, &acc); err != nil {
					return err
				}
				advance(h)
			}
		}
		for i := range out.Ops {
			if sum, enc, ok := acc.take(out.Ops[i].Op); ok {
				out.Ops[i].Latency, out.Ops[i].Hist = sum, enc
			}
		}
		if err := f(out); err != nil {
			return err
		}
	}
	return errors.Join(errs...)
}

// secondsOf is the seconds of ref, shifted by its offset; a read error is
// added to errs.
func secondsOf(ref secondsRef, errs *[]error) iter.Seq[*Interval] {
	stopped := errors.New("stopped")
	return func(yield func(*Interval) bool) {
		err := ref.each([][2]int64{{math.MinInt64, math.MaxInt64}}, func(iv *Interval) error {
			iv.StartNs += ref.offNs
			if !yield(iv) {
				return stopped
			}
			return nil
		})
		if err != nil && !errors.Is(err, stopped) {
			*errs = append(*errs, err)
		}
	}
}

// addSecond adds one loader's second to the merged one.
func addSecond(out, iv *Interval, acc *secondHists) error {
	out.DurationNs = max(out.DurationNs, iv.DurationNs)
	out.IntendedOpsPerS += iv.IntendedOpsPerS
	for _, o := range iv.Ops {
		opOf(&out.Ops, o.Op).addCounts(&o)
		if err := acc.add(o.Op, o.Hist); err != nil {
			return fmt.Errorf("op %s, second at %d ns: %w", o.Op, iv.StartNs, err)
		}
	}
	return nil
}

// secondHists is a merged second's histograms per op as they are added:
// a counts array of NewHist's layout each, reused from second to second
// (addCounts adds to it without an hdr.Histogram).
type secondHists struct {
	counts map[string][]uint64
	hi     map[string]int // the highest index added to since the last take
}

// add adds one part's histogram of op. One addCounts does not take (another
// layout) is decoded and merged into NewHist's layout first, as MergeHist
// merges it.
func (a *secondHists) add(op, enc string) error {
	if enc == "" {
		return nil
	}
	if a.counts == nil {
		a.counts, a.hi = map[string][]uint64{}, map[string]int{}
	}
	c, seen := a.counts[op]
	if !seen {
		c = make([]uint64, histCountsLen())
		a.counts[op], a.hi[op] = c, -1
	}
	hi, ok := addCounts(c, enc)
	if !ok {
		h, err := DecodeHist(enc)
		if err != nil {
			return err
		}
		into := NewHist()
		if err := MergeHist(&into, h); err != nil {
			return err
		}
		for i, n := range into.Export().Counts {
			if n > 0 {
				c[i] += uint64(n)
				hi = i
			}
		}
	}
	a.hi[op] = max(a.hi[op], hi)
	return nil
}

// take returns op's merged histogram, summarized and encoded (what
// Summarize and EncodeHist give of it), and empties it for the next
// second; ok is false when nothing was added.
func (a *secondHists) take(op string) (sum Summary, enc string, ok bool) {
	hi, seen := a.hi[op]
	if !seen || hi < 0 {
		return Summary{}, "", false
	}
	c := a.counts[op][:hi+1]
	a.hi[op] = -1
	sum, enc = SummarizeCounts(c), EncodeCounts(c)
	clear(c)
	return sum, enc, true
}
