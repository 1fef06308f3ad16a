package result

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/platbench/platbench/internal/diskfree"
)

// The projection: a run that wrote 60 MB in its first minute and has an
// hour to go needs 3.6 GB more; with 1 GB free it fills the disk in under
// 17 minutes (less the floor kept for the result); with 10 GB it does not.
func TestSpaceNeed(t *testing.T) {
	n := spaceNeed(60e6, 1e9, time.Minute, time.Hour)
	if n.Need != 3.6e9 || n.PerS != 1e6 {
		t.Fatalf("need %d at %.0f B/s, want 3.6e9 at 1e6", n.Need, n.PerS)
	}
	if want := time.Duration(float64(1e9-spaceFloor) / 1e6 * float64(time.Second)); n.FullIn != want {
		t.Fatalf("full in %v, want %v", n.FullIn, want)
	}
	if n := spaceNeed(60e6, 10e9, time.Minute, time.Hour); n.FullIn != 0 {
		t.Fatalf("10 GB free: full in %v, want never", n.FullIn)
	}
	if n := spaceNeed(60e6, 1e9, time.Minute, -time.Second); n.Need != 0 || n.FullIn != 0 {
		t.Fatalf("past the end: %+v", n)
	}
	w := n.words("/data")
	for _, s := range []string{"57.2 MiB a minute", "/data", "fix: --out on a disk with more room"} {
		if !strings.Contains(w, s) {
			t.Errorf("%q lacks %q", w, s)
		}
	}
}

// The looks of WatchSpace on a real journal, the disk's room given: quiet
// while the rest fits; one warning when it will not, not repeated; one
// more when the disk is all but full, and then no more looks.
func TestLookSpace(t *testing.T) {
	j, err := CreateJournal(t.TempDir() + "/r.json.partial")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close(true)
	j.Begin(&Result{Schema: SchemaVersion})
	w, _ := j.written()
	if w == 0 {
		t.Fatal("the journal's header is not counted")
	}
	start := time.Now()
	now, end := start.Add(time.Second), start.Add(time.Hour) // w bytes a second, for an hour
	room := func(n int64) func(string) (int64, error) { return func(string) (int64, error) { return n, nil } }
	var s spaceState
	if msg := j.lookSpace(&s, now, start, end, room(spaceFloor+w*7200)); msg != "" {
		t.Fatalf("room for twice the run: said %q", msg)
	}
	msg := j.lookSpace(&s, now, start, end, room(spaceFloor+w*60))
	if !strings.Contains(msg, "the disk fills in about 1m0s") {
		t.Fatalf("room for a minute of an hour: said %q", msg)
	}
	if msg := j.lookSpace(&s, now, start, end, room(spaceFloor+w*30)); msg != "" || s.full {
		t.Fatalf("said twice: %q", msg)
	}
	if msg := j.lookSpace(&s, now, start, end, room(spaceFloor-1)); !strings.Contains(msg, "is about to stop") || !s.full {
		t.Fatalf("a full disk: said %q (full %v)", msg, s.full)
	}
}

// WatchSpace on this machine's real disk (statfs through diskfree): a run
// whose rate so far, kept to its end two centuries away, cannot fit is
// told once, naming the journal's directory and its free space, and
// the watch ends with the run; a nil journal watches nothing.
func TestWatchSpaceRealDisk(t *testing.T) {
	dir := t.TempDir()
	j, err := CreateJournal(dir + "/r.json.partial")
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close(true)
	j.Begin(&Result{Schema: SchemaVersion})
	free, err := diskfree.Avail(dir)
	if err != nil {
		t.Skipf("no free space to read on %s: %v", dir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	said := make(chan string, 4)
	done := make(chan struct{})
	start := time.Now().Add(-time.Second)
	go func() {
		j.watchSpace(ctx, start, start.Add(200*365*24*time.Hour), func(s string) { said <- s }, 10*time.Millisecond, diskfree.Avail)
		close(done)
	}()
	msg := <-said
	if !strings.Contains(msg, "needs") || !strings.Contains(msg, dir+", which has ") || !strings.Contains(msg, "free; the disk fills in about") {
		t.Errorf("the warning %q lacks the need, the directory %s or its free space (%d bytes when the test began)", msg, dir, free)
	}
	time.Sleep(50 * time.Millisecond) // more looks: none says it again
	cancel()
	<-done
	select {
	case m := <-said:
		t.Errorf("said twice: %q", m)
	default:
	}
	var none *Journal
	none.WatchSpace(context.Background(), start, start, func(s string) { t.Errorf("a nil journal said %q", s) })
}
