package units

import (
	"math"
	"strconv"
)

// Compact formats a count or a rate in the shortest form ParseCount and
// ParseRate read back as the same value, for names and settings a person may
// type again: 500, 10k, 1.5M, 2G (a multiple of a tenth of the unit takes
// the suffix); other values whole (rounded), and values below 1 with three
// significant digits.
func Compact(v float64) string {
	a := math.Abs(v)
	for _, u := range []struct {
		mult float64
		suf  string
	}{{1e9, "G"}, {1e6, "M"}, {1e3, "k"}} {
		if a >= u.mult && math.Mod(a, u.mult/10) == 0 {
			return strconv.FormatFloat(v/u.mult, 'f', -1, 64) + u.suf
		}
	}
	if a > 0 && a < 1 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(math.Round(v), 'f', 0, 64)
}
