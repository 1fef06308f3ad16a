package units

import (
	"math"
	"strconv"
	"strings"
)

// The formatters: one per kind of figure. Reports, tables and messages use
// these and no others, so a latency, a size or a price reads the same in
// every output.

// Latency formats nanoseconds with three significant digits and the unit
// that suits them: "912 µs", "8.40 ms", "1.23 s"; 0 is "0".
func Latency(ns float64) string {
	switch a := math.Abs(ns); {
	case a == 0:
		return "0"
	case a < 1e3:
		return strconv.FormatFloat(ns, 'f', 0, 64) + " ns"
	case a < 1e6:
		return Sig3(ns/1e3) + " µs"
	case a < 1e9:
		return Sig3(ns/1e6) + " ms"
	default:
		return Sig3(ns/1e9) + " s"
	}
}

// Sig3 keeps three significant digits: 123, 12.3, 1.23.
func Sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// Int rounds to a whole number with thousands separators: "1,234,567".
func Int(v float64) string { return Fixed(v, 0) }

// Fixed formats with the given decimals and thousands separators: "1,234.56".
func Fixed(v float64, decimals int) string {
	s := strconv.FormatFloat(math.Abs(v), 'f', decimals, 64)
	whole, frac, _ := strings.Cut(s, ".")
	var b strings.Builder
	if v < 0 && strings.Trim(s, "0.") != "" {
		b.WriteByte('-')
	}
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if frac != "" {
		b.WriteString("." + frac)
	}
	return b.String()
}

// OpsPerSec formats operations per second: "272,544 op/s".
func OpsPerSec(opsPerSec float64) string { return Int(opsPerSec) + " op/s" }

// Bytes formats a byte count in binary units: "512 B", "1.50 GiB".
func Bytes(v float64) string {
	names := [...]string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(names)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return strconv.FormatFloat(v, 'f', 0, 64) + " B"
	}
	return Sig3(v) + " " + names[i]
}

// Percent formats a fraction as a percentage with three significant digits:
// 0.0123 is "1.23%".
func Percent(f float64) string { return Sig3(100*f) + "%" }

// USD formats dollars with a precision that suits the amount: "$1,234",
// "$12.50", "$0.00123".
func USD(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return "$" + Int(v)
	case a >= 1:
		return "$" + strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return "$" + strconv.FormatFloat(v, 'g', 3, 64)
	}
}

// Seconds formats a span given in seconds: "750 ms", "75 s", "3 min 20 s",
// "1 h 2 min".
func Seconds(s float64) string {
	switch {
	case s > 0 && s < 1:
		return Latency(s * 1e9)
	case s < 120:
		return Trim1(s) + " s"
	case s < 3600:
		if r := math.Mod(s, 60); r >= 0.05 {
			return strconv.Itoa(int(s)/60) + " min " + Trim1(r) + " s"
		}
		return strconv.Itoa(int(s)/60) + " min"
	default:
		return strconv.Itoa(int(s)/3600) + " h " + strconv.Itoa(int(s)%3600/60) + " min"
	}
}

// Trim1 formats with one decimal and drops a trailing ".0": "2.5", "3".
func Trim1(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
}

// Short formats a count or rate briefly for reading (not for typing back:
// see Compact): "950", "12.0k", "60.0k", "1.25M".
func Short(v float64) string {
	switch a := math.Abs(v); {
	case math.IsInf(v, 0) || math.IsNaN(v):
		return "-"
	case a >= 1e9:
		return strconv.FormatFloat(v/1e9, 'f', 2, 64) + "G"
	case a >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Formatters added for the report package's cost and plan tables.

// Cents formats dollars to the cent with thousands separators, "$10,932.48";
// amounts below a dollar keep three significant digits, "$0.00217".
func Cents(v float64) string {
	if math.Abs(v) < 1 {
		return USD(v)
	}
	if v < 0 {
		return "-$" + Fixed(-v, 2)
	}
	return "$" + Fixed(v, 2)
}

// Price formats a unit price as a price list gives it, to the millionth of a
// dollar and no further: "$4.992", "$0.0816", "$1".
func Price(v float64) string {
	return "$" + strconv.FormatFloat(math.Round(v*1e6)/1e6, 'f', -1, 64)
}

// Sig3Grouped is Sig3 with thousands separators from 1,000 on: "7,562",
// "12.3", "0.46".
func Sig3Grouped(v float64) string {
	if math.Abs(v) >= 1000 {
		return Int(v)
	}
	return Sig3(v)
}

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
