package result

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"
	"os"
	"path/filepath"
	"runtime"
)

// MergedSeconds writes the seconds file of a merged result m (whose phases
// read their loaders' seconds files: UseSecondsOf) at path (SecondsPath of
// m's file): every merged second, the seconds of every loader that start
// in it added together (histograms merged, counts, errors and bytes
// summed, as package merge adds the stored intervals), read from the
// loaders' files side by side, one second of each at a time. Series makes
// a merged phase's stored series in the same pass over its loaders'
// seconds, the merged seconds waiting in a file beside path; Finish writes
// the seconds file (the header, which is the merged result, first), the
// phases Series did not make merged then, and points m's phases at it. A
// later reader of m finds it beside the file as it finds a run's own: a
// window's latency and the .hlog of the merged result come from every
// loader. A phase without seconds (a loader without a seconds file) has
// none in it.
type MergedSeconds struct {
	path  string
	body  *os.File // the seconds Series merged, until Finish
	bw    *bufio.Writer
	spans map[int][2]int64 // a phase's (index in m) seconds in body
	err   error            // the first that keeps the file from being written
}

// NewMergedSeconds is the writer of the merged seconds file at path; Close
// (or Finish) removes what it leaves.
func NewMergedSeconds(path string) *MergedSeconds {
	w := &MergedSeconds{path: path, spans: map[int][2]int64{}}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		w.err = err
		return w
	}
	w.body, w.bw = f, bufio.NewWriterSize(f, 1<<20)
	return w
}

// Series is MergedSeries of p, the merged phase that is m.Phases[i], whose
// merged seconds go to the seconds file too (encoded by workers side by
// side while the series is made).
func (w *MergedSeconds) Series(i int, p *Phase) ([]Interval, error) {
	if w.err != nil || w.body == nil {
		return MergedSeries(p)
	}
	from, err := w.body.Seek(0, io.SeekCurrent)
	if err != nil {
		w.err = err
		return MergedSeries(p)
	}
	from += int64(w.bw.Buffered())
	lw := newLineWriter(w.bw, runtime.GOMAXPROCS(0))
	series, err := mergedSeries(p, lw)
	werr := lw.close()
	if werr == nil {
		werr = w.bw.Flush()
	}
	switch {
	case err != nil:
		w.err = err
		return nil, err
	case werr != nil:
		w.err = werr
	default:
		to, err := w.body.Seek(0, io.SeekCurrent)
		if err != nil {
			w.err = err
		}
		w.spans[i] = [2]int64{from, to}
	}
	return series, nil
}

// Finish writes the seconds file of m and points m's phases at it, then
// removes what Series left beside it.
func (w *MergedSeconds) Finish(m *Result) error {
	defer w.Close()
	err := w.err
	if err == nil && len(w.spans) > 0 && w.body == nil {
		err = errors.New("its merged seconds were removed before it was written (Close before Finish)")
	}
	if err == nil {
		err = WriteAtomic(w.path, func(out io.Writer) error {
			zw := NewSecondsWriter(out)
			defer zw.Close()
			bw := bufio.NewWriterSize(zw, 1<<20)
			lw := newLineWriter(bw, runtime.GOMAXPROCS(0))
			head := *m
			head.Phases, head.Analysis = nil, nil
			lw.line(journalLine{Journal: JournalKind, Result: &head})
			var err error
			for i := range m.Phases {
				p := &m.Phases[i]
				if span, ok := w.spans[i]; ok {
					lw.copy(io.NewSectionReader(w.body, span[0], span[1]-span[0]))
				} else if err = mergeSecondsOf(p, lw.acc, func(iv *Interval, acc *secondHists) error {
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
			return errors.Join(bw.Flush(), zw.Close())
		})
	}
	if err != nil {
		return fmt.Errorf("writing the merged seconds file %s: %w", w.path, err)
	}
	sf := NewSecondsFile(w.path)
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

// Close removes the seconds Series merged (Finish has copied them).
func (w *MergedSeconds) Close() {
	if w.body != nil {
		w.body.Close()
		os.Remove(w.body.Name())
		w.body = nil
	}
}

// MergedSeries is the stored series (SeriesWidth) of p, a merged phase
// whose loaders' seconds are at hand (UseSecondsOf): the merged seconds
// (as MergedSeconds writes them) coarsened, so each stored interval has
// the latency summary of every loader's seconds in it, which the loaders'
// stored intervals, without histograms, cannot give. It reads the loaders'
// seconds files once, side by side; the merged seconds go to the series as
// counts, neither encoded nor decoded.
func MergedSeries(p *Phase) ([]Interval, error) { return mergedSeries(p, nil) }

// mergedSeries is MergedSeries; with lw, each merged second is also queued
// to lw (encoded and written by its workers).
func mergedSeries(p *Phase, lw *lineWriter) ([]Interval, error) {
	var c Coarsener
	var one secondHists
	// Without lw a second of the first hour is summarized alone and a
	// later one added straight into its stored interval's counts; with lw
	// each second has its own counts, for its line.
	accs := func(startNs int64) *secondHists {
		if lw != nil {
			return lw.acc(startNs)
		}
		if c.Open(startNs) {
			one.clear()
			return &one
		}
		return &c.hists
	}
	if err := mergeSecondsOf(p, accs, func(iv *Interval, acc *secondHists) error {
		whole := c.Open(iv.StartNs)
		if acc != &c.hists {
			for i := range iv.Ops {
				switch cs := acc.counts(iv.Ops[i].Op); {
				case cs == nil:
				case whole:
					iv.Ops[i].Latency = SummarizeCounts(cs)
				default:
					c.AddCounts(iv.Ops[i].Op, cs)
				}
			}
		}
		c.AddCounted(*iv)
		if lw != nil {
			lw.second(p.Name, iv, acc)
		}
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
	src  io.Reader    // lines written before, copied as they are (with b nil)
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
			switch {
			case err != nil:
			case j.err != nil:
				err = j.err
			case j.src != nil:
				if _, err = io.Copy(w, j.src); err != nil {
					err = fmt.Errorf("copying the merged seconds: %w", err)
				}
			default:
				if _, err = w.Write(append(j.b, '\n')); err != nil {
					err = fmt.Errorf("writing: %w", err)
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

// copy queues lines read from src, copied as they are.
func (lw *lineWriter) copy(src io.Reader) {
	j := &lineJob{src: src, done: make(chan struct{})}
	close(j.done)
	lw.order <- j
}

// close waits for every line queued and returns the first error.
func (lw *lineWriter) close() error {
	close(lw.jobs)
	close(lw.order)
	return <-lw.wrote
}
