// Package proc samples one process (platbench itself or a target server on
// the same host) from /proc: CPU cores used, the busiest thread, RSS and
// storage bytes read and written, as deltas between two samples.
//
// A Tracker found by name re-resolves the name when its process exits, so a
// server restarted by a fault event is followed. It does not follow children
// of the process; name the one that does the work.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/procfs"

	"github.com/platbench/platbench/internal/usererr"
	"github.com/platbench/platbench/result"
)

// userHZ is the kernel's clock tick for /proc/*/stat CPU times; procfs uses
// the same constant (it is 100 on every Linux platform Go supports).
const userHZ = 100

// Tracker samples one process.
type Tracker struct {
	fs    procfs.FS
	pid   int
	name  string // match by name when non-empty
	self  int    // our own pid, never matched by name
	match string

	// previous sample, for deltas
	have     bool
	prevAt   time.Time
	prevCPU  float64 // seconds
	prevRead uint64
	prevWrit uint64
	prevThr  map[int]float64 // tid -> CPU seconds
	spareThr map[int]float64 // the map the next sample's threads go into
	buf      []byte          // a stat file read
}

// Self tracks this process.
func Self() (*Tracker, error) {
	return ByPID(os.Getpid())
}

// ByPID tracks the process with this pid.
func ByPID(pid int) (*Tracker, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	if pid <= 0 {
		return nil, usererr.Field("server_pid", "%d is not a process id (fix: give the pid of the server process, e.g. from pgrep)", pid)
	}
	if _, err := fs.Proc(pid); err != nil {
		return nil, usererr.Field("server_pid", "%d: no such process on this host (fix: give the pid of a running local server, or name the process instead)", pid)
	}
	return &Tracker{fs: fs, pid: pid, self: os.Getpid(), match: "pid " + strconv.Itoa(pid)}, nil
}

// ByName tracks the process whose command name (comm, or argv[0]'s base
// name) equals name; when none does, the one whose full command line
// contains name (as pgrep -f). Among several matches it takes the one using
// the most memory, which is the server rather than a wrapper script.
func ByName(name string) (*Tracker, error) {
	fs, err := procfs.NewDefaultFS()
	if err != nil {
		return nil, fmt.Errorf("proc: %w", err)
	}
	if strings.TrimSpace(name) == "" {
		return nil, usererr.Field("server_process", "is empty (fix: give the server's process name, e.g. redis-server)")
	}
	t := &Tracker{fs: fs, name: name, self: os.Getpid(), match: "process " + name}
	if t.resolve() == 0 {
		return nil, usererr.Field("server_process", "%q: no running process matches (fix: start the server first, or check the name with 'pgrep -a %s')", name, name)
	}
	return t, nil
}

// PID is the process tracked now (0 while a named process is not running).
func (t *Tracker) PID() int { return t.pid }

// Match says how the process was chosen ("pid 1234", "process redis-server").
func (t *Tracker) Match() string { return t.match }

// resolve finds the named process; it returns the pid or 0.
func (t *Tracker) resolve() int {
	procs, err := t.fs.AllProcs()
	if err != nil {
		return 0
	}
	type cand struct {
		pid int
		rss int
	}
	var exact, loose []cand
	for _, p := range procs {
		if p.PID == t.self {
			continue
		}
		comm, _ := p.Comm()
		args, _ := p.CmdLine()
		argv0 := ""
		if len(args) > 0 {
			argv0 = filepath.Base(args[0])
		}
		var list *[]cand
		switch {
		case comm == t.name || argv0 == t.name:
			list = &exact
		case strings.Contains(strings.Join(args, " "), t.name):
			list = &loose
		default:
			continue
		}
		rss := 0
		if st, err := p.Stat(); err == nil {
			rss = st.RSS
		}
		*list = append(*list, cand{p.PID, rss})
	}
	if len(exact) == 0 {
		exact = loose
	}
	if len(exact) == 0 {
		return 0
	}
	sort.Slice(exact, func(i, j int) bool {
		if exact[i].rss != exact[j].rss {
			return exact[i].rss > exact[j].rss
		}
		return exact[i].pid < exact[j].pid
	})
	if exact[0].pid != t.pid {
		t.have = false // a new process: start its deltas afresh
	}
	t.pid = exact[0].pid
	return t.pid
}

// ErrGone is returned by Sample when the process no longer exists (and, for
// a named tracker, no process matches the name).
var ErrGone = errors.New("proc: process is gone")

// Sample reads the process now and returns its use since the previous call.
// The first call (and the first after the process changed) returns ok=false:
// it only sets the baseline.
func (t *Tracker) Sample(now time.Time) (s result.ProcSample, ok bool, err error) {
	p, err := t.fs.Proc(t.pid)
	var st procfs.ProcStat
	if err == nil {
		st, err = p.Stat()
	}
	if err != nil {
		if t.name == "" || t.resolve() == 0 {
			t.have = false
			return s, false, ErrGone
		}
		if p, err = t.fs.Proc(t.pid); err == nil {
			st, err = p.Stat()
		}
		if err != nil {
			return s, false, ErrGone
		}
	}
	cpu := st.CPUTime()
	var rd, wr uint64
	if io, err := p.IO(); err == nil {
		rd, wr = io.ReadBytes, io.WriteBytes
	}
	thr := t.threads(p)
	s = result.ProcSample{PID: t.pid, Name: st.Comm, RSSBytes: int64(st.ResidentMemory())}
	if t.have {
		dt := now.Sub(t.prevAt).Seconds()
		if dt > 0 {
			s.CPUCores = (cpu - t.prevCPU) / dt
			s.ReadBytes = sub(rd, t.prevRead)
			s.WriteBytes = sub(wr, t.prevWrit)
			for tid, c := range thr {
				if prev, ok := t.prevThr[tid]; ok {
					if f := (c - prev) / dt; f > s.MaxThreadCores {
						s.MaxThreadCores = f
					}
				}
			}
			ok = true
		}
	}
	t.spareThr = t.prevThr
	t.have, t.prevAt, t.prevCPU, t.prevRead, t.prevWrit, t.prevThr = true, now, cpu, rd, wr, thr
	return s, ok, nil
}

// threads reads every thread's CPU seconds from /proc/PID/task/*/stat
// into the tracker's spare map (the previous sample's stays in prevThr).
// The few dozen threads of a Go process or a server cost well under a
// millisecond a second; each stat file is read into one buffer and parsed
// in place, so what a sample allocates is the directory listing and the
// paths.
func (t *Tracker) threads(p procfs.Proc) map[int]float64 {
	dir := filepath.Join("/proc", strconv.Itoa(p.PID), "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := t.spareThr
	if out == nil {
		out = make(map[int]float64, len(ents))
	}
	t.spareThr = nil
	clear(out)
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := t.readFile(filepath.Join(dir, e.Name(), "stat"))
		if err != nil {
			continue
		}
		if c, ok := statCPU(b); ok {
			out[tid] = c
		}
	}
	return out
}

// readFile reads a small /proc file into the tracker's buffer (valid until
// the next read).
func (t *Tracker) readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if t.buf == nil {
		t.buf = make([]byte, 0, 1024)
	}
	t.buf, err = ReadInto(f, t.buf)
	return t.buf, err
}

// ReadInto reads r to its end into buf's storage (grown when it is too
// small) and returns the bytes read: a /proc file read each sample without
// a new buffer each time.
func ReadInto(r io.Reader, buf []byte) ([]byte, error) {
	b := buf[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF || n == 0 && err == nil {
			return b, nil
		}
		if err != nil {
			return b[:0], err
		}
	}
}

// statCPU returns utime+stime in seconds from a /proc/*/stat line. The
// command name (field 2) may contain spaces and parentheses, so fields are
// counted from the last ')'.
func statCPU(b []byte) (float64, bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	// after ')': state(3) ppid(4) ... utime(14) stime(15) → fields 11, 12
	rest := b[i+1:]
	var u, k uint64
	for n := 0; n <= 12; n++ {
		for len(rest) > 0 && isSpace(rest[0]) {
			rest = rest[1:]
		}
		j := 0
		for j < len(rest) && !isSpace(rest[j]) {
			j++
		}
		if j == 0 {
			return 0, false
		}
		if n == 11 || n == 12 {
			v, ok := parseCount(rest[:j])
			if !ok {
				return 0, false
			}
			if n == 11 {
				u = v
			} else {
				k = v
			}
		}
		rest = rest[j:]
	}
	return float64(u+k) / userHZ, true
}

// isSpace is ASCII white space, as strings.Fields splits on.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// parseCount is a decimal count (no sign), false when b is not one or
// overflows.
func parseCount(b []byte) (uint64, bool) {
	var v uint64
	for _, c := range b {
		d := uint64(c - '0')
		if c < '0' || c > '9' || v > math.MaxUint64/10 || v*10 > math.MaxUint64-d {
			return 0, false
		}
		v = v*10 + d
	}
	return v, len(b) > 0
}

func sub(a, b uint64) uint64 {
	if a < b {
		return 0
	}
	return a - b
}
