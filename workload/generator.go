package workload

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/platbench/platbench/vocab"
)

// Generator produces the requests of one worker. It owns the key and value
// buffers that the Requests it fills point into, so a Request is valid until
// the next call. It is not safe for concurrent use: make one per worker.
//
// With the same Spec, seed and worker a Generator produces the same op
// sequence; the key numbers of inserts, and of the sequential and latest
// distributions, also depend on what the other workers of the Keyspace did.
type Generator struct {
	ks   *Keyspace
	rng  rand.PCG
	r    *rand.Rand // over rng, for NormFloat64
	dist Dist

	ops []vocab.Op // mix ops with weight > 0
	cum []float64  // cumulative weights, cum[len-1] = total

	records     uint64
	fieldCount  int
	fieldLen    int
	recordBytes int
	maxScan     uint64
	writeAll    bool
	ordered     bool
	namedValue  bool // named ops are command templates: they get a value (__data__)

	scrambled zipfian // zipfian: ranks over 1e10 items, hashed onto records
	recMod    divisor // x % records without a DIV
	latest    zipfian // latest: ranks back from the last key
	hotN      uint64  // hotspot: hot keys are [0, hotN)
	coldN     uint64
	hotOpn    float64

	// The insert this worker handed out last, acknowledged at its next call
	// (the runner calls again only after Do returned).
	pending  bool
	pendingN uint64

	prefixLen int
	pad       int    // zero-pad key numbers to this many digits (0, 1: none)
	key       []byte // prefix + padding + up to 20 digits (+4 spare: appendDecimal's stores)
	val       []byte // 2*recordBytes random bytes; values are windows into it

	// Checked values (Spec.CheckValues, value.go): each write fills cval.
	validate bool
	gen      uint64 // generation of the last checked write
	cval     []byte // recordBytes
}

// NewGenerator returns the generator of worker (0-based) for a valid Spec s
// (see Validate) and the run's shared Keyspace. seed makes the run
// reproducible; each worker derives its own stream from (seed, worker).
func NewGenerator(s *Spec, ks *Keyspace, seed int64, worker int) *Generator {
	g := &Generator{
		ks:         ks,
		dist:       s.Distribution,
		records:    ks.records,
		fieldCount: max(s.FieldCount, 1),
		fieldLen:   max(s.FieldLength, 1),
		writeAll:   s.WriteAllFields,
		ordered:    s.OrderedInserts,
		maxScan:    uint64(max(s.MaxScanLength, 1)),
		namedValue: len(s.Commands) > 0,
	}
	g.recordBytes = g.fieldCount * g.fieldLen
	g.rng.Seed(splitmix(uint64(seed)), splitmix(uint64(seed)^splitmix(uint64(worker)+0x9E3779B97F4A7C15)))
	g.r = rand.New(&g.rng)

	var total float64
	for _, m := range s.Mix {
		if m.Op < vocab.NumOps && m.Weight > 0 {
			total += m.Weight
			g.ops = append(g.ops, m.Op)
			g.cum = append(g.cum, total)
		}
	}
	if len(g.ops) == 0 { // invalid spec: read only rather than crash
		g.ops, g.cum = []vocab.Op{vocab.OpRead}, []float64{1}
	}

	switch g.dist {
	case DistZipfian:
		g.scrambled = newZipfian(scrambledItems, ks.theta, ks.scrambledZeta)
		g.recMod = newDivisor(g.records)
	case DistLatest:
		g.latest = newZipfian(ks.records, ks.theta, ks.recordsZeta)
	case DistHotspot:
		// YCSB HotspotIntegerGenerator: hotInterval = (long)(interval * hotsetFraction).
		g.hotN = uint64(float64(g.records) * s.HotsetFraction)
		if g.hotN > g.records {
			g.hotN = g.records
		}
		g.coldN = g.records - g.hotN
		g.hotOpn = s.HotOpnFraction
	}

	g.initKey(s)
	if s.CheckValues {
		g.validate = true
		g.cval = make([]byte, g.recordBytes)
	}
	g.val = make([]byte, 2*g.recordBytes)
	for i := 0; i < len(g.val); i += 8 {
		x := g.rng.Uint64()
		for j := 0; j < 8 && i+j < len(g.val); j++ {
			// Printable bytes, as YCSB's RandomByteIterator fills ' '..'_';
			// some targets store values as text.
			g.val[i+j] = ' ' + byte(x&63)
			x >>= 8
		}
	}
	return g
}

// splitmix is SplitMix64's finaliser; it spreads nearby seeds apart.
func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

// float returns a uniform float64 in [0, 1).
func (g *Generator) float() float64 { return float64(g.rng.Uint64()>>11) * 0x1p-53 }

// below returns a uniform integer in [0, n) (Lemire's multiply-shift; the
// bias is below n/2^64).
func (g *Generator) below(n uint64) uint64 {
	hi, _ := bits.Mul64(g.rng.Uint64(), n)
	return hi
}

// Next fills req with the next run-phase operation: Op from the mix, the key
// from the distribution (a new key number for inserts), a value for writes,
// and Fields/FieldLen/ScanLen. It does not allocate.
//
// An INSERT counts as completed (visible to the latest distribution of every
// worker) when its worker calls Next or Load again, whether it succeeded or
// not, as YCSB acknowledges inserts.
func (g *Generator) Next(req *Request) {
	op := g.ops[0]
	if len(g.ops) > 1 {
		u := g.float() * g.cum[len(g.cum)-1]
		op = g.ops[len(g.ops)-1]
		for i, c := range g.cum {
			if u < c {
				op = g.ops[i]
				break
			}
		}
	}
	g.NextOp(req, op)
}

// NextOp fills req with the next operation of type op, whatever the mix says:
// an open loop with one arrival stream per operation type picks the type
// itself. Keys, values and scan lengths follow the workload as in Next.
func (g *Generator) NextOp(req *Request, op vocab.Op) {
	g.begin(req, op)
	var k uint64
	if op == vocab.OpInsert {
		g.pendingN, k = g.ks.nextInsert()
		g.pending = true
	} else {
		k = g.nextKey()
	}
	g.setKey(req, k)
	switch op {
	case vocab.OpInsert, vocab.OpWrite, vocab.OpSet, vocab.OpCAS, vocab.OpProduce:
		g.setValue(req, g.fieldCount)
	case vocab.OpUpdate, vocab.OpRMW:
		if g.writeAll {
			g.setValue(req, g.fieldCount)
		} else {
			g.setValue(req, 1)
		}
	case vocab.OpScan:
		req.ScanLen = int(1 + g.below(g.maxScan))
		req.Value, req.Fields = nil, g.fieldCount
	default:
		if op.Named() && g.namedValue { // a command template's __data__
			g.setValue(req, g.fieldCount)
			break
		}
		// READ, GET, DELETE, CONSUME, INCR
		req.Value, req.Fields = nil, g.fieldCount
	}
}

// begin starts req as an operation of type op. The insert handed out last,
// if any, is acknowledged first (see pending): it has completed by now.
func (g *Generator) begin(req *Request, op vocab.Op) {
	if g.pending {
		g.ks.ack(g.pendingN)
		g.pending = false
	}
	req.Op = op
	req.ScanLen = 0
	req.FieldLen = g.fieldLen
}

// Load fills req with the load-phase insert of record keyNum: every field,
// FieldCount*FieldLength bytes. It does not allocate.
func (g *Generator) Load(req *Request, keyNum uint64) {
	g.begin(req, vocab.OpInsert)
	g.setKey(req, keyNum)
	g.setValue(req, g.fieldCount)
}

// ReadOf fills req with a read of record keyNum, every field: the read-back
// of a verification (`--verify`). It does not allocate.
func (g *Generator) ReadOf(req *Request, keyNum uint64) {
	req.Op = vocab.OpRead
	req.ScanLen = 0
	req.FieldLen = g.fieldLen
	g.setKey(req, keyNum)
	req.Value, req.Fields, req.Field = nil, g.fieldCount, 0
}

// nextKey draws an existing key number from the distribution.
func (g *Generator) nextKey() uint64 {
	switch g.dist {
	case DistUniform:
		return g.below(g.records)
	case DistZipfian:
		// YCSB ScrambledZipfianGenerator: min + fnvhash64(rank) % itemcount.
		return g.recMod.mod(fnvhash64(g.scrambled.next(g.float())))
	case DistLatest:
		// YCSB SkewedLatestGenerator: the most recent key is the most popular.
		last := g.ks.lastKey()
		n := last + 1
		g.latest.grow(n)
		return last - g.latest.next(g.float())
	case DistHotspot:
		if g.coldN == 0 || (g.hotN > 0 && g.float() < g.hotOpn) {
			return g.below(g.hotN)
		}
		return g.hotN + g.below(g.coldN)
	case DistSequential:
		return g.ks.nextSeq()
	case DistGaussian:
		// cassandra-stress gaussian(min..max): mean (min+max)/2, stdev
		// (max-min)/2/3, values outside the range clamped to its ends.
		half := float64(g.records-1) / 2
		x := half + g.r.NormFloat64()*half/3 + 0.5
		if x < 0 {
			return 0
		}
		if k := uint64(x); k < g.records {
			return k
		}
		return g.records - 1
	}
	return g.below(g.records)
}

// initKey prepares the key buffer: the prefix, then the number's room.
func (g *Generator) initKey(s *Spec) {
	g.prefixLen = len(s.KeyPrefix)
	g.pad = min(max(s.KeyPadding, 0), MaxKeyPadding)
	g.key = make([]byte, 0, len(s.KeyPrefix)+g.pad+24)
	g.key = append(g.key, s.KeyPrefix...)
}

// KeyName is the key of record keyNum as the workload's operations name it
// (a target checking that a dataset is there, or cleaning it, reads these).
func (s *Spec) KeyName(keyNum uint64) string {
	g := &Generator{ordered: s.OrderedInserts}
	g.initKey(s)
	var req Request
	g.setKey(&req, keyNum)
	return string(req.Key)
}

// setKey formats keyNum as prefix + decimal, hashed unless OrderedInserts
// (YCSB CoreWorkload.buildKeyName).
func (g *Generator) setKey(req *Request, keyNum uint64) {
	req.KeyNum = keyNum
	if !g.ordered {
		keyNum = fnvhash64(keyNum)
	}
	g.key = appendDecimal(g.key[:g.prefixLen], keyNum)
	if n := len(g.key) - g.prefixLen; n < g.pad {
		// YCSB buildKeyName: zeros between the prefix and the number.
		g.key = g.key[:g.prefixLen+g.pad]
		copy(g.key[g.prefixLen+g.pad-n:], g.key[g.prefixLen:g.prefixLen+n])
		for i := g.prefixLen; i < g.prefixLen+g.pad-n; i++ {
			g.key[i] = '0'
		}
	}
	req.Key = g.key
}

// setValue points req.Value at fields*fieldLen bytes from a random offset of
// the value buffer, so successive values differ without being regenerated.
func (g *Generator) setValue(req *Request, fields int) {
	if g.validate {
		g.setChecked(req, fields)
		return
	}
	n := fields * g.fieldLen
	off := g.below(uint64(g.recordBytes))
	req.Value = g.val[off : off+uint64(n) : off+uint64(n)]
	req.Fields = fields
}

// appendDecimal appends the decimal form of u to dst, byte for byte what
// strconv.AppendUint(dst, u, 10) appends, in a third of its instructions:
// the digits are made eight at a time in one 64-bit register (SWAR) and
// stored with one 8-byte write. It needs 24 bytes of spare capacity (the
// stores may run past the digits, inside the capacity) and falls back to
// strconv otherwise.
func appendDecimal(dst []byte, u uint64) []byte {
	l := len(dst)
	if cap(dst)-l < 24 {
		return strconv.AppendUint(dst, u, 10)
	}
	b := dst[l : l+24 : l+24]
	var n int
	switch {
	case u < 1e8:
		n = putLead(b, uint32(u))
	case u < 1e16:
		n = putLead(b, uint32(u/1e8))
		binary.LittleEndian.PutUint64(b[n:], digits8(uint32(u%1e8)))
		n += 8
	default:
		r := u % 1e16
		n = putLead(b, uint32(u/1e16))
		binary.LittleEndian.PutUint64(b[n:], digits8(uint32(r/1e8)))
		binary.LittleEndian.PutUint64(b[n+8:], digits8(uint32(r%1e8)))
		n += 16
	}
	return dst[:l+n]
}

// pow10u32 are the powers of ten that fit in a uint32.
var pow10u32 = [...]uint32{1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000, 1000000000}

// putLead writes x < 1e8 without leading zeros (one digit for 0) at b[0:]
// with one 8-byte store and returns its digit count.
func putLead(b []byte, x uint32) int {
	// digits = floor(log10(x))+1, from the bit length (1233/4096 ~ log10 2).
	// Branch-free: with hashed keys the leading chunk has 3 or 4 digits
	// about evenly, so a branch would be mispredicted half the time.
	t := (bits.Len32(x|1) * 1233) >> 12
	t += int((uint64(pow10u32[t]) - 1 - uint64(x)) >> 63) // +1 if x >= 10^t
	t = max(t, 1)
	binary.LittleEndian.PutUint64(b, digits8(x)>>(8*uint(8-t)))
	return t
}

// digits8 returns the 8 ASCII digits of x < 1e8, most significant in the
// lowest byte (little-endian memory order).
func digits8(x uint32) uint64 {
	// Two 4-digit halves in 32-bit lanes, then each into two 2-digit
	// 16-bit lanes (q = v/100 as v*5243>>19, exact below 43699), then each
	// into two 1-digit bytes (q = v/10 as v*103>>10, exact below 179). Bits
	// the shifts pull down from the next lane land above the masks.
	v := uint64(x/10000) | uint64(x%10000)<<32
	q := ((v * 5243) >> 19) & 0x0000007F_0000007F
	v = q | (v-q*100)<<16
	q = ((v * 103) >> 10) & 0x000F000F_000F000F
	v = q | (v-q*10)<<8
	return v | 0x30303030_30303030
}
