package cstress

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/platbench/platbench/internal/units"
)

// Dist is a cassandra-stress distribution: FIXED(n), UNIFORM(min..max),
// GAUSSIAN(min..max,stdvrng) or GAUSSIAN(min..max,mean,stdev), EXP(min..max),
// EXTREME(min..max,shape), SEQ(min..max); "~" in front inverts it (high
// values become low). Bounds take cassandra-stress's suffixes through
// units.ParseCount (1k, 1M, 100B: thousands, millions, billions).
type Dist struct {
	Kind     string  `json:"kind"` // fixed, uniform, gaussian, exp, extreme, seq
	Min      int64   `json:"min"`
	Max      int64   `json:"max"`
	Mean     float64 `json:"mean,omitempty"`  // gaussian
	Stdev    float64 `json:"stdev,omitempty"` // gaussian
	Shape    float64 `json:"shape,omitempty"` // extreme
	Inverted bool    `json:"inverted,omitempty"`
}

// distAliases maps every name cassandra-stress accepts to its kind.
var distAliases = map[string]string{
	"fixed": "fixed", "uniform": "uniform", "seq": "seq",
	"gaussian": "gaussian", "gauss": "gaussian", "normal": "gaussian", "norm": "gaussian",
	"exp": "exp", "exponential": "exp",
	"extreme": "extreme", "weibull": "extreme",
}

// ParseDist parses one distribution; its errors say what is wrong and how
// to write it.
func ParseDist(s string) (Dist, error) {
	in := strings.TrimSpace(s)
	var d Dist
	if rest, ok := strings.CutPrefix(in, "~"); ok {
		d.Inverted, in = true, strings.TrimSpace(rest)
	}
	open := strings.IndexByte(in, '(')
	if open < 0 || !strings.HasSuffix(in, ")") {
		return d, fmt.Errorf("distribution %q is not NAME(args) (fix: e.g. uniform(1..10), gaussian(1..100,5), fixed(1))", s)
	}
	name := strings.ToLower(strings.TrimSpace(in[:open]))
	kind, ok := distAliases[name]
	if !ok {
		return d, fmt.Errorf("distribution %q is not supported (fix: use fixed, uniform, gaussian, exp, extreme or seq)", name)
	}
	d.Kind = kind
	args := strings.Split(in[open+1:len(in)-1], ",")
	if kind == "fixed" {
		if len(args) != 1 {
			return d, fmt.Errorf("fixed takes one value, not %q (fix: e.g. fixed(10))", s)
		}
		n, err := csNumber(args[0])
		d.Min, d.Max = n, n
		return d, err
	}
	lo, hi, ok := strings.Cut(args[0], "..")
	if !ok {
		return d, fmt.Errorf("%s needs a range min..max, not %q (fix: e.g. %s(1..100))", kind, strings.TrimSpace(args[0]), kind)
	}
	var err error
	if d.Min, err = csNumber(lo); err != nil {
		return d, err
	}
	if d.Max, err = csNumber(hi); err != nil {
		return d, err
	}
	if d.Min > d.Max {
		return d, fmt.Errorf("range %d..%d has min above max (fix: write min..max)", d.Min, d.Max)
	}
	return d, d.params(args[1:], s)
}

// params reads the arguments after the range.
func (d *Dist) params(args []string, s string) error {
	want := map[string][]int{"uniform": {0}, "seq": {0}, "exp": {0}, "extreme": {1}, "gaussian": {0, 1, 2}}[d.Kind]
	okN := false
	for _, n := range want {
		okN = okN || n == len(args)
	}
	if !okN {
		return fmt.Errorf("%s takes %v argument(s) after the range, %q has %d (fix: e.g. uniform(1..10), gaussian(1..100,5), gaussian(1..100,50,10), extreme(1..100,1.5))", d.Kind, want, s, len(args))
	}
	f := make([]float64, len(args))
	for i, a := range args {
		v, err := strconv.ParseFloat(strings.TrimSpace(a), 64)
		isMean := d.Kind == "gaussian" && len(args) == 2 && i == 0
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (v == 0 && !isMean) {
			return fmt.Errorf("argument %q of %q is not a number above 0 (fix: e.g. gaussian(1..100,5))", strings.TrimSpace(a), s)
		}
		f[i] = v
	}
	mid := (float64(d.Min) + float64(d.Max)) / 2
	switch {
	case d.Kind == "extreme":
		d.Shape = f[0]
	case d.Kind == "gaussian" && len(f) == 2:
		d.Mean, d.Stdev = f[0], f[1]
	case d.Kind == "gaussian":
		rng := 3.0 // cassandra-stress's default: 3 standard deviations to each end
		if len(f) == 1 {
			rng = f[0]
		}
		d.Mean, d.Stdev = mid, (mid-float64(d.Min))/rng
	}
	return nil
}

func csNumber(s string) (int64, error) {
	n, err := units.ParseCount(strings.TrimSpace(s))
	if err != nil || n > math.MaxInt64/4 {
		return 0, fmt.Errorf("%q is not a whole number (fix: e.g. 10, 1k, 1M, 100B)", strings.TrimSpace(s))
	}
	return int64(n), nil
}

// String writes d back in the syntax ParseDist reads.
func (d Dist) String() string {
	inv := ""
	if d.Inverted {
		inv = "~"
	}
	g := func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
	switch d.Kind {
	case "fixed":
		return fmt.Sprintf("%sfixed(%d)", inv, d.Min)
	case "gaussian":
		if d.Stdev == 0 {
			return fmt.Sprintf("%sgaussian(%d..%d)", inv, d.Min, d.Max)
		}
		return fmt.Sprintf("%sgaussian(%d..%d,%s,%s)", inv, d.Min, d.Max, g(d.Mean), g(d.Stdev))
	case "extreme":
		return fmt.Sprintf("%sextreme(%d..%d,%s)", inv, d.Min, d.Max, g(d.Shape))
	}
	return fmt.Sprintf("%s%s(%d..%d)", inv, d.Kind, d.Min, d.Max)
}

// Sample draws one value in [Min, Max] from u and v, two uniform numbers in
// [0, 1), and seq, a per-caller counter for seq. It does not allocate.
func (d *Dist) Sample(u, v float64, seq uint64) int64 {
	span := float64(d.Max - d.Min)
	var x float64
	switch d.Kind {
	case "fixed":
		return d.Min
	case "seq":
		x = float64(seq % uint64(d.Max-d.Min+1))
	case "uniform":
		x = math.Floor(u * (span + 1))
	case "gaussian":
		// Box-Muller; clamped to the range as cassandra-stress bounds it.
		z := math.Sqrt(-2*math.Log(1-u)) * math.Cos(2*math.Pi*v)
		x = d.Mean + z*d.Stdev - float64(d.Min)
	case "exp":
		// Mean chosen so that 99.9% of draws fall inside the range.
		x = -math.Log(1-u) * span / math.Log(1000)
	case "extreme":
		scale := span / math.Pow(math.Log(1000), 1/d.Shape)
		x = scale * math.Pow(-math.Log(1-u), 1/d.Shape)
	}
	x = math.Round(min(max(x, 0), span))
	if d.Inverted {
		x = span - x
	}
	return d.Min + int64(x)
}

// expectGrid is how many points of each uniform input Expected averages
// Sample over (stratified: the midpoints of equal slices of [0, 1)).
const expectGridU, expectGridV = 4096, 8

// Expected is the mean of max(Sample, floor) over d's inputs: what a
// distribution gives on average as Sample draws it (the clamping and
// rounding included), for estimates such as a profile's rows per partition
// and its mean value size.
func (d *Dist) Expected(floor int64) float64 {
	if d.Kind == "fixed" {
		return float64(max(d.Min, floor))
	}
	var sum float64
	for i := range expectGridU {
		u := (float64(i) + 0.5) / expectGridU
		for j := range expectGridV {
			v := (float64(j) + 0.5) / expectGridV
			sum += float64(max(d.Sample(u, v, uint64(i*expectGridV+j)), floor))
		}
	}
	return sum / (expectGridU * expectGridV)
}
