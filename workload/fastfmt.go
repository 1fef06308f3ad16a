package workload

import (
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

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

// powExp computes math.Pow(x, y) for one fixed y > 0 and 0 < x <= 1 with the
// same operations, in the same order, as math.Pow; it only drops the
// special-case tests that cannot apply and does the frexp and ldexp steps
// inline. (math.Pow is pure Go on every architecture; the zipfian draws
// call it once per sample with y = 1/(1-theta) ~ 100, and it was 40% of the
// generator.) Other x, and y that math.Pow treats specially, go to math.Pow.
//
// The result is bit-identical to math.Pow's except in one case: when y is
// within 1e-12 of an integer (the default constant: 1/(1-0.99) is
// 100 - 9e-14), math.Pow's factor x^yf = Exp(yf*Log(x)) is 1 + z with
// |z| < 1e-12, and two latency-bound library calls (half the generator's
// time) go to get it. powExp computes z from a 256-entry log table instead,
// to within 1e-23, so that factor is 1+z correctly rounded: it may differ
// from math.Exp's in the last bit (math.Exp is not correctly rounded
// either), which moves the result by at most one ulp (TestPowExp...) and a
// zipfian rank by one in about one draw in 10^9, the same order as Java's
// Math.pow, which YCSB uses, is allowed to differ from the exact value.
type powExp struct {
	y    float64
	yi   int64   // integer part, after math.Pow's yf > 0.5 adjustment
	yf   float64 // fractional part, in (-0.5, 0.5]
	fast bool
	tiny bool // 0 < |yf| <= 1e-12: x^yf = 1 + yf*log(x), with log05 for x >= 0.5
}

func newPowExp(y float64) powExp {
	p := powExp{y: y}
	if !(y > 0) || math.IsInf(y, 0) || y == 1 || y == 0.5 || y >= 1<<62 {
		return p
	}
	yi, yf := math.Modf(y)
	if yf > 0.5 {
		yf--
		yi++
	}
	p.yi, p.yf, p.fast = int64(yi), yf, true
	p.tiny = yf != 0 && math.Abs(yf) <= 1e-12
	return p
}

// pow returns math.Pow(x, p.y), bit for bit.
func (p *powExp) pow(x float64) float64 {
	// Normal x in (0, 1): the only range the zipfian uses (x = 1 is a
	// special case of math.Pow, answered there).
	if !p.fast || !(x >= 0x1p-1022 && x < 1) {
		return math.Pow(x, p.y)
	}
	a1 := 1.0
	if p.tiny && x >= 0.5 {
		// exp(z) = 1 + z + z^2/2 + ..., and z^2 < 1e-24 is far below
		// the last bit of 1.
		a1 = 1 + p.yf*log05(x)
	} else if p.yf != 0 {
		a1 = math.Exp(p.yf * math.Log(x))
	}
	ae := 0
	// Frexp of a normal x: fraction in [0.5, 1), exponent.
	xb := math.Float64bits(x)
	xe := int((xb>>52)&0x7ff) - 1022
	x1 := math.Float64frombits(xb&^(0x7ff<<52) | 1022<<52)
	i := p.yi
	if x >= 0.5 && i < 1<<11 {
		// x1 = x, xe = 0, and xe only doubles (and drops by one) per
		// step: it stays within [-2*yi, 0], far from math.Pow's overflow
		// guard, which this loop can leave out.
		for ; i != 0; i >>= 1 {
			if i&1 == 1 {
				a1 *= x1
				ae += xe
			}
			// x1*x1 is in [0.25, 1): its exponent field is 1021 below
			// 0.5 and 1022 above. Doubling it (x1 += x1) then is one
			// more in that field; done without a branch, which would be
			// mispredicted half the time.
			b := math.Float64bits(x1 * x1)
			lt := 1022 - int(b>>52&0x7ff) // 1 if below 0.5, else 0
			x1 = math.Float64frombits(b + uint64(lt)<<52)
			xe = xe<<1 - lt
		}
	}
	for ; i != 0; i >>= 1 {
		if xe < -1<<12 || 1<<12 < xe {
			ae += xe
			break
		}
		if i&1 == 1 {
			a1 *= x1
			ae += xe
		}
		x1 *= x1
		xe <<= 1
		if x1 < .5 {
			x1 += x1
			xe--
		}
	}
	// Ldexp(a1, ae) when a1 is normal and the result too.
	ab := math.Float64bits(a1)
	ea := int((ab>>52)&0x7ff) - 1023
	e := ae + ea
	if ea == -1023 || ea == 1024 || e < -1022 || e > 1023 {
		return math.Ldexp(a1, ae)
	}
	return math.Float64frombits(ab&^(0x7ff<<52) | uint64(e+1023)<<52)
}

// divisor computes x % d for a fixed d with a multiply and shifts instead of
// a 64-bit DIV (30 to 90 cycles on x86), exactly (libdivide's u64 algorithm:
// Granlund and Montgomery, "Division by invariant integers using
// multiplication", 1994). The scrambled zipfian takes hash % records per
// draw.
type divisor struct {
	d, m  uint64
	shift uint
	add   bool // the magic needed 65 bits: add the numerator back
	pow2  bool
}

func newDivisor(d uint64) divisor {
	if d == 0 {
		d = 1
	}
	k := uint(63 - bits.LeadingZeros64(d))
	if d&(d-1) == 0 {
		return divisor{d: d, shift: k, pow2: true}
	}
	// m = floor(2^(64+k) / d); 2^k < d, so the quotient fits 64 bits.
	m, rem := bits.Div64(1<<k, 0, d)
	q := divisor{d: d, shift: k}
	if e := d - rem; e < 1<<k {
		q.m = m + 1
	} else {
		m += m
		twice := rem + rem
		if twice >= d || twice < rem {
			m++
		}
		q.m, q.add = m+1, true
	}
	return q
}

// mod returns x % q.d.
func (q *divisor) mod(x uint64) uint64 {
	if q.pow2 {
		return x & (q.d - 1)
	}
	hi, _ := bits.Mul64(x, q.m)
	if q.add {
		hi = ((x-hi)>>1 + hi) >> q.shift
	} else {
		hi >>= q.shift
	}
	return x - hi*q.d
}

// logTab[j] holds log(c) - log(2) and 1/c for c = 1 + (j+0.5)/256, the
// centre of the j-th 256th of the mantissa range [1, 2).
var logTab = func() (t [256][2]float64) {
	for j := range t {
		c := 1 + (float64(j)+0.5)/256
		t[j] = [2]float64{math.Log(c) - math.Ln2, 1 / c}
	}
	return t
}()

// log05 returns log(x) for x in [0.5, 1) to within 4e-12 (absolute): x =
// m/2 with m in [1, 2); log(x) = log(c) - log(2) + log(1+d) for the table
// centre c nearest m and d = m/c - 1, |d| <= 1/512, where three terms of
// the series leave an error below d^4/4.
func log05(x float64) float64 {
	b := math.Float64bits(x)
	e := &logTab[(b>>44)&0xff]
	m := math.Float64frombits(b&(1<<52-1) | 1023<<52) // mantissa in [1, 2)
	d := m*e[1] - 1
	return e[0] + d*(1-d*(0.5-d*(1.0/3)))
}
