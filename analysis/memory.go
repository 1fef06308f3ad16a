package analysis

import (
	"math"

	"github.com/platbench/platbench/result"
)

// The memory thresholds of BottleneckOf (docs/analysis.md says why each).
const (
	// SwapInPages: pages a second read back from swap, over the phase, from
	// which a machine's memory is the limit. Each swap-in is a disk read the
	// faulting thread waits for (0.1 to 10 ms): 64 a second (256 KiB/s)
	// stall a server's threads for 6 ms to 0.6 s of every second.
	SwapInPages = 64
	// MajorFaultsPerS and MajorFaultsPerOp: major page faults (a page read
	// from disk on a fault: a swap-in, or a mapped file's page the page
	// cache did not hold, as a Cassandra or DSE server maps its SSTables)
	// from which memory is the limit: 100 a second, and at least one for
	// every 100 operations, so that the p99 is a disk read.
	MajorFaultsPerS  = 100
	MajorFaultsPerOp = 0.01
	// CacheMissBytesPerRead: the storage reads of the process (or node)
	// serving the target per read operation from which its reads missed
	// the page cache: a page (4 KiB) per read is one read in one to eight
	// going to disk at the usual 4 to 32 KiB block size; a dataset served
	// from memory reads almost nothing (NodeCacheMissBytesPerS is the rate
	// below which none counts).
	CacheMissBytesPerRead = 4096
)

// Memory sentences (result.Phrase.Kind; see the others in bottleneck.go).
const (
	// PhrasePaging: the limit. S: where (a node, "loader host"); F: swap-in
	// pages/s, major faults/s, major faults per operation, direct reclaims/s.
	PhrasePaging = "memory_paging"
	// PhrasePagingSamples: its evidence. S: where; F: swap-in pages/s,
	// swap-out pages/s, major faults/s, direct reclaims/s, the least memory
	// available (bytes), swap used at most, swap size.
	PhrasePagingSamples = "paging"
	// PhraseCacheMiss: the limit. S: where; F: storage reads in bytes/s,
	// bytes per read operation.
	PhraseCacheMiss = "page_cache_miss"
	// PhraseCacheMissed: evidence or a caveat, the same figures.
	PhraseCacheMissed = "page_cache_missed"
	// PhraseMemRoom: headroom. S: where; F: the least memory available
	// (bytes), the RAM (bytes, 0 unknown), swap-in pages/s, major faults/s.
	PhraseMemRoom = "mem_room"
)

// MemoryFigures are a machine's memory pressure over the samples: paging
// rates per second (Known says the samples read the paging counters:
// without them the rates are unknown, not zero), the least memory
// available and the most swap in use.
type MemoryFigures struct {
	Known                                                     bool
	SwapInPerS, SwapOutPerS, MajorFaultsPerS, AllocStallsPerS float64
	MemAvailableMin, SwapUsedMax, SwapTotal                   float64
}

// memoryOf reduces n samples (at gives the i-th's paging and memory
// available) over secs seconds.
func memoryOf(n int, at func(i int) (result.Paging, int64), secs float64) MemoryFigures {
	var m MemoryFigures
	var sum result.Paging
	m.MemAvailableMin = math.Inf(1)
	for i := range n {
		p, avail := at(i)
		m.MemAvailableMin = math.Min(m.MemAvailableMin, float64(avail))
		if !p.VMStat {
			continue
		}
		m.Known = true
		sum.Add(p)
		m.SwapUsedMax = math.Max(m.SwapUsedMax, float64(p.SwapUsedBytes))
	}
	if n == 0 || math.IsInf(m.MemAvailableMin, 1) {
		m.MemAvailableMin = 0
	}
	if !m.Known || secs <= 0 {
		return m
	}
	m.SwapInPerS, m.SwapOutPerS = float64(sum.SwapInPages)/secs, float64(sum.SwapOutPages)/secs
	m.MajorFaultsPerS, m.AllocStallsPerS = float64(sum.MajorFaults)/secs, float64(sum.AllocStalls)/secs
	m.SwapTotal = float64(sum.SwapTotalBytes)
	return m
}

// paged says whether a machine paged enough to be the limit with opsPerS
// operations a second over the phase (SwapInPages, MajorFaultsPerS and
// MajorFaultsPerOp), and how far past the threshold (1 at it).
func (m MemoryFigures) paged(opsPerS float64) (bool, float64) {
	if !m.Known {
		return false, 0
	}
	over := m.SwapInPerS / SwapInPages
	if m.MajorFaultsPerS >= MajorFaultsPerS && (opsPerS <= 0 || m.MajorFaultsPerS/opsPerS >= MajorFaultsPerOp) {
		over = math.Max(over, m.MajorFaultsPerS/MajorFaultsPerS)
	}
	return over >= 1, over
}

// pagingLimit: a machine (a server node, then the loader host) that swapped
// or major-faulted past the thresholds: its memory is the limit, before
// any resource of it that saturated (paging keeps the disk busy with pages
// and the CPU with reclaim). The node that paged the most is named.
func (b *bottleneck) pagingLimit() bool {
	ops := b.opsPerS()
	best, where, over := MemoryFigures{}, "", 0.0
	for _, n := range b.nodes {
		if ok, x := n.Memory.paged(ops); ok && x > over {
			best, where, over = n.Memory, n.Node, x
		}
	}
	if where == "" && b.hasHost {
		if ok, x := b.host.Memory.paged(ops); ok {
			best, where, over = b.host.Memory, "loader host", x
		}
	}
	if where == "" {
		return false
	}
	perOp := 0.0
	if ops > 0 {
		perOp = best.MajorFaultsPerS / ops
	}
	strength := Likely
	if over >= 4 {
		strength = Strong
	}
	b.set(LimitMemory, strength, pagingEvidence(best, where))
	b.says.Summary = phrase(PhrasePaging, []float64{best.SwapInPerS, best.MajorFaultsPerS, perOp, best.AllocStallsPerS}, where)
	b.out.Where = where
	if where != "loader host" {
		b.out.Where = "node " + where
	}
	return true
}

func pagingEvidence(m MemoryFigures, where string) result.Phrase {
	return phrase(PhrasePagingSamples, []float64{m.SwapInPerS, m.SwapOutPerS, m.MajorFaultsPerS, m.AllocStallsPerS,
		m.MemAvailableMin, m.SwapUsedMax, m.SwapTotal}, where)
}

// opsPerS is the main phase's completed operations a second; 0 unknown.
func (b *bottleneck) opsPerS() float64 {
	var n uint64
	for _, t := range b.p.Ops {
		n += t.Count
	}
	if b.p.DurationNs <= 0 {
		return 0
	}
	return float64(n) / (float64(b.p.DurationNs) / 1e9)
}

// readsPerS is the main phase's read operations a second (readOps).
func (b *bottleneck) readsPerS() float64 {
	var n uint64
	for _, t := range b.p.Ops {
		if readOps[t.Op] {
			n += t.Count
		}
	}
	if b.p.DurationNs <= 0 || b.p.Name == "load" {
		return 0
	}
	return float64(n) / (float64(b.p.DurationNs) / 1e9)
}

// cacheMiss finds the page-cache misses of the machine that served the
// reads: the storage reads of the in-process target (platbench's own) or
// of the server process on the loader host, else of each server node (its
// disks, its share of the reads), at CacheMissBytesPerRead per read
// operation or more (and NodeCacheMissBytesPerS in all). ok false: none,
// or nothing to tell by.
func (b *bottleneck) cacheMiss() (p result.Phrase, perRead float64, ok bool) {
	reads := b.readsPerS()
	if reads <= 0 {
		return p, 0, false
	}
	check := func(where string, bytesPerS, readsPerS float64) bool {
		if bytesPerS < NodeCacheMissBytesPerS || bytesPerS/readsPerS < CacheMissBytesPerRead {
			return false
		}
		p, perRead = phrase(PhraseCacheMissed, []float64{bytesPerS, bytesPerS / readsPerS}, where), bytesPerS/readsPerS
		return true
	}
	switch {
	case b.inProcess() && b.selfReadKnown:
		return p, perRead, check("loader host", b.selfReadBytesPerS, reads)
	case b.host.Server != nil:
		return p, perRead, check("loader host", b.host.Server.ReadBytesPerS, reads)
	}
	sampled := 0
	for _, n := range b.nodes {
		if n.Samples > 0 {
			sampled++
		}
	}
	for _, n := range b.nodes {
		if n.Samples > 0 && check(n.Node, n.DiskReadBytesPerS, reads/float64(sampled)) {
			return p, perRead, true
		}
	}
	return p, 0, false
}

// cacheMissLimit: nothing saturated, and the reads went to storage: the
// page cache did not hold the data (seed 003's DSE on small instances), so
// each read waited for the disk. Named before the workload's own limits
// (requests in flight, a fixed rate): more memory, not more load, is what
// would change the figure.
func (b *bottleneck) cacheMissLimit() bool {
	p, perRead, ok := b.cacheMiss()
	if !ok {
		return false
	}
	strength := Likely
	if perRead >= 4*CacheMissBytesPerRead {
		strength = Strong
	}
	b.set(LimitMemory, strength, p)
	b.out.Where = "the page cache (" + p.S[0] + ")"
	if p.S[0] != "loader host" {
		b.out.Where = "the page cache (node " + p.S[0] + ")"
	}
	b.says.Summary = phrase(PhraseCacheMiss, p.F, p.S...)
	return true
}

// cacheMissNote adds the page-cache misses, when the limit is another, as
// the disk's cause (its evidence) or a caveat.
func (b *bottleneck) cacheMissNote() {
	if b.out.Limit == LimitMemory {
		return
	}
	p, _, ok := b.cacheMiss()
	switch {
	case !ok:
	case b.out.Limit == LimitDisk:
		b.says.Evidence = append(b.says.Evidence, p)
	default:
		b.says.Caveats = append(b.says.Caveats, p)
	}
}

// memRoom is the headroom line of a machine's memory, when its paging was
// recorded.
func memRoom(m MemoryFigures, ram float64, where string) (result.Phrase, bool) {
	if !m.Known {
		return result.Phrase{}, false
	}
	return phrase(PhraseMemRoom, []float64{m.MemAvailableMin, ram, m.SwapInPerS, m.MajorFaultsPerS}, where), true
}
