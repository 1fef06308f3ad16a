package suite

import (
	"strings"
	"testing"
	"time"
)

// A suite written at full size runs small with one factor: records, ops,
// duration, a warm-up duration and a fixed rate shrink, each to a floor;
// concurrency and the mix stay.
func TestScale(t *testing.T) {
	f, err := Parse([]byte("duration: 40m\nrate: 250k\nwarmup: 75s\nconcurrency: 24\nrecords: [1M, 50]\nscale: 0.001\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil {
		t.Fatal(err)
	}
	c := cells[0].Config
	if cells[0].Records != 1000 || cells[0].Name != "null.ds-100r.1k" || cells[1].Records != 50 {
		t.Errorf("records %d (%s), %d: want 1000 and 50 (below the floor, kept)", cells[0].Records, cells[0].Name, cells[1].Records)
	}
	if c.Runner.Duration != MinScaledDuration || c.Runner.Rate != 250 || c.Warmup != "1s" || c.Runner.Concurrency != 24 {
		t.Errorf("runner %v %v warmup %q workers %d", c.Runner.Duration, c.Runner.Rate, c.Warmup, c.Runner.Concurrency)
	}
	// --scale overrides the file's; 1 is the size the file states.
	if err := f.SetScale(1); err != nil {
		t.Fatal(err)
	}
	cells, _ = f.Cells()
	if c := cells[0].Config; cells[0].Records != 1_000_000 || c.Runner.Duration != 40*time.Minute || c.Runner.Rate != 250_000 || c.Warmup != "75s" {
		t.Errorf("scale 1: %d records, %v, %v, %q", cells[0].Records, c.Runner.Duration, c.Runner.Rate, c.Warmup)
	}
	// Ops, and a workload's own dataset size when the file gives none.
	f, err = Parse([]byte("ops: 100M\nscale: 0.01\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, _ = f.Cells()
	if c := cells[0].Config; c.Runner.Ops != 1_000_000 || c.Workload.Records != 1000 {
		t.Errorf("ops %d records %d", c.Runner.Ops, c.Workload.Records)
	}
	for _, bad := range []string{"0", "-1", "2000", ".nan"} {
		_, err := Parse([]byte("scale: " + bad + "\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n"))
		if err == nil || !strings.Contains(err.Error(), "scale") || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("scale: %s: %v", bad, err)
		}
	}
	f, _ = Parse([]byte("records: [1M, 10M]\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n"))
	_ = f.SetScale(0.00001)
	if _, err := f.Cells(); err == nil || !strings.Contains(err.Error(), "two dataset sizes of records become 100") {
		t.Errorf("sizes that scale to one: %v", err)
	}
	if err := f.SetScale(0); err == nil || !strings.Contains(err.Error(), "scale 0 is not") {
		t.Errorf("SetScale(0): %v", err)
	}
}

// A workload's own rate overrides the file's, and is scaled as it is.
func TestWorkloadRate(t *testing.T) {
	f, err := Parse([]byte("rate: 1k\nscale: 0.01\ntargets: [{url: \"null\"}]\nworkloads: [ds-100w, {preset: ds-100r, rate: 250k}, {preset: ycsb-a, rate: [read=2k, update=1k]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil {
		t.Fatal(err)
	}
	if r := cells[0].Config.Runner.Rate; r != MinScaledRate {
		t.Errorf("the file's rate, scaled to its floor: %v", r)
	}
	if r := cells[1].Config.Runner.Rate; r != 2500 {
		t.Errorf("the workload's rate, scaled: %v", r)
	}
	if st := cells[2].Config.Runner.Streams; cells[2].Config.Runner.Rate != 0 || len(st) != 2 || st[0].String() != "read=2k" {
		t.Errorf("the workload's streams: %v %v", cells[2].Config.Runner.Rate, st)
	}
}

// Only runs a part of the matrix: the cells whose name matches a glob.
func TestOnly(t *testing.T) {
	f, err := Parse([]byte("records: [1k, 1M]\ntargets: [{url: \"null\", name: n}]\nworkloads: [ds-100r, ds-100w]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Only("n.*.1k"); err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil || len(cells) != 2 || cells[0].Name != "n.ds-100r.1k" || cells[1].Name != "n.ds-100w.1k" {
		t.Fatalf("cells %v %v", cells, err)
	}
	_ = f.Only("nothing*")
	if _, err := f.Cells(); err == nil || !strings.Contains(err.Error(), "match none") {
		t.Errorf("a glob that matches nothing: %v", err)
	}
	if err := f.Only("[x"); err == nil || !strings.Contains(err.Error(), "not a glob") {
		t.Errorf("a bad glob: %v", err)
	}
}

// A suite's fault events run in every cell, at offsets scaled as the run
// phase is; a bad one is refused naming the field.
func TestSuiteEvents(t *testing.T) {
	f, err := Parse([]byte("duration: 10m\nevents: [\"60s:exec:true\"]\nscale: 0.01\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := f.Cells()
	if err != nil {
		t.Fatal(err)
	}
	ev := cells[0].Config.Runner.Events
	if len(ev) != 1 || ev[0].Kind != "exec" || ev[0].At != 600*time.Millisecond || cells[0].Config.Runner.Duration != 6*time.Second {
		t.Errorf("events %+v, duration %v", ev, cells[0].Config.Runner.Duration)
	}
	if _, err := Parse([]byte("events: [\"soon:exec:true\"]\ntargets: [{url: \"null\"}]\nworkloads: [ds-100r]\n")); err == nil || !strings.Contains(err.Error(), "events") || !strings.Contains(err.Error(), "fix:") {
		t.Errorf("a bad event: %v", err)
	}
}
