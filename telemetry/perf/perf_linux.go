package perf

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

type spec struct {
	name   string
	typ    uint32
	config uint64
}

// specs is the perf stat default set plus the cache counters, in print order.
var specs = []spec{
	{result.PerfTaskClock, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_TASK_CLOCK},
	{result.PerfContextSwitches, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES},
	{result.PerfCPUMigrations, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CPU_MIGRATIONS},
	{result.PerfPageFaults, unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_PAGE_FAULTS},
	{result.PerfCycles, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CPU_CYCLES},
	{result.PerfStalledFront, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
	{result.PerfStalledBack, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
	{result.PerfInstructions, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS},
	{result.PerfBranches, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
	{result.PerfBranchMisses, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_BRANCH_MISSES},
	{result.PerfCacheRefs, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CACHE_REFERENCES},
	{result.PerfCacheMisses, unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_CACHE_MISSES},
}

// reading is one counter's (value, time enabled, time running), summed over its fds.
type reading struct{ value, enabled, running uint64 }

type event struct {
	name string
	fds  []int
	prev reading // at the last interval cut
	base reading // at open
}

// Session is a set of open counters.
type Session struct {
	scope  string
	mu     sync.Mutex
	events []*event
	unav   []string
	reason string
	start  time.Time
	lastAt time.Time
	// ivs is the stored interval series, a row of len(events)+1 words
	// each: the events' counts in their order, then a mask of the events
	// counted in it (bit i: events[i]). One array, allocated whole at the
	// first cut, so the series costs no allocation per cut and the same
	// memory from its first minute to its last.
	ivs  []uint64
	ivNs int64
	// Past maxIntervals stored intervals, pairs are merged and each stored
	// interval takes per cuts (pend holds those of the next one): the
	// series stays uniform and bounded however long the run.
	per    int
	pend   []uint64
	cut    []uint64 // Cut's row, reused
	pendN  int
	scaled map[string]bool
	closed bool
}

// Open opens every counter it can for scope "process" or "system" and
// starts counting. Counters that do not open are listed as unavailable with
// the reason; err is non-nil only for a bad scope.
func Open(scope string) (*Session, error) {
	if scope == "server" {
		return nil, usererr.Field("perf_scope", "server needs the server's pid (fix: also name the server process, by pid or by name)")
	}
	return openScope(scope, os.Getpid())
}

// OpenPID counts another process (scope "server"): every thread it has now,
// and the threads they create later. Counting another user's process needs
// root or CAP_PERFMON (ptrace rights on it).
func OpenPID(pid int) (*Session, error) {
	return openScope("server", pid)
}

func openScope(scope string, pid int) (*Session, error) {
	s := &Session{scope: scope, scaled: map[string]bool{}}
	var targets [][2]int // (pid, cpu)
	inherit := false
	switch scope {
	case "process", "", "server":
		if s.scope == "" {
			s.scope = "process"
		}
		inherit = true
		for _, tid := range threads(pid) {
			targets = append(targets, [2]int{tid, -1})
		}
	case "system":
		for _, cpu := range onlineCPUs() {
			targets = append(targets, [2]int{-1, cpu})
		}
	default:
		return nil, usererr.Field("perf_scope", "%q is not process, system or server (fix: process, system or server)", scope)
	}
	var hwErr, swErr error
	for _, sp := range specs {
		name, config := sp.name, sp.config
		if s.scope == "system" && sp.name == result.PerfTaskClock {
			config = unix.PERF_COUNT_SW_CPU_CLOCK // task-clock is per task; cpu-clock per CPU
		}
		ev := &event{name: name}
		var err error
		for _, tg := range targets {
			var fd int
			fd, err = open(sp.typ, config, tg[0], tg[1], inherit)
			if errors.Is(err, unix.ESRCH) {
				err = nil // the thread exited since we listed it
				continue
			}
			if err != nil {
				break
			}
			ev.fds = append(ev.fds, fd)
		}
		if err != nil || len(ev.fds) == 0 {
			for _, fd := range ev.fds {
				unix.Close(fd)
			}
			s.unav = append(s.unav, name)
			if sp.typ == unix.PERF_TYPE_HARDWARE && hwErr == nil {
				hwErr = err
			} else if sp.typ == unix.PERF_TYPE_SOFTWARE && swErr == nil {
				swErr = err
			}
			continue
		}
		s.events = append(s.events, ev)
	}
	s.reason = explain(hwErr, swErr)
	s.start = time.Now()
	s.lastAt = s.start
	for _, ev := range s.events {
		ev.base = ev.read()
		ev.prev = ev.base
	}
	return s, nil
}

// open opens one counter; when the kernel refuses kernel-mode counting
// (perf_event_paranoid >= 2 for a non-root user) it retries user-mode only.
func open(typ uint32, config uint64, pid, cpu int, inherit bool) (int, error) {
	attr := unix.PerfEventAttr{
		Type:        typ,
		Config:      config,
		Size:        uint32(unsafe.Sizeof(unix.PerfEventAttr{})),
		Read_format: unix.PERF_FORMAT_TOTAL_TIME_ENABLED | unix.PERF_FORMAT_TOTAL_TIME_RUNNING,
	}
	if inherit {
		attr.Bits |= unix.PerfBitInherit
	}
	fd, err := unix.PerfEventOpen(&attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
		attr.Bits |= unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv
		fd, err = unix.PerfEventOpen(&attr, pid, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	}
	return fd, err
}

// explain turns the first open errors into one plain sentence.
func explain(hwErr, swErr error) string {
	var parts []string
	describe := func(what string, err error) {
		switch {
		case err == nil:
		case errors.Is(err, unix.ENOENT), errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.ENODEV):
			if _, statErr := os.Stat("/sys/bus/event_source/devices/cpu"); statErr != nil && what == "hardware counters" {
				parts = append(parts, "hardware counters: this machine exposes no hardware PMU (usual in virtual machines without a virtual PMU; bare-metal instances have one)")
			} else {
				parts = append(parts, what+": the CPU's PMU does not support them ("+err.Error()+")")
			}
		case errors.Is(err, unix.EACCES), errors.Is(err, unix.EPERM):
			parts = append(parts, fmt.Sprintf("%s: not permitted (kernel.perf_event_paranoid is %s; run as root, grant CAP_PERFMON, or lower it with sysctl)", what, readTrim("/proc/sys/kernel/perf_event_paranoid")))
		case errors.Is(err, unix.ENOSYS):
			parts = append(parts, what+": perf_event_open is not available (kernel without perf events, or blocked by the container's seccomp profile)")
		default:
			parts = append(parts, what+": "+err.Error())
		}
	}
	describe("hardware counters", hwErr)
	describe("software counters", swErr)
	return strings.Join(parts, "; ")
}

func (e *event) read() reading {
	var sum reading
	var buf [24]byte
	for _, fd := range e.fds {
		n, err := unix.Read(fd, buf[:])
		if err != nil || n < len(buf) {
			continue
		}
		sum.value += binary.NativeEndian.Uint64(buf[0:])
		sum.enabled += binary.NativeEndian.Uint64(buf[8:])
		sum.running += binary.NativeEndian.Uint64(buf[16:])
	}
	return sum
}

// scale returns the counter delta b-a, extrapolated when the kernel
// multiplexed the counter (ran it only part of the time it was enabled).
func scale(a, b reading) (v uint64, scaled, ok bool) {
	dv, de, dr := b.value-a.value, b.enabled-a.enabled, b.running-a.running
	if dr == 0 {
		return 0, false, de == 0 // never ran: unknown unless nothing elapsed
	}
	if dr >= de {
		return dv, false, true
	}
	return uint64(float64(dv) * float64(de) / float64(dr)), true, true
}

// Cut closes an interval now: it records each counter's change since the
// previous cut (host.WithTick calls it on the sampler's clock).
func (s *Session) Cut(now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	n := len(s.events)
	if s.cut == nil {
		s.cut = make([]uint64, n+1)
	}
	clear(s.cut)
	for i, ev := range s.events {
		r := ev.read()
		if v, _, ok := scale(ev.prev, r); ok {
			s.cut[i] = v
			s.cut[n] |= 1 << uint(i)
		}
		ev.prev = r
	}
	if s.ivNs == 0 {
		s.ivNs = now.Sub(s.lastAt).Nanoseconds()
	}
	s.lastAt = now
	s.keep(s.cut)
}

// maxIntervals bounds the stored interval series: about 17 minutes of 1 s
// cuts, then 2 s ones, and so on (a row of eight counters is 72 bytes:
// 74 KB in all).
const maxIntervals = 1024

// keep adds one cut's row (Cut) to the series, halving its resolution when
// it is full. Called with mu held.
func (s *Session) keep(row []uint64) {
	w := len(row)
	if s.per == 0 {
		s.per = 1
	}
	if s.pend == nil {
		s.pend = make([]uint64, w)
		s.ivs = make([]uint64, 0, maxIntervals*w)
	}
	if s.pendN == 0 {
		copy(s.pend, row)
	} else {
		addRow(s.pend, row)
	}
	if s.pendN++; s.pendN < s.per {
		return
	}
	s.ivs = append(s.ivs, s.pend...)
	s.pendN = 0
	if len(s.ivs) < maxIntervals*w {
		return
	}
	k := 0
	for i := 0; i+2*w <= len(s.ivs); i += 2 * w {
		copy(s.ivs[k:k+w], s.ivs[i:i+w])
		addRow(s.ivs[k:k+w], s.ivs[i+w:i+2*w])
		k += w
	}
	s.ivs = s.ivs[:k]
	s.per *= 2
	s.ivNs *= 2
}

// addRow adds row b to row a: counts summed, masks joined.
func addRow(a, b []uint64) {
	n := len(a) - 1
	for i := range n {
		a[i] += b[i]
	}
	a[n] |= b[n]
}

// intervals is the stored series as the result holds it: a map per
// interval of the events counted in it.
func (s *Session) intervals() []map[string]uint64 {
	w := len(s.events) + 1
	if len(s.ivs) == 0 || w == 1 {
		return nil
	}
	out := make([]map[string]uint64, 0, len(s.ivs)/w)
	for r := 0; r+w <= len(s.ivs); r += w {
		row := s.ivs[r : r+w]
		m := make(map[string]uint64, w-1)
		for i, ev := range s.events {
			if row[w-1]&(1<<uint(i)) != 0 {
				m[ev.name] = row[i]
			}
		}
		out = append(out, m)
	}
	return out
}

// Snapshot returns the totals so far without stopping.
func (s *Session) Snapshot() *result.Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.totals(time.Now())
}

func (s *Session) totals(now time.Time) *result.Counters {
	c := &result.Counters{
		Values:            make(map[string]uint64, len(s.events)),
		Unavailable:       append([]string(nil), s.unav...),
		UnavailableReason: s.reason,
		Scope:             s.scope,
		DurationNs:        now.Sub(s.start).Nanoseconds(),
		IntervalNs:        s.ivNs,
		Intervals:         s.intervals(),
	}
	for _, ev := range s.events {
		v, scaled, ok := scale(ev.base, ev.read())
		if !ok {
			c.Unavailable = append(c.Unavailable, ev.name+" (not counted)")
			continue
		}
		c.Values[ev.name] = v
		if scaled {
			c.Scaled = append(c.Scaled, ev.name)
		}
	}
	sort.Strings(c.Scaled)
	return c
}

// Stop reads the totals, closes the counters and returns them.
func (s *Session) Stop() *result.Counters {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.totals(time.Now())
	s.closeLocked()
	return c
}

// Close releases the counters without reading them.
func (s *Session) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeLocked()
}

func (s *Session) closeLocked() {
	if s.closed {
		return
	}
	s.closed = true
	for _, ev := range s.events {
		for _, fd := range ev.fds {
			unix.Close(fd)
		}
	}
}

// threads lists the thread ids of pid.
func threads(pid int) []int {
	ents, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return []int{pid} // the main thread only
	}
	var out []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out
}

// onlineCPUs parses /sys/devices/system/cpu/online ("0-3,6").
func onlineCPUs() []int {
	var out []int
	for _, part := range strings.Split(readTrim("/sys/devices/system/cpu/online"), ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			continue
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(hi); err != nil {
				continue
			}
		}
		for i := a; i <= b; i++ {
			out = append(out, i)
		}
	}
	return out
}

func readTrim(p string) string {
	b, _ := os.ReadFile(p)
	return strings.TrimSpace(string(b))
}
