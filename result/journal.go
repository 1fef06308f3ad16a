package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// A journal is what a run writes as it goes, beside its result file
// (RESULT.partial): one JSON line per event, written the moment the event
// happens. The result file itself is written once, at the end, and the
// journal removed; when the loader is killed before that (the OOM killer, a
// preempted spot loader, a Kubernetes eviction: nothing can catch SIGKILL)
// the journal is what is left, and ReadJournal makes a result of it that
// `platbench report` and `compare` read, marked cut short.
//
// Lines, in order: a header (the run's result before any phase ran: config,
// platform, target), then per phase every closed 1 s interval, then the
// phase itself, whole, when it ends (totals and fine buckets). Each line goes to the file with one write(2) as it is
// made: a killed process loses nothing written, a crash of the machine
// loses what the page cache had not flushed (no fsync: a second's line
// does not wait for the disk). A torn last line (the kill came mid-write)
// is ignored.

// JournalKind names the journal format in its header line. v2 (issue 34)
// added telemetry samples and the end line; a v1 journal (intervals and
// phases only) reads the same way.
const JournalKind = "platbench.journal/v2"

// journalV1 is the first journal format, still read.
const journalV1 = "platbench.journal/v1"

// JournalSuffix is appended to a result path to name its journal.
const JournalSuffix = ".partial"

type journalLine struct {
	Journal  string    `json:"journal,omitempty"` // header: JournalKind
	Result   *Result   `json:"result,omitempty"`  // header
	Phase    string    `json:"phase,omitempty"`   // the interval's phase
	Interval *Interval `json:"interval,omitempty"`
	Done     *Phase    `json:"done,omitempty"` // a finished phase, whole
	End      bool      `json:"end,omitempty"`  // the run ended and its result was written
	// Sample is one telemetry sample (host, server node, db metrics).
	Sample *TelemetrySample `json:"sample,omitempty"`
}

// Journal writes a run's journal. Its methods may be called from several
// goroutines; an error is kept and returned by Close (the run goes on: the
// journal is insurance, the result file the contract).
type Journal struct {
	mu   sync.Mutex
	f    *os.File
	zw   *zstd.Encoder // compresses what goes to f (zst.go)
	path string
	buf  bytes.Buffer
	err  error
	sf   *SecondsFile
	head *Result        // the header, for the .hlog's
	hlog *HlogStream    // TeeHlog
	done map[string]int // phases written whole (PhaseDone), by name
}

// TeeHlog writes the seconds of h's phase to h as well, as they come.
func (j *Journal) TeeHlog(h *HlogStream) {
	if j != nil {
		j.hlog = h
	}
}

// CreateJournal creates the journal at path. One that is there (a run
// cut short, or one still running) is never truncated: it is refused
// (JournalInTheWay), as the command line refuses it before the run.
// A fine-bucket file beside it that has no journal (a --force run over
// the leftovers of an earlier one) is removed: it would be taken for
// this run's. A file at that name that is not platbench's fine-bucket file
// (its header says) is never removed: the run is refused.
func CreateJournal(path string) (*Journal, error) {
	f, err := CreateExclusive(path)
	if errors.Is(err, fs.ErrExist) {
		return nil, JournalInTheWay(path)
	}
	if err != nil {
		return nil, fmt.Errorf("cannot write the run's journal %s: %w (check that the directory is writable)", path, err)
	}
	// Only now: a fine file beside a journal that was there is that
	// (killed) run's, which reading its journal needs.
	if err := removeStaleFine(FinePath(path)); err != nil {
		f.Close()
		os.Remove(path) // the empty journal just created
		return nil, err
	}
	return &Journal{f: f, zw: NewSecondsWriter(f), path: path, sf: NewSecondsFile(path)}, nil
}

// removeStaleFine removes the fine-bucket file an earlier run left at path,
// after checking its header line is platbench's; nothing there is fine.
func removeStaleFine(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("cannot read %s, where the run keeps its fine buckets: %w (fix: remove it, or write the result elsewhere)", path, err)
	}
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	f.Close()
	line, _, _ := bytes.Cut(head[:n], []byte("\n"))
	var h fineHeader
	if json.Unmarshal(line, &h) != nil || h.Kind != fineKind {
		return fmt.Errorf("%s is in the way of the run's fine buckets and is not a file platbench wrote: platbench never removes a file it did not make (fix: move it, or write the result elsewhere)", path)
	}
	return os.Remove(path)
}

// Path is where the journal is.
func (j *Journal) Path() string { return j.path }

// Seconds is where the journal's seconds are: here while the run goes, in
// the seconds file once Keep moved it there (nil on a nil journal).
func (j *Journal) Seconds() *SecondsFile {
	if j == nil {
		return nil
	}
	return j.sf
}

func (j *Journal) line(l journalLine) {
	if j == nil {
		return
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return
	}
	j.buf.Reset()
	if err := json.NewEncoder(&j.buf).Encode(l); err != nil {
		j.err = err
		return
	}
	// One flush a line: what a killed loader leaves ends with it.
	_, err := j.zw.Write(j.buf.Bytes())
	if err == nil {
		err = j.zw.Flush()
	}
	if err != nil {
		j.err = fmt.Errorf("writing the run's journal %s: %w", j.path, err)
	}
}

// Begin writes the header: r as it is before any phase ran.
func (j *Journal) Begin(r *Result) {
	h := *r
	h.Phases = nil
	if j != nil {
		j.head = &h
	}
	j.line(journalLine{Journal: JournalKind, Result: &h})
}

// Start writes the header and returns Interval for the runner to call (nil
// on a nil journal: no journal, nothing to call).
func (j *Journal) Start(r *Result) func(phase string, iv Interval) {
	if j == nil {
		return nil
	}
	j.Begin(r)
	return j.Interval
}

// Interval writes one closed interval of phase.
func (j *Journal) Interval(phase string, iv Interval) {
	j.line(journalLine{Phase: phase, Interval: &iv})
	if j != nil && j.head != nil {
		j.hlog.interval(j.head, phase, &iv)
	}
}

// Sample writes one telemetry sample as a collector took it.
func (j *Journal) Sample(s TelemetrySample) {
	j.line(journalLine{Sample: &s})
}

// PhaseDone writes a finished phase, whole (with its last, partial
// interval, which closed at its end).
func (j *Journal) PhaseDone(p *Phase) {
	j.line(journalLine{Done: p})
	if j != nil {
		j.hlog.phaseDone(p.Name)
		j.mu.Lock()
		if j.done == nil {
			j.done = map[string]int{}
		}
		j.done[p.Name]++
		j.mu.Unlock()
	}
}

// Series is the stored series (Coarsener) of the phase named name that is
// running, or has just stopped and is not written whole yet: its seconds
// read back from the journal and folded as they are read. A streamed
// recorder keeps no per-second data in memory (recorder.Config.OnInterval);
// the result's series is made here, once, when the phase ends, so the
// memory it takes is the result's own series, not every second's.
func (j *Journal) Series(name string) ([]Interval, error) {
	if j == nil {
		return nil, nil
	}
	j.mu.Lock()
	err, nth := j.err, j.done[name]
	j.mu.Unlock()
	if err != nil {
		return nil, err // what is on disk is not every second
	}
	var c Coarsener
	ref := secondsRef{file: j.sf, name: name, nth: nth}
	err = ref.each([][2]int64{{math.MinInt64, math.MaxInt64}}, func(iv *Interval) error {
		if err := c.Add(*iv); err != nil {
			return fmt.Errorf("second at %d ns: %w", iv.StartNs, err)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("phase %s, reading its seconds back from the journal %s: %w", name, j.sf.Path(), err)
	}
	return c.Finish(), nil
}

// Keep ends the journal (a line saying the run ended, so that it no longer
// reads as cut short), closes it and moves it to path: the result's seconds
// file (SecondsPath). A journal that could not be written whole is deleted
// instead, and the error returned; one that never began (Begin: the run
// went through a runner that writes none) is deleted, and nil returned.
func (j *Journal) Keep(path string) error {
	if j == nil {
		return nil
	}
	if j.head == nil {
		return j.Close(true)
	}
	j.line(journalLine{End: true})
	j.mu.Lock()
	defer j.mu.Unlock()
	os.Remove(FinePath(j.path)) // a phase's, read back when it ended
	// Synced once, at the end: the seconds file is as durable as the
	// result it goes with.
	if err := errors.Join(j.err, j.zw.Close(), j.f.Sync(), j.f.Close()); err != nil {
		os.Remove(j.path)
		return err
	}
	if err := RenameSynced(j.path, path); err != nil {
		os.Remove(j.path)
		return fmt.Errorf("cannot keep the run's seconds as %s: %w", path, err)
	}
	j.path = path
	j.sf.moved(path)
	return nil
}

// Close closes the journal and, with remove (the result file is written),
// deletes it; a journal that could not be written whole (a full disk) is
// deleted too: it would be half a record. It returns the first error the
// journal met.
func (j *Journal) Close(remove bool) error {
	if j == nil {
		return nil
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	err := errors.Join(j.err, j.zw.Close(), j.f.Close())
	if remove || err != nil {
		os.Remove(j.path)
		os.Remove(FinePath(j.path))
	}
	return err
}

// Telemetry is the run's telemetry series so far as the journal holds
// them, every sample thinned as Thin thins, in a Result's Host, Nodes and
// DBMetrics (their samples and start: the collectors have the rest). The
// collectors keep at most 16 samples a series in memory (Thin.Wide); the result's
// series are read back here once, when the run ends.
func (j *Journal) Telemetry() (*Result, error) {
	if j == nil {
		return nil, nil
	}
	j.mu.Lock()
	err := j.err
	j.mu.Unlock()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(j.sf.Path())
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := newLineScanner(f)
	prefix := []byte(`{"sample":`)
	tel := &journalTelemetry{}
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), prefix) {
			continue
		}
		var l journalLine
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Sample == nil {
			continue // a torn last line
		}
		tel.add(l.Sample)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the telemetry back from the journal %s: %w", j.sf.Path(), err)
	}
	r := &Result{}
	tel.fill(r)
	return r, nil
}

// IsJournal says whether data begins as a journal does.
func IsJournal(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeft(data, " \t\r\n"), []byte(`{"journal":`))
}

// ReadJournal makes a result of a journal: every phase it saw, each with
// every interval that closed, folded into the stored series as a run keeps
// it (Coarsener: a day-long journal reads in bounded memory). A phase that
// ended has its totals as the run wrote them; one cut short has totals
// merged from its intervals (latency only: service time and lag are kept
// per phase, at its end), is marked interrupted, and, unless the journal
// saw the run's end (a seconds file), the result is marked cut short with a
// note saying how far it got.
func ReadJournal(rd io.Reader) (*Result, error) { return readJournal(rd, "") }

// readJournal is ReadJournal; a phase cut short takes its fine buckets
// from the fine-bucket file at finePath when it is that phase's (the
// loader was killed during it).
func readJournal(rd io.Reader, finePath string) (*Result, error) {
	sc := newLineScanner(rd)
	var r *Result
	var phases []*journalPhase
	byName := map[string]*journalPhase{}
	tel := &journalTelemetry{}
	torn, ended := false, false
	for n := 1; sc.Scan(); n++ {
		if torn {
			return nil, fmt.Errorf("%w: journal line %d follows a line that is not JSON (fix: the .partial file of a platbench run, as it wrote it)", ErrMalformed, n-1)
		}
		var l journalLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			torn = true // only the last line may be torn (killed mid-write)
			continue
		}
		switch {
		case n == 1:
			if (l.Journal != JournalKind && l.Journal != journalV1) || l.Result == nil {
				return nil, fmt.Errorf("%w: not a platbench journal (its first line is not a %s header)", ErrMalformed, JournalKind)
			}
			r = l.Result
		case l.Interval != nil:
			jp := byName[l.Phase]
			if jp == nil || jp.done {
				jp = &journalPhase{p: Phase{Name: l.Phase}}
				byName[l.Phase] = jp
				phases = append(phases, jp)
			}
			if err := jp.add(*l.Interval); err != nil {
				return nil, fmt.Errorf("journal line %d: %w", n, err)
			}
		case l.Done != nil:
			jp := byName[l.Done.Name]
			if jp == nil || jp.done {
				jp = &journalPhase{}
				phases = append(phases, jp)
			}
			jp.p, jp.done = *l.Done, true
			byName[l.Done.Name] = jp // a later phase of the same name starts anew
		case l.End:
			ended = true
		case l.Sample != nil:
			tel.add(l.Sample)
		default:
			return nil, fmt.Errorf("%w: journal line %d is neither an interval nor a phase", ErrMalformed, n)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: reading the journal: %v", ErrMalformed, err)
	}
	if r == nil {
		return nil, fmt.Errorf("%w: an empty journal (the run was killed before it began)", ErrMalformed)
	}
	r.CutShort = !ended
	if r.CutShort {
		tel.fill(r) // a whole result has its own, summarized at its end
	}
	for i, jp := range phases {
		if !jp.done {
			if jp.seconds == 0 {
				continue
			}
			jp.p.Intervals = jp.c.Finish()
			cutShort(r, jp, i == len(phases)-1 && r.CutShort, finePath)
		}
		r.Phases = append(r.Phases, jp.p)
	}
	if len(r.Phases) == 0 {
		return nil, fmt.Errorf("%w: the journal holds no complete second of any phase (the run was killed in its first second)", ErrMalformed)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// journalPhase is a phase as ReadJournal reads it: its seconds folded into
// the stored series and into totals per op.
type journalPhase struct {
	p       Phase
	done    bool // its whole phase line was read
	c       Coarsener
	sec     []uint64 // a second's latency counts of one op, decoded
	seconds int
	endNs   int64
	accs    map[string]*journalAcc
}

// journalAcc is one op's totals so far: counts as an interval op's
// (IntervalOp.addCounts), latency as a counts array of NewHist's layout
// (nil until a second has one).
type journalAcc struct {
	lat []uint64
	IntervalOp
}

func (jp *journalPhase) add(iv Interval) error {
	jp.seconds++
	jp.endNs = iv.StartNs + iv.DurationNs
	if jp.accs == nil {
		jp.accs = map[string]*journalAcc{}
	}
	// Each second's histograms are decoded once, into jp.sec, and added
	// as counts to the totals and to the stored interval (past the first
	// hour).
	whole := jp.c.Open(iv.StartNs)
	for _, o := range iv.Ops {
		a := jp.accs[o.Op]
		if a == nil {
			a = &journalAcc{}
			jp.accs[o.Op] = a
		}
		a.addCounts(&o)
		if o.Hist == "" {
			continue
		}
		if jp.sec == nil {
			jp.sec = make([]uint64, histCountsLen())
		}
		hi, err := addEncoded(jp.sec, o.Hist)
		if err != nil {
			return err
		}
		sec := jp.sec[:hi+1]
		if !whole {
			jp.c.AddCounts(o.Op, sec)
		}
		if a.lat == nil {
			a.lat = make([]uint64, histCountsLen())
		}
		for i, n := range sec {
			a.lat[i] += n
		}
		clear(sec)
	}
	jp.c.AddCounted(iv)
	return nil
}

// cutShort completes a phase the run never ended from its seconds.
func cutShort(r *Result, jp *journalPhase, last bool, finePath string) {
	p := &jp.p
	p.DurationNs = jp.endNs
	p.Interrupted = true
	p.Mode, p.Concurrency, p.RateOpsPerS = "closed", r.Config.Concurrency, 0
	if p.Name != "load" && r.Config.RateOpsPerS > 0 {
		p.Mode, p.RateOpsPerS = "open", r.Config.RateOpsPerS
	}
	order := make([]string, 0, len(jp.accs))
	for op := range jp.accs {
		order = append(order, op)
	}
	slices.Sort(order)
	for _, op := range order {
		a := jp.accs[op]
		t := OpTotal{Op: op, Count: a.Count, Bytes: a.Bytes, Errors: a.Errors, Latency: SummarizeCounts(a.lat), Hist: EncodeCounts(a.lat)}
		p.Ops = append(p.Ops, t)
	}
	lacks := "no service time, schedule lag or fine buckets for it"
	if last && finePath != "" {
		switch phase, b, err := ReadFine(finePath); {
		case errors.Is(err, fs.ErrNotExist) || (err == nil && phase != p.Name):
		case err != nil:
			r.Notes = append(r.Notes, fmt.Sprintf("cut short: the fine buckets of phase %s could not be read: %v", p.Name, err))
		default:
			// Whole buckets of the seconds it completed.
			n := min(b.Len(), int((p.DurationNs+b.WidthNs-1)/b.WidthNs))
			b.All, b.Outstanding = b.All[:n], b.Outstanding[:n]
			if b.AllBytes != nil {
				b.AllBytes = b.AllBytes[:n]
			}
			p.Buckets = b
			lacks = fmt.Sprintf("its %d fine buckets are kept (%s), but no service time or schedule lag for it", n, filepath.Base(finePath))
		}
	}
	r.Notes = append(r.Notes, fmt.Sprintf("cut short: the loader stopped during phase %s after %d complete seconds (%.0f s); the end of the run was not seen: %s, and no telemetry summary (the telemetry samples it wrote are kept)",
		p.Name, jp.seconds, float64(p.DurationNs)/1e9, lacks))
}

// journalTelemetry rebuilds the telemetry series of a run cut short from
// its journal's samples (thinned as the run keeps them).
type journalTelemetry struct {
	host           *HostSeries
	hostT          *Thin[HostSample]
	selfT, serverT *Thin[ProcSample]
	nodes          []*NodeSeries
	nodeT          map[string]*Thin[NodeSample]
	dbs            []*DBMetricsSeries
	dbT            map[string]*Thin[DBMetricsSample]
}

func (t *journalTelemetry) add(s *TelemetrySample) {
	switch {
	case s.Host != nil:
		if t.host == nil {
			t.host = &HostSeries{StartedAt: s.StartedAt}
			t.hostT, t.selfT, t.serverT = HostThin(), ProcThin(), ProcThin()
		}
		t.hostT.Add(*s.Host)
		if s.Self != nil {
			t.selfT.Add(*s.Self)
		}
		if s.Server != nil {
			t.serverT.Add(*s.Server)
		}
	case s.NodeSample != nil:
		if t.nodeT == nil {
			t.nodeT = map[string]*Thin[NodeSample]{}
		}
		if t.nodeT[s.Node] == nil {
			t.nodeT[s.Node] = NodeThin()
			t.nodes = append(t.nodes, &NodeSeries{Node: s.Node, StartedAt: s.StartedAt})
		}
		t.nodeT[s.Node].Add(*s.NodeSample)
	case s.DB != nil:
		if t.dbT == nil {
			t.dbT = map[string]*Thin[DBMetricsSample]{}
		}
		if t.dbT[s.Node] == nil {
			t.dbT[s.Node] = DBMetricsThin()
			t.dbs = append(t.dbs, &DBMetricsSeries{Node: s.Node, StartedAt: s.StartedAt})
		}
		t.dbT[s.Node].Add(*s.DB)
	}
}

// fill puts the rebuilt series in r.
func (t *journalTelemetry) fill(r *Result) {
	if t.host != nil {
		t.host.Samples, t.host.SelfSamples, t.host.Server = t.hostT.Samples(), t.selfT.Samples(), t.serverT.Samples()
		r.Host = t.host
	}
	for _, n := range t.nodes {
		n.Samples = t.nodeT[n.Node].Samples()
		r.Nodes = append(r.Nodes, *n)
	}
	if len(t.dbs) > 0 {
		r.DBMetrics = &DBMetrics{}
		for _, d := range t.dbs {
			d.Samples = t.dbT[d.Node].Samples()
			r.DBMetrics.Nodes = append(r.DBMetrics.Nodes, *d)
		}
	}
}
