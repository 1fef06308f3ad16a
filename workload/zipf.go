package workload

import "math"

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
