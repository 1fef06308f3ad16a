package report

import (
	"strings"
	"testing"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/result"
)

// The network's sentences say the interface, its rate against what
// capacity, the qdisc's evidence and the retransmits.
func TestNetWords(t *testing.T) {
	for _, c := range []struct {
		p    result.Phrase
		want string
	}{
		{result.Phrase{Kind: analysis.PhraseNet, F: []float64{2.45e6, 2.5e6, 1}, S: []string{"eth0", "sent", "tbf rate"}},
			"the network: interface eth0 on the loader host sent 19.6 Mbit/s, 98% of its shaper's tbf rate of 20 Mbit/s; its queue held or dropped packets in 100% of the seconds"},
		{result.Phrase{Kind: analysis.PhraseNet, F: []float64{3e6, 0, 0.9}, S: []string{"eth0", "sent", ""}},
			"the network: interface eth0 on the loader host sent 24 Mbit/s; its queue held or dropped packets in 90% of the seconds (a limit the host does not report: state it with --link-limit)"},
		{result.Phrase{Kind: analysis.PhraseNetUse, F: []float64{2.45e6, 2.5e6, 0.98}, S: []string{"eth0", "received", analysis.CapacityStated}},
			"eth0 received 19.6 Mbit/s of the stated --link-limit of 20 Mbit/s (98%)"},
		{result.Phrase{Kind: analysis.PhraseNetUse, F: []float64{1.25e9, 1.25e9, 1}, S: []string{"eth1", "sent", analysis.CapacitySpeed}},
			"eth1 sent 10 Gbit/s of its link speed of 10 Gbit/s (100%)"},
		{result.Phrase{Kind: analysis.PhraseNetQdisc, F: []float64{1, 0, 400, 30000, 2.5e6}, S: []string{"eth0", "tbf"}},
			"eth0's root qdisc (tbf, 20 Mbit/s) held back, dropped or queued packets in 100% of the seconds: 400 overlimits/s, 0 drops/s, 29.3 KiB queued on average"},
		{result.Phrase{Kind: analysis.PhraseTCPRetrans, F: []float64{30, 0.015}},
			"TCP retransmitted 30 segments/s (1.5% of those sent): loss or a full queue on the path"},
		{result.Phrase{Kind: analysis.PhraseNext, S: []string{analysis.LimitNet}}, "this is the link's limit"},
		{result.Phrase{Kind: analysis.PhraseNetRoom, F: []float64{0.12, 1.25e9}, S: []string{"eth0", "sent", analysis.CapacitySpeed}},
			"loader host: eth0 sent 12% of its link speed of 10 Gbit/s"},
	} {
		if got := sayPhrase(c.p); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q", c.p.Kind, got, c.want)
		}
	}
}
