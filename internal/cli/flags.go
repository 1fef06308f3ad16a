package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// countFlag is a non-negative count that accepts k, M, G suffixes (1M = 1,000,000).
type countFlag struct {
	v   uint64
	set bool
}

func (c *countFlag) String() string { return strconv.FormatUint(c.v, 10) }
func (c *countFlag) Set(s string) error {
	v, err := parseCount(s)
	if err != nil {
		return err
	}
	c.v, c.set = v, true
	return nil
}

func parseCount(s string) (uint64, error) {
	f, err := parseSuffixed(s, 1000)
	if err != nil || f < 0 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q is not a non-negative whole number (e.g. 100000 or 1M)", s)
	}
	return uint64(f), nil
}

// rateFlag is a non-negative rate in ops/s; accepts k and M suffixes.
type rateFlag struct{ v float64 }

func (r *rateFlag) String() string { return strconv.FormatFloat(r.v, 'f', -1, 64) }
func (r *rateFlag) Set(s string) error {
	f, err := parseSuffixed(s, 1000)
	if err != nil || f < 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return fmt.Errorf("%q is not a rate in ops/s (e.g. 5000 or 20k)", s)
	}
	r.v = f
	return nil
}

// sizeFlag is a byte size; accepts B, KB/KiB, MB/MiB, GB/GiB (binary multiples).
type sizeFlag struct {
	v   int64
	set bool
}

func (z *sizeFlag) String() string { return strconv.FormatInt(z.v, 10) }
func (z *sizeFlag) Set(s string) error {
	v, err := parseSize(s)
	if err != nil {
		return err
	}
	z.v, z.set = v, true
	return nil
}

func parseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	f, err := parseSuffixed(t, 1024)
	if err != nil || f < 0 || f != math.Trunc(f) {
		return 0, fmt.Errorf("%q is not a size in bytes (e.g. 1000, 4KB, 1MiB)", s)
	}
	return int64(f), nil
}

func parseSuffixed(s string, base float64) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	mult := 1.0
	switch strings.ToUpper(s[len(s)-1:]) {
	case "K":
		mult, s = base, s[:len(s)-1]
	case "M":
		mult, s = base*base, s[:len(s)-1]
	case "G":
		mult, s = base*base*base, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return f * mult, err
}

// kvFlag collects repeated key=value options.
type kvFlag map[string]string

func (k kvFlag) String() string { return "" }
func (k kvFlag) Set(s string) error {
	key, val, ok := strings.Cut(s, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	k[strings.TrimSpace(key)] = strings.TrimSpace(val)
	return nil
}

// listFlag collects repeated values.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
