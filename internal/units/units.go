// Package units is the one grammar for the values a person types — counts,
// byte sizes, rates and durations — and the one formatter for each kind.
//
// Every place a value is typed parses it here: command-line flags, workload,
// suite and profile files, and target options (through the option layer in
// package target). So `1M` is a million records on the command line, in a
// suite file and in a workload file alike, and `64MiB` is the same size in
// `--value-size` and in `--target-opt cache=64MiB`.
//
// The grammar:
//
//   - Count: a non-negative whole number with an optional decimal suffix
//     k/K (10^3), m/M (10^6), g/G or b/B (10^9); underscores and commas group
//     digits: 100000, 100_000, 1.5M, 10k.
//   - Size: bytes with an optional binary suffix K, M, G, T, P, each
//     optionally followed by B or iB (all binary: 1KB = 1KiB = 1024), or a
//     bare B; fractions are allowed when the result is a whole number of
//     bytes: 4096, 4k, 4KiB, 1.5GB, 64MiB, 100B.
//   - Rate: a non-negative number of operations per second with Count's
//     suffixes and an optional "/s": 5000, 20k, 1.5M/s.
//   - Duration: Go's syntax (1m30s, 250ms, 2h) plus "d" for days, or a bare
//     number of seconds (75, 0.5).
//   - Percent: a non-negative number followed by %, read as a fraction:
//     0.1% is 0.001, 50% is 0.5.
//
// Package units does not know about flags, files or targets; it returns
// errors of type *Error, which name the value and show examples of the
// grammar, and the caller names where the value came from.
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind names a grammar.
type Kind string

// The kinds of value.
const (
	KindCount    Kind = "count"
	KindSize     Kind = "size"
	KindRate     Kind = "rate"
	KindDuration Kind = "duration"
	KindPercent  Kind = "percent"
	KindFraction Kind = "fraction"
)

// Error says that a value does not follow its kind's grammar.
type Error struct {
	Kind  Kind
	Input string
}

func (e *Error) Error() string {
	switch e.Kind {
	case KindCount:
		return fmt.Sprintf("%q is not a non-negative whole number (e.g. 100000, 100k or 1M)", e.Input)
	case KindSize:
		return fmt.Sprintf("%q is not a size in bytes (e.g. 1000, 4KB, 64MiB, 1.5GB)", e.Input)
	case KindRate:
		return fmt.Sprintf("%q is not a rate in ops/s (e.g. 5000, 20k or 1.5M)", e.Input)
	case KindPercent:
		return fmt.Sprintf("%q is not a percentage (e.g. 0.1%%, 5%% or 100%%)", e.Input)
	case KindFraction:
		return fmt.Sprintf("%q is not a fraction of a whole (e.g. 0.1 or 10%%, at most 1 or 100%%)", e.Input)
	default:
		return fmt.Sprintf("%q is not a duration (e.g. 30s, 250ms, 1m30s, 2h or 75 for seconds)", e.Input)
	}
}

// clean removes surrounding space and digit-grouping characters.
func clean(s string) string {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "_,") {
		s = strings.NewReplacer("_", "", ",", "").Replace(s)
	}
	return s
}

// number parses a finite, non-negative decimal number (no hex, no exponent
// surprises like "inf").
func number(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != '.' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// decimal parses a number with an optional k/M/G (or B for billion) suffix.
func decimal(s string) (float64, bool) {
	s = clean(s)
	if s == "" {
		return 0, false
	}
	mult := 1.0
	switch s[len(s)-1] {
	case 'k', 'K':
		mult = 1e3
	case 'm', 'M':
		mult = 1e6
	case 'g', 'G', 'b', 'B':
		mult = 1e9
	}
	if mult != 1 {
		s = s[:len(s)-1]
	}
	f, ok := number(s)
	return f * mult, ok
}

// ParseCount parses a count: 100000, 100_000, 10k, 1.5M.
func ParseCount(s string) (uint64, error) {
	f, ok := decimal(s)
	if !ok || f != math.Trunc(f) || f > math.MaxInt64 {
		return 0, &Error{KindCount, s}
	}
	return uint64(f), nil
}

// ParseRate parses a rate in operations per second: 5000, 20k, 1.5M/s.
func ParseRate(s string) (float64, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	t = strings.TrimSuffix(strings.TrimSuffix(t, "ops"), "op")
	f, ok := decimal(strings.TrimSpace(t))
	if !ok {
		return 0, &Error{KindRate, s}
	}
	return f, nil
}

var sizeSuffixes = []struct {
	suf  string
	mult float64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40}, {"pib", 1 << 50},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40}, {"pb", 1 << 50},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40}, {"p", 1 << 50},
	{"b", 1},
}

// ParseSize parses a size in bytes: 4096, 4k, 4KiB, 1.5GB, 64MiB, 100B.
// Every multiple is binary (1KB = 1024 bytes), as fio and cassandra-stress
// read them.
func ParseSize(s string) (int64, error) {
	t := strings.ToLower(clean(s))
	mult := 1.0
	for _, u := range sizeSuffixes {
		if strings.HasSuffix(t, u.suf) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suf)), u.mult
			break
		}
	}
	f, ok := number(t)
	v := f * mult
	if !ok || v != math.Trunc(v) || v > math.MaxInt64/2 {
		return 0, &Error{KindSize, s}
	}
	return int64(v), nil
}

// ParseDuration parses a duration: Go's syntax (1m30s, 250ms), "d" for days
// (2d, 1d12h), or a bare number of seconds (75, 0.5). Negative durations are
// refused.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if f, ok := number(t); ok {
		if f*1e9 > math.MaxInt64 {
			return 0, &Error{KindDuration, s}
		}
		return time.Duration(f * 1e9), nil
	}
	var days time.Duration
	if i := strings.IndexByte(t, 'd'); i > 0 {
		n, ok := number(t[:i])
		if !ok || n != math.Trunc(n) || n > 100000 {
			return 0, &Error{KindDuration, s}
		}
		days, t = time.Duration(n)*24*time.Hour, t[i+1:]
		if t == "" {
			return days, nil
		}
	}
	if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
		return 0, &Error{KindDuration, s}
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 || days+d < 0 {
		return 0, &Error{KindDuration, s}
	}
	return days + d, nil
}

// ParsePercent parses a percentage with its % sign and returns it as a
// fraction: "0.1%" is 0.001. A number without % is not a percentage ("5":
// 5% or 500%?), except zero, which is zero in any unit ("--max-errors 0").
func ParsePercent(s string) (float64, error) {
	t, ok := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !ok {
		if f, isNum := number(t); isNum && f == 0 {
			return 0, nil
		}
		return 0, &Error{KindPercent, s}
	}
	f, ok := number(strings.TrimSpace(t))
	if !ok {
		return 0, &Error{KindPercent, s}
	}
	return f / 100, nil
}

// ParseFraction parses a fraction of a whole, more than 0 and at most 1: a
// percentage ("10%") or a decimal ("0.1").
func ParseFraction(s string) (float64, error) {
	f, err := ParsePercent(s)
	if err != nil {
		var ok bool
		if f, ok = number(strings.TrimSpace(s)); !ok {
			return 0, &Error{KindFraction, s}
		}
	}
	if !(f > 0 && f <= 1) {
		return 0, &Error{KindFraction, s}
	}
	return f, nil
}
