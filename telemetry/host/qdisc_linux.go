//go:build linux

package host

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// qdiscReader dumps the root qdiscs of this network namespace through one
// rtnetlink socket kept open, into buffers it reuses: a sample allocates
// nothing here once the interfaces are known.
type qdiscReader struct {
	fd    int
	seq   uint32
	req   []byte
	buf   []byte
	cur   []qdiscStats
	kinds map[string]string // interned kinds
	names map[int32]string  // interface names by index
	raw   func([]byte)      // tests: sees each datagram of an answer
}

// newQdiscReader opens the socket; nil when it cannot (no rtnetlink here):
// the samples then carry no qdisc figures.
func newQdiscReader() *qdiscReader {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return nil
	}
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		unix.Close(fd)
		return nil
	}
	// A dump that does not answer must not stop the sampler.
	tv := unix.NsecToTimeval(int64(time.Second))
	_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &tv)
	return &qdiscReader{fd: fd, req: make([]byte, nlmsgHdrLen+tcmsgLen), buf: make([]byte, 64<<10),
		kinds: map[string]string{}, names: map[int32]string{}}
}

func (r *qdiscReader) close() {
	if r != nil {
		unix.Close(r.fd)
	}
}

// read dumps every interface's root qdisc (and the ceil of an htb root's
// classes); the result is valid until the next read.
func (r *qdiscReader) read() ([]qdiscStats, error) {
	r.cur = r.cur[:0]
	err := r.dump(rtmGetQdisc, 0, func(typ uint16, p []byte) {
		if typ != rtmNewQdisc {
			return
		}
		var q qdiscStats
		if parseQdisc(p, r.kind, &q) {
			r.cur = append(r.cur, q)
		}
	})
	if err != nil {
		return nil, err
	}
	for i := range r.cur {
		q := &r.cur[i]
		if q.kind != "htb" {
			continue
		}
		err := r.dump(rtmGetTclass, q.ifindex, func(typ uint16, p []byte) {
			if idx, ceil, ok := htbCeil(p); typ == rtmNewTclass && ok && idx == q.ifindex {
				q.rate += ceil // root classes share nothing: the link's limit is their sum
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return r.cur, nil
}

// dump sends one dump request and calls f with each message of its answer.
func (r *qdiscReader) dump(typ uint16, ifindex int32, f func(typ uint16, payload []byte)) error {
	r.seq++
	seq := r.seq
	if _, err := unix.Write(r.fd, dumpRequest(r.req, typ, seq, ifindex)); err != nil {
		return err
	}
	for {
		n, err := unix.Read(r.fd, r.buf)
		if err != nil {
			return err
		}
		if r.raw != nil {
			r.raw(r.buf[:n])
		}
		done, err := nlMsgs(r.buf[:n], func(t uint16, s uint32, p []byte) error {
			if s == seq { // an answer to an earlier, abandoned dump is skipped
				f(t, p)
			}
			return nil
		})
		if err != nil || done {
			return err
		}
	}
}

func (r *qdiscReader) kind(b []byte) string {
	if s, ok := r.kinds[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(r.kinds) < 64 {
		r.kinds[s] = s
	}
	return s
}

// name is the interface's name ("" when it is gone).
func (r *qdiscReader) name(ifindex int32) string {
	if n, ok := r.names[ifindex]; ok {
		return n
	}
	i, err := net.InterfaceByIndex(int(ifindex))
	if err != nil {
		return ""
	}
	if len(r.names) > 256 {
		clear(r.names)
	}
	r.names[ifindex] = i.Name
	return i.Name
}
