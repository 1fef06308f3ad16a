package nodes

import (
	"bytes"
	"os"
	"testing"
	"time"

	"github.com/platbench/platbench/telemetry/machine"
)

// The qdisc fixtures are two real bodies of Debian's node_exporter 1.5.0
// with its qdisc collector (what --collector.qdisc adds to
// scripts/servers/node_exporter.sh's), run in a network namespace whose veth
// had a 1 Mbit/s tbf, before and after a ping flood through it: the sample
// between them has the tbf's 5 drops and 50 overlimits, so the interface's
// queue was full; lo, whose noqueue qdisc never held a packet, is not; the
// plain fixture (no qdisc collector) leaves them unknown.
func TestParseQdiscFixtures(t *testing.T) {
	read := func(name string) *reading { return readTestdata(t, name) }
	before, after := read("node_exporter-1.5.0-qdisc-before.txt"), read("node_exporter-1.5.0-qdisc-after.txt")
	if c := after.Nets["pbq0"]; c == nil || !c.Qdisc || c.QdiscDrops != 5 || c.QdiscOverlimits != 50 {
		t.Fatalf("pbq0's counters %+v, want the tbf's 5 drops and 50 overlimits", c)
	}
	d := machine.NetDeltas(before.Nets, after.Nets)
	n, ok := d["pbq0"]
	if !ok || !n.QdiscRead || n.QdiscDrops != 5 || n.QdiscOverlimits != 50 || !n.Queued() {
		t.Errorf("pbq0's sample %+v (present %v): want 5 drops, 50 overlimits, queued", n, ok)
	}
	if l, ok := d["lo"]; ok && l.Queued() {
		t.Errorf("lo queued: %+v", l)
	}
	plain := read("node_exporter-1.5.0.txt")
	for name, c := range plain.Nets {
		if c.Qdisc {
			t.Errorf("%s: qdisc read from an exporter without the qdisc collector", name)
		}
	}
}

// The netstat fixtures are two real bodies of the exporter with its netstat
// collector (--collector.netstat) a second apart: the sample between them
// has the TCP segments sent (361) and none retransmitted; the plain fixture
// (no netstat collector) has neither.
func TestParseNetstatFixtures(t *testing.T) {
	read := func(name string) *reading { return readTestdata(t, name) }
	before, after := read("node_exporter-1.5.0-netstat-before.txt"), read("node_exporter-1.5.0-netstat-after.txt")
	if !after.TCP.Read || after.TCP.OutSegs != 1.11050938e+08 || after.TCP.RetransSegs != 10341 {
		t.Fatalf("TCP counters %+v", after.TCP)
	}
	s := sample(before, after, time.Second)
	if s.TCPOutSegs != 361 || s.TCPRetransSegs != 0 {
		t.Errorf("sample: %d sent, %d retransmitted; want 361 and 0", s.TCPOutSegs, s.TCPRetransSegs)
	}
	plain := read("node_exporter-1.5.0.txt")
	if plain.TCP.Read {
		t.Errorf("TCP read from an exporter without the netstat collector: %+v", plain.TCP)
	}
	if s := sample(plain, plain, time.Second); s.TCPOutSegs != 0 {
		t.Errorf("no netstat, yet %d segments", s.TCPOutSegs)
	}
}

// readTestdata parses testdata/name, a node_exporter body.
func readTestdata(t *testing.T, name string) *reading {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseExposition(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}
