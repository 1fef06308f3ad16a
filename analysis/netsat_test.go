package analysis

import (
	"testing"

	"github.com/platbench/platbench/result"
	"github.com/platbench/platbench/vocab"
)

// netRun is a 10 s closed-loop run against Redis whose loader host's eth0
// sent tx bytes and received rx bytes a second, with the qdisc figures of
// q in every second for which queued says so; links as given.
func netRun(tx, rx uint64, q result.NetIO, queued func(i int) bool, links map[string]result.Link) *result.Result {
	samples := make([]result.HostSample, 10)
	for i := range samples {
		n := result.NetIO{TxBytes: tx, RxBytes: rx, TxPackets: tx / 1500, RxPackets: rx/1500 + 1, Qdisc: q.Qdisc, QdiscRateBytesPS: q.QdiscRateBytesPS}
		if queued(i) {
			n.QdiscDrops, n.QdiscOverlimits, n.QdiscBacklog = q.QdiscDrops, q.QdiscOverlimits, q.QdiscBacklog
		}
		samples[i] = result.HostSample{OffsetNs: int64(i) * 1e9, DurationNs: 1e9, CPUIdle: 0.8, CPUUser: 0.2, CPUMaxCore: 0.3,
			Nets:       map[string]result.NetIO{"eth0": n, "lo": {TxBytes: 1e9, RxBytes: 1e9, TxPackets: 1e6, RxPackets: 1e6}},
			TCPOutSegs: 2000, TCPRetransSegs: 30}
	}
	return &result.Result{Target: vocab.Info{Kind: "redis"},
		Platform: result.Platform{Cores: 2, Threads: 2},
		Config:   result.Config{Concurrency: 8},
		Phases:   []result.Phase{{Name: "run", Mode: "closed", Concurrency: 8, DurationNs: 10e9, Ops: []result.OpTotal{{Op: "UPDATE", Count: 6000}}}},
		Host:     &result.HostSeries{IntervalNs: 1e9, Samples: samples, Links: links}}
}

func every(int) bool    { return true }
func never(int) bool    { return false }
func thirds(i int) bool { return i%3 == 0 }

// The test network's case (scripts/check-netns.sh): a veth that reports
// 10 Gb/s under a 20 Mbit/s tbf. The speed alone never calls 2.45 MB/s
// saturated; the tbf's rate and its overlimits in every second do.
func TestNetLimitShaper(t *testing.T) {
	tbf := result.NetIO{Qdisc: "tbf", QdiscRateBytesPS: 2.5e6, QdiscOverlimits: 400, QdiscBacklog: 30000}
	speed := map[string]result.Link{"eth0": {SpeedBitsPerS: 10e9}}
	b := BottleneckOf(netRun(2.45e6, 1e5, tbf, every, speed))
	if b.Limit != LimitNet || b.Where != "loader host, interface eth0" || b.Strength != Strong {
		t.Fatalf("tbf at its rate: %s at %q (%s), want network at eth0, strong; %+v", b.Limit, b.Where, b.Strength, b.Says)
	}
	s := b.Says.Summary
	if s.Kind != PhraseNet || s.S[0] != "eth0" || s.S[1] != "sent" || s.S[2] != "tbf rate" || s.F[0] != 2.45e6 || s.F[1] != 2.5e6 || s.F[2] != 1 {
		t.Errorf("summary %+v", s)
	}
	kinds := map[string]bool{}
	for _, e := range b.Says.Evidence {
		kinds[e.Kind] = true
	}
	if !kinds[PhraseNetUse] || !kinds[PhraseNetQdisc] || !kinds[PhraseTCPRetrans] {
		t.Errorf("evidence %+v: want the use, the qdisc and the retransmits", b.Says.Evidence)
	}
	if b.Says.Next == nil || b.Says.Next.S[0] != LimitNet {
		t.Errorf("next %+v", b.Says.Next)
	}
	// Without the tbf, the same bytes are 0.2% of the link: not the limit.
	if b := BottleneckOf(netRun(2.45e6, 1e5, result.NetIO{Qdisc: "noqueue"}, never, speed)); b.Limit == LimitNet {
		t.Errorf("0.2%% of a 10 Gb/s link named the limit: %+v", b)
	}
}

// A cloud's cap the host cannot read: stated with --link-limit 20Mbit, the
// same traffic is 98% of it; received traffic counts against it too.
func TestNetLimitStated(t *testing.T) {
	links := map[string]result.Link{"eth0": {SpeedBitsPerS: 10e9, LimitBitsPerS: 20e6}}
	b := BottleneckOf(netRun(1e5, 2.45e6, result.NetIO{Qdisc: "fq_codel"}, never, links))
	if b.Limit != LimitNet || b.Says.Summary.S[1] != "received" || b.Says.Summary.S[2] != CapacityStated || b.Strength != Strong {
		t.Fatalf("98%% of a stated 20 Mbit/s: %s (%s) %+v", b.Limit, b.Strength, b.Says.Summary)
	}
	for _, e := range b.Says.Evidence {
		if e.Kind == PhraseNetQdisc {
			if e.F[0] != 0 {
				t.Errorf("qdisc evidence %+v: it never queued", e)
			}
		}
	}
	// Half the stated limit: room, said as headroom.
	b = BottleneckOf(netRun(1e5, 1.25e6, result.NetIO{Qdisc: "fq_codel"}, never, links))
	if b.Limit == LimitNet {
		t.Errorf("half the stated limit named the limit: %+v", b)
	}
	room := false
	for _, h := range b.Says.Headroom {
		room = room || h.Kind == PhraseNetRoom && h.S[0] == "eth0" && h.S[1] == "received" && h.F[0] == 0.5 && h.F[1] == 2.5e6
	}
	if !room {
		t.Errorf("headroom %+v: want eth0 received 50%% of 2.5e6 bytes/s", b.Says.Headroom)
	}
}

// A --link-limit the traffic went past by a tenth or more is not the
// link's: it is left out of the capacity (the link is judged on its speed:
// not the limit) and said as a caveat with both rates.
func TestNetLimitStatedExceeded(t *testing.T) {
	links := map[string]result.Link{"eth0": {SpeedBitsPerS: 10e9, LimitBitsPerS: 20e6}}
	b := BottleneckOf(netRun(1e5, 3.6e6, result.NetIO{Qdisc: "fq_codel"}, never, links)) // 28.8 Mbit/s
	if b.Limit == LimitNet {
		t.Errorf("traffic 144%% of a stated limit named the network: %+v", b.Says.Summary)
	}
	found := false
	for _, c := range b.Says.Caveats {
		found = found || c.Kind == PhraseNetStatedOver && c.S[0] == "eth0" && c.F[0] == 3.6e6 && c.F[1] == 2.5e6
	}
	if !found {
		t.Errorf("caveats %+v: want the stated limit exceeded, eth0 3.6e6 over 2.5e6 bytes/s", b.Says.Caveats)
	}
	// Within the tenth (105%), the limit stands and is named.
	if b := BottleneckOf(netRun(1e5, 2.625e6, result.NetIO{Qdisc: "fq_codel"}, never, links)); b.Limit != LimitNet {
		t.Errorf("105%% of a stated limit: %s, want the network", b.Limit)
	}
}

// A qdisc that drops in most seconds is saturation even with no capacity
// known (no speed, nothing stated): likely, not strong; in a third of
// the seconds it is not.
func TestNetLimitQueueEvidence(t *testing.T) {
	drops := result.NetIO{Qdisc: "fq_codel", QdiscDrops: 12, QdiscBacklog: 9000}
	b := BottleneckOf(netRun(3e6, 1e5, drops, every, nil))
	if b.Limit != LimitNet || b.Strength != Likely || b.Says.Summary.F[1] != 0 {
		t.Fatalf("drops every second, no capacity: %s (%s) %+v", b.Limit, b.Strength, b.Says.Summary)
	}
	if b := BottleneckOf(netRun(3e6, 1e5, drops, thirds, nil)); b.Limit == LimitNet {
		t.Errorf("drops in 4 of 10 seconds named the limit: %+v", b)
	}
}

// Retransmits with the network not the limit are a caveat past 1% of the
// segments (here 1.5%); a file without the new fields is judged as before.
func TestNetRetransCaveatAndOldFiles(t *testing.T) {
	r := netRun(1e5, 1e5, result.NetIO{}, never, nil)
	b := BottleneckOf(r)
	found := false
	for _, c := range b.Says.Caveats {
		if c.Kind == PhraseTCPRetrans && c.F[1] == 0.015 && c.F[0] == 30 {
			found = true
		}
	}
	if b.Limit != LimitConcurrency || !found {
		t.Errorf("limit %s, caveats %+v: want requests in flight with a retransmit caveat", b.Limit, b.Says.Caveats)
	}
	for i := range r.Host.Samples {
		r.Host.Samples[i].TCPOutSegs, r.Host.Samples[i].TCPRetransSegs = 0, 0
	}
	if b := BottleneckOf(r); len(b.Says.Caveats) != 0 {
		t.Errorf("an old file: caveats %+v", b.Says.Caveats)
	}
}

// Thinned samples (result.Thin past the first hour) keep the qdisc's
// growth and gauges.
func TestNetIOPlusQdisc(t *testing.T) {
	a := result.NetIO{TxBytes: 1, Qdisc: "tbf", QdiscRateBytesPS: 1, QdiscDrops: 2, QdiscOverlimits: 3, QdiscBacklog: 5}
	b := result.NetIO{TxBytes: 2, Qdisc: "tbf", QdiscRateBytesPS: 9, QdiscDrops: 1, QdiscOverlimits: 1, QdiscBacklog: 7, QdiscRequeues: 1}
	want := result.NetIO{TxBytes: 3, Qdisc: "tbf", QdiscRateBytesPS: 9, QdiscDrops: 3, QdiscOverlimits: 4, QdiscBacklog: 7, QdiscRequeues: 1}
	if got := a.Plus(b); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

// A link at its shaper's rate with its queue full is the limit even when
// the host's CPUs were busy (with neighbours): it could not carry more.
func TestNetLimitBeforeBusyCPU(t *testing.T) {
	tbf := result.NetIO{Qdisc: "tbf", QdiscRateBytesPS: 2.5e6, QdiscOverlimits: 400, QdiscBacklog: 30000}
	r := netRun(2.45e6, 1e5, tbf, every, nil)
	for i := range r.Host.Samples {
		r.Host.Samples[i].CPUIdle, r.Host.Samples[i].CPUUser, r.Host.Samples[i].CPUMaxCore = 0.05, 0.95, 0.97
	}
	if b := BottleneckOf(r); b.Limit != LimitNet {
		t.Errorf("tbf full, CPUs busy: %s at %q, want the network", b.Limit, b.Where)
	}
	// Queue evidence alone (no capacity known) does not come before a busy CPU.
	drops := result.NetIO{Qdisc: "fq_codel", QdiscDrops: 12}
	r = netRun(3e6, 1e5, drops, every, nil)
	for i := range r.Host.Samples {
		r.Host.Samples[i].CPUIdle, r.Host.Samples[i].CPUUser, r.Host.Samples[i].CPUMaxCore = 0.05, 0.95, 0.97
	}
	if b := BottleneckOf(r); b.Limit == LimitNet {
		t.Errorf("drops but CPUs busy: named the network; want the CPU's verdict")
	}
}
