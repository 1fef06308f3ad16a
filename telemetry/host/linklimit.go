package host

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseLinkLimits reads the link limits a user states (--link-limit): a
// bit rate for every interface but lo ("1Gbit"), or per interface
// ("eth0=1Gbit,eth1=500Mbit"), or both (the bare one for the rest). Rates
// are bits per second with tc's and the clouds' decimal suffixes: bit,
// kbit, Mbit, Gbit, Tbit (case-insensitive; 1Gbit = 10^9 bit/s), with an
// optional fraction (2.5Gbit). "bps" is refused: tc reads it as bytes, the
// clouds' pages as bits. The result maps an interface, or "" for every
// other one, to bits/s.
func ParseLinkLimits(s string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			return nil, fmt.Errorf("%q has an empty entry (fix: a rate such as 1Gbit, or IF=RATE entries separated by commas such as eth0=1Gbit,eth1=500Mbit)", s)
		}
		iface, rate, named := strings.Cut(part, "=")
		if !named {
			iface, rate = "", part
		}
		iface = strings.TrimSpace(iface)
		if named && (iface == "" || strings.ContainsAny(iface, " /\t")) {
			return nil, fmt.Errorf("%q: %q is not an interface name (fix: IF=RATE such as eth0=1Gbit)", s, part)
		}
		v, err := parseBitRate(strings.TrimSpace(rate))
		if err != nil {
			return nil, err
		}
		if _, dup := out[iface]; dup {
			what := "interface " + iface
			if iface == "" {
				what = "every interface"
			}
			return nil, fmt.Errorf("%q gives %s two limits (fix: give each interface one)", s, what)
		}
		out[iface] = v
	}
	return out, nil
}

var bitUnits = []struct {
	suffix string
	mult   float64
}{{"tbit", 1e12}, {"gbit", 1e9}, {"mbit", 1e6}, {"kbit", 1e3}, {"bit", 1}}

// parseBitRate reads one rate such as 1Gbit into bits/s.
func parseBitRate(s string) (int64, error) {
	low := strings.ToLower(s)
	if strings.HasSuffix(low, "bps") || strings.HasSuffix(low, "b/s") {
		return 0, fmt.Errorf("%q: bps is bits to a cloud's page but bytes to tc (fix: write the bits, such as 1Gbit or 500Mbit)", s)
	}
	for _, u := range bitUnits {
		num, ok := strings.CutSuffix(low, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		bits := v * u.mult
		if err != nil || math.IsNaN(bits) || bits < 1 || bits > 1e15 {
			break
		}
		return int64(math.Round(bits)), nil
	}
	return 0, fmt.Errorf("%q is not a link rate (fix: bits per second with a unit, such as 1Gbit, 500Mbit or 2.5Gbit)", s)
}
