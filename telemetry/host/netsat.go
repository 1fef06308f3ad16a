package host

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/platbench/platbench/result"
)

// tcpSegs is /proc/net/snmp's count of TCP segments sent and retransmitted
// since boot.
type tcpSegs struct{ out, retrans uint64 }

// tcp reads /proc/net/snmp's Tcp: lines (a header line of names, then one
// of values).
func (p *procFiles) tcp() (tcpSegs, error) {
	b, err := p.read("net/snmp")
	if err != nil {
		return tcpSegs{}, err
	}
	return parseSNMP(b)
}

func parseSNMP(b []byte) (tcpSegs, error) {
	var names []byte
	for len(b) > 0 {
		var line []byte
		line, b = nextLine(b)
		if !bytes.HasPrefix(line, []byte("Tcp:")) {
			continue
		}
		if names == nil {
			names = line
			continue
		}
		var t tcpSegs
		n, v := names[4:], line[4:]
		for len(n) > 0 {
			var key, val []byte
			key, n = field(n)
			val, v = field(v)
			if len(key) == 0 {
				break
			}
			switch string(key) {
			case "OutSegs":
				t.out, _ = strconv.ParseUint(string(val), 10, 64)
			case "RetransSegs":
				t.retrans, _ = strconv.ParseUint(string(val), 10, 64)
			}
		}
		return t, nil
	}
	return tcpSegs{}, fmt.Errorf("/proc/net/snmp: no Tcp: lines")
}

// qdiscDeltas fills n's qdisc figures from the interface's root qdisc now
// (cur) and at the previous sample (prev, nil when it was not there then):
// the counters' growth in the sample, the gauges as they are now.
func qdiscDeltas(n *result.NetIO, cur, prev *qdiscStats) {
	n.Qdisc, n.QdiscRateBytesPS = cur.kind, cur.rate
	n.QdiscBacklog, n.QdiscQueued = uint64(cur.backlog), uint64(cur.qlen)
	if prev == nil || prev.kind != cur.kind {
		return // a qdisc replaced between the samples: its counters start again
	}
	n.QdiscDrops = uint64(cur.drops - prev.drops) // u32 counters: wrap-safe
	n.QdiscOverlimits = uint64(cur.overlimits - prev.overlimits)
	n.QdiscRequeues = uint64(cur.requeues - prev.requeues)
}

// addQdiscs fills nets' qdisc figures from a dump (cur) and the previous
// one (prev); name maps an interface index to its name.
func addQdiscs(nets map[string]result.NetIO, cur, prev []qdiscStats, name func(int32) string) {
	for i := range cur {
		q := &cur[i]
		n, ok := nets[name(q.ifindex)]
		if !ok {
			continue
		}
		var p *qdiscStats
		for j := range prev {
			if prev[j].ifindex == q.ifindex {
				p = &prev[j]
				break
			}
		}
		qdiscDeltas(&n, q, p)
		nets[name(q.ifindex)] = n
	}
}

// links reads each interface's reported speed (/sys/class/net/IF/speed, in
// Mbit/s; a virtual interface has none or -1) and adds the stated limits
// (LinkLimits: an interface's own, or "" for every interface but lo).
func links(sysNet string, limits map[string]int64) map[string]result.Link {
	ents, _ := os.ReadDir(sysNet)
	out := map[string]result.Link{}
	for _, e := range ents {
		name := e.Name()
		var l result.Link
		if b, err := os.ReadFile(filepath.Join(sysNet, name, "speed")); err == nil {
			if mbit, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && mbit > 0 {
				l.SpeedBitsPerS = mbit * 1e6
			}
		}
		if v, ok := limits[name]; ok {
			l.LimitBitsPerS = v
		} else if v, ok := limits[""]; ok && name != "lo" {
			l.LimitBitsPerS = v
		}
		if l != (result.Link{}) {
			out[name] = l
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// netSampler keeps what a sample of the network's saturation compares
// with: the previous qdisc dump and TCP counts.
type netSampler struct {
	qdisc   *qdiscReader // nil without rtnetlink
	prevQ   []qdiscStats
	prevTCP tcpSegs
	haveQ   bool
	haveTCP bool
}

// netReading is one sample's reading.
type netReading struct {
	qdiscs []qdiscStats // valid until the next read
	errQ   error
	tcp    tcpSegs
	errTCP error
	noTCP  bool // /proc/net/snmp is not there
}

func (n *netSampler) read(p *procFiles) netReading {
	var r netReading
	if n.qdisc != nil {
		r.qdiscs, r.errQ = n.qdisc.read()
	}
	r.tcp, r.errTCP = p.tcp()
	if errors.Is(r.errTCP, fs.ErrNotExist) {
		r.errTCP = nil // a kernel (or sandbox) without /proc/net/snmp: no TCP figures, not a fault
		r.tcp = tcpSegs{}
		r.noTCP = true
	}
	return r
}

// fill adds the qdisc figures to hs's interfaces and the TCP segments.
func (n *netSampler) fill(hs *result.HostSample, r netReading) {
	if r.errQ == nil && n.qdisc != nil && hs.Nets != nil {
		prev := n.prevQ
		if !n.haveQ {
			prev = nil
		}
		addQdiscs(hs.Nets, r.qdiscs, prev, n.qdisc.name)
	}
	if r.errTCP == nil && !r.noTCP && n.haveTCP {
		hs.TCPOutSegs, hs.TCPRetransSegs = sub(r.tcp.out, n.prevTCP.out), sub(r.tcp.retrans, n.prevTCP.retrans)
	}
}

// keep makes r the reading the next sample compares with.
func (n *netSampler) keep(r netReading) {
	if n.haveQ = r.errQ == nil && n.qdisc != nil; n.haveQ {
		n.prevQ = append(n.prevQ[:0], r.qdiscs...)
	}
	if n.haveTCP = r.errTCP == nil && !r.noTCP; n.haveTCP {
		n.prevTCP = r.tcp
	}
}

func (n *netSampler) close() { n.qdisc.close() }
