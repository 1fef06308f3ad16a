package host

import (
	"encoding/binary"
	"os"
	"testing"

	"github.com/platbench/platbench/result"
)

// replay parses a captured answer (testdata/qdisc-*.bin: the datagrams of
// a qdisc dump, then of an htb root's class dump, as rtnetlink sent them)
// the way qdiscReader.read does.
func replay(t testing.TB, b []byte) []qdiscStats {
	t.Helper()
	var qs []qdiscStats
	dones := 0
	for len(b) > 0 {
		l := int(binary.NativeEndian.Uint32(b))
		if l < nlmsgHdrLen || l > len(b) {
			t.Fatalf("bad message length %d of %d", l, len(b))
		}
		done, err := nlMsgs(b[:l], func(typ uint16, _ uint32, p []byte) error {
			switch typ {
			case rtmNewQdisc:
				var q qdiscStats
				if parseQdisc(p, func(b []byte) string { return string(b) }, &q) {
					qs = append(qs, q)
				}
			case rtmNewTclass:
				if idx, ceil, ok := htbCeil(p); ok {
					for i := range qs {
						if qs[i].ifindex == idx {
							qs[i].rate += ceil
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if done {
			dones++
		}
		b = b[min(align4(l), len(b)):]
	}
	if dones == 0 {
		t.Fatal("no NLMSG_DONE in the capture")
	}
	return qs
}

func kindOf(qs []qdiscStats, kind string) *qdiscStats {
	for i := range qs {
		if qs[i].kind == kind {
			return &qs[i]
		}
	}
	return nil
}

// A tbf of 1 Mbit/s (burst 32 kbit, limit 20000 bytes) on a veth, flooded
// with UDP from a second namespace: the capture scripts/capture-qdisc.sh
// made. Its rate is 125000 bytes/s; it queued, dropped and held packets.
func TestParseQdiscTBF(t *testing.T) {
	b, err := os.ReadFile("testdata/qdisc-tbf.bin")
	if err != nil {
		t.Fatal(err)
	}
	qs := replay(t, b)
	q := kindOf(qs, "tbf")
	if q == nil {
		t.Fatalf("want a tbf root, got %+v", qs)
	}
	if q.rate != 125000 {
		t.Errorf("tbf rate %d bytes/s, want 125000 (1 Mbit/s)", q.rate)
	}
	if q.drops == 0 || q.overlimits == 0 || q.backlog == 0 || q.qlen == 0 {
		t.Errorf("a flooded tbf: want drops, overlimits and a backlog, got %+v", *q)
	}
	if q.backlog > 20000+1500 {
		t.Errorf("backlog %d bytes over the tbf's limit of 20000", q.backlog)
	}
}

// An htb root (handle 1:, default 10) whose root class 1:1 has rate 30
// Mbit/s and ceil 50 Mbit/s, a child 1:10 under it: the link's limit is the
// root class's ceil, 6250000 bytes/s; the child's ceil is not added.
func TestParseQdiscHTB(t *testing.T) {
	b, err := os.ReadFile("testdata/qdisc-htb.bin")
	if err != nil {
		t.Fatal(err)
	}
	qs := replay(t, b)
	q := kindOf(qs, "htb")
	if q == nil {
		t.Fatalf("no htb root in %+v", qs)
	}
	if q.rate != 6250000 {
		t.Errorf("htb root class ceil %d bytes/s, want 6250000 (50 Mbit/s)", q.rate)
	}
}

// Truncated or garbled answers are errors or nothing, never a panic.
func TestParseQdiscTruncated(t *testing.T) {
	b, err := os.ReadFile("testdata/qdisc-tbf.bin")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n++ {
		_, _ = nlMsgs(b[:n], func(typ uint16, _ uint32, p []byte) error {
			var q qdiscStats
			parseQdisc(p, func(b []byte) string { return string(b) }, &q)
			htbCeil(p)
			return nil
		})
	}
}

func FuzzParseQdisc(f *testing.F) {
	for _, name := range []string{"testdata/qdisc-tbf.bin", "testdata/qdisc-htb.bin"} {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = nlMsgs(b, func(typ uint16, _ uint32, p []byte) error {
			var q qdiscStats
			parseQdisc(p, func(b []byte) string { return string(b) }, &q)
			htbCeil(p)
			return nil
		})
	})
}

// The counters' growth goes into the sample; a qdisc replaced between two
// samples (another kind) gives no growth; u32 counters wrap.
func TestQdiscDeltas(t *testing.T) {
	prev := []qdiscStats{{ifindex: 2, kind: "tbf", drops: 10, overlimits: 1<<32 - 5}}
	cur := []qdiscStats{{ifindex: 2, kind: "tbf", rate: 125000, backlog: 3000, qlen: 2, drops: 15, overlimits: 5, requeues: 1},
		{ifindex: 3, kind: "htb", drops: 7}}
	nets := map[string]result.NetIO{"eth0": {TxBytes: 1}, "eth1": {}}
	name := func(i int32) string { return map[int32]string{2: "eth0", 3: "eth1"}[i] }
	addQdiscs(nets, cur, prev, name)
	want := result.NetIO{TxBytes: 1, Qdisc: "tbf", QdiscRateBytesPS: 125000, QdiscBacklog: 3000, QdiscQueued: 2, QdiscDrops: 5, QdiscOverlimits: 10, QdiscRequeues: 1}
	if nets["eth0"] != want {
		t.Errorf("eth0 %+v, want %+v", nets["eth0"], want)
	}
	if n := nets["eth1"]; n.Qdisc != "htb" || n.QdiscDrops != 0 {
		t.Errorf("eth1, new since the last sample: %+v, want its kind and no growth", n)
	}
}

func TestParseSNMP(t *testing.T) {
	b := []byte("Ip: Forwarding DefaultTTL\nIp: 1 64\nTcp: RtoAlgorithm RtoMin RtoMax MaxConn ActiveOpens PassiveOpens AttemptFails EstabResets CurrEstab InSegs OutSegs RetransSegs InErrs OutRsts InCsumErrors\n" +
		"Tcp: 1 200 120000 -1 100 50 3 4 5 123456 654321 789 0 12 0\nUdp: InDatagrams\nUdp: 5\n")
	got, err := parseSNMP(b)
	if err != nil || got != (tcpSegs{out: 654321, retrans: 789}) {
		t.Fatalf("got %+v, %v", got, err)
	}
	if _, err := parseSNMP([]byte("Ip: a\nIp: 1\n")); err == nil {
		t.Error("a file without Tcp: lines: want an error")
	}
}
