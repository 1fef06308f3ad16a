package report

import (
	"fmt"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// sayNet words the network's sentences (analysis/netsat.go's phrases).
func sayNet(p result.Phrase) (string, bool) {
	f := func(i int) float64 { return fig(p, i) }
	switch p.Kind {
	case analysis.PhraseNet:
		if f(1) > 0 {
			return fmt.Sprintf("the network: interface %s on the loader host %s %s, %.0f%% of %s%s", name(p, 0), name(p, 1),
				bitRate(f(0)), 100*f(0)/f(1), capacityWords(name(p, 2), f(1)), queuedNote(f(2))), true
		}
		return fmt.Sprintf("the network: interface %s on the loader host %s %s%s (a limit the host does not report: state it with --link-limit)",
			name(p, 0), name(p, 1), bitRate(f(0)), queuedNote(f(2))), true
	case analysis.PhraseNetUse:
		if f(1) > 0 {
			return fmt.Sprintf("%s %s %s of %s (%.0f%%)", name(p, 0), name(p, 1), bitRate(f(0)), capacityWords(name(p, 2), f(1)), 100*f(2)), true
		}
		return fmt.Sprintf("%s %s %s; its capacity is unknown (it reports no speed and none was stated: --link-limit)", name(p, 0), name(p, 1), bitRate(f(0))), true
	case analysis.PhraseNetQdisc:
		shaper := ""
		if f(4) > 0 {
			shaper = ", " + bitRate(f(4))
		}
		return fmt.Sprintf("%s's root qdisc (%s%s) held back, dropped or queued packets in %.0f%% of the seconds: %s overlimits/s, %s drops/s, %s queued on average",
			name(p, 0), name(p, 1), shaper, 100*f(0), sig3(f(2)), sig3(f(1)), units.Bytes(f(3))), true
	case analysis.PhraseNetRoom:
		return fmt.Sprintf("loader host: %s %s %.0f%% of %s", name(p, 0), name(p, 1), 100*f(0), capacityWords(name(p, 2), f(1))), true
	case analysis.PhraseNetStatedOver:
		return fmt.Sprintf("interface %s carried %s, more than the --link-limit of %s stated for it: that is not its limit, and it was left out (state the cap the provider gives, or drop --link-limit)",
			name(p, 0), bitRate(f(0)), bitRate(f(1))), true
	case analysis.PhraseTCPRetrans:
		who := ""
		if n := name(p, 0); n != "" {
			who = "node " + n + ": "
		}
		return fmt.Sprintf("%sTCP retransmitted %s segments/s (%.2g%% of those sent): loss or a full queue on the path", who, sig3(f(0)), 100*f(1)), true
	}
	return "", false
}

// hostNetSat is the loader host's net line's tail: the interface's
// capacity and its use, and its root qdisc's queueing, when recorded.
func hostNetSat(n *analysis.NetSat) string {
	if n == nil {
		return ""
	}
	out := ""
	if n.Capacity > 0 {
		out += fmt.Sprintf("; %s %.0f%% of %s", n.Direction, 100*n.Use, capacityWords(n.CapacityFrom, n.Capacity))
	}
	if n.Qdisc != "" {
		out += fmt.Sprintf("; qdisc %s held, dropped or queued packets in %.0f%% of the seconds", n.Qdisc, 100*n.QueuedShare)
	}
	return out
}

// capacityWords names a capacity and where it came from.
func capacityWords(from string, bytesPerS float64) string {
	switch from {
	case analysis.CapacitySpeed:
		return "its link speed of " + bitRate(bytesPerS)
	case analysis.CapacityStated:
		return "the stated --link-limit of " + bitRate(bytesPerS)
	}
	return fmt.Sprintf("its shaper's %s of %s", from, bitRate(bytesPerS)) // "tbf rate"
}

func queuedNote(share float64) string {
	if share <= 0 {
		return ""
	}
	return fmt.Sprintf("; its queue held or dropped packets in %.0f%% of the seconds", 100*share)
}

// bitRate is bytes/s as a link's rate: bits/s with decimal prefixes, as tc
// and the clouds write it.
func bitRate(bytesPerS float64) string {
	v := 8 * bytesPerS
	for _, u := range []struct {
		div  float64
		name string
	}{{1e12, "Tbit/s"}, {1e9, "Gbit/s"}, {1e6, "Mbit/s"}, {1e3, "kbit/s"}} {
		if v >= u.div {
			return sig3(v/u.div) + " " + u.name
		}
	}
	return sig3(v) + " bit/s"
}

// sig3 is units.Sig3 without trailing zeros: "20", "19.6", "0.5".
func sig3(v float64) string {
	s := units.Sig3(v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}
