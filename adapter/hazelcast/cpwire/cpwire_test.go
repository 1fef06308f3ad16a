package cpwire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/platbench/platbench/vocab"
)

// The wire round trip: a request built by Request reads back as the frames it
// holds, the last one final.
func TestWireFrames(t *testing.T) {
	m := NewRequest(MsgTryLock, 8)
	m.PutLong(0, 42)
	m.Group(RaftGroup{Name: "default", Seed: 7, ID: 9})
	m.Str("lock-1")
	r, err := ReadMessage(bufio.NewReader(bytes.NewReader(m.Bytes())))
	if err != nil {
		t.Fatal(err)
	}
	if len(r) != 6 || r.Type() != MsgTryLock || string(r[5].b) != "lock-1" || r[5].flags&flagFinal == 0 {
		t.Fatalf("frames %+v", r)
	}
	if r[1].flags&flagBeginData == 0 || r[4].flags&flagEndData == 0 || string(r[3].b) != "default" {
		t.Fatalf("group frames %+v", r[1:5])
	}
}

// A response from a member, however malformed, decodes without a panic.
func FuzzReadMessage(f *testing.F) {
	m := NewRequest(MsgError, 0)
	m.Begin()
	m.Begin()
	m.frame(0, []byte{1, 0, 0, 0})
	m.Str("com.hazelcast.cp.lock.exception.LockOwnershipLostException")
	m.Str("lost")
	m.End()
	m.End()
	f.Add(m.Bytes())
	f.Add([]byte{6, 0, 0, 0, 0, 0x20})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ReadMessage(bufio.NewReader(bytes.NewReader(b)))
		if err != nil {
			return
		}
		_ = r.Type()
		_ = r.Long(0)
		_ = r.Boolean(0)
		_ = r.ErrorOf().Error()
		_, _ = r.RaftGroup()
	})
}

// The connection's errors carry their class without package adapter: they
// read as adapter.Error does and say their class through ErrorClass.
func TestClassError(t *testing.T) {
	if ErrConnLost.ErrorClass() != vocab.ClassUnavailable || ErrConnLost.Error() != "unavailable: hazelcast: connection to the member lost" {
		t.Errorf("ErrConnLost: %v (%s)", ErrConnLost, ErrConnLost.ErrorClass())
	}
	_, err := New(Options{Addrs: []string{"127.0.0.1:1"}, ConnectTimeout: time.Second}).connect(context.Background())
	var ce *ClassError
	if !errors.As(err, &ce) || ce.Class != vocab.ClassUnavailable {
		t.Errorf("a member that does not answer: %v, want a ClassError of class unavailable", err)
	}
}
