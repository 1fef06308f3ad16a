package hazelcast

import (
	"bufio"
	"bytes"
	"testing"
)

// The wire round trip: a request built by wmsg reads back as the frames it
// holds, the last one final.
func TestWireFrames(t *testing.T) {
	m := newRequest(msgTryLock, 8)
	m.putLong(0, 42)
	m.group(raftGroup{name: "default", seed: 7, id: 9})
	m.str("lock-1")
	r, err := readMessage(bufio.NewReader(bytes.NewReader(m.bytes())))
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != 6 || r.typ() != msgTryLock || string(r[5].b) != "lock-1" || r[5].flags&flagFinal == 0 {
		t.Fatalf("frames %+v", r)
	}
	if r[1].flags&flagBeginData == 0 || r[4].flags&flagEndData == 0 || string(r[3].b) != "default" {
		t.Fatalf("group frames %+v", r[1:5])
	}
}

// A response from a member, however malformed, decodes without a panic.
func FuzzReadMessage(f *testing.F) {
	m := newRequest(msgError, 0)
	m.begin()
	m.begin()
	m.frame(0, []byte{1, 0, 0, 0})
	m.str("com.hazelcast.cp.lock.exception.LockOwnershipLostException")
	m.str("lost")
	m.end()
	m.end()
	f.Add(m.bytes())
	f.Add([]byte{6, 0, 0, 0, 0, 0x20})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := readMessage(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		_ = r.typ()
		_ = r.long(0)
		_ = r.boolean(0)
		_ = r.errorOf().Error()
		_, _ = r.raftGroup()
	})
}
