package bench

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/platbench/platbench/registry"
	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

func TestNameOps(t *testing.T) {
	spec := workload.Spec{NamedOps: []string{"insert", "simple1"}}
	n0, n1 := vocab.OpNamed0.String(), (vocab.OpNamed0 + 1).String()
	p := result.Phase{
		Ops:       []result.OpTotal{{Op: "READ"}, {Op: n0}, {Op: n1}},
		Intervals: []result.Interval{{Ops: []result.IntervalOp{{Op: n1}}}},
		Buckets:   result.Buckets{Counts: map[string][]uint32{n0: {1}, "READ": {2}}},
	}
	nameOps(&p, &spec)
	if p.Ops[0].Op != "READ" || p.Ops[1].Op != "insert" || p.Ops[2].Op != "simple1" || p.Intervals[0].Ops[0].Op != "simple1" {
		t.Errorf("ops named %+v %+v", p.Ops, p.Intervals)
	}
	if _, ok := p.Buckets.Counts["insert"]; !ok || len(p.Buckets.Counts) != 2 {
		t.Errorf("buckets %v", p.Buckets.Counts)
	}
}

// The seconds the journal writes name the ops as the result does (they
// were NAMED0... in the seconds file, the .hlog and a journal read after a
// kill), and the recorder's interval is left as it was.
func TestNamedIntervals(t *testing.T) {
	spec := workload.Spec{NamedOps: []string{"insert"}}
	n0 := vocab.OpNamed0.String()
	var got result.Interval
	f := namedIntervals(func(_ string, iv result.Interval) { got = iv }, &spec)
	iv := result.Interval{Ops: []result.IntervalOp{{Op: "READ"}, {Op: n0, Count: 3}}}
	f("run", iv)
	if got.Ops[0].Op != "READ" || got.Ops[1].Op != "insert" || got.Ops[1].Count != 3 || iv.Ops[1].Op != n0 {
		t.Errorf("written %+v, the recorder's %+v", got.Ops, iv.Ops)
	}
	if namedIntervals(nil, &spec) != nil {
		t.Error("no journal: want no interval writer")
	}
}

func TestProfileNeedsCQLTarget(t *testing.T) {
	spec := workload.Spec{CQL: &workload.CQLProfile{Keyspace: "ks", Table: "t"}, NamedOps: []string{"insert"}, Mix: workload.MixList{{Op: vocab.OpNamed0, Weight: 1}}}
	spec.EnsureDefaults()
	cfg := Config{Open: registry.Open, Target: "embedded://", Workload: spec}
	cfg.EnsureDefaults()
	err := cfg.Validate()
	if err == nil || !strings.Contains(err.Error(), "cassandra-stress profile") {
		t.Fatalf("Validate = %v", err)
	}
	cfg.Target = "cql://127.0.0.1:9042"
	if err := cfg.Validate(); err != nil {
		t.Errorf("Validate with a CQL target = %v", err)
	}
}

// A journal that could not be written (here: its file closed under it)
// leaves the phase without its series and says so; the run goes on.
func TestJournalSeriesFailureIsANote(t *testing.T) {
	j, err := result.CreateJournal(filepath.Join(t.TempDir(), "r.json.partial"))
	if err != nil {
		t.Fatal(err)
	}
	r := &result.Result{}
	j.Begin(r)
	j.Close(false)
	j.Interval("run", result.Interval{DurationNs: 1e9})
	ivs, err := journalSeries(j, r)("run")
	if err != nil || ivs != nil || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "phase run has no interval series") {
		t.Errorf("series %v, error %v, notes %q", ivs, err, r.Notes)
	}
}
