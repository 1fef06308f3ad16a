package workload

import (
	"math"
	"math/bits"
)

// fnvhash64 is YCSB's Utils.fnvhash64: FNV-1 over the 8 little-endian bytes
// of v, then Math.abs of the signed result. YCSB hashes key numbers with it
// (insertorder=hashed) and scrambles zipfian ranks with it.
func fnvhash64(v uint64) uint64 {
	const (
		offset = 0xCBF29CE484222325
		prime  = 1099511628211
	)
	// The 8 rounds written out (Go does not unroll loops).
	h := (uint64(offset) ^ v&0xff) * prime
	h = (h ^ v>>8&0xff) * prime
	h = (h ^ v>>16&0xff) * prime
	h = (h ^ v>>24&0xff) * prime
	h = (h ^ v>>32&0xff) * prime
	h = (h ^ v>>40&0xff) * prime
	h = (h ^ v>>48&0xff) * prime
	h = (h ^ v>>56) * prime
	if int64(h) < 0 && h != 1<<63 { // Math.abs(Long.MIN_VALUE) stays negative in Java
		h = -h
	}
	return h
}

// YCSB's ScrambledZipfianGenerator draws ranks from a zipfian over this many
// items and maps them onto the key range with fnvhash64(rank) % records, and
// uses the precomputed zeta of that count for the default constant.
// YCSB builds it as ZipfianGenerator(0, ITEM_COUNT=1e10, ...), max
// inclusive, hence the +1. (ZETAN was summed for 1e10 items in forward order;
// zeta here gives 26.4690282017515, 1e-12 away, from exact arithmetic.)
const (
	scrambledItems = 10_000_000_000 + 1
	scrambledZetan = 26.46902820178302 // YCSB ScrambledZipfianGenerator.ZETAN for constant 0.99
)

// zetaExactLimit is the item count up to which zeta sums term by term; above
// it the tail comes from the Euler-Maclaurin formula, which is exact to
// double precision for these smooth terms and costs microseconds instead of
// a second per 1e8 items.
const zetaExactLimit = 1 << 10

// zeta returns sum_{i=1..n} i^-theta.
func zeta(n uint64, theta float64) float64 { return zetaRange(0, n, theta) }

// zetaRange returns sum_{i=from+1..to} i^-theta (YCSB's incremental zeta).
func zetaRange(from, to uint64, theta float64) float64 {
	if to <= from {
		return 0
	}
	if to-from <= zetaExactLimit {
		return zetaSum(from, to, theta)
	}
	if from < zetaExactLimit {
		return zetaSum(from, zetaExactLimit, theta) + zetaTail(zetaExactLimit, to, theta)
	}
	return zetaTail(from, to, theta)
}

// zetaSum adds the terms from+1..to, smallest first for accuracy.
func zetaSum(from, to uint64, theta float64) float64 {
	var s float64
	for i := to; i > from; i-- {
		s += math.Pow(float64(i), -theta)
	}
	return s
}

// zetaTail is sum_{i=a+1..b} i^-theta by Euler-Maclaurin with a >= 2^10:
// integral + (f(b)-f(a))/2 + B2/2!*(f'(b)-f'(a)) + B4/4!*(f”'(b)-f”'(a)).
// The next term, B6/6! f^(5), is below 1e-20 at a = 2^10.
func zetaTail(a, b uint64, theta float64) float64 {
	fa, fb := float64(a), float64(b)
	f := func(x float64) float64 { return math.Pow(x, -theta) }
	d1 := func(x float64) float64 { return -theta * math.Pow(x, -theta-1) }
	d3 := func(x float64) float64 { return -theta * (theta + 1) * (theta + 2) * math.Pow(x, -theta-3) }
	var integral float64
	if theta == 1 {
		integral = math.Log(fb / fa)
	} else {
		integral = (math.Pow(fb, 1-theta) - math.Pow(fa, 1-theta)) / (1 - theta)
	}
	// sum_{a..b} = integral + (f(a)+f(b))/2 + corrections; drop f(a) for a+1..b.
	return integral + (f(fb)-f(fa))/2 + (d1(fb)-d1(fa))/12 - (d3(fb)-d3(fa))/720
}

// zipfian is YCSB's ZipfianGenerator (Gray et al., "Quickly Generating
// Billion-Record Synthetic Databases", SIGMOD 1994): rank 0 is the most
// popular item, P(rank=i) = (i+1)^-theta / zeta(n, theta).
type zipfian struct {
	n         uint64 // item count the constants below are for
	theta     float64
	alpha     float64 // 1/(1-theta)
	zetan     float64
	eta       float64
	zeta2     float64
	halfTheta float64 // 1 + 0.5^theta
	pw        powExp  // x^alpha, bit-identical to math.Pow(x, alpha)
}

func newZipfian(n uint64, theta, zetan float64) zipfian {
	z := zipfian{n: n, theta: theta, alpha: 1 / (1 - theta), zeta2: zeta(2, theta), halfTheta: 1 + math.Pow(0.5, theta)}
	z.pw = newPowExp(z.alpha)
	z.setZetan(zetan)
	return z
}

func (z *zipfian) setZetan(zetan float64) {
	z.zetan = zetan
	// YCSB's nextLong recomputes eta with the item count it was built for
	// (a bug); Gray's formula uses the current count, as here.
	z.eta = (1 - math.Pow(2/float64(z.n), 1-z.theta)) / (1 - z.zeta2/z.zetan)
}

// grow extends the item count to n, adding the new terms to zetan (YCSB does
// this when the latest generator's insert counter moves).
func (z *zipfian) grow(n uint64) {
	if n <= z.n {
		return
	}
	zn := z.zetan + zetaRange(z.n, n, z.theta)
	z.n = n
	z.setZetan(zn)
}

// next maps a uniform u in [0,1) to a rank in [0, n).
func (z *zipfian) next(u float64) uint64 {
	uz := u * z.zetan
	if uz < 1 || z.n < 2 {
		return 0
	}
	if uz < z.halfTheta {
		return 1
	}
	r := uint64(float64(z.n) * z.pw.pow(z.eta*u-z.eta+1))
	if r >= z.n { // rounding at u close to 1
		r = z.n - 1
	}
	return r
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
