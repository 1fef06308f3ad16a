package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Dur formats nanoseconds as a latency: "912 µs", "8.4 ms", "1.23 s".
func Dur(ns float64) string {
	switch a := math.Abs(ns); {
	case a == 0:
		return "0"
	case a < 1e3:
		return fmt.Sprintf("%.0f ns", ns)
	case a < 1e6:
		return sig3(ns/1e3) + " µs"
	case a < 1e9:
		return sig3(ns/1e6) + " ms"
	default:
		return sig3(ns/1e9) + " s"
	}
}

// sig3 keeps three significant digits without a trailing ".0" beyond them.
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	default:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
}

// Rate formats ops/s with thousands separators: "272,544 op/s".
func Rate(v float64) string { return Int(v) + " op/s" }

// Int formats a number rounded to an integer with thousands separators.
func Int(v float64) string {
	neg := v < 0
	s := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Bytes formats a byte count in binary units.
func Bytes(v float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", v)
	}
	return sig3(v) + " " + units[i]
}

// Pct formats a fraction as a percentage.
func Pct(f float64) string { return sig3(100*f) + "%" }

// USD formats dollars with a precision that suits the amount.
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

// Secs formats seconds as a short duration: "75 s", "3 min 20 s", "1 h 2 min".
func Secs(s float64) string {
	switch {
	case s > 0 && s < 1:
		return Dur(s * 1e9)
	case s < 120:
		return trimFloat(s) + " s"
	case s < 3600:
		if r := math.Mod(s, 60); r >= 0.05 {
			return fmt.Sprintf("%d min %s s", int(s)/60, trimFloat(r))
		}
		return fmt.Sprintf("%d min", int(s)/60)
	default:
		return fmt.Sprintf("%d h %d min", int(s)/3600, int(s)%3600/60)
	}
}

func trimFloat(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0")
}

// parseDuration accepts Go durations and bare seconds ("75").
func parseDuration(s string) (float64, error) {
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return d.Seconds(), nil
}
