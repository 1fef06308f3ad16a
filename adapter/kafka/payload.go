package kafka

import (
	"encoding/binary"
	"math/bits"
	"sync"
)

// The payload header, written by every producer and read by every consumer:
//
//	[0:8]   send time, Unix ns (the producer's wall clock at the send)
//	[8:12]  run id: a random number per Target, so that messages of other
//	        runs in a reused topic are not counted as lost or duplicated
//	[12:16] producer id (the runner worker's id)
//	[16:24] sequence number of this message for this producer, from 0
//
// End-to-end latency is the consumer's wall clock minus the send time, so
// producers and consumers on different hosts need synchronised clocks.
type header struct {
	sendNs   int64
	run      uint32
	producer uint32
	seq      uint64
}

func putHeader(b []byte, h header) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(h.sendNs))
	binary.LittleEndian.PutUint32(b[8:12], h.run)
	binary.LittleEndian.PutUint32(b[12:16], h.producer)
	binary.LittleEndian.PutUint64(b[16:24], h.seq)
}

func readHeader(b []byte) (header, bool) {
	if len(b) < HeaderLen {
		return header{}, false
	}
	return header{
		sendNs:   int64(binary.LittleEndian.Uint64(b[0:8])),
		run:      binary.LittleEndian.Uint32(b[8:12]),
		producer: binary.LittleEndian.Uint32(b[12:16]),
		seq:      binary.LittleEndian.Uint64(b[16:24]),
	}, true
}

// bitmap is a growable set of sequence numbers.
type bitmap struct {
	words []uint64
	count uint64 // bits set
}

// set marks seq and reports whether it was already set.
func (m *bitmap) set(seq uint64) (dup bool) {
	w := seq / 64
	if w >= uint64(len(m.words)) {
		n := max(2*len(m.words), int(w)+1, 1024)
		grown := make([]uint64, n)
		copy(grown, m.words)
		m.words = grown
	}
	bit := uint64(1) << (seq % 64)
	if m.words[w]&bit != 0 {
		return true
	}
	m.words[w] |= bit
	m.count++
	return false
}

// missing counts the sequence numbers set in want and absent from m.
func (m *bitmap) missing(want *bitmap) uint64 {
	var n uint64
	for i, w := range want.words {
		var have uint64
		if i < len(m.words) {
			have = m.words[i]
		}
		n += uint64(bits.OnesCount64(w &^ have))
	}
	return n
}

// extra counts the sequence numbers set in m and absent from want.
func (m *bitmap) extra(want *bitmap) uint64 { return want.missing(m) }

// ledger is what the consumers saw, per producer: which sequence numbers and
// how many duplicates. Consumers of one group share it.
type ledger struct {
	mu      sync.Mutex
	run     uint32
	seen    map[uint32]*bitmap
	dups    uint64
	foreign uint64 // messages of other runs or without our header
	redeliv uint64 // offsets read again (consumer rewound to its last commit)
	records uint64
	bytes   uint64
	maxOff  map[string][]int64 // per topic and partition: highest offset consumed, -1 if none
}

func newLedger(run uint32) *ledger {
	return &ledger{run: run, seen: map[uint32]*bitmap{}, maxOff: map[string][]int64{}}
}

// slot is the highest offset consumed of a partition (the caller holds mu).
func (l *ledger) slot(topic string, partition int32) *int64 {
	offs := l.maxOff[topic]
	for int(partition) >= len(offs) {
		offs = append(offs, -1)
		l.maxOff[topic] = offs
	}
	return &offs[partition]
}

// next is the offset after the highest consumed of a partition, and whether
// one was (the caller holds mu).
func (l *ledger) next(topic string, partition int32) (int64, bool) {
	offs := l.maxOff[topic]
	if int(partition) < len(offs) && offs[partition] >= 0 {
		return offs[partition] + 1, true
	}
	return 0, false
}

// note records one consumed message and says what it was. A message read again at an offset
// already consumed (a consumer group rewinding to its last commit after a
// rebalance or a broker restart) is a redelivery, not a duplicate: duplicates
// are the same producer sequence number at two offsets.
func (l *ledger) note(h header, ok bool, size int, topic string, partition int32, offset int64) delivery {
	l.mu.Lock()
	l.records++
	l.bytes += uint64(size)
	if partition >= 0 {
		m := l.slot(topic, partition)
		if offset <= *m {
			l.redeliv++
			l.mu.Unlock()
			return deliveredAgain
		}
		*m = offset
	}
	if !ok || h.run != l.run {
		l.foreign++
		l.mu.Unlock()
		return deliveredForeign
	}
	m := l.seen[h.producer]
	if m == nil {
		m = &bitmap{}
		l.seen[h.producer] = m
	}
	if m.set(h.seq) {
		l.dups++
	}
	l.mu.Unlock()
	return deliveredOurs
}

// marker records a transaction's commit or abort marker, read by a
// read_committed consumer: it takes an offset, so the consumer's position
// (for the lag) moves past it, but it is no message.
func (l *ledger) marker(topic string, partition int32, offset int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	m := l.slot(topic, partition)
	*m = max(*m, offset)
}

// delivery is what a consumed message was to the ledger.
type delivery uint8

const (
	deliveredOurs    delivery = iota // first delivery of a message of this run
	deliveredForeign                 // a message of another run, or without our header
	deliveredAgain                   // an offset consumed before (redelivery)
)
