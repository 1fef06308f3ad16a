package result

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// SecondsPath names the seconds file of the result at path: "r.json" has
// "r.seconds.jsonl.zst". It is the run's journal, kept when the run ends:
// the header, every second of every phase with its histograms, and each
// phase whole when it ended (docs/result-schema.md, "Long runs"), JSON
// lines in a zstd stream (`zstdcat r.seconds.jsonl.zst | jq`).
func SecondsPath(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + secondsSuffix
}

// secondsSuffix ends a seconds file's name; before issue 47 it had no
// ".zst" (plain JSON lines), and such files are still read.
const secondsSuffix = ".seconds.jsonl.zst"

// legacySecondsPath is the name a seconds file at p had before issue 47
// (p without ".zst"), when p is a seconds file's name.
func legacySecondsPath(p string) (string, bool) {
	if !strings.HasSuffix(p, secondsSuffix) {
		return "", false
	}
	return strings.TrimSuffix(p, ".zst"), true
}

// SecondsFile is where the seconds of a result's streamed phases are: the
// journal while the run goes, the seconds file once it is written (Move).
// The phases of one result share it.
type SecondsFile struct {
	mu   sync.Mutex
	path string
}

// NewSecondsFile names the seconds file at path.
func NewSecondsFile(path string) *SecondsFile { return &SecondsFile{path: path} }

// Path is where the file is now.
func (s *SecondsFile) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.path
}

func (s *SecondsFile) moved(path string) {
	s.mu.Lock()
	s.path = path
	s.mu.Unlock()
}

// secondsRef is one source of a phase's seconds: the nth phase named name
// in the file (a sweep repeats names), whose offsets are offNs earlier than
// the phase's own (a merged part that started later).
type secondsRef struct {
	file  *SecondsFile
	name  string
	nth   int
	offNs int64
}

// UseSeconds says where p's seconds are: the nth phase (from 0) named
// p.Name in f, its offsets offNs after p's start. A merged phase has one
// per loader. MergedHist reads them for a window when the intervals carry
// no histograms.
func (p *Phase) UseSeconds(f *SecondsFile, nth int, offNs int64) {
	p.seconds = append(p.seconds, secondsRef{file: f, name: p.Name, nth: nth, offNs: offNs})
}

// UseSecondsOf points p at the seconds of q, whose offsets are offNs
// after p's (a merged phase and one loader's part).
func (p *Phase) UseSecondsOf(q *Phase, offNs int64) {
	for _, ref := range q.seconds {
		ref.offNs += offNs
		p.seconds = append(p.seconds, ref)
	}
}

// HasSeconds says whether p knows where its seconds are.
func (p *Phase) HasSeconds() bool { return len(p.seconds) > 0 }

// attachSeconds points every phase of r at the seconds file of the result
// at path, when there is one. A seconds file of another run (its header's
// start is not r's: a file copied or renamed beside the wrong result) is
// refused: the latency of a window would be read from the wrong run.
func attachSeconds(r *Result, path string) error {
	sp := SecondsPath(path)
	if _, err := os.Stat(sp); err != nil {
		legacy, _ := legacySecondsPath(sp)
		if _, err := os.Stat(legacy); err != nil {
			return nil // none: the figures that need it fall back to the totals
		}
		sp = legacy // written before issue 47
	}
	return UseSecondsFile(r, sp)
}

// UseSecondsFile points every phase of r at the seconds file at sp (a
// distributed run's loader 0 receives the other loaders' seconds files
// under names of its own). A file of another run is refused, as
// Read refuses one beside a result.
func UseSecondsFile(r *Result, sp string) error {
	f, err := os.Open(sp)
	if err != nil {
		return fmt.Errorf("%w: its seconds file: %v", ErrMalformed, err)
	}
	started, err := secondsStart(f)
	f.Close()
	if err != nil {
		return fmt.Errorf("%w: its seconds file %s: %v (fix: restore the run's own seconds file, or move that one away)", ErrMalformed, sp, err)
	}
	if !started.Equal(r.StartedAt) {
		return fmt.Errorf("%w: its seconds file %s is of another run (started %s, the result %s) (fix: restore the run's own seconds file, or move that one away)",
			ErrMalformed, sp, started.Format(time.RFC3339Nano), r.StartedAt.Format(time.RFC3339Nano))
	}
	sf := NewSecondsFile(sp)
	seen := map[string]int{}
	for i := range r.Phases {
		p := &r.Phases[i]
		p.UseSeconds(sf, seen[p.Name], 0)
		seen[p.Name]++
	}
	return nil
}

// secondsStart is the start of the run whose seconds file (journal) rd is:
// its header's started_at.
func secondsStart(rd io.Reader) (time.Time, error) {
	sc := newLineScanner(rd)
	if !sc.Scan() {
		return time.Time{}, fmt.Errorf("no header line: %v", cmp.Or(sc.Err(), io.EOF))
	}
	line := sc.Bytes()
	var head struct {
		Journal string `json:"journal"`
		Result  *struct {
			StartedAt time.Time `json:"started_at"`
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &head); err != nil || head.Result == nil || !strings.HasPrefix(head.Journal, "platbench.journal/") {
		return time.Time{}, fmt.Errorf("its first line is not a platbench journal header")
	}
	return head.Result.StartedAt, nil
}

// windowFromSeconds merges the latency histograms of the seconds in the
// time span of intervals [from, to) of p. Reading a long file costs time,
// so when the window is most of the phase it reads the rest instead and
// takes it off the phase totals.
func (p *Phase) windowFromSeconds(from, to int, ops []string) (*hdr.Histogram, error) {
	n := len(p.Intervals)
	from, to = max(from, 0), min(to, n)
	if from >= to {
		return NewHist(), nil
	}
	lo := p.Intervals[from].StartNs
	last := p.Intervals[to-1]
	hi := last.StartNs + last.DurationNs
	end := p.Intervals[n-1].StartNs + p.Intervals[n-1].DurationNs
	if hi-lo > end/2 && p.totalsHave(HistLatency, ops) {
		var tot *hdr.Histogram
		for i := range p.Ops {
			if err := mergeEncoded(&tot, p.Ops[i].Hist, p.Ops[i].Op, ops); err != nil {
				return nil, err
			}
		}
		if tot == nil {
			return NewHist(), nil
		}
		rest, err := p.readSeconds([][2]int64{{0, lo}, {hi, end}}, ops)
		if err != nil {
			return nil, err
		}
		return subtractHist(tot, rest)
	}
	return p.readSeconds([][2]int64{{lo, hi}}, ops)
}

// readSeconds merges the latency histograms of ops in the seconds of p that
// start within spans ([from, to) offsets from p's start).
func (p *Phase) readSeconds(spans [][2]int64, ops []string) (*hdr.Histogram, error) {
	var h *hdr.Histogram
	for _, ref := range p.seconds {
		if err := ref.read(spans, ops, &h); err != nil {
			return nil, fmt.Errorf("phase %s, seconds file: %w", p.Name, err)
		}
	}
	if h == nil {
		h = NewHist()
	}
	return h, nil
}

func (ref *secondsRef) read(spans [][2]int64, ops []string, h **hdr.Histogram) error {
	return ref.each(spans, func(iv *Interval) error {
		for _, o := range iv.Ops {
			if err := mergeEncoded(h, o.Hist, o.Op, ops); err != nil {
				return fmt.Errorf("op %s, second at %d ns: %w", o.Op, iv.StartNs, err)
			}
		}
		return nil
	})
}

// eachSecond calls f with every second of p, in order, from its seconds
// file (offsets as p's own).
func (p *Phase) eachSecond(f func(iv *Interval) error) error {
	if len(p.seconds) != 1 {
		return fmt.Errorf("phase %s: %d seconds files (one loader's phase has one)", p.Name, len(p.seconds))
	}
	ref := p.seconds[0]
	return ref.each([][2]int64{{math.MinInt64, math.MaxInt64}}, func(iv *Interval) error {
		iv.StartNs += ref.offNs
		return f(iv)
	})
}

// each calls f with the seconds of the phase whose start (plus offNs)
// falls in spans.
func (ref *secondsRef) each(spans [][2]int64, f func(iv *Interval) error) error {
	path := ref.file.Path()
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w (fix: keep %s beside its result file)", err, filepath.Base(path))
	}
	defer fh.Close()
	sc := newLineScanner(fh)
	prefix := []byte(`{"phase":` + strconv.Quote(ref.name) + `,"interval":{"start_ns":`)
	done := []byte(`{"done":{"name":` + strconv.Quote(ref.name) + `,`)
	nth := 0
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, done) {
			if nth == ref.nth {
				return nil
			}
			nth++
			continue
		}
		if nth != ref.nth || !bytes.HasPrefix(line, prefix) {
			continue
		}
		rest := line[len(prefix):]
		k := bytes.IndexByte(rest, ',')
		if k < 0 {
			continue // a torn last line
		}
		at, err := strconv.ParseInt(string(rest[:k]), 10, 64)
		if err != nil || !inSpans(at+ref.offNs, spans) {
			continue
		}
		var l journalLine
		if err := json.Unmarshal(line, &l); err != nil || l.Interval == nil {
			continue
		}
		if err := f(l.Interval); err != nil {
			return err
		}
	}
	return sc.Err()
}

func inSpans(at int64, spans [][2]int64) bool {
	for _, s := range spans {
		if at >= s[0] && at < s[1] {
			return true
		}
	}
	return false
}

// subtractHist is tot less part, both of NewHist's layout (part's values
// are among tot's).
func subtractHist(tot, part *hdr.Histogram) (*hdr.Histogram, error) {
	if part.TotalCount() == 0 {
		return tot, nil
	}
	a, b := tot.Export(), part.Export()
	for i, n := range b.Counts {
		if i >= len(a.Counts) || a.Counts[i] < n {
			return nil, fmt.Errorf("%w: the seconds file holds values the phase totals do not (fix: the seconds file written with this result)", ErrMalformed)
		}
		a.Counts[i] -= n
	}
	return hdr.Import(a), nil
}
