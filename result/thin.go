package result

import (
	"maps"
	"math"
	"time"
)

// Thin keeps a telemetry series bounded as Coarsener keeps a phase's
// intervals: samples of the first hour as they are, later ones merged into
// one per 10 s, then per minute (SeriesWidth, on the sample's offset), so a
// day of 1 s host or node samples keeps about 12,000 rather than 86,400.
// Merge folds s, the next sample, into dst, which holds n samples, and
// reports whether it could (a missing scrape is not merged into a good
// sample; the next good one starts a new one). Offset is a sample's offset
// from the series start.
type Thin[T any] struct {
	Merge  func(dst *T, s T, n int) bool
	Offset func(s *T) int64
	// Wide merges samples into one a minute from the start: a collector
	// whose samples go to the run's journal as they are taken keeps that
	// much in memory (live readers take the latest sample, not the
	// series), and the result's series is read back from the journal when
	// the run ends (Journal.Telemetry), as the phases' are; the minute
	// series is what the result keeps only if that read fails. It holds
	// at most wideMax samples: then neighbours merge and the width
	// doubles (2 min, 4 min, …), so memory does not grow with the run.
	Wide  bool
	out   []T
	ns    []int // Wide: samples merged into each kept one
	wideW int64 // Wide: the width of a kept sample (0: 1 min)
	slot  int64 // the stored slot of the last sample (-1: a whole second)
	n     int   // samples merged into the last one
}

// wideMax bounds a Wide series: 16 samples, 16 minutes at 1 min, then of
// 2 min, 4 min and so on. It is a fallback (a journal that cannot be read
// back), kept small: a node's sample holds maps of its disks, interfaces
// and CPUs, about 1.4 KB, and 240 of them a series were a growth of 0.8 MB
// an hour for six nodes in the soak of issue 34.
const wideMax = 16

// Add keeps s.
func (t *Thin[T]) Add(s T) {
	off := t.Offset(&s)
	w, tier := SeriesWidth(off)
	if t.Wide {
		if t.wideW == 0 {
			t.wideW = 60e9
		}
		w, tier = t.wideW, 0
	}
	if w == 1e9 {
		t.out = append(t.out, s)
		t.slot, t.n = -1, 1
		return
	}
	slot := tier + (off-tier)/w*w
	if k := len(t.out); k > 0 && slot == t.slot && t.Merge(&t.out[k-1], s, t.n) {
		t.n++
		if t.Wide {
			t.ns[k-1] = t.n
		}
		return
	}
	t.out = append(t.out, s)
	t.slot, t.n = slot, 1
	if t.Wide {
		t.ns = append(t.ns, 1)
		if len(t.out) >= wideMax {
			t.widen()
		}
	}
}

// widen doubles a Wide series' width: each kept sample merges into the
// one before it when both fall in one slot of the new width (a missing
// scrape still merges only into a missing one). The series is a new slice:
// a reader may hold the old one (Samples).
func (t *Thin[T]) widen() {
	t.wideW *= 2
	w := t.wideW
	slotOf := func(s *T) int64 { return t.Offset(s) / w * w }
	out, ns := make([]T, 0, wideMax), make([]int, 0, wideMax)
	for i := range t.out {
		if k := len(out) - 1; k >= 0 && slotOf(&out[k]) == slotOf(&t.out[i]) && t.Merge(&out[k], t.out[i], ns[k]) {
			ns[k] += t.ns[i]
			continue
		}
		out, ns = append(out, t.out[i]), append(ns, t.ns[i])
	}
	t.out, t.ns = out, ns
	k := len(out) - 1
	t.slot, t.n = slotOf(&out[k]), ns[k]
}

// Samples is the series kept so far (the Thin's own slice: copy it to keep
// it past the next Add).
func (t *Thin[T]) Samples() []T { return t.out }

// Last is the sample kept last (merged), and whether there is one.
func (t *Thin[T]) Last() (T, bool) {
	var z T
	if len(t.out) == 0 {
		return z, false
	}
	return t.out[len(t.out)-1], true
}

// weights are two merged samples' shares of their span.
func weights(aDur, bDur int64) (wa, wb float64) {
	if t := aDur + bDur; t > 0 {
		return float64(aDur) / float64(t), float64(bDur) / float64(t)
	}
	return 0.5, 0.5
}

// MergeHostSample folds b, the sample after a, into a: fractions averaged
// over time, counts summed, the busiest core the busiest of either, gauges
// (memory, load) as of b.
func MergeHostSample(a *HostSample, b HostSample, _ int) bool {
	mergeMachine(a.machine(), b.machine())
	a.Load1 = b.Load1
	a.Paging.Add(b.Paging)
	a.CtxSwitches += b.CtxSwitches
	a.Interrupts += b.Interrupts
	a.TCPOutSegs += b.TCPOutSegs
	a.TCPRetransSegs += b.TCPRetransSegs
	a.Nets = mergeByName(a.Nets, b.Nets, NetIO.Plus)
	return true
}

// machineSample is what a loader host's sample (HostSample) and a server
// node's (NodeSample) have alike, by reference: mergeMachine is the one
// merge of it.
type machineSample struct {
	offset, dur         *int64
	cpu                 [7]*float64 // user, system, iowait, irq, softirq, steal, idle
	maxCore, maxCoreIRQ *float64
	maxCoreID           *int
	mem                 [4]*int64 // used, available, page cache, dirty: gauges
	disks               *map[string]DiskIO
}

func (s *HostSample) machine() machineSample {
	return machineSample{&s.OffsetNs, &s.DurationNs, [7]*float64{&s.CPUUser, &s.CPUSystem, &s.CPUIOWait, &s.CPUIRQ, &s.CPUSoftIRQ, &s.CPUSteal, &s.CPUIdle},
		&s.CPUMaxCore, &s.CPUMaxCoreIRQ, &s.CPUMaxCoreID, [4]*int64{&s.MemUsedBytes, &s.MemAvailableBytes, &s.PageCacheBytes, &s.DirtyBytes}, &s.Disks}
}

func (s *NodeSample) machine() machineSample {
	return machineSample{&s.OffsetNs, &s.DurationNs, [7]*float64{&s.CPUUser, &s.CPUSystem, &s.CPUIOWait, &s.CPUIRQ, &s.CPUSoftIRQ, &s.CPUSteal, &s.CPUIdle},
		&s.CPUMaxCore, &s.CPUMaxCoreIRQ, &s.CPUMaxCoreID, [4]*int64{&s.MemUsedBytes, &s.MemAvailableBytes, &s.PageCacheBytes, &s.DirtyBytes}, &s.Disks}
}

// mergeMachine folds b, the sample after a, into a: the CPU fractions
// averaged over time, the busiest core the busiest of either, the memory
// gauges as of b, the disks' I/O summed (mergeDisks), a's span stretched to
// b's end.
func mergeMachine(a, b machineSample) {
	wa, wb := weights(*a.dur, *b.dur)
	for i, x := range a.cpu {
		*x = *x*wa + *b.cpu[i]*wb
	}
	if *b.maxCore > *a.maxCore {
		*a.maxCore, *a.maxCoreID = *b.maxCore, *b.maxCoreID
	}
	*a.maxCoreIRQ = max(*a.maxCoreIRQ, *b.maxCoreIRQ)
	for i, x := range a.mem {
		*x = *b.mem[i]
	}
	*a.disks = mergeDisks(*a.disks, *b.disks, wa, wb)
	*a.dur = *b.offset + *b.dur - *a.offset
}

// mergeByName adds each entry of b into a's entry of the same name (add),
// in a new map: the sample merged into may share its maps with one a live
// reader holds.
func mergeByName[V any](a, b map[string]V, add func(V, V) V) map[string]V {
	a = maps.Clone(a)
	for k, v := range b {
		if a == nil {
			a = map[string]V{}
		}
		a[k] = add(a[k], v)
	}
	return a
}

// mergeDisks sums two samples' I/O per device: latencies are means per I/O,
// busy fractions means over time.
func mergeDisks(a, b map[string]DiskIO, wa, wb float64) map[string]DiskIO {
	return mergeByName(a, b, func(m, d DiskIO) DiskIO {
		perIO := func(x int64, nx uint64, y int64, ny uint64) int64 {
			if nx+ny == 0 {
				return 0
			}
			return int64(math.Round((float64(x)*float64(nx) + float64(y)*float64(ny)) / float64(nx+ny)))
		}
		m.ReadLatencyNs = perIO(m.ReadLatencyNs, m.Reads, d.ReadLatencyNs, d.Reads)
		m.WriteLatencyNs = perIO(m.WriteLatencyNs, m.Writes, d.WriteLatencyNs, d.Writes)
		m.AddCounts(d)
		m.BusyFraction = m.BusyFraction*wa + d.BusyFraction*wb
		return m
	})
}

// MergeProcSample folds b, the process's sample after a (which holds n),
// into a: cores averaged over the samples (each spans one host sample),
// the busiest thread the busiest of either, bytes summed, RSS as of b.
func MergeProcSample(a *ProcSample, b ProcSample, n int) bool {
	a.CPUCores = (a.CPUCores*float64(n) + b.CPUCores) / float64(n+1)
	a.MaxThreadCores = max(a.MaxThreadCores, b.MaxThreadCores)
	a.RSSBytes, a.PID, a.Name = b.RSSBytes, b.PID, b.Name
	a.ReadBytes += b.ReadBytes
	a.WriteBytes += b.WriteBytes
	return true
}

// MergeNodeSample is MergeHostSample for a server node's samples; a missing
// scrape merges only into a missing one (the first one's error kept).
func MergeNodeSample(a *NodeSample, b NodeSample, _ int) bool {
	if a.Missing || b.Missing {
		return a.Missing && b.Missing
	}
	mergeMachine(a.machine(), b.machine())
	a.Paging.Add(b.Paging)
	a.TCPOutSegs, a.TCPRetransSegs = a.TCPOutSegs+b.TCPOutSegs, a.TCPRetransSegs+b.TCPRetransSegs
	a.CPUs, a.MemTotalBytes = b.CPUs, b.MemTotalBytes
	a.Nets = mergeByName(a.Nets, b.Nets, func(m, n NodeNetIO) NodeNetIO {
		m.AddCounts(n)
		m.SpeedBytesPerS = n.SpeedBytesPerS
		return m
	})
	return true
}

// MergeDBMetricsSample folds b into a: values (rates per second and gauges)
// averaged over time, command calls and times summed, percentiles (Redis's
// are cumulative) as of b; a missing reading merges only into a missing one.
func MergeDBMetricsSample(a *DBMetricsSample, b DBMetricsSample, _ int) bool {
	if a.Missing || b.Missing {
		return a.Missing && b.Missing
	}
	wa, wb := weights(a.DurationNs, b.DurationNs)
	a.Values, a.Commands = maps.Clone(a.Values), maps.Clone(a.Commands)
	for k, v := range b.Values {
		if a.Values == nil {
			a.Values = map[string]float64{}
		}
		if old, ok := a.Values[k]; ok {
			a.Values[k] = old*wa + v*wb
		} else {
			a.Values[k] = v
		}
	}
	for k, c := range b.Commands {
		if a.Commands == nil {
			a.Commands = map[string]DBCommandSample{}
		}
		m := a.Commands[k]
		m.Calls += c.Calls
		m.TimeNs += c.TimeNs
		if c.Percentiles != nil {
			m.Percentiles = c.Percentiles
		}
		a.Commands[k] = m
	}
	a.DurationNs = b.OffsetNs + b.DurationNs - a.OffsetNs
	return true
}

// HostThin, ProcThin, NodeThin and DBMetricsThin are the thinned series
// of the telemetry collectors.
func HostThin() *Thin[HostSample] {
	return &Thin[HostSample]{Merge: MergeHostSample, Offset: func(s *HostSample) int64 { return s.OffsetNs }}
}

// ProcThin: see HostThin.
func ProcThin() *Thin[ProcSample] {
	return &Thin[ProcSample]{Merge: MergeProcSample, Offset: func(s *ProcSample) int64 { return s.OffsetNs }}
}

// NodeThin: see HostThin.
func NodeThin() *Thin[NodeSample] {
	return &Thin[NodeSample]{Merge: MergeNodeSample, Offset: func(s *NodeSample) int64 { return s.OffsetNs }}
}

// DBMetricsThin: see HostThin.
func DBMetricsThin() *Thin[DBMetricsSample] {
	return &Thin[DBMetricsSample]{Merge: MergeDBMetricsSample, Offset: func(s *DBMetricsSample) int64 { return s.OffsetNs }}
}

// TelemetrySample is one sample of one telemetry series as a collector
// takes it, before Thin merges it: what a run's journal writes every
// second (the seconds file keeps them all). Exactly one of Host, NodeSample
// and DB is set; Self and Server go with Host.
type TelemetrySample struct {
	// Node names the server node of a NodeSample or DB sample.
	Node string `json:"node,omitempty"`
	// StartedAt is the series' start, which the sample's offset counts from.
	StartedAt  time.Time        `json:"started_at"`
	Host       *HostSample      `json:"host,omitempty"`
	Self       *ProcSample      `json:"self,omitempty"`
	Server     *ProcSample      `json:"server,omitempty"`
	NodeSample *NodeSample      `json:"node_sample,omitempty"`
	DB         *DBMetricsSample `json:"db,omitempty"`
}
