package analysis

import (
	"math"
	"sort"

	"github.com/platbench/platbench/result"
)

// The loader host's network, the USE way (docs/analysis.md): its use of
// the link's capacity (the least of the speed the interface reports, the
// rate of a shaper on it, and the limit the user stated with --link-limit)
// and its saturation (the interface's root qdisc queueing, holding packets
// over a shaper's rate or dropping them in most seconds), with TCP's
// retransmits as its errors.
const (
	// QdiscShare: the share of the phase's seconds in which the root
	// qdisc held packets back (overlimits), dropped them or had a backlog
	// at the sample's end, from which the interface counts as saturated
	// whatever its bytes/s: a queue that fills in most seconds is a link
	// at its limit (a shaper's, a cloud's cap the host cannot read).
	QdiscShare = 0.5
	// RetransShare: the share of TCP segments sent again from which the
	// retransmits are a caveat (loss on the path) when the network is not
	// the limit; under 1% TCP recovers without a measurable cost.
	RetransShare = 0.01
)

// Capacity sources (NetSat.CapacityFrom).
const (
	CapacitySpeed  = "link speed"
	CapacityStated = "--link-limit"
	// A shaper's is its kind and "rate": "tbf rate", "htb rate".
)

// Phrases of the network (analysis.Phrase* lists the others).
const (
	PhraseNet        = "net"         // S: interface, direction (sent/received), capacity source; F: bytes/s, capacity bytes/s (0: unknown), share of seconds queued
	PhraseNetUse     = "net_use"     // S: interface, direction, capacity source; F: bytes/s, capacity bytes/s, use
	PhraseNetQdisc   = "net_qdisc"   // S: interface, qdisc kind; F: share of seconds queued, drops/s, overlimits/s, mean backlog bytes, shaper rate bytes/s (0: none)
	PhraseTCPRetrans = "tcp_retrans" // F: segments retransmitted per s, share of segments sent; S: the node (none: the loader host)
	PhraseNetRoom    = "net_room"    // S: interface, direction, capacity source; F: use, capacity bytes/s
	// PhraseNetStatedOver: a caveat. S: interface; F: the busier
	// direction's bytes/s, the stated limit's bytes/s.
	PhraseNetStatedOver = "net_stated_over"
)

// StatedOver: the share past a --link-limit by which an interface's traffic
// shows the stated limit is not the link's (a tenth: a cap measured in
// whole bytes per second is not off by 10%).
const StatedOver = 1.10

// NetSat is one loader-host interface over the phase.
type NetSat struct {
	Name                     string
	RxBytesPerS, TxBytesPerS float64
	// Capacity is the least known capacity of the busier direction, in
	// bytes/s (0: unknown), and CapacityFrom where it comes from.
	Capacity     float64
	CapacityFrom string
	Direction    string  // "sent" or "received": the busier against its capacity
	Use          float64 // that direction's bytes/s over Capacity (0: unknown)

	Qdisc                     string  // root qdisc's kind ("" when not recorded)
	ShaperBytesPerS           float64 // a shaper's rate (tbf; htb root ceil); 0: none
	QueuedShare               float64 // share of the seconds with overlimits, drops or a backlog
	DropsPerS, OverlimitsPerS float64
	BacklogMean               float64 // bytes at the samples' ends
	// StatedOver is the --link-limit (bytes/s) the traffic went past by
	// StatedOver or more: not the link's capacity, so left out of it.
	StatedOver float64
}

// Saturated: the interface's use reached SaturatedNet of its capacity, or
// its qdisc queued in QdiscShare of the seconds.
func (n NetSat) Saturated() bool { return n.Use >= SaturatedNet || n.QueuedShare >= QdiscShare }

// NetSatOf reduces h's samples per interface (lo left out), the busiest
// against its capacity first; links are h.Links.
func NetSatOf(h *result.HostSeries) []NetSat {
	if h == nil {
		return nil
	}
	type acc struct {
		rx, tx, drops, over, backlog uint64
		queued, secs, n              float64
		kind                         string
		shaper                       uint64
	}
	all := map[string]*acc{}
	for _, s := range h.Samples {
		secs := float64(s.DurationNs) / 1e9
		if secs <= 0 {
			secs = 1
		}
		for name, x := range s.Nets {
			if name == "lo" {
				continue
			}
			a := entry(all, name)
			a.rx, a.tx, a.secs, a.n = a.rx+x.RxBytes, a.tx+x.TxBytes, a.secs+secs, a.n+1
			a.drops, a.over, a.backlog = a.drops+x.QdiscDrops, a.over+x.QdiscOverlimits, a.backlog+x.QdiscBacklog
			if x.QdiscDrops > 0 || x.QdiscOverlimits > 0 || x.QdiscBacklog > 0 {
				a.queued += secs
			}
			if x.Qdisc != "" {
				a.kind, a.shaper = x.Qdisc, x.QdiscRateBytesPS
			}
		}
	}
	var out []NetSat
	for name, a := range all {
		if a.rx+a.tx == 0 || a.secs <= 0 {
			continue
		}
		n := NetSat{Name: name, RxBytesPerS: float64(a.rx) / a.secs, TxBytesPerS: float64(a.tx) / a.secs,
			Qdisc: a.kind, ShaperBytesPerS: float64(a.shaper), QueuedShare: a.queued / a.secs,
			DropsPerS: float64(a.drops) / a.secs, OverlimitsPerS: float64(a.over) / a.secs, BacklogMean: float64(a.backlog) / a.n}
		n.capacity(h.Links[name])
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		si, sj := math.Max(out[i].Use, out[i].QueuedShare), math.Max(out[j].Use, out[j].QueuedShare)
		if si != sj {
			return si > sj
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// capacity sets the least known capacity of each direction and the busier
// one against it. A shaper on the root qdisc limits what is sent only; the
// speed and a stated limit hold for both directions (a full-duplex link,
// a cloud's cap per direction).
func (n *NetSat) capacity(l result.Link) {
	both, from := 0.0, ""
	least := func(v float64, src string) {
		if v > 0 && (both == 0 || v < both) {
			both, from = v, src
		}
	}
	least(float64(l.SpeedBitsPerS)/8, CapacitySpeed)
	if stated := float64(l.LimitBitsPerS) / 8; stated > 0 && math.Max(n.TxBytesPerS, n.RxBytesPerS) >= StatedOver*stated {
		n.StatedOver = stated // the link carried more than the stated cap: it is not the link's
	} else {
		least(stated, CapacityStated)
	}
	tx, txFrom := both, from
	if n.ShaperBytesPerS > 0 && (tx == 0 || n.ShaperBytesPerS < tx) {
		tx, txFrom = n.ShaperBytesPerS, n.Qdisc+" rate"
	}
	useTx, useRx := over(n.TxBytesPerS, tx), over(n.RxBytesPerS, both)
	switch {
	case useTx >= useRx && tx > 0:
		n.Direction, n.Capacity, n.CapacityFrom, n.Use = "sent", tx, txFrom, useTx
	case both > 0:
		n.Direction, n.Capacity, n.CapacityFrom, n.Use = "received", both, from, useRx
	case n.TxBytesPerS >= n.RxBytesPerS:
		n.Direction = "sent"
	default:
		n.Direction = "received"
	}
}

func over(v, of float64) float64 {
	if of <= 0 {
		return 0
	}
	return v / of
}

// retrans is the TCP segments retransmitted per second of h's samples and
// their share of the segments sent; ok is false when h does not record them.
func retrans(h *result.HostSeries) (perS, share float64, ok bool) {
	var out, re uint64
	var secs float64
	for _, s := range h.Samples {
		out, re = out+s.TCPOutSegs, re+s.TCPRetransSegs
		secs += float64(s.DurationNs) / 1e9
	}
	if out == 0 || secs <= 0 {
		return 0, 0, false
	}
	return float64(re) / secs, float64(re) / float64(out), true
}

// netLimit: an interface of the loader host at its capacity or queueing in
// most seconds (NetSat.Saturated), the busiest named. With sure, only
// both at once: judge asks that before the host's CPUs, since a link at its
// capacity with its queue full could not have carried more however busy
// the CPUs were (neighbours, here, take the CPU the run did not need).
func (b *bottleneck) netLimit(sure bool) bool {
	if !b.hasHost || b.series == nil {
		return false
	}
	nets := b.nets
	if len(nets) == 0 || !nets[0].Saturated() {
		return false
	}
	n := nets[0]
	both := n.Use >= SaturatedNet && n.QueuedShare >= QdiscShare
	if sure && !both {
		return false
	}
	strength := Likely
	if both || n.Use >= (1+SaturatedNet)/2 {
		strength = Strong
	}
	by := n.TxBytesPerS
	if n.Direction == "received" {
		by = n.RxBytesPerS
	}
	b.set(LimitNet, strength, phrase(PhraseNetUse, []float64{by, n.Capacity, n.Use}, n.Name, n.Direction, n.CapacityFrom))
	b.out.Where = "loader host, interface " + n.Name
	b.says.Summary = phrase(PhraseNet, []float64{by, n.Capacity, n.QueuedShare}, n.Name, n.Direction, n.CapacityFrom)
	if n.Qdisc != "" {
		b.says.Evidence = append(b.says.Evidence, phrase(PhraseNetQdisc,
			[]float64{n.QueuedShare, n.DropsPerS, n.OverlimitsPerS, n.BacklogMean, n.ShaperBytesPerS}, n.Name, n.Qdisc))
	}
	if perS, share, ok := retrans(b.series); ok && perS > 0 {
		b.says.Evidence = append(b.says.Evidence, phrase(PhraseTCPRetrans, []float64{perS, share}))
	}
	return true
}

// nodeRetrans notes each server node's TCP retransmits: evidence when the
// node's network is the limit, a caveat past RetransShare otherwise.
func (b *bottleneck) nodeRetrans() {
	for _, n := range b.nodes {
		if !n.TCPKnown {
			continue
		}
		p := phrase(PhraseTCPRetrans, []float64{n.TCPRetransPerS, n.TCPRetransShare}, n.Node)
		switch {
		case b.out.Limit == LimitNet && b.out.Where == "node "+n.Node && n.TCPRetransPerS > 0:
			b.says.Evidence = append(b.says.Evidence, p) // the node's network is the limit: its errors
		case n.TCPRetransShare >= RetransShare:
			b.says.Caveats = append(b.says.Caveats, p)
		}
	}
}

// netCaveats notes a --link-limit the traffic went past (the statement is
// wrong, and was not used), and TCP retransmitting RetransShare of its
// segments or more with the network not the limit (loss on the path).
func (b *bottleneck) netCaveats() {
	b.nodeRetrans()
	if b.series == nil {
		return
	}
	for _, n := range b.nets {
		if n.StatedOver > 0 {
			b.says.Caveats = append(b.says.Caveats, phrase(PhraseNetStatedOver, []float64{math.Max(n.TxBytesPerS, n.RxBytesPerS), n.StatedOver}, n.Name))
		}
	}
	if b.out.Limit == LimitNet {
		return
	}
	if perS, share, ok := retrans(b.series); ok && share >= RetransShare {
		b.says.Caveats = append(b.says.Caveats, phrase(PhraseTCPRetrans, []float64{perS, share}))
	}
}

// netRoom is the headroom of the loader host's interfaces whose capacity
// is known (the two busiest).
func (b *bottleneck) netRoom() []result.Phrase {
	if b.series == nil {
		return nil
	}
	var out []result.Phrase
	for _, n := range b.nets {
		if n.Capacity > 0 && len(out) < 2 {
			out = append(out, phrase(PhraseNetRoom, []float64{n.Use, n.Capacity}, n.Name, n.Direction, n.CapacityFrom))
		}
	}
	return out
}
