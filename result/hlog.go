package result

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// WriteHlog writes the main phase's interval histograms to w as a
// standard HdrHistogram interval log (format 1.3), one tagged line per op
// type per interval, readable by HdrHistogram's HistogramLogProcessor (-tag
// READ picks an op). Values are nanoseconds; the Interval_Max column is in
// milliseconds, as the Java writer does by default. Timestamps are seconds
// relative to the StartTime line (no BaseTime line), which the reader
// accepts as relative times.
//
// Written by hand: the hdrhistogram-go log writer mixes milliseconds and
// seconds in its timestamp columns.
//
// A streamed phase's seconds are read from its seconds file; a long one's
// log is large (a day of ten op types, about 2 GB): it goes to w as it is
// read, not held.
func WriteHlog(w io.Writer, r *Result) error {
	p := r.MainPhase()
	if p == nil {
		return fmt.Errorf("%w: no phase", ErrMalformed)
	}
	bw := bufio.NewWriter(w)
	writeHlogHeader(bw, r, p.Name, p.StartedAt)
	if !p.HasIntervalHists() && p.HasSeconds() {
		if err := p.eachSecond(func(iv *Interval) error { writeHlogInterval(bw, iv); return nil }); err != nil {
			return err
		}
	} else {
		for i := range p.Intervals {
			writeHlogInterval(bw, &p.Intervals[i])
		}
	}
	return bw.Flush()
}

func writeHlogHeader(w io.Writer, r *Result, phase string, start time.Time) {
	fmt.Fprintf(w, "#[platbench %s: target %s, workload %s, phase %s; values in ns]\n", r.Tool.Version, r.Target.Kind, r.Config.Workload.Name, phase)
	fmt.Fprintf(w, "#[Histogram log format version 1.3]\n")
	fmt.Fprintf(w, "#[StartTime: %.3f (seconds since epoch), %s]\n", float64(start.UnixMilli())/1e3, start.UTC().Format(time.RFC1123))
	fmt.Fprintf(w, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n")
}

func writeHlogInterval(w io.Writer, iv *Interval) {
	for _, o := range iv.Ops {
		if o.Hist == "" {
			continue
		}
		fmt.Fprintf(w, "Tag=%s,%.3f,%.3f,%.3f,%s\n", o.Op, float64(iv.StartNs)/1e9, float64(iv.DurationNs)/1e9, float64(o.Latency.MaxNs)/1e6, o.Hist)
	}
}

// HlogStream writes the .hlog of a run's "run" phase as the run goes (the
// journal tees each of its seconds in): a loader killed mid-run leaves a
// log of every second it completed. Each second is one write(2), as the
// journal's lines. Its StartTime is the phase's start as the first second
// tells it (its end less its offset, to the millisecond or so).
type HlogStream struct {
	mu     sync.Mutex
	f      *os.File
	phase  string
	begun  bool
	done   bool // the phase ended: a later phase of the name is not this one
	buf    bytes.Buffer
	err    error
	closed bool
}

// CreateHlogStream creates the log at path (a run's PartialHlogPath,
// beside its journal: one that is there is refused, as the journal is),
// for the intervals of the phase named phase.
func CreateHlogStream(path, phase string) (*HlogStream, error) {
	f, err := CreateExclusive(path)
	if errors.Is(err, fs.ErrExist) {
		return nil, JournalInTheWay(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write the HdrHistogram log %s: %w (check that the directory is writable)", path, err)
	}
	return &HlogStream{f: f, phase: phase}, nil
}

// interval writes one second of phase (ignored for other phases, and for
// a second phase of the same name: one log, one phase).
func (h *HlogStream) interval(r *Result, phase string, iv *Interval) {
	if h == nil || phase != h.phase {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.err != nil || h.done || h.closed {
		return
	}
	h.buf.Reset()
	if !h.begun {
		h.begun = true
		start := time.Now().Add(-time.Duration(iv.StartNs + iv.DurationNs))
		writeHlogHeader(&h.buf, r, phase, start)
	}
	writeHlogInterval(&h.buf, iv)
	if _, err := h.f.Write(h.buf.Bytes()); err != nil {
		h.err = err
	}
}

// phaseDone marks the end of a phase.
func (h *HlogStream) phaseDone(name string) {
	if h == nil || name != h.phase {
		return
	}
	h.mu.Lock()
	h.done = h.done || h.begun
	h.mu.Unlock()
}

// Wrote says whether the log holds the phase (it began, nothing failed).
func (h *HlogStream) Wrote() bool {
	if h == nil {
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.begun && h.err == nil
}

// Close closes the log and returns the first error it met.
func (h *HlogStream) Close() error {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.closed {
		h.closed = true
		// Synced once, at the end, as the journal is.
		if err := errors.Join(h.f.Sync(), h.f.Close()); h.err == nil {
			h.err = err
		}
	}
	return h.err
}

// size is the bytes the log holds now (0 once closed).
func (h *HlogStream) size() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return 0
	}
	st, err := h.f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}
