//go:build linux

package host

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCaptureQdiscs writes this network namespace's rtnetlink answers to a
// dump of its qdiscs (and of an htb root's classes) into
// $PLATBENCH_CAPTURE_QDISC/NAME.bin, each datagram as it came: how
// testdata/qdisc-*.bin were made, inside namespaces with shapers
// (scripts/capture-qdisc.sh). Skipped without the variable.
func TestCaptureQdiscs(t *testing.T) {
	dir := os.Getenv("PLATBENCH_CAPTURE_QDISC")
	if dir == "" {
		t.Skip("PLATBENCH_CAPTURE_QDISC not set")
	}
	r := newQdiscReader()
	if r == nil {
		t.Fatal("no rtnetlink socket")
	}
	defer r.close()
	var got []byte
	r.raw = func(b []byte) { got = append(got, b...) }
	if _, err := r.read(); err != nil {
		t.Fatal(err)
	}
	name := os.Getenv("PLATBENCH_CAPTURE_NAME")
	if err := os.WriteFile(filepath.Join(dir, "qdisc-"+name+".bin"), got, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestQdiscReaderLive dumps this host's qdiscs: every interface has a root
// qdisc (noqueue on lo), and the figures go into the samples.
func TestQdiscReaderLive(t *testing.T) {
	r := newQdiscReader()
	if r == nil {
		t.Skip("no rtnetlink socket here")
	}
	defer r.close()
	qs, err := r.read()
	if err != nil {
		t.Fatal(err)
	}
	if len(qs) == 0 {
		t.Fatal("no root qdisc in this namespace")
	}
	for _, q := range qs {
		if q.kind == "" || r.name(q.ifindex) == "" {
			t.Errorf("qdisc %+v: no kind or no interface name", q)
		}
	}
	// A second dump answers the same way (sequence numbers, buffers reused).
	if qs2, err := r.read(); err != nil || len(qs2) != len(qs) {
		t.Fatalf("second dump: %d qdiscs, %v; first %d", len(qs2), err, len(qs))
	}
}
