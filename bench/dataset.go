package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/platbench/platbench/adapter"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/runner"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// A dataset is what platbench made (docs/datasets.md, adapter.Manifest): a
// load writes the dataset's manifest on the target before its first record
// and marks it complete after its last; a run that inserts raises the
// manifest's key range before its inserts pass it; a run with its own load
// removes, at its end, what that load made (unless Config.KeepDataset, the
// target's keep option, or Config.Verify: `platbench verify` reads it back).

// manifestTimeout bounds each write of a manifest and the removal of a
// run's own dataset (which may follow a Ctrl-C: it runs on a context of its
// own).
const (
	manifestTimeout = 30 * time.Second
	removeTimeout   = 10 * time.Minute
)

// dataset is the session's view of its dataset's manifest.
type dataset struct {
	mu sync.Mutex
	// m is the manifest (nil: the target keeps none, or none is there).
	m *adapter.Manifest
	// made: this session's load wrote the first manifest (nothing of
	// platbench's was there): the dataset is this invocation's own.
	made bool
	// notes are said in the result (a manifest that could not be written
	// or read).
	notes []string
	// ended: endDataset ran (Run's end, or Close).
	ended bool
	// writes: the dataset is a run's writes, without a load (startWrites).
	writes bool
	// unread: the manifest could not be read after Setup: what is there is
	// unknown, so the dataset is not this invocation's own to remove.
	unread bool
	// base is the manifest's JSON as this session last read or wrote it:
	// a manifest on the target that differs was written by another
	// platbench since (storeManifest merges it).
	base []byte
	// shared names another platbench that wrote the manifest while this
	// session did ("" when none): the dataset is not this one's alone.
	shared string
}

// readManifest reads the manifest of spec's dataset after Setup, for a
// load (to extend it) and for a run (the load it reads; inserts raise it).
func readManifest(ctx context.Context, t adapter.Target, spec *workload.Spec) *dataset {
	d := &dataset{}
	mf, ok := t.(adapter.Manifester)
	if !ok {
		return d
	}
	m, err := mf.ReadManifest(ctx, spec)
	if err != nil {
		d.notes = append(d.notes, fmt.Sprintf("the dataset's manifest could not be read (%v): the load it came from is not named", err))
		d.unread = true
		return d
	}
	d.m = m
	if m != nil {
		d.base = m.Stored()
	}
	return d
}

// loadID is the load the manifest names ("" without one).
func (d *dataset) loadID() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		return ""
	}
	return d.m.LoadID
}

// startLoad writes the manifest of the load loadID before its first record:
// a load that fails or is killed leaves a manifest that names what it may
// have written. Over a dataset of platbench's (a manifest is there), the
// manifest is extended: what either created, the higher key range.
func (s *Session) startLoad(ctx context.Context, loadID string) {
	mf, ok := s.t.(adapter.Manifester)
	if !ok {
		return
	}
	m := mf.NewManifest(ctx, &s.spec, Version, loadID)
	if m == nil {
		return // nothing that keeps records (a CP object)
	}
	d := s.ds
	d.mu.Lock()
	if old := d.m; old != nil {
		for _, c := range old.Created {
			if !slices.Contains(m.Created, c) {
				m.Created = append(m.Created, c)
			}
		}
		m.KeyHigh = max(m.KeyHigh, old.KeyHigh)
		m.Runs, m.LastRun, m.CreatedAt = old.Runs, old.LastRun, old.CreatedAt
		m.ObjectID = cmp.Or(m.ObjectID, old.ObjectID)
		mergeForms(m, old)
	} else {
		d.made = !d.unread
	}
	d.m = m
	d.mu.Unlock()
	s.writeManifest(ctx, "the load")
}

// startWrites marks the dataset of a run without a load whose workload
// only writes (inserts, writes, sets, produces) on a target that holds no
// manifest for it: when Setup created its table, topic or map, or nothing
// is where its dataset would be, what it writes is platbench's, and it gets
// a manifest (complete: nothing to wait for), which the run's end removes
// by, as a run with its own load does. When something is there that
// platbench did not make, the run writes into it unmarked, and says so.
func (s *Session) startWrites(ctx context.Context) {
	cl, ok := s.t.(adapter.Cleaner)
	if !ok || s.cfg.Load || !s.cfg.Run || s.spec.ReadsRecords() || len(s.spec.Mix) == 0 || s.ds.m != nil || s.ds.unread {
		return
	}
	m := cl.NewManifest(ctx, &s.spec, Version, "run-"+newLoadID(time.Now()))
	if m == nil {
		return
	}
	if len(m.Created) == 0 {
		if err := cl.Unmarked(ctx, &s.spec); err != nil {
			s.ds.notes = append(s.ds.notes, fmt.Sprintf("this run wrote where something it did not make is (%v): its writes were left there, unmarked", err))
			return
		}
	}
	m.Complete = true
	s.ds.mu.Lock()
	s.ds.m, s.ds.made, s.ds.writes = m, true, true
	s.ds.mu.Unlock()
	s.writeManifest(ctx, "a run that writes")
}

// completeLoad marks the manifest complete: every record is there.
func (s *Session) completeLoad(ctx context.Context) {
	d := s.ds
	d.mu.Lock()
	if d.m == nil {
		d.mu.Unlock()
		return
	}
	d.m.Complete = true
	d.mu.Unlock()
	s.writeManifest(ctx, "the load")
}

// writeManifest stores the session's manifest; a failure is said in the
// result (clean cannot remove what no manifest names).
func (s *Session) writeManifest(ctx context.Context, by string) {
	mf, ok := s.t.(adapter.Manifester)
	if !ok {
		return
	}
	d := s.ds
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		return
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), manifestTimeout)
	defer cancel()
	if err := s.storeManifest(wctx, mf); err != nil {
		d.notes = append(d.notes, fmt.Sprintf("the dataset's manifest was not written after %s (%v): platbench clean cannot remove what it does not name", by, err))
	}
}

// maxSwaps bounds the tries of a manifest's compare-and-swap that another
// platbench's writes beat.
const maxSwaps = 50

// storeManifest writes the session's manifest, first merging into it what
// another platbench wrote since this session last read or wrote it (two
// loads of one dataset at once, a run raising the range of a load): on a
// adapter.ManifestSwapper, read-merge-swap until the swap holds; else
// read, merge, write. The caller holds d.mu.
func (s *Session) storeManifest(ctx context.Context, mf adapter.Manifester) error {
	d := s.ds
	sw, swaps := s.t.(adapter.ManifestSwapper)
	for try := 1; ; try++ {
		cur, err := mf.ReadManifest(ctx, &s.spec)
		if err != nil { // not a manifest there: written over, as before
			cur, swaps = nil, false
		}
		if cur != nil && !bytes.Equal(cur.Stored(), d.base) {
			d.mergeOther(cur)
		}
		d.m.UpdatedAt = time.Now().UTC()
		if !swaps {
			if err := mf.WriteManifest(ctx, &s.spec, d.m); err != nil {
				return err
			}
			d.base = d.m.Marshal()
			return nil
		}
		ok, err := sw.SwapManifest(ctx, &s.spec, cur, d.m)
		if errors.Is(err, adapter.ErrNoSwap) {
			swaps = false // read, merge and write again, without the swap
			continue
		}
		if err != nil {
			return err
		}
		if ok {
			d.base = d.m.Marshal()
			return nil
		}
		if try == maxSwaps {
			return fmt.Errorf("another platbench wrote it first %d times in a row", try)
		}
	}
}

// mergeOther takes into the session's manifest what cur, written by
// another platbench since this session's last read or write, names: the
// objects it created, its key range, forms and records; the dataset is
// then shared (endDataset keeps it).
func (d *dataset) mergeOther(cur *adapter.Manifest) {
	m := d.m
	for _, c := range cur.Created {
		if !slices.Contains(m.Created, c) {
			m.Created = append(m.Created, c)
		}
	}
	m.KeyHigh = max(m.KeyHigh, cur.KeyHigh)
	m.Records = max(m.Records, cur.Records)
	m.Runs = max(m.Runs, cur.Runs)
	m.ObjectID = cmp.Or(m.ObjectID, cur.ObjectID)
	if cur.CreatedAt.Before(m.CreatedAt) {
		m.CreatedAt = cur.CreatedAt
	}
	mergeForms(m, cur)
	d.shared = fmt.Sprintf("load %s, at %s", cur.LoadID, cur.UpdatedAt.Format(time.RFC3339))
}

// inserts reports whether the mix inserts new records (key numbers past the
// dataset's records).
func inserts(spec *workload.Spec) bool {
	for _, m := range spec.Mix {
		if m.Op == vocab.OpInsert && m.Weight > 0 {
			return true
		}
	}
	return false
}

// minReserve is the inserts a run without an op bound may make before its
// manifest is raised again (the first reservation).
const minReserve = 1 << 20

// raiseForRun raises the manifest's key range before a run phase to cover
// its writes: the workload's records (a run given more records than the
// load writes past them) and its inserts. A run of at most minReserve ops
// reserves them all at once; another reserves minReserve and raises the
// range again, to four times what it inserted, when half is used (a killed
// run leaves a range at most about four times its inserts, which clean
// walks). The returned stop ends the watch and sets the range to what the
// run inserted (never lower than it was). A run that writes nothing past
// the range changes nothing.
func (s *Session) raiseForRun(ctx context.Context, rc runner.Config) (stop func()) {
	d := s.ds
	d.mu.Lock()
	m := d.m
	d.mu.Unlock()
	if m == nil {
		return func() {}
	}
	shards := uint64(max(s.cfg.Shards, 1))
	records := max(s.spec.Records, 1)
	before := m.KeyHigh
	high := max(before, s.spec.Records)
	var forms *adapter.Manifest
	if mf, ok := s.t.(adapter.Manifester); ok {
		forms = mf.NewManifest(ctx, &s.spec, Version, "")
	}
	grows := forms != nil && formsGrow(m, forms)
	if !inserts(&s.spec) {
		if high > before || grows {
			s.setHigh(ctx, high, forms, false)
		}
		return func() {}
	}
	reserve, watch := uint64(minReserve), true
	if rc.Ops > 0 && rc.Ops <= minReserve {
		reserve, watch = rc.Ops, false // every insert it can make
	}
	s.setHigh(ctx, max(high, records+reserve*shards), forms, false)
	done := make(chan struct{})
	var wg sync.WaitGroup
	if watch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tk := time.NewTicker(200 * time.Millisecond)
			defer tk.Stop()
			for {
				select {
				case <-done:
					return
				case <-tk.C:
				}
				if used := s.ks.InsertHigh(); used > records+reserve/2*shards {
					reserve = max(reserve*4, (used-records)/shards*4)
					s.setHigh(ctx, records+reserve*shards, nil, false)
				}
			}
		}()
	}
	return func() {
		close(done)
		wg.Wait()
		// One loader of several cannot know the others' inserts: it keeps
		// its reservation. Alone, the range is what was inserted.
		if shards == 1 {
			s.setHigh(ctx, max(high, s.ks.InsertHigh()), nil, true)
		}
	}
}

// setHigh writes the manifest with key range [0, high) (exact: high is the
// range; else it only raises it), the forms of keys the run writes, and the
// run counted.
func (s *Session) setHigh(ctx context.Context, high uint64, forms *adapter.Manifest, exact bool) {
	d := s.ds
	d.mu.Lock()
	m := d.m
	if exact {
		m.KeyHigh = max(high, m.Records)
		m.Runs++
		m.LastRun = s.r.StartedAt.Format(time.RFC3339)
	} else {
		m.KeyHigh = max(m.KeyHigh, high)
	}
	if forms != nil {
		mergeForms(m, forms)
	}
	d.mu.Unlock()
	s.writeManifest(ctx, "a run that inserts")
}

// formsGrow: b has key forms or extra keys that a lacks.
func formsGrow(a, b *adapter.Manifest) bool {
	for _, f := range b.KeyForms {
		if !slices.Contains(a.KeyForms, f) {
			return true
		}
	}
	for _, f := range b.Extra {
		if !slices.Contains(a.Extra, f) {
			return true
		}
	}
	return false
}

// mergeForms adds b's key forms and extra keys to a's.
func mergeForms(a, b *adapter.Manifest) {
	for _, f := range b.KeyForms {
		if !slices.Contains(a.KeyForms, f) {
			a.KeyForms = append(a.KeyForms, f)
		}
	}
	for _, f := range b.Extra {
		if !slices.Contains(a.Extra, f) {
			a.Extra = append(a.Extra, f)
		}
	}
}

// endDataset decides, at the end of Run, what becomes of the dataset: a
// load alone keeps it; a run with its own load removes what that load made,
// by its manifest, unless told to keep it (Config.KeepDataset), the dataset
// was platbench's before this load (another load's, which this one only
// wrote over), the run is one loader of several (the others may still
// read it), or the manifest on the target was written since by another
// load or run. What happened is said in r's notes (r may be nil: a run that
// failed before its result, or a sweep's session closing). It acts once.
// keptBecause says why a run keeps the dataset its own load made ("" when
// it removes it), and whether the target must be told to keep it (Retain).
func (s *Session) keptBecause(m *adapter.Manifest, made, unread bool, shared string) (why string, retainIt bool) {
	rt, retains := s.t.(adapter.Retainer)
	switch {
	case s.cfg.KeepDataset:
		return fmt.Sprintf("the dataset this run made was kept (--keep-dataset): %s; 'platbench clean' with the same target and workload removes it", m.Describe()), true
	case retains && rt.Retained():
		return fmt.Sprintf("the dataset this run made was kept (the target's keep option): %s; 'platbench clean' with the same target and workload removes it", m.Describe()), false
	case s.cfg.Verify:
		return fmt.Sprintf("the dataset this run made was kept for 'platbench verify RESULT', which reads its acknowledged writes back: %s; 'platbench clean' with the same target and workload removes it", m.Describe()), true
	case unread:
		return fmt.Sprintf("the dataset %s was kept: its manifest could not be read before this run's load, so what was there before it is unknown; 'platbench clean' removes it", m.Dataset), true
	case shared != "":
		return fmt.Sprintf("the dataset %s was kept: another platbench (%s) wrote its manifest while this run did, and may still use it; 'platbench clean' removes it", m.Dataset, shared), true
	case !made:
		return fmt.Sprintf("the dataset %s was platbench's before this run's load (load %s), which wrote over it: kept; 'platbench clean' removes it", m.Dataset, m.LoadID), true
	case s.cfg.Shards > 1:
		return fmt.Sprintf("a distributed run keeps its dataset (the other loaders may still read it): %s; 'platbench clean' removes it", m.Describe()), true
	}
	return "", false
}

func (s *Session) endDataset(ctx context.Context, r *result.Result) {
	note := func(format string, a ...any) {
		if r != nil {
			r.Notes = append(r.Notes, fmt.Sprintf(format, a...))
		}
	}
	d := s.ds
	d.mu.Lock()
	if d.ended {
		d.mu.Unlock()
		return
	}
	d.ended = true
	m, made, shared := d.m, d.made, d.shared
	if r != nil {
		r.Notes = append(r.Notes, d.notes...)
		d.notes = nil
	}
	d.mu.Unlock()
	retain := func() {
		if rt, ok := s.t.(adapter.Retainer); ok {
			rt.Retain()
		}
	}
	if !s.cfg.Load && !d.writes {
		return // a run on an earlier load: Close removes only what Setup made
	}
	if !s.cfg.Run || m == nil {
		if !s.cfg.Run {
			retain() // `platbench load` keeps what it loaded
		}
		return
	}
	if why, retainIt := s.keptBecause(m, made, d.unread, shared); why != "" {
		if retainIt {
			retain()
		}
		note("%s", why)
		return
	}
	cl, ok := s.t.(adapter.Cleaner)
	if !ok {
		return
	}
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), removeTimeout)
	defer cancel()
	d.mu.Lock()
	mc := *m
	d.mu.Unlock()
	// Another load over this dataset, or a run raising its range, since
	// this run's last write: it may still read it.
	if now, err := cl.ReadManifest(cctx, &s.spec); err == nil && now != nil && (now.LoadID != mc.LoadID || !now.UpdatedAt.Equal(mc.UpdatedAt)) {
		retain()
		note("the dataset this run made was kept: its manifest on the target was written since by another (load %s, at %s), which may still read it: %s; 'platbench clean' removes it", now.LoadID, now.UpdatedAt.Format(time.RFC3339), now.Describe())
		return
	}
	if _, err := cl.Clean(cctx, &s.spec, &mc, false); err != nil {
		note("the dataset this run made was not removed (%v): %s (fix: platbench clean with the same target and workload)", err, m.Dataset)
		return
	}
	retain() // removed already: nothing left for Close to drop
}
