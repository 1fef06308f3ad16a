package csprofile

import (
	"encoding/binary"
	"fmt"
	"math"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// ctype is a CQL type compiled once at Setup from the server's metadata, so
// that generating a value is a switch on a small integer, not on interfaces.
type ctype struct {
	kind  gocql.Type
	elems []*ctype // list/set: {elem}; map: {key, value}; tuple and UDT: the fields
	name  string   // for messages
}

// compileType turns the driver's TypeInfo into a ctype; types platbench
// cannot generate (custom, vector) are refused with the column's name.
func compileType(col string, ti gocql.TypeInfo) (*ctype, error) {
	c := &ctype{kind: ti.Type(), name: fmt.Sprint(ti)}
	var sub []gocql.TypeInfo
	switch t := ti.(type) {
	case gocql.CollectionType:
		if t.Type() == gocql.TypeMap {
			sub = append(sub, t.Key)
		}
		sub = append(sub, t.Elem)
	case gocql.TupleTypeInfo:
		sub = t.Elems
	case gocql.UDTTypeInfo:
		for _, f := range t.Elements {
			sub = append(sub, f.Type)
		}
	default:
		if fixedSize(c.kind) < 0 && !varSized(c.kind) {
			return nil, fmt.Errorf("column %s has type %v, which platbench cannot generate (fix: use a native, collection, tuple or UDT type)", col, ti)
		}
	}
	for _, s := range sub {
		e, err := compileType(col, s)
		if err != nil {
			return nil, err
		}
		c.elems = append(c.elems, e)
	}
	return c, nil
}

// fixedSize is the encoded size of a fixed-size type, -1 for others.
func fixedSize(k gocql.Type) int {
	switch k {
	case gocql.TypeBoolean, gocql.TypeTinyInt:
		return 1
	case gocql.TypeSmallInt:
		return 2
	case gocql.TypeInt, gocql.TypeFloat, gocql.TypeDate, gocql.TypeInet:
		return 4
	case gocql.TypeBigInt, gocql.TypeCounter, gocql.TypeDouble, gocql.TypeTimestamp, gocql.TypeTime, gocql.TypeVarint:
		return 8
	case gocql.TypeDecimal:
		return 12
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		return 16
	case gocql.TypeDuration:
		return 3
	}
	return -1
}

func varSized(k gocql.Type) bool {
	return k == gocql.TypeText || k == gocql.TypeVarchar || k == gocql.TypeAscii || k == gocql.TypeBlob
}

// mix is splitmix64's finaliser: a well-spread function of its input.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func mix2(a, b uint64) uint64 { return mix(a ^ mix(b)) }

// unit maps x to [0, 1).
func unit(x uint64) float64 { return float64(x>>11) * 0x1p-53 }

// maxElems bounds a collection's element count (its size distribution's
// draw) so that one value stays small.
const maxElems = 64

// encode appends the value of seed in type c, size bytes long for text and
// blobs and size elements long for collections, to buf: the CQL protocol's
// encoding without the length prefix. Fixed-size types do not allocate
// (buf has room once it has grown).
func (c *ctype) encode(buf []byte, seed uint64, size int) []byte {
	x := mix(seed)
	switch c.kind {
	case gocql.TypeBoolean:
		return append(buf, byte(x&1))
	case gocql.TypeTinyInt:
		return append(buf, byte(x))
	case gocql.TypeSmallInt:
		return binary.BigEndian.AppendUint16(buf, uint16(x))
	case gocql.TypeInt:
		return binary.BigEndian.AppendUint32(buf, uint32(x))
	case gocql.TypeFloat:
		return binary.BigEndian.AppendUint32(buf, math.Float32bits(float32(unit(x)*1e6)))
	case gocql.TypeDouble:
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(unit(x)*1e9))
	case gocql.TypeBigInt, gocql.TypeVarint:
		return binary.BigEndian.AppendUint64(buf, x)
	case gocql.TypeCounter:
		return binary.BigEndian.AppendUint64(buf, 1+x%10)
	case gocql.TypeTimestamp: // ms since the epoch, 2020 to 2030
		return binary.BigEndian.AppendUint64(buf, 1577836800000+x%(10*365*86400000))
	case gocql.TypeTime: // ns since midnight
		return binary.BigEndian.AppendUint64(buf, x%(86400*1e9))
	case gocql.TypeDate: // days, centred on the epoch at 2^31
		return binary.BigEndian.AppendUint32(buf, 1<<31+18262+uint32(x%3650))
	case gocql.TypeDecimal: // scale 2, an 8-byte unscaled value
		buf = binary.BigEndian.AppendUint32(buf, 2)
		return binary.BigEndian.AppendUint64(buf, x)
	case gocql.TypeUUID, gocql.TypeTimeUUID:
		return appendUUID(buf, x, mix(x), c.kind == gocql.TypeTimeUUID)
	case gocql.TypeInet:
		return binary.BigEndian.AppendUint32(buf, 10<<24|uint32(x&0xffffff))
	case gocql.TypeDuration: // months, days, nanoseconds as zig-zag vints below 64
		return append(buf, byte(x%10)<<1, byte(x>>8%28)<<1, byte(x>>16%60)<<1)
	case gocql.TypeText, gocql.TypeVarchar, gocql.TypeAscii:
		return appendText(buf, x, size)
	case gocql.TypeBlob:
		return appendRandom(buf, x, size)
	case gocql.TypeList, gocql.TypeSet, gocql.TypeMap:
		return c.encodeCollection(buf, x, size)
	}
	return c.encodeFields(buf, x) // tuple, UDT
}

func (c *ctype) encodeCollection(buf []byte, x uint64, size int) []byte {
	n := min(max(size, 0), maxElems)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	for i := range n {
		for j, e := range c.elems {
			buf = appendElem(buf, e, mix2(x, uint64(i*2+j)))
		}
	}
	return buf
}

func (c *ctype) encodeFields(buf []byte, x uint64) []byte {
	for j, e := range c.elems {
		buf = appendElem(buf, e, mix2(x, uint64(j)))
	}
	return buf
}

// elemSize is the size of text and blobs inside collections, tuples and UDTs.
const elemSize = 8

// appendElem appends one element with its 4-byte length.
func appendElem(buf []byte, e *ctype, seed uint64) []byte {
	at := len(buf)
	buf = append(buf, 0, 0, 0, 0)
	buf = e.encode(buf, seed, elemSize)
	binary.BigEndian.PutUint32(buf[at:], uint32(len(buf)-at-4))
	return buf
}

func appendUUID(buf []byte, hi, lo uint64, timeBased bool) []byte {
	buf = binary.BigEndian.AppendUint64(buf, hi)
	buf = binary.BigEndian.AppendUint64(buf, lo)
	u := buf[len(buf)-16:]
	ver := byte(0x40)
	if timeBased {
		ver = 0x10
	}
	u[6] = u[6]&0x0f | ver
	u[8] = u[8]&0x3f | 0x80
	return buf
}

func appendText(buf []byte, x uint64, n int) []byte {
	for i := range n {
		if i%8 == 0 && i > 0 {
			x = mix(x)
		}
		buf = append(buf, 'a'+byte((x>>(8*(i%8)))%26))
	}
	return buf
}

func appendRandom(buf []byte, x uint64, n int) []byte {
	for i := range n {
		if i%8 == 0 && i > 0 {
			x = mix(x)
		}
		buf = append(buf, byte(x>>(8*(i%8))))
	}
	return buf
}
