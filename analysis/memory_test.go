package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// memRun is a 10 s closed-loop run of kind's target at reads op/s whose
// loader host's samples carry paging (each second's) and platbench's own
// storage reads (selfRead bytes a second), 30% CPU busy: nothing saturated.
func memRun(kind string, reads uint64, paging result.Paging, selfRead uint64) *result.Result {
	r := &result.Result{Target: vocab.Info{Kind: kind}, Platform: result.Platform{Threads: 2, RAMBytes: 8 << 30},
		Config: result.Config{Concurrency: 16},
		Phases: []result.Phase{{Name: "run", Mode: "closed", Concurrency: 16, DurationNs: 10e9,
			Ops: []result.OpTotal{{Op: "READ", Count: reads * 10}}}},
		Host: &result.HostSeries{IntervalNs: 1e9}}
	for i := range 10 {
		r.Host.Samples = append(r.Host.Samples, result.HostSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUUser: 0.3, CPUIdle: 0.7,
			MemAvailableBytes: 100 << 20, Paging: paging})
		r.Host.SelfSamples = append(r.Host.SelfSamples, result.ProcSample{OffsetNs: int64(i) * 1e9, CPUCores: 0.5, ReadBytes: selfRead})
	}
	return r
}

// A host that major-faulted 500 times a second at 10k reads/s (0.05 a
// read) or swapped in 200 pages a second: memory, with its figures; below
// the thresholds, or a fault per 1,000 operations, or no paging recorded
// (a file written before): not memory, and the workload named as before.
func TestBottleneckPaging(t *testing.T) {
	for _, c := range []struct {
		name       string
		reads      uint64
		p          result.Paging
		limit      string
		strength   string
		headroomKn int // memory headroom lines
	}{
		{"major faults", 10_000, result.Paging{VMStat: true, MajorFaults: 500}, LimitMemory, Strong, 0},
		{"swap-in", 10_000, result.Paging{VMStat: true, SwapInPages: 200, SwapOutPages: 300, SwapTotalBytes: 2 << 30, SwapUsedBytes: 1 << 30}, LimitMemory, Likely, 0},
		{"faults, but 1 per 1,000 ops", 500_000, result.Paging{VMStat: true, MajorFaults: 500}, LimitConcurrency, "", 1},
		{"a little swap", 10_000, result.Paging{VMStat: true, SwapInPages: 10, MajorFaults: 10}, LimitConcurrency, "", 1},
		{"none", 10_000, result.Paging{VMStat: true}, LimitConcurrency, "", 1},
		{"not recorded", 10_000, result.Paging{}, LimitConcurrency, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := BottleneckOf(memRun("redis", c.reads, c.p, 0))
			s := b.Says
			t.Logf("%s (%s, %s): %+v", b.Limit, b.Where, b.Strength, s)
			if b.Limit != c.limit {
				t.Fatalf("limit %q, want %q", b.Limit, c.limit)
			}
			mem := 0
			for _, h := range s.Headroom {
				if h.Kind == PhraseMemRoom {
					mem++
				}
			}
			if mem != c.headroomKn {
				t.Errorf("%d memory headroom lines, want %d: %+v", mem, c.headroomKn, s.Headroom)
			}
			if c.limit != LimitMemory {
				return
			}
			if b.Where != "loader host" || b.Strength != c.strength || s.Summary.Kind != PhrasePaging || s.Next == nil || s.Next.S[0] != LimitMemory {
				t.Errorf("where %q strength %q summary %+v next %+v", b.Where, b.Strength, s.Summary, s.Next)
			}
			f := s.Summary.F
			if f[0] != float64(c.p.SwapInPages) || f[1] != float64(c.p.MajorFaults) || f[2] != float64(c.p.MajorFaults)/float64(c.reads) {
				t.Errorf("summary figures %v", f)
			}
			if len(s.Evidence) == 0 || s.Evidence[0].Kind != PhrasePagingSamples || s.Evidence[0].F[4] != 100<<20 || s.Evidence[0].F[5] != float64(c.p.SwapUsedBytes) {
				t.Errorf("evidence %+v", s.Evidence)
			}
		})
	}
}

// A node that swapped is named before its disk, saturated by the paging
// (the disk is evidence); the loader host's paging is not looked at when a
// node paged.
func TestBottleneckNodePagingBeforeItsDisk(t *testing.T) {
	r := memRun("cql", 10_000, result.Paging{VMStat: true}, 0)
	var ss []result.NodeSample
	for i := range 10 {
		ss = append(ss, result.NodeSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUUser: 0.2, CPUIdle: 0.8, MemTotalBytes: 4 << 30,
			Disks:  map[string]result.DiskIO{"nvme0n1": {Reads: 5000, ReadBytes: 20 << 20, BusyFraction: 1}},
			Paging: result.Paging{VMStat: true, SwapInPages: 1000, MajorFaults: 1000}})
	}
	r.Nodes = []result.NodeSeries{{Node: "10.0.0.7:9100", IntervalNs: 1e9, Samples: ss}}
	b := BottleneckOf(r)
	s := b.Says
	if b.Limit != LimitMemory || b.Where != "node 10.0.0.7:9100" || b.Strength != Strong || s.Summary.Kind != PhrasePaging {
		t.Fatalf("%s (%s, %s): %+v", b.Limit, b.Where, b.Strength, s)
	}
	var disk bool
	for _, e := range s.Evidence {
		disk = disk || (e.Kind == PhraseNodeSamples && e.S[1] == "disk nvme0n1")
	}
	if !disk {
		t.Errorf("the saturated disk is not in the evidence: %+v", s.Evidence)
	}
}

// The in-process store read 90 MB/s from storage at 20k reads/s (4,500 B
// a read): its reads missed the page cache, and with nothing saturated
// memory (the page cache) is named, not the requests in flight; reads
// served from memory (no storage reads) leave the requests in flight.
func TestBottleneckPageCacheMiss(t *testing.T) {
	b := BottleneckOf(memRun("embedded", 20_000, result.Paging{VMStat: true}, 90_000_000))
	s := b.Says
	if b.Limit != LimitMemory || b.Where != "the page cache (loader host)" || s.Summary.Kind != PhraseCacheMiss || b.Strength != Likely {
		t.Fatalf("%s (%s, %s): %+v", b.Limit, b.Where, b.Strength, s)
	}
	if f := s.Summary.F; f[0] != 9e7 || f[1] != 4500 {
		t.Errorf("figures %v, want 90 MB/s and 4,500 B a read", f)
	}
	// 45 KB a read (2k reads/s): strong; 450 B a read (200k reads/s): under
	// a page a read, most reads were served from memory.
	if b := BottleneckOf(memRun("embedded", 2_000, result.Paging{VMStat: true}, 90_000_000)); b.Limit != LimitMemory || b.Strength != Strong {
		t.Errorf("45 KB a read: %s %s %+v", b.Limit, b.Strength, b.Says.Summary)
	}
	if b := BottleneckOf(memRun("embedded", 200_000, result.Paging{VMStat: true}, 90_000_000)); b.Limit != LimitConcurrency {
		t.Errorf("450 B a read: %s %+v", b.Limit, b.Says.Summary)
	}
	if b := BottleneckOf(memRun("embedded", 20_000, result.Paging{VMStat: true}, 0)); b.Limit != LimitConcurrency {
		t.Errorf("reads from memory: %s %+v", b.Limit, b.Says)
	}
}

// A node's disk saturated by reads that missed its page cache is the disk,
// with the misses as its cause in the evidence.
func TestBottleneckDiskWithPageCacheCause(t *testing.T) {
	r := memRun("cql", 1_000, result.Paging{VMStat: true}, 0)
	var ss []result.NodeSample
	for i := range 10 {
		ss = append(ss, result.NodeSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUUser: 0.2, CPUIdle: 0.8,
			Disks: map[string]result.DiskIO{"xvdb": {Reads: 3000, ReadBytes: 96 << 20, BusyFraction: 0.99}}, Paging: result.Paging{VMStat: true}})
	}
	r.Nodes = []result.NodeSeries{{Node: "n1", IntervalNs: 1e9, Samples: ss}}
	b := BottleneckOf(r)
	var cause bool
	for _, e := range b.Says.Evidence {
		cause = cause || e.Kind == PhraseCacheMissed
	}
	if b.Limit != LimitDisk || !cause {
		t.Errorf("%s (%s): %+v", b.Limit, b.Where, b.Says)
	}
}
