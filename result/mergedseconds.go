package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"runtime"
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
		lw := newLineWriter(bw, runtime.GOMAXPROCS(0))
		head := *m
		head.Phases, head.Analysis = nil, nil
		lw.line(journalLine{Journal: JournalKind, Result: &head})
		var err error
		for i := range m.Phases {
			p := &m.Phases[i]
			if err = mergeSecondsOf(p, lw.acc, func(iv *Interval, acc *secondHists) error {
				lw.second(p.Name, iv, acc)
				return nil
			}); err != nil {
				err = fmt.Errorf("phase %s: %w", p.Name, err)
				break
			}
			lw.line(journalLine{Done: p})
		}
		if err == nil {
			lw.line(journalLine{End: true})
		}
		if werr := lw.close(); err == nil {
			err = werr
		}
		if err != nil {
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
// the loaders' seconds files once, side by side; the merged seconds go to
// the series as counts, neither encoded nor decoded.
func MergedSeries(p *Phase) ([]Interval, error) {
	var c Coarsener
	var one secondHists
	// A second of the first hour is summarized alone; a later one is added
	// straight into its stored interval's counts.
	accs := func(startNs int64) *secondHists {
		if c.Open(startNs) {
			one.clear()
			return &one
		}
		return &c.hists
	}
	if err := mergeSecondsOf(p, accs, func(iv *Interval, acc *secondHists) error {
		if acc == &one {
			for i := range iv.Ops {
				if cs := one.counts(iv.Ops[i].Op); cs != nil {
					iv.Ops[i].Latency = SummarizeCounts(cs)
				}
			}
		}
		c.AddCounted(*iv)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("phase %s: %w", p.Name, err)
	}
	return c.Finish(), nil
}

// mergeSecondsOf calls f with every merged second of p, in order: the
// seconds of its loaders (p.seconds, each shifted by its offset) whose
// start rounds to the same second, added together: iv with the counts,
// errors and bytes, acc (from accs, given the second's start: empty, or
// what the second's latencies are to be added to) with the latency counts
// of its ops.
func mergeSecondsOf(p *Phase, accs func(startNs int64) *secondHists, f func(iv *Interval, acc *secondHists) error) error {
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
		acc := accs(out.StartNs)
		for _, h := range heads {
			for h.iv != nil && h.slot == slot {
				if err := addSecond(out, h.iv, acc); err != nil {
					return err
				}
				advance(h)
			}
		}
		if err := f(out, acc); err != nil {
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

// lineWriter writes a seconds file's lines in order, the merged seconds
// encoded (summarized, their histograms encoded, JSON) by workers side by
// side: encoding a merged second's histograms at HdrHistogram's
// compression is most of what writing a day of them costs.
type lineWriter struct {
	free  chan *secondHists // empty accumulators, a few per worker
	jobs  chan *lineJob     // to the workers
	order chan *lineJob     // to the writer, in file order
	wrote chan error        // the writer's first error, when it is done
}

type lineJob struct {
	l    journalLine
	acc  *secondHists // the second's latency counts; nil: l is whole
	b    []byte
	err  error
	done chan struct{}
}

func newLineWriter(w io.Writer, workers int) *lineWriter {
	workers = max(workers, 1)
	lw := &lineWriter{free: make(chan *secondHists, 2*workers), jobs: make(chan *lineJob, 2*workers),
		order: make(chan *lineJob, 4*workers), wrote: make(chan error, 1)}
	for range 2 * workers {
		lw.free <- &secondHists{}
	}
	for range workers {
		go func() {
			for j := range lw.jobs {
				j.acc.encode(j.l.Interval)
				j.acc.clear()
				lw.free <- j.acc
				j.b, j.err = json.Marshal(j.l)
				close(j.done)
			}
		}()
	}
	go func() {
		var err error
		for j := range lw.order {
			<-j.done
			if err == nil {
				if err = j.err; err == nil {
					if _, err = w.Write(append(j.b, '\n')); err != nil {
						err = fmt.Errorf("writing: %w", err)
					}
				}
			}
		}
		lw.wrote <- err
	}()
	return lw
}

// acc is an empty accumulator for the next second (waiting for one a
// worker gave back).
func (lw *lineWriter) acc(int64) *secondHists { return <-lw.free }

// second queues a merged second of phase, its latency in acc.
func (lw *lineWriter) second(phase string, iv *Interval, acc *secondHists) {
	j := &lineJob{l: journalLine{Phase: phase, Interval: iv}, acc: acc, done: make(chan struct{})}
	lw.order <- j
	lw.jobs <- j
}

// line queues a line as it is.
func (lw *lineWriter) line(l journalLine) {
	j := &lineJob{done: make(chan struct{})}
	j.b, j.err = json.Marshal(l)
	close(j.done)
	lw.order <- j
}

// close waits for every line queued and returns the first error.
func (lw *lineWriter) close() error {
	close(lw.jobs)
	close(lw.order)
	return <-lw.wrote
}
