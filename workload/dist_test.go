package workload

import (
	"math"
	"testing"

	"github.com/platbench/platbench/vocab"
)

// spec returns a valid Spec with the given distribution and mix, the rest
// defaulted.
func spec(d Dist, records uint64, mix ...vocab.Mix) *Spec {
	s := &Spec{Name: "test", Records: records, Distribution: d, Mix: mix}
	s.EnsureDefaults()
	return s
}

// draw runs n Next calls and counts KeyNum.
func draw(t *testing.T, s *Spec, n int, seed int64) []float64 {
	t.Helper()
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, seed, 0)
	counts := make([]float64, s.Records)
	var r Request
	for i := 0; i < n; i++ {
		g.Next(&r)
		if r.KeyNum >= s.Records {
			t.Fatalf("key %d outside [0, %d)", r.KeyNum, s.Records)
		}
		counts[r.KeyNum]++
	}
	return counts
}

func TestUniformFits(t *testing.T) {
	const records, n = 1000, 500_000
	c := draw(t, spec(DistUniform, records, vocab.Mix{Op: vocab.OpRead, Weight: 1}), n, 1)
	p := make([]float64, records)
	for i := range p {
		p[i] = 1.0 / records
	}
	assertFit(t, "uniform", c, p, n)
}

func TestZipfianRanksFitYCSBGenerator(t *testing.T) {
	// Ranks before scrambling, for a small item count and for YCSB's 1e10.
	for _, c := range []struct {
		n     uint64
		theta float64
	}{{1000, 0.99}, {1000, 0.5}, {scrambledItems, 0.99}} {
		var g Generator
		g.rng.Seed(7, 11)
		zn := zeta(c.n, c.theta)
		if c.n == scrambledItems && c.theta == 0.99 {
			zn = scrambledZetan
		}
		z := newZipfian(c.n, c.theta, zn)
		const draws = 1_000_000
		bins := min(uint64(2000), c.n) // ranks >= bins-1 go to the last bin
		obs := make([]float64, bins)
		for i := 0; i < draws; i++ {
			r := z.next(g.float())
			obs[min(r, bins-1)]++
		}
		exp := grayPMF(min(c.n, bins), c.theta, zn)
		if c.n > bins { // closed form of P(rank >= 2) restricted to rank < bins-1
			for r := uint64(2); r < bins; r++ {
				exp[r] = (math.Pow(float64(r+1)/float64(c.n), 1-c.theta) - math.Pow(float64(r)/float64(c.n), 1-c.theta)) / z.eta
			}
			var head float64
			for _, p := range exp[:bins-1] {
				head += p
			}
			exp[bins-1] = 1 - head
		}
		assertFit(t, "zipfian ranks", obs, exp, draws)
	}
}

func TestZipfianCloseToExactZipf(t *testing.T) {
	// Gray's generator (YCSB's) is exact for ranks 0 and 1 and a continuous
	// approximation beyond: rank 2 is drawn 17% too often at n=1000. This
	// test pins how far it is from the true zipf pmf, so a change of
	// algorithm is noticed: total variation distance below 5%, ranks 0 and
	// 1 within 0.1% relative.
	const n = 1000
	zn := zeta(n, 0.99)
	gp, zp := grayPMF(n, 0.99, zn), zipfPMF(n, 0.99)
	var tv float64
	for i := range gp {
		tv += math.Abs(gp[i]-zp[i]) / 2
	}
	if tv > 0.05 {
		t.Errorf("total variation distance to zipf %.4f > 0.05", tv)
	}
	for r := 0; r < 2; r++ {
		if math.Abs(gp[r]/zp[r]-1) > 1e-3 {
			t.Errorf("rank %d: generator p %.6f, zipf %.6f", r, gp[r], zp[r])
		}
	}
	t.Logf("total variation distance of YCSB's zipfian to exact zipf at n=%d: %.4f", n, tv)

	// Negative control: the chi-square test has the power to tell the
	// generator from exact zipf with a million draws.
	var g Generator
	g.rng.Seed(3, 4)
	z := newZipfian(n, 0.99, zn)
	obs := make([]float64, n)
	for i := 0; i < 1_000_000; i++ {
		obs[z.next(g.float())]++
	}
	if stat, df := chiSquare(obs, zp, 1_000_000); stat < chiSquareCritical(df) {
		t.Errorf("chi-square %.1f did not reject exact zipf; the test has no power", stat)
	}
}

func TestScrambledZipfianTopKeys(t *testing.T) {
	// After scrambling, rank r lands on key fnvhash64(r) % records. The
	// most popular keys must carry the ranks' probabilities (plus a
	// background of at most (1-sum)/records... bounded below).
	const records, draws = 1_000_000, 2_000_000
	c := draw(t, spec(DistZipfian, records, vocab.Mix{Op: vocab.OpRead, Weight: 1}), draws, 5)
	z := newZipfian(scrambledItems, 0.99, scrambledZetan)
	pr := func(r uint64) float64 {
		switch r {
		case 0:
			return 1 / z.zetan
		case 1:
			return math.Pow(0.5, 0.99) / z.zetan
		}
		return (math.Pow(float64(r+1)/float64(z.n), 0.01) - math.Pow(float64(r)/float64(z.n), 0.01)) / z.eta
	}
	expect := map[uint64]float64{}
	const top = 20
	for r := uint64(0); r < top; r++ {
		expect[fnvhash64(r)%records] += pr(r)
	}
	for k, p := range expect {
		// Background from ranks >= top that hash onto k: on average
		// (1 - P(top))/records, about 1e-6; allow 10x that.
		bg := 10.0 / records
		mean := p * draws
		sd := math.Sqrt(draws * (p + bg) * (1 - p))
		if got := c[k]; got < mean-5*sd || got > mean+bg*draws+5*sd {
			t.Errorf("key %d: %v draws, want %.0f (+/- %.0f)", k, got, mean, 5*sd)
		}
	}
	// The hot keys are scattered, not the first ones.
	if k := fnvhash64(0) % records; k < 10 {
		t.Errorf("most popular key is %d: scrambling did not spread it", k)
	}
	if c[0] > 0.001*draws {
		t.Errorf("key 0 drew %v of %d: looks unscrambled", c[0], draws)
	}
}

func TestHotspotFits(t *testing.T) {
	const records, n = 1000, 500_000
	s := spec(DistHotspot, records, vocab.Mix{Op: vocab.OpRead, Weight: 1})
	s.HotsetFraction, s.HotOpnFraction = 0.1, 0.9
	c := draw(t, s, n, 2)
	hot := uint64(float64(records) * 0.1)
	p := make([]float64, records)
	for i := range p {
		if uint64(i) < hot {
			p[i] = 0.9 / float64(hot)
		} else {
			p[i] = 0.1 / float64(records-hot)
		}
	}
	assertFit(t, "hotspot", c, p, n)
}

func TestLatestFitsAndFollowsInserts(t *testing.T) {
	const records, n = 1000, 500_000
	s := spec(DistLatest, records, vocab.Mix{Op: vocab.OpRead, Weight: 1})
	c := draw(t, s, n, 3)
	// key = last - rank, rank ~ YCSB zipfian over records items.
	gp := grayPMF(records, 0.99, zeta(records, 0.99))
	byRank := make([]float64, records)
	for k := range c {
		byRank[records-1-k] = c[k]
	}
	assertFit(t, "latest", byRank, gp, n)

	// With inserts, the newest key becomes the most popular read.
	s = spec(DistLatest, records, vocab.Mix{Op: vocab.OpRead, Weight: 0.5}, vocab.Mix{Op: vocab.OpInsert, Weight: 0.5})
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, 9, 0)
	var r Request
	var newest, reads, sawNew int
	var wantNewest, varNewest float64
	last := uint64(records - 1)
	zcur := zeta(records, 0.99) // zeta over keys 0..last
	for i := 0; i < 200_000; i++ {
		g.Next(&r)
		switch r.Op {
		case vocab.OpInsert:
			if r.KeyNum != last+1 {
				t.Fatalf("insert key %d, want %d", r.KeyNum, last+1)
			}
			last = r.KeyNum
			zcur += math.Pow(float64(last+1), -0.99)
		case vocab.OpRead:
			reads++
			if r.KeyNum > last {
				t.Fatalf("read of key %d beyond the last insert %d", r.KeyNum, last)
			}
			if r.KeyNum == last {
				newest++
			}
			if r.KeyNum >= records {
				sawNew++
			}
			p := 1 / zcur // P(rank 0) over the current key count
			wantNewest += p
			varNewest += p * (1 - p)
		}
	}
	if d := math.Abs(float64(newest) - wantNewest); d > 5*math.Sqrt(varNewest) {
		t.Errorf("newest key read %d times, want %.0f +/- %.0f", newest, wantNewest, 5*math.Sqrt(varNewest))
	}
	if sawNew < reads/2 {
		t.Errorf("only %d of %d reads hit inserted keys", sawNew, reads)
	}
}

func TestGaussianFits(t *testing.T) {
	const records, n = 1001, 500_000
	c := draw(t, spec(DistGaussian, records, vocab.Mix{Op: vocab.OpRead, Weight: 1}), n, 4)
	mean, sd := 500.0, 500.0/3
	cdf := func(x float64) float64 { return 0.5 * math.Erfc(-(x-mean)/(sd*math.Sqrt2)) }
	p := make([]float64, records)
	for k := range p {
		lo, hi := cdf(float64(k)-0.5), cdf(float64(k)+0.5)
		if k == 0 {
			lo = 0
		}
		if k == records-1 {
			hi = 1
		}
		p[k] = hi - lo
	}
	assertFit(t, "gaussian", c, p, n)
}

func TestSequentialWalksTheRecords(t *testing.T) {
	s := spec(DistSequential, 10, vocab.Mix{Op: vocab.OpWrite, Weight: 1})
	ks := NewKeyspace(s, 0, 1)
	a, b := NewGenerator(s, ks, 1, 0), NewGenerator(s, ks, 1, 1)
	var r Request
	for i := 0; i < 25; i++ {
		g := a
		if i%3 == 0 {
			g = b // the cursor is shared by the workers
		}
		g.Next(&r)
		if r.KeyNum != uint64(i%10) {
			t.Fatalf("op %d: key %d, want %d", i, r.KeyNum, i%10)
		}
	}
}

func TestMixProportionsFit(t *testing.T) {
	s := spec(DistUniform, 1000, vocab.Mix{Op: vocab.OpRead, Weight: 3}, vocab.Mix{Op: vocab.OpUpdate, Weight: 1}, vocab.Mix{Op: vocab.OpScan, Weight: 0.5}, vocab.Mix{Op: vocab.OpInsert, Weight: 0.5}, vocab.Mix{Op: vocab.OpDelete, Weight: 0})
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, 8, 0)
	const n = 400_000
	obs := make([]float64, vocab.NumOps)
	var r Request
	for i := 0; i < n; i++ {
		g.Next(&r)
		obs[r.Op]++
	}
	if obs[vocab.OpDelete] != 0 {
		t.Errorf("op with weight 0 drawn %v times", obs[vocab.OpDelete])
	}
	o := []float64{obs[vocab.OpRead], obs[vocab.OpUpdate], obs[vocab.OpScan], obs[vocab.OpInsert]}
	assertFit(t, "mix", o, []float64{0.6, 0.2, 0.1, 0.1}, n)
}

func TestScanLengthUniform(t *testing.T) {
	s := spec(DistUniform, 1000, vocab.Mix{Op: vocab.OpScan, Weight: 1})
	s.MaxScanLength = 50
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, 6, 0)
	const n = 200_000
	obs := make([]float64, 50)
	var r Request
	for i := 0; i < n; i++ {
		g.Next(&r)
		if r.ScanLen < 1 || r.ScanLen > 50 {
			t.Fatalf("scan length %d outside [1, 50]", r.ScanLen)
		}
		obs[r.ScanLen-1]++
	}
	p := make([]float64, 50)
	for i := range p {
		p[i] = 1.0 / 50
	}
	assertFit(t, "scan length", obs, p, n)
}
