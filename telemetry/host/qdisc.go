package host

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// The loader host's network saturation, the USE way: an interface's root
// queueing discipline (qdisc) says when packets waited (backlog, overlimits)
// or were dropped, and a shaper's (tbf, htb) rate is a known limit of the
// link that its reported speed does not show (a veth says 10 Gb/s under a
// 20 Mbit/s tbf; a cloud caps an instance far below its NIC's speed).
// qdisc_linux.go dumps them through rtnetlink (RTM_GETQDISC, and
// RTM_GETTCLASS for an htb root) every sample; this file parses the
// messages, in place, without allocating.

// qdiscStats is one interface's root qdisc as a dump reports it; counters
// are the kernel's, cumulative (u32 in its gnet_stats_queue).
type qdiscStats struct {
	ifindex                     int32
	kind                        string // interned: "tbf", "htb", "fq_codel", ...
	rate                        uint64 // a shaper's rate in bytes/s (tbf's rate; htb's root classes' ceil); 0: not a shaper
	backlog, qlen               uint32 // bytes and packets queued now
	drops, overlimits, requeues uint32 // cumulative
}

// rtnetlink's numbers (linux/rtnetlink.h, linux/pkt_sched.h,
// linux/gen_stats.h): kept here so the parser builds and is tested on any
// system.
const (
	nlmsgHdrLen  = 16
	tcmsgLen     = 20
	nlmsgError   = 2
	nlmsgDone    = 3
	rtmNewQdisc  = 36
	rtmGetQdisc  = 38
	rtmNewTclass = 40
	rtmGetTclass = 42
	tcHRoot      = 0xFFFFFFFF

	tcaKind    = 1
	tcaOptions = 2
	tcaStats   = 3
	tcaStats2  = 7

	tcaStatsQueue = 3

	tcaTBFParms  = 1
	tcaTBFRate64 = 4

	tcaHTBParms  = 1
	tcaHTBCeil64 = 7

	nlaTypeMask = 0x3fff // without NLA_F_NESTED and NLA_F_NET_BYTEORDER
)

var errTruncated = errors.New("netlink: message truncated")

// nlMsgs calls f with each message of a netlink reply (its type, its
// sequence number and its payload); done is true at NLMSG_DONE. An
// NLMSG_ERROR with a non-zero code is an error.
func nlMsgs(b []byte, f func(typ uint16, seq uint32, payload []byte) error) (done bool, err error) {
	ne := binary.NativeEndian
	for len(b) >= nlmsgHdrLen {
		l := int(ne.Uint32(b))
		if l < nlmsgHdrLen || l > len(b) {
			return false, errTruncated
		}
		typ, seq, payload := ne.Uint16(b[4:]), ne.Uint32(b[8:]), b[nlmsgHdrLen:l]
		switch typ {
		case nlmsgDone:
			return true, nil
		case nlmsgError:
			if len(payload) >= 4 {
				if code := int32(ne.Uint32(payload)); code != 0 {
					return true, fmt.Errorf("netlink: error %d", -code)
				}
			}
			return true, nil
		}
		if err := f(typ, seq, payload); err != nil {
			return false, err
		}
		b = b[min(align4(l), len(b)):] // the last message's padding may be missing
	}
	return false, nil
}

func align4(n int) int { return (n + 3) &^ 3 }

// attrs calls f with each netlink attribute of b (its type without flags).
func attrs(b []byte, f func(typ uint16, v []byte)) {
	ne := binary.NativeEndian
	for len(b) >= 4 {
		l := int(ne.Uint16(b))
		if l < 4 || l > len(b) {
			return
		}
		f(ne.Uint16(b[2:])&nlaTypeMask, b[4:l])
		b = b[min(align4(l), len(b)):]
	}
}

// tcmsg is a traffic-control message's header.
type tcmsg struct {
	ifindex int32
	handle  uint32
	parent  uint32
}

func parseTcmsg(p []byte) (tcmsg, []byte, bool) {
	if len(p) < tcmsgLen {
		return tcmsg{}, nil, false
	}
	ne := binary.NativeEndian
	return tcmsg{ifindex: int32(ne.Uint32(p[4:])), handle: ne.Uint32(p[8:]), parent: ne.Uint32(p[12:])}, p[tcmsgLen:], true
}

// parseQdisc reads one RTM_NEWQDISC payload into q; ok is false when it is
// not an interface's root qdisc. kind interns the kind's bytes.
func parseQdisc(p []byte, kind func([]byte) string, q *qdiscStats) (ok bool) {
	h, rest, ok := parseTcmsg(p)
	if !ok || h.parent != tcHRoot {
		return false
	}
	*q = qdiscStats{ifindex: h.ifindex}
	var opts []byte
	stats2 := false
	attrs(rest, func(typ uint16, v []byte) {
		switch typ {
		case tcaKind:
			q.kind = kind(cString(v))
		case tcaOptions:
			opts = v
		case tcaStats2:
			attrs(v, func(t uint16, s []byte) {
				if t == tcaStatsQueue && len(s) >= 20 { // gnet_stats_queue
					stats2 = true
					q.queue(s[0:], s[4:], s[8:], s[12:], s[16:])
				}
			})
		case tcaStats:
			if !stats2 && len(v) >= 36 { // struct tc_stats: bytes u64, packets, drops, overlimits, bps, pps, qlen, backlog
				q.queue(v[28:], v[32:], v[12:], nil, v[16:])
			}
		}
	})
	if q.kind == "tbf" && opts != nil {
		q.rate = tbfRate(opts)
	}
	return true
}

// queue sets the queue figures from their u32s (requeues may be nil).
func (q *qdiscStats) queue(qlen, backlog, drops, requeues, overlimits []byte) {
	ne := binary.NativeEndian
	q.qlen, q.backlog, q.drops, q.overlimits = ne.Uint32(qlen), ne.Uint32(backlog), ne.Uint32(drops), ne.Uint32(overlimits)
	if requeues != nil {
		q.requeues = ne.Uint32(requeues)
	}
}

// tbfRate is a tbf's rate in bytes/s: TCA_TBF_RATE64 when the kernel gives
// it (rates of 4 GB/s and more), else the rate in TCA_TBF_PARMS'
// struct tc_tbf_qopt (its first member, a tc_ratespec, whose rate is at 8).
func tbfRate(opts []byte) uint64 {
	var r32, r64 uint64
	attrs(opts, func(typ uint16, v []byte) {
		switch {
		case typ == tcaTBFParms && len(v) >= 12:
			r32 = uint64(binary.NativeEndian.Uint32(v[8:]))
		case typ == tcaTBFRate64 && len(v) >= 8:
			r64 = binary.NativeEndian.Uint64(v)
		}
	})
	if r64 > 0 {
		return r64
	}
	return r32
}

// htbCeil is the ceil in bytes/s of one RTM_NEWTCLASS payload when it is an
// htb root class (the most its subtree may send); ok is false otherwise.
// struct tc_htb_opt starts with the rate and ceil tc_ratespecs (12 bytes
// each): the ceil's rate is at 20.
func htbCeil(p []byte) (ifindex int32, ceil uint64, ok bool) {
	h, rest, ok := parseTcmsg(p)
	if !ok || h.parent != tcHRoot {
		return 0, 0, false
	}
	isHTB := false
	var c32, c64 uint64
	attrs(rest, func(typ uint16, v []byte) {
		switch typ {
		case tcaKind:
			isHTB = string(cString(v)) == "htb"
		case tcaOptions:
			attrs(v, func(t uint16, o []byte) {
				switch {
				case t == tcaHTBParms && len(o) >= 24:
					c32 = uint64(binary.NativeEndian.Uint32(o[20:]))
				case t == tcaHTBCeil64 && len(o) >= 8:
					c64 = binary.NativeEndian.Uint64(o)
				}
			})
		}
	})
	if !isHTB {
		return 0, 0, false
	}
	if c64 > 0 {
		return h.ifindex, c64, true
	}
	return h.ifindex, c32, true
}

// cString is b up to its first NUL.
func cString(b []byte) []byte {
	for i, c := range b {
		if c == 0 {
			return b[:i]
		}
	}
	return b
}

// dumpRequest writes a netlink dump request of type typ for ifindex (0:
// every interface) into b (tcmsgLen+nlmsgHdrLen bytes) and returns it.
func dumpRequest(b []byte, typ uint16, seq uint32, ifindex int32) []byte {
	const nlmFRequest, nlmFDump = 0x1, 0x300
	b = b[:nlmsgHdrLen+tcmsgLen]
	clear(b)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(len(b)))
	ne.PutUint16(b[4:], typ)
	ne.PutUint16(b[6:], nlmFRequest|nlmFDump)
	ne.PutUint32(b[8:], seq)
	b[nlmsgHdrLen] = 0 // AF_UNSPEC
	ne.PutUint32(b[nlmsgHdrLen+4:], uint32(ifindex))
	return b
}
