package workload

// Checked values (Spec.CheckValues, `--validate`): every field platbench writes
// is a function of the record's key, the field's number and a generation the
// field carries, so a read can tell a correct field from a corrupt or unknown
// one without remembering what was written.
//
// A field is FieldLength printable bytes (' '..'_', 6 bits each, as the
// unchecked values). Its first ValueHeader bytes are the header: 16 bits of
// generation, 8 bits of the field number and 24 check bits of
// seed = hash(key, field, generation); the rest is a stream derived from
// seed, 6 bits a byte. A check recomputes seed from the header and compares
// every byte.

// ValueHeader is the header's length in bytes: the least FieldLength a
// checked workload may have.
const ValueHeader = 8

// Verdict is what a check of a value found.
type Verdict uint8

const (
	ValueOK      Verdict = iota // every field is what platbench wrote
	ValueMissing                // no record (or an empty one)
	ValueCorrupt                // a field whose header or content does not match its key
)

// keyHash is FNV-1a over the key's bytes.
func keyHash(key []byte) uint64 {
	h := uint64(0xcbf29ce484222325)
	for _, b := range key {
		h ^= uint64(b)
		h *= 0x100000001b3
	}
	return h
}

func fieldSeed(kh uint64, field int, gen uint64) uint64 {
	return splitmix(kh ^ splitmix(uint64(field)<<16|gen))
}

// header packs gen (16 bits), field (8 bits) and the seed's top 24 bits.
func header(field int, gen, seed uint64) uint64 {
	return gen&0xFFFF | uint64(field&0xFF)<<16 | (seed>>40)<<24
}

// fillField writes field number field of the key whose hash is kh,
// generation gen (< 1<<16), into dst (len(dst) >= ValueHeader). It does
// not allocate.
func fillField(dst []byte, kh uint64, field int, gen uint64) {
	seed := fieldSeed(kh, field, gen)
	h := header(field, gen, seed)
	for i := 0; i < ValueHeader; i++ {
		dst[i] = ' ' + byte(h&63)
		h >>= 6
	}
	st := seed
	for i := ValueHeader; i < len(dst); i += 8 {
		st += 0x9E3779B97F4A7C15
		x := splitmix(st)
		for j := 0; j < 8 && i+j < len(dst); j++ {
			dst[i+j] = ' ' + byte(x&63)
			x >>= 8
		}
	}
}

// CheckField reports whether v is a field that fillField wrote for key and
// field (field < 0: any field number; the header names it). It does not
// allocate.
func CheckField(v, key []byte, field int) bool {
	return checkField(v, keyHash(key), field)
}

func checkField(v []byte, kh uint64, field int) bool {
	if len(v) < ValueHeader {
		return false
	}
	var h uint64
	for i := ValueHeader - 1; i >= 0; i-- {
		c := v[i] - ' '
		if c >= 64 {
			return false
		}
		h = h<<6 | uint64(c)
	}
	gen, f := h&0xFFFF, int(h>>16&0xFF)
	if field >= 0 && f != field&0xFF {
		return false
	}
	if field < 0 {
		field = f // the header's 8 bits: checked workloads have at most 256 fields
	}
	seed := fieldSeed(kh, field, gen)
	if header(field, gen, seed) != h {
		return false
	}
	st := seed
	for i := ValueHeader; i < len(v); i += 8 {
		st += 0x9E3779B97F4A7C15
		x := splitmix(st)
		for j := 0; j < 8 && i+j < len(v); j++ {
			if v[i+j] != ' '+byte(x&63) {
				return false
			}
			x >>= 8
		}
	}
	return true
}

// CheckRecord checks a record stored as one value of whole fields (field i
// at offset i*fieldLen): empty is missing; a length that is not a whole
// number of fields, more than fieldCount of them, or a field that does not
// check is corrupt. A record of one field may hold any field (a store that
// keeps the record as one value and updates one field writes just that
// field). It does not allocate.
func CheckRecord(v, key []byte, fieldLen, fieldCount int) Verdict {
	if len(v) == 0 {
		return ValueMissing
	}
	if fieldLen < ValueHeader || len(v)%fieldLen != 0 || len(v)/fieldLen > fieldCount {
		return ValueCorrupt
	}
	kh := keyHash(key)
	n := len(v) / fieldLen
	for i := range n {
		f := i
		if n == 1 {
			f = -1
		}
		if !checkField(v[i*fieldLen:(i+1)*fieldLen], kh, f) {
			return ValueCorrupt
		}
	}
	return ValueOK
}

// setChecked fills req.Value with checked fields: all of them, or one field
// drawn at random (req.Field says which).
func (g *Generator) setChecked(req *Request, fields int) {
	g.gen++
	kh := keyHash(req.Key)
	first := 0
	if fields < g.fieldCount {
		first = int(g.below(uint64(g.fieldCount)))
	}
	n := fields * g.fieldLen
	for i := range fields {
		fillField(g.cval[i*g.fieldLen:(i+1)*g.fieldLen], kh, first+i, g.gen&0xFFFF)
	}
	req.Value = g.cval[:n:n]
	req.Fields = fields
	req.Field = first
}
