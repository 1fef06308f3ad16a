package workload

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/platbench/platbench/vocab"
)

// stream draws n run-phase requests of s on one worker and counts, per
// category, the ops, the key numbers (in 64 bins over the loaded records and
// one above them, for inserted keys) and the scan lengths.
type streamCounts struct {
	ops  [vocab.NumOps]float64
	keys [65]float64
	scan []float64
}

func stream(s *Spec, seed int64, n int) streamCounts {
	ks := NewKeyspace(s, 0, 1)
	g := NewGenerator(s, ks, seed, 0)
	c := streamCounts{scan: make([]float64, s.MaxScanLength+1)}
	var req Request
	for range n {
		g.Next(&req)
		c.ops[req.Op]++
		c.keys[min(req.KeyNum*64/s.Records, 64)]++
		if req.Op == vocab.OpScan {
			c.scan[req.ScanLen]++
		}
	}
	return c
}

// homogeneity is the two-sample chi-square statistic of equal-sized samples
// a and b (Σ (a-b)²/(a+b)), bins with fewer than 10 in both merged into the
// next, and its degrees of freedom.
func homogeneity(a, b []float64) (stat float64, df int) {
	var x, y float64
	bins := 0
	for i := range a {
		x, y = x+a[i], y+b[i]
		if x+y >= 10 {
			stat += (x - y) * (x - y) / (x + y)
			x, y = 0, 0
			bins++
		}
	}
	if x+y > 0 {
		stat += (x - y) * (x - y) / (x + y)
		bins++
	}
	return stat, max(bins-1, 1)
}

// sameDist reports whether a and b pass the homogeneity test at 1e-6.
func sameDist(a, b []float64) (bool, string) {
	stat, df := homogeneity(a, b)
	crit := chiSquareCritical(df)
	return stat <= crit, fmt.Sprintf("chi-square %.1f with %d df (critical %.1f)", stat, df, crit)
}

// The property files examples/workloads/ycsb/workloada..f give the Spec of
// the presets ycsb-a..f on every field that shapes the requests, and
// streams drawn from the two (different seeds) have the same op mix, key
// distribution and scan lengths by chi-square.
func TestPropertyFilesMatchPresets(t *testing.T) {
	const n = 100000
	for _, x := range "abcdef" {
		name := "workload" + string(x)
		t.Run(name, func(t *testing.T) {
			l, err := Open(filepath.Join("..", "examples", "workloads", "ycsb", name))
			if err != nil {
				t.Fatal(err)
			}
			if len(l.Warnings) > 0 {
				t.Errorf("warnings: %q", l.Warnings)
			}
			f := l.Spec
			p, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			if !sameMix(f.Mix, p.Mix) {
				t.Errorf("mix %v, preset %v", f.Mix, p.Mix)
			}
			if f.Distribution != p.Distribution || f.ZipfConstant != p.ZipfConstant || f.Records != p.Records ||
				f.FieldCount != p.FieldCount || f.FieldLength != p.FieldLength || f.OrderedInserts != p.OrderedInserts ||
				f.WriteAllFields != p.WriteAllFields || f.KeyPadding != p.KeyPadding || f.KeyPrefix != p.KeyPrefix {
				t.Errorf("spec differs:\nfile   %+v\npreset %+v", f, p)
			}
			if hasOp(p.Mix, vocab.OpScan) && f.MaxScanLength != p.MaxScanLength {
				t.Errorf("max scan length %d, preset %d", f.MaxScanLength, p.MaxScanLength)
			}
			// Different seeds: the same distribution, not the same draws.
			a, b := stream(&f, 1, n), stream(&p, 2, n)
			pairs := map[string][2][]float64{"ops": {a.ops[:], b.ops[:]}, "keys": {a.keys[:], b.keys[:]}}
			if hasOp(p.Mix, vocab.OpScan) && len(a.scan) == len(b.scan) {
				pairs["scan lengths"] = [2][]float64{a.scan, b.scan}
			}
			for what, pair := range pairs {
				ok, msg := sameDist(pair[0], pair[1])
				if !ok {
					t.Errorf("%s differ: %s", what, msg)
				} else {
					t.Logf("%s: %s", what, msg)
				}
			}
		})
	}
}

// The test above has power: a different mix or key distribution fails it.
func TestPresetStreamsNegativeControl(t *testing.T) {
	const n = 100000
	a, _ := Preset("ycsb-a")
	b, _ := Preset("ycsb-b")
	u := a
	u.Distribution = DistUniform
	sa, sb, su := stream(&a, 1, n), stream(&b, 2, n), stream(&u, 2, n)
	if ok, msg := sameDist(sa.ops[:], sb.ops[:]); ok {
		t.Errorf("ycsb-a and ycsb-b mixes pass as the same: %s", msg)
	}
	if ok, msg := sameDist(sa.keys[:], su.keys[:]); ok {
		t.Errorf("zipfian and uniform keys pass as the same: %s", msg)
	}
}

func sameMix(a, b MixList) bool {
	w := map[vocab.Op]float64{}
	for _, m := range a {
		w[m.Op] += m.Weight
	}
	for _, m := range b {
		w[m.Op] -= m.Weight
	}
	for _, d := range w {
		if d < -1e-12 || d > 1e-12 {
			return false
		}
	}
	return true
}

func hasOp(ml MixList, op vocab.Op) bool {
	for _, m := range ml {
		if m.Op == op && m.Weight > 0 {
			return true
		}
	}
	return false
}
