package workload

import (
	"sync"
	"sync/atomic"

	"github.com/platbench/platbench/vocab"
)

// Keyspace is the state that all workers of one run share: the counter that
// hands out new key numbers to run-phase inserts (read by the latest
// distribution), the sequential distribution's cursor, and the zipfian
// constants, which are computed once per run rather than once per worker.
// It is safe for concurrent use.
//
// A Keyspace is one shard of shards (for distributed loaders: each loader
// process builds shard i of N). Shard i loads the disjoint record range
// [Records*i/N, Records*(i+1)/N) and its run-phase inserts take the key
// numbers Records+i, Records+i+N, Records+i+2N, ..., so no two shards ever
// write the same new key. Reads, updates and scans range over the whole
// dataset in every shard, except the sequential distribution, which walks
// the shard's own slice.
type Keyspace struct {
	records       uint64
	shard, shards uint64
	lo, hi        uint64 // this shard's slice of [0, records)

	inserts atomic.Uint64 // run-phase inserts handed out by this shard
	seq     atomic.Uint64 // sequential distribution cursor

	// Acknowledged inserts, after YCSB's AcknowledgedCounterGenerator: the
	// latest distribution reads only keys whose insert has completed, i.e.
	// below the first insert still in flight. window[n&ackMask] marks
	// insert n done while an earlier one is not; acked counts the inserts
	// 0..acked-1 all done. Each worker has at most one insert in flight, so
	// the window holds up to len(window) workers.
	ackMu  sync.Mutex
	window []bool
	acked  atomic.Uint64

	theta         float64
	scrambledZeta float64 // zeta(scrambledItems, theta)
	recordsZeta   float64 // zeta(records, theta): the latest distribution's start
}

// NewKeyspace returns shard shard (0-based) of shards for the workload s,
// which must be valid (see Validate). shards < 1 is taken as 1 and shard is
// taken modulo shards; callers check user input before.
func NewKeyspace(s *Spec, shard, shards int) *Keyspace {
	if shards < 1 {
		shards = 1
	}
	if shard < 0 {
		shard = -shard
	}
	shard %= shards
	ks := &Keyspace{records: max(s.Records, 1), shard: uint64(shard), shards: uint64(shards)}
	ks.lo = splitPoint(ks.records, ks.shard, ks.shards)
	ks.hi = splitPoint(ks.records, ks.shard+1, ks.shards)
	ks.theta = s.ZipfConstant
	if !(ks.theta > 0 && ks.theta < 1) {
		ks.theta = DefaultZipfConstant
	}
	if ks.theta == DefaultZipfConstant {
		ks.scrambledZeta = scrambledZetan
	} else {
		ks.scrambledZeta = zeta(scrambledItems, ks.theta)
	}
	if s.Distribution == DistLatest {
		ks.recordsZeta = zeta(ks.records, ks.theta)
	}
	for _, m := range s.Mix {
		if m.Op == vocab.OpInsert && m.Weight > 0 {
			ks.window = make([]bool, ackWindow)
		}
	}
	return ks
}

// ackWindow bounds the inserts in flight at once (one per worker).
const ackWindow = 1 << 16

// splitPoint is the first record of part i of n over [0, records).
func splitPoint(records, i, n uint64) uint64 {
	// records*i/n without overflow for any records < 2^63 and n < 2^32.
	q, r := records/n, records%n
	return q*i + r*i/n
}

// Shard returns the range [from, to) of record numbers this shard loads.
func (ks *Keyspace) Shard() (from, to uint64) { return ks.lo, ks.hi }

// LoadRange returns the record numbers [from, to) that worker (0-based) of
// workers inserts in the load phase: a contiguous, disjoint part of this
// shard's range; together the workers cover it exactly.
func (ks *Keyspace) LoadRange(worker, workers int) (from, to uint64) {
	if workers < 1 {
		workers = 1
	}
	if worker < 0 || worker >= workers {
		return ks.hi, ks.hi
	}
	n := ks.hi - ks.lo
	return ks.lo + splitPoint(n, uint64(worker), uint64(workers)), ks.lo + splitPoint(n, uint64(worker)+1, uint64(workers))
}

// nextInsert hands out a new run-phase insert: its sequence number in this
// shard (for ack) and its key number.
func (ks *Keyspace) nextInsert() (n, key uint64) {
	n = ks.inserts.Add(1) - 1
	return n, ks.records + n*ks.shards + ks.shard
}

// InsertHigh bounds the key numbers of this shard's run-phase inserts
// handed out so far (in flight or done): every one is below it. A dataset's
// manifest (adapter.Manifest.KeyHigh) is raised to it.
func (ks *Keyspace) InsertHigh() uint64 {
	n := ks.inserts.Load()
	if n == 0 {
		return ks.records
	}
	return ks.records + (n-1)*ks.shards + ks.shard + 1
}

// ack marks insert n (from nextInsert) as completed.
func (ks *Keyspace) ack(n uint64) {
	if ks.window == nil {
		return
	}
	ks.ackMu.Lock()
	ks.window[n%ackWindow] = true
	a := ks.acked.Load()
	for ks.window[a%ackWindow] {
		ks.window[a%ackWindow] = false
		a++
	}
	ks.acked.Store(a)
	ks.ackMu.Unlock()
}

// lastKey is the highest key number known to exist in this shard: the last
// record loaded, or the last of the run-phase inserts that have all completed.
func (ks *Keyspace) lastKey() uint64 {
	k := ks.acked.Load()
	if k == 0 {
		return ks.records - 1
	}
	return ks.records + (k-1)*ks.shards + ks.shard
}

// nextSeq is the sequential distribution: the shard's records in order,
// wrapping at its end, shared by all workers as YCSB's SequentialGenerator
// is. (With one shard: 0, 1, 2, ... records-1, 0, ...)
func (ks *Keyspace) nextSeq() uint64 {
	n := ks.hi - ks.lo
	if n == 0 { // more shards than records
		return (ks.seq.Add(1) - 1) % ks.records
	}
	return ks.lo + (ks.seq.Add(1)-1)%n
}
