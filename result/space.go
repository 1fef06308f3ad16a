package result

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/platbench/platbench/internal/diskfree"
	"github.com/platbench/platbench/internal/units"
)

// A run's files grow as it goes (its journal and .hlog: a second of ten op
// types at 100k op/s is about 35 KB of each), and a long run on a small
// disk fills it: the journal then stops, and the result is written, if at
// all, from what it holds. WatchSpace says so before it happens (issue 47):
// from the run's own rate of writing, as soon as the bytes it will still
// write by its end are more than the disk has free, and again when the
// disk is nearly full.

// spaceCheck is how often WatchSpace looks, and how long a run writes
// before its rate is taken as the rate of the rest.
const spaceCheck = 10 * time.Second

// spaceFloor: under this much free, the disk is called full whatever the
// rate (the result file itself still has to be written).
const spaceFloor = 64 << 20

// SpaceNeed is what WatchSpace found at one look: the bytes the run's
// files hold (Written), the rate they grew at, the room left on their disk
// (Free) and the bytes the run will still write by its end at that rate.
type SpaceNeed struct {
	Written, Free, Need int64
	PerS                float64
	FullIn              time.Duration // when the disk fills at that rate (0: it does not before the end)
}

// spaceNeed projects the run's writing to its end: written bytes over
// elapsed, left to go.
func spaceNeed(written, free int64, elapsed, left time.Duration) SpaceNeed {
	n := SpaceNeed{Written: written, Free: free}
	if elapsed <= 0 {
		return n
	}
	n.PerS = float64(written) / elapsed.Seconds()
	n.Need = int64(n.PerS * max(left, 0).Seconds())
	if n.Need > free-spaceFloor && n.PerS > 0 {
		n.FullIn = time.Duration(float64(max(free-spaceFloor, 0)) / n.PerS * float64(time.Second))
	}
	return n
}

// words is the warning for a run whose files will not fit in dir.
func (n SpaceNeed) words(dir string) string {
	return fmt.Sprintf("this run writes its journal and .hlog at %s a minute: by its end it needs %s more in %s, which has %s free; the disk fills in about %s (fix: --out on a disk with more room, a shorter --duration, or free space now)",
		units.Bytes(n.PerS*60), units.Bytes(float64(n.Need)), dir, units.Bytes(float64(n.Free)), n.FullIn.Round(time.Second))
}

// WatchSpace looks every spaceCheck, until ctx ends, at the bytes the
// journal and its .hlog hold and the room on their disk, and calls warn
// once when, at the run's rate so far, they will not fit by end, and once
// more when the disk is within spaceFloor of full. start is when the run
// began writing.
func (j *Journal) WatchSpace(ctx context.Context, start, end time.Time, warn func(string)) {
	j.watchSpace(ctx, start, end, warn, spaceCheck, diskfree.Avail)
}

// watchSpace is WatchSpace looking every `every`, the room read by avail.
func (j *Journal) watchSpace(ctx context.Context, start, end time.Time, warn func(string), every time.Duration, avail func(string) (int64, error)) {
	if j == nil {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	var s spaceState
	for !s.full {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			if msg := j.lookSpace(&s, now, start, end, avail); msg != "" {
				warn(msg)
			}
		}
	}
}

// spaceState is what WatchSpace has said.
type spaceState struct{ warned, full bool }

// lookSpace is one look of WatchSpace at now: what to say, if anything.
// avail reads the room on a directory's disk.
func (j *Journal) lookSpace(s *spaceState, now, start, end time.Time, avail func(string) (int64, error)) string {
	written, path := j.written()
	dir := filepath.Dir(path)
	free, err := avail(dir)
	if err != nil {
		s.full = true // not a file system that says: nothing to tell, ever
		return ""
	}
	n := spaceNeed(written, free, now.Sub(start), end.Sub(now))
	switch {
	case free < spaceFloor:
		s.full = true
		return fmt.Sprintf("the disk of %s has %s free: the run's journal is about to stop (fix: free space now, or stop the run: what it wrote so far reads with platbench report %s)", dir, units.Bytes(float64(free)), path)
	case !s.warned && n.FullIn > 0:
		s.warned = true
		return n.words(dir)
	}
	return ""
}

// written is the bytes the journal and its .hlog hold now, and where the
// journal is.
func (j *Journal) written() (n int64, path string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if st, err := j.f.Stat(); err == nil {
		n += st.Size()
	}
	if j.hlog != nil {
		n += j.hlog.size()
	}
	return n, j.path
}
