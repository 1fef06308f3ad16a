package cstress

import (
	"strings"
	"testing"
)

func TestParseDist(t *testing.T) {
	cases := map[string]Dist{
		"FIXED(1)":               {Kind: "fixed", Min: 1, Max: 1},
		"uniform(1..10)":         {Kind: "uniform", Min: 1, Max: 10},
		"UNIFORM(1..100B)":       {Kind: "uniform", Min: 1, Max: 100_000_000_000},
		"gaussian(1..1000,5)":    {Kind: "gaussian", Min: 1, Max: 1000, Mean: 500.5, Stdev: 99.9},
		"gaussian(1..100,50,10)": {Kind: "gaussian", Min: 1, Max: 100, Mean: 50, Stdev: 10},
		"GAUSSIAN(1..7)":         {Kind: "gaussian", Min: 1, Max: 7, Mean: 4, Stdev: 1},
		"norm(1..7,3)":           {Kind: "gaussian", Min: 1, Max: 7, Mean: 4, Stdev: 1},
		"EXP(1..1k)":             {Kind: "exp", Min: 1, Max: 1000},
		"EXTREME(1..100,1.5)":    {Kind: "extreme", Min: 1, Max: 100, Shape: 1.5},
		"weibull(1..100,2)":      {Kind: "extreme", Min: 1, Max: 100, Shape: 2},
		"~exp(1..100)":           {Kind: "exp", Min: 1, Max: 100, Inverted: true},
		" seq(1..1M) ":           {Kind: "seq", Min: 1, Max: 1_000_000},
	}
	for in, want := range cases {
		got, err := ParseDist(in)
		if err != nil || got != want {
			t.Errorf("ParseDist(%q) = %+v, %v; want %+v", in, got, err, want)
			continue
		}
		back, err := ParseDist(got.String())
		if err != nil || back != got {
			t.Errorf("round trip of %q via %q = %+v, %v", in, got.String(), back, err)
		}
	}
	for _, bad := range []string{"", "uniform", "uniform(10..1)", "zipf(1..10)", "fixed(1,2)", "uniform(1..x)", "gaussian(1..10,0)", "extreme(1..10)", "uniform(1..10,3)", "qextreme(1..10,1,2)"} {
		if _, err := ParseDist(bad); err == nil || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("ParseDist(%q) = %v, want an error with a fix", bad, err)
		}
	}
}

func TestDistSample(t *testing.T) {
	for _, s := range []string{"fixed(7)", "uniform(1..10)", "gaussian(1..100,5)", "exp(1..1000)", "extreme(1..100,1.5)", "~exp(1..100)", "seq(5..9)"} {
		d, err := ParseDist(s)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		seen := map[int64]bool{}
		for i := range 10000 {
			u, v := float64(i%100)/100, float64(i/100)/100
			x := d.Sample(u, v, uint64(i))
			if x < d.Min || x > d.Max {
				t.Fatalf("%s drew %d outside [%d, %d]", s, x, d.Min, d.Max)
			}
			sum += float64(x)
			seen[x] = true
		}
		if d.Kind != "fixed" && len(seen) < 3 {
			t.Errorf("%s drew only %d distinct values", s, len(seen))
		}
		mean := sum / 10000
		switch s {
		case "exp(1..1000)":
			if mean > 300 {
				t.Errorf("exp mean %v, want the low end favoured", mean)
			}
		case "~exp(1..100)":
			if mean < 70 {
				t.Errorf("~exp mean %v, want the high end favoured", mean)
			}
		case "uniform(1..10)":
			if mean < 5 || mean > 6 {
				t.Errorf("uniform mean %v, want 5.5", mean)
			}
		}
	}
}

func FuzzParseDist(f *testing.F) {
	for _, s := range []string{"fixed(1)", "uniform(1..10)", "~gaussian(1..100,50,10)", "exp(1..1k)", "extreme(1..9,1.5)", "seq(1..5)", "x(", "uniform(5..1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseDist(s)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		x := d.Sample(0.5, 0.25, 3)
		if x < d.Min || x > d.Max {
			t.Fatalf("%q drew %d outside [%d, %d]", s, x, d.Min, d.Max)
		}
		if back, err := ParseDist(d.String()); err != nil || back.Kind != d.Kind || back.Min != d.Min || back.Max != d.Max {
			t.Fatalf("%q: round trip via %q = %+v, %v", s, d.String(), back, err)
		}
	})
}
