package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/platbench/platbench/result"
)

// runJournal is a benchmark's journal (RESULT.partial) and, with
// Output.Hlog, the run phase's .hlog written beside it as the run goes
// (result.PartialHlogPath): the journal keeps the run as it goes, so that
// a loader killed before it writes its result leaves it, and report and
// compare read it. Once the result is written, close moves the journal
// beside it as its seconds file (every second with its histograms:
// result.SecondsPath); when nothing ran it removes it; otherwise (a
// result that could not be written) it stays.
//
// With Path "-" (the result on stdout) there is no file to keep it beside:
// the journal is a temporary file, removed by close, which the run's
// analysis reads before the result is printed; the printed result has the
// stored series (docs/result-schema.md, "Long runs") and no seconds file.
type runJournal struct {
	o       Output
	j       *result.Journal
	hs      *result.HlogStream // nil without Output.Hlog, and with Path "-"
	cleanup func()             // Path "-": removes the temporary directory
	unwatch func()             // stops the journal's watch of its disk (result.WatchSpace)
}

// openJournal opens the journal of o and sets cfg.Journal: the run
// streams, keeping no second in memory.
func openJournal(o Output, cfg *Config) (*runJournal, error) {
	path, cleanup := o.Path+result.JournalSuffix, func() {}
	if o.Path == "-" {
		dir, err := os.MkdirTemp("", "platbench-stdout-")
		if err != nil {
			return nil, fmt.Errorf("cannot make a temporary directory for the run's seconds (the result goes to stdout): %w (fix: set TMPDIR to a writable directory)", err)
		}
		path, cleanup = filepath.Join(dir, "result.json"+result.JournalSuffix), func() { os.RemoveAll(dir) }
	}
	j, err := result.CreateJournal(path)
	if err != nil {
		cleanup()
		return nil, err
	}
	cfg.Journal = j
	jl := &runJournal{o: o, j: j, cleanup: cleanup}
	if o.Path != "-" && o.Hlog {
		if jl.hs, err = result.CreateHlogStream(result.PartialHlogPath(o.Path), "run"); err != nil {
			j.Close(true)
			return nil, err
		}
		j.TeeHlog(jl.hs)
	}
	// A run whose files would fill their disk says so before they do (the
	// run phase's length ahead: a load before it counts as written).
	watch, unwatch := context.WithCancel(context.Background())
	jl.unwatch = unwatch
	start := time.Now()
	go j.WatchSpace(watch, start, start.Add(cfg.Runner.Duration), func(s string) { o.warn(errors.New(s)) })
	return jl, nil
}

// close ends the journal: kept as the written result's seconds file,
// removed when nothing ran (ran false), otherwise left. The .hlog being
// written beside it is removed with it when nothing ran, or when no result
// was written and the journal or the log could not be written whole (a
// full disk): nothing half-written stays behind.
func (jl *runJournal) close(written, ran bool) {
	jl.unwatch()
	err := jl.end(written, ran)
	jl.o.warn(err)
	if jl.hs == nil {
		return
	}
	herr := jl.hs.Close()
	if !ran || (!written && (err != nil || herr != nil)) {
		os.Remove(result.PartialHlogPath(jl.o.Path))
	}
}

// end keeps, removes or leaves the journal (close).
func (jl *runJournal) end(written, ran bool) error {
	switch {
	case jl.o.Path == "-":
		defer jl.cleanup()
		return jl.j.Close(true)
	case written && jl.o.SecondsAs != nil:
		return jl.j.Keep(jl.o.SecondsAs())
	case written:
		return jl.j.Keep(result.SecondsPath(jl.o.Path))
	}
	return jl.j.Close(!ran)
}

// write writes the result file and, with Output.Hlog, its .hlog. With
// Force, the files of an earlier result at the path go first: a kill at
// any moment leaves none of them beside the new ones. A merged result
// whose loaders' seconds are at hand gets its seconds file here.
func (jl *runJournal) write(r *result.Result) (Files, error) {
	out := jl.o.Path
	if jl.o.Force {
		old := []string{out, result.SecondsPath(out)}
		if jl.o.Hlog {
			old = append(old, result.HlogPath(out))
		}
		if err := result.RemoveOld(old...); err != nil {
			return Files{}, err
		}
	}
	merged := len(r.Loaders) > 0 && jl.mergedSeconds(result.NewMergedSeconds(result.SecondsPath(out)), r)
	if err := result.Write(out, r); err != nil {
		return Files{}, err
	}
	f := Files{Result: out}
	if _, err := os.Stat(out + result.JournalSuffix); (err == nil && len(r.Loaders) == 0) || merged {
		// The journal becomes the seconds file once the result is done.
		f.Seconds = result.SecondsPath(out)
	}
	if jl.o.Hlog {
		f.Hlog = jl.writeHlog(r)
	}
	return f, nil
}

// writeHlog puts the result's .hlog in place: the run phase's, written as
// it ran, renamed; any other (a load only, a merged result) written now,
// from the seconds. The result is written: a log that cannot be is said
// (Output.Warn), not fatal.
func (jl *runJournal) writeHlog(r *result.Result) string {
	out, partial := jl.o.Path, result.PartialHlogPath(jl.o.Path)
	hlog := result.HlogPath(out)
	streamed := jl.hs.Wrote() && r.MainPhase().Name == "run" && len(r.Loaders) == 0
	if err := jl.hs.Close(); err != nil {
		streamed = false
	}
	if streamed {
		if err := result.RenameSynced(partial, hlog); err != nil {
			jl.o.warn(fmt.Errorf("the HdrHistogram log stays at %s: %w", partial, err))
		}
		return hlog
	}
	if jl.hs != nil {
		os.Remove(partial)
	}
	// A merged phase of streamed loaders has no one seconds file.
	if err := result.WriteAtomic(hlog, func(w io.Writer) error { return result.WriteHlog(w, r) }); err != nil {
		jl.o.warn(fmt.Errorf("no HdrHistogram log: %w", err))
	}
	return hlog
}

// mergedSeconds writes the seconds file of a merged result whose loaders'
// seconds are at hand (sw.Finish) and says whether it did; one that cannot
// be written is said (Output.Warn), not fatal (the result is whole without
// it: a window's latency is then the whole phase's).
func (jl *runJournal) mergedSeconds(sw *result.MergedSeconds, r *result.Result) bool {
	return WriteMergedSeconds(sw, r, jl.o.warn)
}

// WriteMergedSeconds writes the seconds file of the merged result r whose
// loaders' seconds are at hand (sw.Finish) and says whether it did; one
// that cannot be written is told to warn, not fatal (the result is whole
// without it). `platbench merge` writes its own with it.
func WriteMergedSeconds(sw *result.MergedSeconds, r *result.Result, warn func(error)) bool {
	if !slices.ContainsFunc(r.Phases, func(p result.Phase) bool { return p.HasSeconds() }) {
		sw.Close()
		return false
	}
	if err := sw.Finish(r); err != nil {
		if warn != nil {
			warn(fmt.Errorf("no seconds file for the merged result: %w", err))
		}
		return false
	}
	return true
}
