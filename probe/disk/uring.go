//go:build linux

package disk

import (
	"errors"
	"fmt"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A minimal io_uring: one ring per job, set up and driven with raw system
// calls (no liburing, no cgo). Only what the probe needs: IORING_OP_READ and
// IORING_OP_WRITE on one file, submitted and reaped by the job's goroutine.
// Subtleness ahead: the SQ and CQ heads and tails are shared with the kernel
// and must be read and written with atomic loads and stores (acquire/release
// in liburing; Go's sync/atomic is sequentially consistent, which is stronger).

const (
	ioringOffSQRing = 0
	ioringOffCQRing = 0x8000000
	ioringOffSQEs   = 0x10000000

	ioringFeatSingleMmap = 1 << 0
	ioringEnterGetEvents = 1 << 0

	ioringOpRead  = 22
	ioringOpWrite = 23
)

type sqringOffsets struct {
	head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
	userAddr                                                        uint64
}

type cqringOffsets struct {
	head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
	userAddr                                                        uint64
}

type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFD uint32
	resv                                                                   [3]uint32
	sqOff                                                                  sqringOffsets
	cqOff                                                                  cqringOffsets
}

type sqe struct {
	opcode      uint8
	flags       uint8
	ioprio      uint16
	fd          int32
	off         uint64
	addr        uint64
	len         uint32
	rwFlags     uint32
	userData    uint64
	bufIndex    uint16
	personality uint16
	spliceFdIn  int32
	addr3       uint64
	pad2        uint64
}

type cqe struct {
	userData uint64
	res      int32
	flags    uint32
}

func init() {
	// The layouts are fixed by the kernel ABI; fail loudly in tests if Go lays them out differently.
	if unsafe.Sizeof(uringParams{}) != 120 || unsafe.Sizeof(sqe{}) != 64 || unsafe.Sizeof(cqe{}) != 16 {
		panic("probe/disk: io_uring struct layout mismatch")
	}
}

// ring is one io_uring instance.
type ring struct {
	fd      int
	sqMem   []byte
	cqMem   []byte
	sqeMem  []byte
	sqHead  *uint32
	sqTail  *uint32
	sqMask  uint32
	sqArray unsafe.Pointer
	sqes    unsafe.Pointer
	cqHead  *uint32
	cqTail  *uint32
	cqMask  uint32
	cqes    unsafe.Pointer
	entries uint32
	pending uint32 // SQEs queued but not yet passed to io_uring_enter
}

// errUringUnavailable wraps every reason io_uring cannot be used here.
var errUringUnavailable = errors.New("io_uring unavailable")

func newRing(entries uint32) (*ring, error) {
	var p uringParams
	fd, _, errno := syscall.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if errno != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %v", errUringUnavailable, errno)
	}
	r := &ring{fd: int(fd), entries: p.sqEntries}
	sqSize := p.sqOff.array + p.sqEntries*4
	cqSize := p.cqOff.cqes + p.cqEntries*uint32(unsafe.Sizeof(cqe{}))
	single := p.features&ioringFeatSingleMmap != 0
	if single && cqSize > sqSize {
		sqSize = cqSize
	}
	var err error
	r.sqMem, err = unix.Mmap(r.fd, ioringOffSQRing, int(sqSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("%w: mmap SQ ring: %v", errUringUnavailable, err)
	}
	if single {
		r.cqMem = r.sqMem
	} else {
		r.cqMem, err = unix.Mmap(r.fd, ioringOffCQRing, int(cqSize), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
		if err != nil {
			r.close()
			return nil, fmt.Errorf("%w: mmap CQ ring: %v", errUringUnavailable, err)
		}
	}
	r.sqeMem, err = unix.Mmap(r.fd, ioringOffSQEs, int(p.sqEntries)*int(unsafe.Sizeof(sqe{})), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		r.close()
		return nil, fmt.Errorf("%w: mmap SQEs: %v", errUringUnavailable, err)
	}
	sq := unsafe.Pointer(&r.sqMem[0])
	cq := unsafe.Pointer(&r.cqMem[0])
	r.sqHead = (*uint32)(unsafe.Add(sq, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(sq, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(sq, p.sqOff.ringMask))
	r.sqArray = unsafe.Add(sq, p.sqOff.array)
	r.sqes = unsafe.Pointer(&r.sqeMem[0])
	r.cqHead = (*uint32)(unsafe.Add(cq, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(cq, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(cq, p.cqOff.ringMask))
	r.cqes = unsafe.Add(cq, p.cqOff.cqes)
	return r, nil
}

// queue puts one read or write into the submission ring; submit passes it to
// the kernel. It reports false when the ring is full.
func (r *ring) queue(write bool, fd int, buf unsafe.Pointer, n uint32, off int64, userData uint64) bool {
	tail := *r.sqTail // only this goroutine writes the tail
	head := atomic.LoadUint32(r.sqHead)
	if tail-head >= r.entries {
		return false
	}
	idx := tail & r.sqMask
	e := (*sqe)(unsafe.Add(r.sqes, uintptr(idx)*unsafe.Sizeof(sqe{})))
	*e = sqe{fd: int32(fd), off: uint64(off), addr: uint64(uintptr(buf)), len: n, userData: userData}
	e.opcode = ioringOpRead
	if write {
		e.opcode = ioringOpWrite
	}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(idx)*4)) = idx
	atomic.StoreUint32(r.sqTail, tail+1)
	r.pending++
	return true
}

// enter submits the queued SQEs and waits for at least minComplete completions.
func (r *ring) enter(minComplete uint32) error {
	flags := uintptr(0)
	if minComplete > 0 {
		flags = ioringEnterGetEvents
	}
	for {
		n, _, errno := syscall.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), uintptr(minComplete), flags, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		r.pending -= uint32(n)
		return nil
	}
}

// next returns the oldest unread completion, if any, and consumes it.
func (r *ring) next() (userData uint64, res int32, ok bool) {
	head := *r.cqHead // only this goroutine writes the head
	if head == atomic.LoadUint32(r.cqTail) {
		return 0, 0, false
	}
	c := (*cqe)(unsafe.Add(r.cqes, uintptr(head&r.cqMask)*unsafe.Sizeof(cqe{})))
	userData, res = c.userData, c.res
	atomic.StoreUint32(r.cqHead, head+1)
	return userData, res, true
}

func (r *ring) close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	if r.cqMem != nil && (len(r.sqMem) == 0 || &r.cqMem[0] != &r.sqMem[0]) {
		unix.Munmap(r.cqMem)
	}
	if r.sqMem != nil {
		unix.Munmap(r.sqMem)
	}
	if r.fd > 0 {
		unix.Close(r.fd)
	}
}
