package workload

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// appendDecimal writes exactly what strconv.AppendUint writes, for every
// digit count and at the edges of each chunk, after any prefix, and falls
// back correctly when the buffer has no spare capacity.
func TestAppendDecimalMatchesStrconv(t *testing.T) {
	vals := []uint64{0, 1, 9, math.MaxUint64, math.MaxInt64, 1<<63 + 1}
	p := uint64(1)
	for i := 0; i < 20; i++ {
		vals = append(vals, p-1, p, p+1, 2*p-1, 9*p, 10*p-1)
		if i == 19 {
			break
		}
		p *= 10
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 200000; i++ {
		vals = append(vals, rng.Uint64()>>rng.IntN(64))
	}
	for _, prefix := range []string{"", "user", "a-much-longer-key-prefix:"} {
		buf := make([]byte, 0, len(prefix)+24)
		buf = append(buf, prefix...)
		for _, v := range vals {
			want := strconv.AppendUint([]byte(prefix), v, 10)
			got := appendDecimal(buf[:len(prefix)], v)
			if string(got) != string(want) {
				t.Fatalf("appendDecimal(%q, %d) = %q, want %q", prefix, v, got, want)
			}
			if &got[0] != &buf[:1][0] {
				t.Fatalf("appendDecimal(%d) reallocated a buffer with room", v)
			}
		}
	}
	// No spare capacity: strconv's path, same bytes.
	small := make([]byte, 3, 10)
	copy(small, "abc")
	if got := appendDecimal(small, 12345678901234567890); string(got) != "abc12345678901234567890" {
		t.Fatalf("short buffer: %q", got)
	}
}

// powExp.pow is bit-identical to math.Pow for exponents away from an
// integer (1/(1-theta) for random thetas and others), over random bases in
// (0, 1) and at the edges; anything outside its fast range gives
// math.Pow's answer too.
func TestPowExpBitIdenticalToMathPow(t *testing.T) {
	ys := []float64{2, 3, 100, 2.5, 100 + 1e-9, 1.0000001, 7.75, 1e6, 0.5, 1, 0.3, 1 << 62, math.Inf(1)}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 20; i++ {
		ys = append(ys, 1/(1-rng.Float64()))
	}
	for _, y := range ys {
		p := newPowExp(y)
		if p.tiny {
			t.Fatalf("y = %v taken as within 1e-12 of an integer", y)
		}
		for _, x := range powBases(rng) {
			got, want := p.pow(x), math.Pow(x, y)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("pow(%v, %v) = %v (%#x), math.Pow = %v (%#x)", x, y, got, math.Float64bits(got), want, math.Float64bits(want))
			}
		}
	}
}

func powBases(rng *rand.Rand) []float64 {
	xs := []float64{0, 1, 2, math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-1022 * 3, 0x1p-1000, 1e-300, 0.5, math.Nextafter(1, 0), math.Nextafter(0.5, 0), math.Nextafter(0.5, 1), math.NaN(), -0.5, math.Inf(1)}
	for i := 0; i < 20000; i++ {
		xs = append(xs, rng.Float64(), 1-rng.Float64()*1e-3, rng.Float64()*rng.Float64()*rng.Float64(), 0.5+rng.Float64()/2)
	}
	return xs
}

// For exponents within 1e-12 of an integer (the default zipfian constant's
// 1/(1-0.99)) powExp is within one ulp of math.Pow everywhere, equal to it
// almost everywhere, and the zipfian's ranks are the ones math.Pow gives
// except, rarely, by one.
func TestPowExpNearIntegerExponent(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	theta, theta3 := DefaultZipfConstant, 0.999 // variables: float64 arithmetic, as the zipfian does it
	def := 1 / (1 - theta)
	for _, y := range []float64{def, 100 - 1e-12, 3 - 5e-13, 1 / (1 - theta3)} {
		p := newPowExp(y)
		if y == def && !p.tiny {
			t.Fatalf("the default constant's exponent %v is not on the log-table path", y)
		}
		same, n := 0, 0
		for _, x := range powBases(rng) {
			got, want := p.pow(x), math.Pow(x, y)
			n++
			if got == want || math.IsNaN(got) && math.IsNaN(want) {
				same++
				continue
			}
			if math.Nextafter(want, got) != got {
				t.Fatalf("pow(%v, %v) = %v, math.Pow %v: more than one ulp apart", x, y, got, want)
			}
		}
		t.Logf("y=%v: %d of %d results bit-identical to math.Pow, the rest one ulp apart", y, same, n)
		if same < n*99/100 {
			t.Errorf("y=%v: only %d of %d results bit-identical to math.Pow", y, same, n)
		}
	}
	// log05 against math.Log over its whole range.
	for i := 0; i < 1_000_000; i++ {
		x := 0.5 + rng.Float64()/2
		if d := math.Abs(log05(x) - math.Log(x)); d > 4e-12 {
			t.Fatalf("log05(%v) off by %g", x, d)
		}
	}
	// The scrambled zipfian's ranks.
	z := newZipfian(scrambledItems, DefaultZipfConstant, scrambledZetan)
	diff := 0
	const draws = 2_000_000
	for i := 0; i < draws; i++ {
		u := rng.Float64()
		got := z.next(u)
		ref := z
		ref.pw = powExp{y: z.alpha} // math.Pow
		want := ref.next(u)
		if got != want {
			diff++
			if got+1 != want && want+1 != got {
				t.Fatalf("u=%v: rank %d, math.Pow gives %d", u, got, want)
			}
		}
	}
	t.Logf("%d of %d scrambled zipfian ranks differ from math.Pow's (by one)", diff, draws)
	if diff > 2 {
		t.Errorf("%d of %d zipfian ranks differ from math.Pow's", diff, draws)
	}
}

func BenchmarkAppendDecimal(b *testing.B) {
	buf := make([]byte, 0, 28)
	v := fnvhash64(12345)
	for b.Loop() {
		buf = appendDecimal(buf[:4], v)
		v += 0x9E3779B97F4A7C15 >> 1
	}
}

func BenchmarkStrconvAppendUint(b *testing.B) {
	buf := make([]byte, 0, 28)
	v := fnvhash64(12345)
	for b.Loop() {
		buf = strconv.AppendUint(buf[:4], v, 10)
		v += 0x9E3779B97F4A7C15 >> 1
	}
}

func BenchmarkPowExp(b *testing.B) {
	p := newPowExp(1 / (1 - DefaultZipfConstant))
	x, s := 0.8, 0.0
	for b.Loop() {
		s += p.pow(x)
		x += 1e-9
	}
	_ = s
}

func BenchmarkMathPow(b *testing.B) {
	y := 1 / (1 - DefaultZipfConstant)
	x, s := 0.8, 0.0
	for b.Loop() {
		s += math.Pow(x, y)
		x += 1e-9
	}
	_ = s
}

// divisor.mod is x % d for every kind of divisor: 1, powers of two, small,
// dataset-sized, above 2^63 and the largest, at the edges and at random.
func TestDivisorModExact(t *testing.T) {
	ds := []uint64{1, 2, 3, 5, 6, 7, 10, 641, 1000, 1 << 20, 1_000_000, 10_000_000, 1e9 + 7, 1<<32 - 1, 1<<32 + 1, 1<<63 - 1, 1 << 63, 1<<63 + 1, math.MaxUint64 - 1, math.MaxUint64}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 2000; i++ {
		ds = append(ds, rng.Uint64()>>rng.IntN(64)|1, rng.Uint64()>>rng.IntN(64)+1)
	}
	for _, d := range ds {
		q := newDivisor(d)
		xs := []uint64{0, 1, d - 1, d, d + 1, 2*d - 1, 2 * d, math.MaxUint64, math.MaxUint64 - 1, math.MaxUint64 / d * d, math.MaxUint64/d*d - 1}
		for i := 0; i < 300; i++ {
			xs = append(xs, rng.Uint64(), rng.Uint64()>>rng.IntN(64))
		}
		for _, x := range xs {
			if got, want := q.mod(x), x%d; got != want {
				t.Fatalf("%d %% %d: got %d, want %d", x, d, got, want)
			}
		}
	}
}
