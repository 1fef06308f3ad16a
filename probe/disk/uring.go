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

	ioringSetupCQSize       = 1 << 3
	ioringSetupCoopTaskrun  = 1 << 8
	ioringSetupSingleIssuer = 1 << 12
	ioringSetupDeferTaskrun = 1 << 13

	ioringOpReadFixed  = 4
	ioringOpWriteFixed = 5
	ioringOpRead       = 22
	ioringOpWrite      = 23

	iosqeFixedFile = 1 << 0

	ioringRegisterBuffers = 0
	ioringRegisterFiles   = 2
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
	setup   string // the setup flags the kernel accepted (setupFlags' names)
	// fixedFile: the job's file is registered as index 0 (fio registerfiles);
	// fixedBufs: each slot's buffer is registered, index = slot (fio fixedbufs).
	fixedFile, fixedBufs bool
}

// setupFlags are the ring set-ups tried in turn, fio's (3.33) first: a CQ
// ring no bigger than the SQ ring; completions run as task work only when
// the submitter enters the kernel (COOP_TASKRUN), and with one submitting
// thread (SINGLE_ISSUER) only when it waits for them (DEFER_TASKRUN), so an
// io-wq worker finishing a request does not interrupt or wake the submitter
// for each one. Older kernels refuse the newer flags with EINVAL; the next
// set is tried. SINGLE_ISSUER ties the ring to the thread that creates it:
// create it on the thread that will submit (runtime.LockOSThread first).
var setupFlags = []struct {
	flags uint32
	name  string
}{
	{ioringSetupCQSize | ioringSetupCoopTaskrun | ioringSetupSingleIssuer | ioringSetupDeferTaskrun, "cqsize,coop_taskrun,single_issuer,defer_taskrun"},
	{ioringSetupCQSize | ioringSetupCoopTaskrun, "cqsize,coop_taskrun"},
	{0, "none"},
}

// errUringUnavailable wraps every reason io_uring cannot be used here.
var errUringUnavailable = errors.New("io_uring unavailable")

func newRing(entries uint32) (*ring, error) {
	var p uringParams
	var fd uintptr
	var errno syscall.Errno
	setup := ""
	for _, f := range setupFlags {
		p = uringParams{flags: f.flags, cqEntries: entries}
		fd, _, errno = syscall.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
		if errno != unix.EINVAL {
			setup = f.name
			break
		}
	}
	if errno != 0 {
		return nil, fmt.Errorf("%w: io_uring_setup: %v", errUringUnavailable, errno)
	}
	r := &ring{fd: int(fd), entries: p.sqEntries, setup: setup}
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

// registerFile registers fd as the ring's file 0 (IORING_REGISTER_FILES):
// the kernel then looks the file up once, not at every request (fio's
// registerfiles). Call it on the thread that created the ring.
func (r *ring) registerFile(fd int) error {
	fds := [1]int32{int32(fd)}
	if _, _, errno := syscall.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegisterFiles, uintptr(unsafe.Pointer(&fds[0])), 1, 0, 0); errno != 0 {
		return fmt.Errorf("io_uring_register(IORING_REGISTER_FILES): %w", errno)
	}
	r.fixedFile = true
	return nil
}

// registerBuffers registers n buffers of bs bytes from base, one per slot
// (IORING_REGISTER_BUFFERS): the kernel pins and maps them once, not at
// every request (fio's fixedbufs). It counts against RLIMIT_MEMLOCK for a
// process without CAP_IPC_LOCK.
func (r *ring) registerBuffers(base unsafe.Pointer, n, bs int) error {
	iov := make([]unix.Iovec, n)
	for i := range iov {
		iov[i].Base = (*byte)(unsafe.Add(base, i*bs))
		iov[i].SetLen(bs)
	}
	if _, _, errno := syscall.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), ioringRegisterBuffers, uintptr(unsafe.Pointer(&iov[0])), uintptr(n), 0, 0); errno != 0 {
		return fmt.Errorf("io_uring_register(IORING_REGISTER_BUFFERS) of %d buffers of %d bytes: %w", n, bs, errno)
	}
	r.fixedBufs = true
	return nil
}

// queue puts one read or write into the submission ring; submit or enter
// passes it to the kernel. It reports false when the ring is full. With a
// registered file fd is ignored (file 0); with registered buffers userData
// is the buffer's index (the slot), buf its address.
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
	if r.fixedFile {
		e.fd, e.flags = 0, iosqeFixedFile
	}
	if r.fixedBufs {
		e.opcode, e.bufIndex = ioringOpReadFixed, uint16(userData)
		if write {
			e.opcode = ioringOpWriteFixed
		}
	}
	*(*uint32)(unsafe.Add(r.sqArray, uintptr(idx)*4)) = idx
	atomic.StoreUint32(r.sqTail, tail+1)
	r.pending++
	return true
}

// submit passes the queued SQEs to the kernel without waiting and without
// IORING_ENTER_GETEVENTS: on a DEFER_TASKRUN ring no completion is posted
// in it, so each completion is still posted, and timed, by the next enter.
// A raw system call: it does not block.
func (r *ring) submit() error {
	for r.pending > 0 {
		n, _, errno := syscall.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), 0, 0, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		if n == 0 {
			return syscall.EAGAIN
		}
		r.pending -= uint32(n)
	}
	return nil
}

// enter submits the queued SQEs and waits for at least minComplete
// completions. It first submits and collects what is ready without
// blocking, through a raw system call (no hand-over of the Go scheduler's P:
// the runtime's entersyscall/exitsyscall and its monitor's retaking of the P
// cost more than a non-blocking io_uring_enter); only when fewer than
// minComplete completions are ready does it wait, through an ordinary
// system call, so that a slow device never blocks the scheduler.
func (r *ring) enter(minComplete uint32) error {
	for {
		n, _, errno := syscall.RawSyscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), 0, ioringEnterGetEvents, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		r.pending -= uint32(n)
		break
	}
	for r.ready() < minComplete {
		n, _, errno := syscall.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.pending), uintptr(minComplete), ioringEnterGetEvents, 0, 0)
		if errno == syscall.EINTR {
			continue
		}
		if errno != 0 {
			return errno
		}
		r.pending -= uint32(n)
	}
	return nil
}

// ready is the number of completions waiting in the CQ ring.
func (r *ring) ready() uint32 { return atomic.LoadUint32(r.cqTail) - *r.cqHead }

// reap copies the completions available, oldest first and at most len(dst),
// into dst and consumes them: one load of the tail and one store of the head
// for the whole batch.
func (r *ring) reap(dst []cqe) int {
	head := *r.cqHead // only this goroutine writes the head
	n := int(atomic.LoadUint32(r.cqTail) - head)
	n = min(n, len(dst))
	if n == 0 {
		return 0 // no store to the head: the kernel reads it
	}
	for i := range n {
		dst[i] = *(*cqe)(unsafe.Add(r.cqes, uintptr((head+uint32(i))&r.cqMask)*unsafe.Sizeof(cqe{})))
	}
	atomic.StoreUint32(r.cqHead, head+uint32(n))
	return n
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
