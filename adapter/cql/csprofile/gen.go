package csprofile

import (
	"encoding/binary"
	"fmt"
	"math"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"

	"github.com/platbench/platbench/vocab"
	"github.com/platbench/platbench/workload"
)

// Blob hands a worker-owned byte slice to the driver without boxing a new
// slice header per request: a *Blob in an interface is a pointer.
type Blob struct{ B []byte }

// MarshalCQL implements gocql.Marshaler: the bytes are already encoded.
func (v *Blob) MarshalCQL(gocql.TypeInfo) ([]byte, error) { return v.B, nil }

// Bound is a statement bound once to blobs whose contents change per op.
type Bound struct {
	St   *Stmt
	Vals []Blob
}

// NewBound is st bound to blobs of its own.
func NewBound(st *Stmt) Bound { return Bound{St: st, Vals: make([]Blob, len(st.Args))} }

// Gen plans one worker's operations of a profile: the rows an insert
// visits and the values bound to each statement, generated into Buf
// without allocating for fixed-size types. One goroutine uses it.
type Gen struct {
	pr        *Profile
	rng       uint64
	Buf       []byte  // the values of the operation being planned; reset by the caller per operation
	Ins, Load Bound   // the insert and the load statement
	Ops       []Bound // per Profile.Ops
	rkey      []byte  // routing key scratch
}

// NewGen is the generator of worker id.
func (pr *Profile) NewGen(id int) *Gen {
	g := &Gen{pr: pr, rng: mix(uint64(id) + 1), Buf: make([]byte, 0, 4096)}
	g.Ins, g.Load = NewBound(&pr.Insert), NewBound(&pr.Load)
	for i := range pr.Ops {
		g.Ops = append(g.Ops, NewBound(&pr.Ops[i]))
	}
	return g
}

// Profile is the profile g plans for.
func (g *Gen) Profile() *Profile { return g.pr }

// Next is the worker's next random number.
func (g *Gen) Next() uint64 { g.rng = mix(g.rng); return g.rng }

// Fill sets the blobs of b from row (part, row); multirow statements take
// each column from a row of their own.
func (g *Gen) Fill(b *Bound, part, row, rows uint64) {
	for i, a := range b.St.Args {
		at := len(g.Buf)
		switch a.Kind {
		case ArgLimit:
			g.Buf = binary.BigEndian.AppendUint32(g.Buf, 100)
		case ArgToken:
			g.Buf = binary.BigEndian.AppendUint64(g.Buf, 0)
		case ArgTimestamp:
			g.Buf = binary.BigEndian.AppendUint64(g.Buf, uint64(time.Now().UnixMicro()))
		default:
			r := row
			if b.St.Multirow {
				r = g.Next() % rows
			}
			g.Buf = g.pr.AppendValue(g.Buf, a.Col, part, r)
		}
		b.Vals[i].B = g.Buf[at:len(g.Buf):len(g.Buf)]
	}
}

// MaxBatch bounds the statements of one batch, under the server's batch
// size limit for rows of a few hundred bytes; a visit of more rows is sent
// as several batches.
const MaxBatch = 100

// MaxBatchBytes bounds a batch's values, under Cassandra's default
// batch_size_fail_threshold (50 KiB): rows beyond it go in the next batch.
const MaxBatchBytes = 40 << 10

// Visit is one row an insert writes.
type Visit struct{ Part, Row uint64 }

// BatchLen is how many of vs the next statement or batch may hold: a
// conditional batch holds one partition.
func BatchLen(st *Stmt, vs []Visit) int {
	n := min(len(vs), MaxBatch)
	if st.CAS {
		n = 1
		for n < len(vs) && n < MaxBatch && vs[n].Part == vs[0].Part {
			n++
		}
	}
	return n
}

// Visits appends to vs the rows one insert of keyNum writes, and counts
// its partitions and rows (not the load's, all: every row of the partition).
func (g *Gen) Visits(vs []Visit, keyNum uint64, all bool) []Visit {
	pr := g.pr
	ins := pr.Def.Insert
	np := uint64(1)
	if !all {
		np = uint64(max(ins.Partitions.Sample(unit(g.Next()), unit(g.Next()), keyNum), 1))
	}
	for i := range np {
		part := keyNum
		if i > 0 {
			part = mix2(keyNum, i) % pr.Records
		}
		rows := pr.RowsIn(part)
		k, start := rows, uint64(0)
		if !all {
			sel := float64(ins.Select.Sample(unit(g.Next()), unit(g.Next()), keyNum)) / float64(ins.SelectDiv)
			k = uint64(max(math.Ceil(float64(rows)*sel), 1))
			start = g.Next() % rows
		}
		for j := range k {
			vs = append(vs, Visit{part, (start + j) % rows})
		}
		if !all {
			pr.Partitions.Add(1)
			pr.Rows.Add(k)
		}
	}
	return vs
}

// BindRange binds b's two token markers to split keyNum % TokenSplits.
func (g *Gen) BindRange(b *Bound, keyNum uint64) error {
	i := keyNum % TokenSplits
	const step = uint64(1) << 56 // 2^64 / TokenSplits
	lo := int64(i*step + 1<<63)  // math.MinInt64 + i*step
	hi := int64(uint64(lo) + step)
	if i == TokenSplits-1 {
		hi = math.MaxInt64
	}
	if len(b.Vals) != 2 {
		return fmt.Errorf("cql: token-range query %s has %d markers, want 2", b.St.Name, len(b.Vals))
	}
	g.Buf = binary.BigEndian.AppendUint64(g.Buf, uint64(lo))
	g.Buf = binary.BigEndian.AppendUint64(g.Buf, uint64(hi))
	at := len(g.Buf) - 16
	b.Vals[0].B, b.Vals[1].B = g.Buf[at:at+8:at+8], g.Buf[at+8:at+16:at+16]
	return nil
}

// IsRange reports whether op is one of the profile's token-range scans (or
// a named slot past its operations).
func (pr *Profile) IsRange(op vocab.Op) bool {
	return op.Named() && int(op-vocab.OpNamed0)-1 >= len(pr.Ops)-pr.Ranges
}

// RoutingKey is the protocol's routing key of the request's partition (the
// value of a one-column partition key, or each component's length, value
// and a zero byte); none for token-range scans. It is valid until the
// next call.
func (g *Gen) RoutingKey(req *workload.Request) ([]byte, bool) {
	if g.pr.IsRange(req.Op) {
		return nil, false
	}
	pk := g.pr.PK
	g.rkey = g.rkey[:0]
	if len(pk) == 1 {
		g.rkey = g.pr.AppendValue(g.rkey, pk[0], req.KeyNum, 0)
		return g.rkey, true
	}
	for _, c := range pk {
		at := len(g.rkey)
		g.rkey = append(g.rkey, 0, 0)
		g.rkey = g.pr.AppendValue(g.rkey, c, req.KeyNum, 0)
		n := len(g.rkey) - at - 2
		g.rkey[at], g.rkey[at+1] = byte(n>>8), byte(n)
		g.rkey = append(g.rkey, 0)
	}
	return g.rkey, true
}
