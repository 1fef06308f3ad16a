package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// Limits a run can have (result.Bottleneck.Limit).
const (
	LimitCPU         = "cpu"                // every core of a machine busy
	LimitCore        = "one core"           // one core busy: a single-threaded server or thread
	LimitIRQCore     = "interrupt core"     // the core that handles the NIC's or disk's interrupts (seed 001)
	LimitDisk        = "disk"               // a device busy all the time
	LimitNet         = "network"            // a link at its speed
	LimitLoader      = "loader"             // platbench itself (client-bound)
	LimitNeighbours  = "neighbours"         // other processes (or the hypervisor) took the CPU
	LimitConcurrency = "requests in flight" // a closed loop, nothing saturated: N in flight set the throughput
	LimitRate        = "fixed rate"         // an open loop that met its rate: the rate set it
	LimitUnknown     = "unknown"
)

// Strengths of the evidence (result.Bottleneck.Strength).
const (
	Strong = "strong"
	Likely = "likely"
	Weak   = "weak"
)

// The thresholds of BottleneckOf (docs/analysis.md says why each).
const (
	// BusyAll: the machine's CPUs, mean busy share over the phase (1 - idle
	// - iowait), from which every core counts as busy. Not 1: the kernel's
	// own accounting, interrupts and a sampler's second leave a few percent
	// idle on a saturated machine (epyc2's fixture: 95%).
	BusyAll = 0.85
	// BusyCore: the busiest core's mean busy share from which one core is
	// the limit (a single-threaded server, an interrupt core).
	BusyCore = 0.90
	// BusyDisk: a device's mean busy share (io_ticks) from which it is the limit.
	BusyDisk = 0.80
	// IRQShare: the share of the busiest core spent in interrupts from
	// which that core is the interrupt core.
	IRQShare = 0.50
	// OthersShare and OthersCores: the cores busy with processes other
	// than platbench and the named server, as a share of the busy cores
	// and in cores, from which the host counts as busy with others.
	OthersShare = 0.25
	OthersCores = 0.5
	// StealShare: the hypervisor's steal from which it is a caveat.
	StealShare = 0.05
)

// BottleneckOf names what limited r's main phase, from what the run
// recorded (the USE method: utilisation and saturation of every resource
// it sampled; errors are the report's own section). nil when r has no main
// phase. The loader host's samples are those of the phase only.
func BottleneckOf(r *result.Result) *result.Bottleneck {
	p := r.MainPhase()
	if p == nil {
		return nil
	}
	b := &bottleneck{r: r, p: p}
	b.hostFigures()
	b.nodeFigures()
	b.judge()
	return &b.out
}

// bottleneck is BottleneckOf's working state.
type bottleneck struct {
	r *result.Result
	p *result.Phase

	host      HostFigures
	hasHost   bool
	selfCores float64 // platbench's cores over the phase
	selfKnown bool    // the file records platbench's own CPU
	selfHot   bool    // one platbench thread at BusyCore or more on average
	cores     float64 // the loader host's CPUs
	nodes     []NodeFigures

	out result.Bottleneck
}

// hostFigures reduces the loader host's samples of the phase.
func (b *bottleneck) hostFigures() {
	h := b.r.Host
	if h == nil || len(h.Samples) == 0 {
		return
	}
	from := b.p.StartedAt.Sub(h.StartedAt).Nanoseconds()
	to := from + b.p.DurationNs
	in := func(off, dur int64) bool {
		mid := off + dur/2
		return b.p.StartedAt.IsZero() || (mid >= from && mid <= to)
	}
	w := *h
	w.Samples, w.SelfSamples, w.Server = nil, nil, nil
	for i, s := range h.Samples {
		if !in(s.OffsetNs, s.DurationNs) {
			continue
		}
		w.Samples = append(w.Samples, s)
		if i < len(h.SelfSamples) {
			w.SelfSamples = append(w.SelfSamples, h.SelfSamples[i])
		}
	}
	dur := h.IntervalNs
	for _, s := range h.Server {
		if in(s.OffsetNs, dur) {
			w.Server = append(w.Server, s)
		}
	}
	if len(w.Samples) == 0 {
		return
	}
	c := *b.r
	c.Host = &w
	b.host, b.hasHost = Host(&c)
	if n := len(w.SelfSamples); n > 0 {
		var cores, hot float64
		for _, s := range w.SelfSamples {
			cores += s.CPUCores
			hot += s.MaxThreadCores
		}
		b.selfCores, b.selfKnown = cores/float64(n), true
		b.selfHot = hot/float64(n) >= BusyCore
	} else if b.host.SelfCores > 0 { // a file without platbench's CPU says 0
		b.selfCores, b.selfKnown = b.host.SelfCores, true
	}
	b.cores = float64(b.r.Platform.Threads)
	if b.cores <= 0 {
		b.cores = float64(b.r.Platform.Cores)
	}
}

func (b *bottleneck) nodeFigures() {
	if nodes, _, ok := Nodes(b.r); ok {
		b.nodes = nodes
	}
}

// inProcess: the target runs inside platbench (the embedded store), so
// platbench's CPU is the target's too.
// The fake and null targets answer inside platbench too.
func (b *bottleneck) inProcess() bool {
	switch b.r.Target.Kind {
	case "embedded", "fake", "null":
		return true
	}
	return false
}

// serverCores is the server process's cores on the loader host (0 when it
// was not sampled there).
func (b *bottleneck) serverCores() float64 {
	if b.host.Server == nil {
		return 0
	}
	return b.host.Server.CoresMean
}

// judge picks the limit: a saturated resource first (the server's nodes,
// then the loader host), others on the host, the loader; with nothing
// saturated, the workload itself (requests in flight, or the rate).
func (b *bottleneck) judge() {
	o := &b.out
	b.caveats()
	switch {
	case b.nodeLimit():
	case b.hostLimit():
	case b.loaderLimit():
	default:
		b.workloadLimit()
	}
	if !b.hasHost {
		o.Missing = append(o.Missing, "loader host telemetry (recorded by default; this file has none)")
	}
	if len(b.nodes) == 0 && !b.inProcess() && b.host.Server == nil {
		o.Missing = append(o.Missing, "the server's own machine: --server-metrics auto (node_exporter on each node) or --server-process NAME when it runs on the loader host")
	}
	if o.Limit == LimitConcurrency && len(o.Missing) > 0 {
		o.Strength = Weak // a server unseen may have been the limit
	}
}

// caveats notes what makes the figures not the platform's alone: other
// processes on the loader host, steal, a client-bound loader.
func (b *bottleneck) caveats() {
	if !b.hasHost {
		return
	}
	o := &b.out
	if others := b.others(); others > 0 {
		o.Caveats = append(o.Caveats, fmt.Sprintf("other processes used %.1f of the host's %.0f cores (platbench %.1f%s): the figures are partly its neighbours'", others, b.cores, b.selfCores, b.serverNote()))
	}
	if b.host.CPUSteal >= StealShare {
		o.Caveats = append(o.Caveats, fmt.Sprintf("the hypervisor stole %.0f%% of the CPU time: another guest shared the physical cores", 100*b.host.CPUSteal))
	}
	if s := b.host.Self; s != nil && s.ClientBound { // judged knowing an in-process target (self.Judge)
		o.Caveats = append(o.Caveats, s.Reason)
	}
}

// others is the cores the loader host gave to processes other than
// platbench and the server, when they count (OthersShare and OthersCores);
// 0 otherwise, and when the file does not record platbench's own CPU.
func (b *bottleneck) others() float64 {
	busy := b.host.CPUBusy * b.cores
	others := busy - b.selfCores - b.serverCores()
	if !b.selfKnown || b.cores <= 0 || others < OthersCores || others < OthersShare*busy {
		return 0
	}
	return others
}

func (b *bottleneck) serverNote() string {
	if c := b.serverCores(); c > 0 {
		return fmt.Sprintf(", the server %.1f", c)
	}
	return ""
}

// nodeLimit: a saturated resource on a server node (the node's own
// saturation checks, as the report's nodes section makes them).
func (b *bottleneck) nodeLimit() bool {
	o := &b.out
	for _, n := range b.nodes {
		for _, s := range n.Saturated {
			if o.Limit == "" {
				o.Limit, o.Where = nodeLimitName(s.Kind), "node "+n.Node
				o.Strength = Likely
				if s.Share >= 0.9 {
					o.Strength = Strong
				}
				o.Summary = fmt.Sprintf("the server's %s on node %s (at or over %.0f%% in %.0f%% of the run)", satWhat(s), n.Node, 100*s.Threshold, 100*s.Share)
				o.Next = nextFor(o.Limit)
			}
			o.Evidence = append(o.Evidence, fmt.Sprintf("node %s: %s at or over %.0f%% in %.0f%% of the samples (peak %.0f%%)", n.Node, satWhat(s), 100*s.Threshold, 100*s.Share, 100*s.Peak))
		}
	}
	return o.Limit != ""
}

func nodeLimitName(kind string) string {
	switch kind {
	case SatCPU:
		return LimitCPU
	case SatCore:
		return LimitCore
	case SatIRQCore:
		return LimitIRQCore
	case SatDisk:
		return LimitDisk
	case SatNet:
		return LimitNet
	}
	return kind
}

func satWhat(s Saturation) string {
	if s.Name != "" {
		return s.Kind + " " + s.Name
	}
	return s.Kind
}

// hostLimit: the loader host's CPUs, one of its cores or a disk saturated.
// Who used them decides the limit: neighbours, the server on this host,
// the in-process store with platbench, or platbench (the loader).
func (b *bottleneck) hostLimit() bool {
	if !b.hasHost {
		return false
	}
	o := &b.out
	h := b.host
	busy := fmt.Sprintf("the host's %.0f CPUs were %.0f%% busy (busiest core %.0f%%)", b.cores, 100*h.CPUBusy, 100*h.BusiestCoreMean)
	switch {
	case h.BusiestCoreMean >= BusyCore && b.serverAtOneCore() && b.attributeCore(busy):
		// First: a single-threaded server at its one core is the limit
		// however busy the other cores were (it could not use them).
		return true
	case h.CPUBusy >= BusyAll:
		b.set(LimitCPU, strengthOf(h.CPUBusy, BusyAll), busy)
		b.attributeCPU()
		return true
	case h.BusiestCoreMean >= BusyCore && b.attributeCore(busy):
		return true
	}
	for _, d := range h.Disks {
		if d.BusyMean >= BusyDisk {
			b.set(LimitDisk, strengthOf(d.BusyMean, BusyDisk), fmt.Sprintf("disk %s was busy %.0f%% of the time (peak %.0f%%); %s", d.Name, 100*d.BusyMean, 100*d.BusyMax, busy))
			o.Where = "loader host, disk " + d.Name
			o.Summary = fmt.Sprintf("disk %s on the loader host, busy %.0f%% of the time", d.Name, 100*d.BusyMean)
			return true
		}
	}
	return false
}

// set fills the limit, its strength, its first evidence and what to do.
func (b *bottleneck) set(limit, strength, evidence string) {
	o := &b.out
	o.Limit, o.Strength = limit, strength
	o.Evidence = append(o.Evidence, evidence)
	o.Next = nextFor(limit)
}

// attributeCPU says whose the busy CPUs were.
func (b *bottleneck) attributeCPU() {
	o := &b.out
	busy := b.host.CPUBusy * b.cores
	switch {
	case b.others() > 0 && b.others() >= busy/2:
		o.Limit, o.Where = LimitNeighbours, "loader host"
		o.Summary = fmt.Sprintf("other processes: the host's %.0f CPUs were %.0f%% busy and platbench got %.1f of them; the run measured its neighbours as much as the platform", b.cores, 100*b.host.CPUBusy, b.selfCores)
		o.Next = nextFor(LimitNeighbours)
		o.Caveats = o.Caveats[min(1, len(o.Caveats)):] // the others' caveat comes first: the limit says it
	case b.inProcess():
		o.Where = "platbench and its in-process store"
		o.Summary = fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), shared by the loader and the in-process target in one process (%.1f cores)", b.cores, 100*b.host.CPUBusy, b.selfCores)
	case b.serverCores() >= b.selfCores:
		o.Where = "the server process on the loader host"
		o.Summary = fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), the server using %.1f and platbench %.1f: the server's CPU, shared with its loader", b.cores, 100*b.host.CPUBusy, b.serverCores(), b.selfCores)
	case b.selfKnown && b.selfCores >= busy/2:
		o.Limit, o.Where = LimitLoader, "loader host"
		o.Summary = fmt.Sprintf("the loader: all %.0f cores busy (%.0f%%), platbench using %.1f of them", b.cores, 100*b.host.CPUBusy, b.selfCores)
		o.Next = nextFor(LimitLoader)
	default:
		// No one process had most of it: the host's CPU, shared.
		o.Where = "loader host"
		o.Summary = fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), shared by platbench (%.1f)%s and other processes", b.cores, 100*b.host.CPUBusy, b.selfCores, b.serverNote())
	}
	o.Evidence = append(o.Evidence, fmt.Sprintf("platbench %.1f cores%s, others %.1f", b.selfCores, b.serverNote(), math.Max(0, busy-b.selfCores-b.serverCores())))
}

// attributeCore names whose the one busy core was: interrupts, a
// single-threaded server, or one platbench thread (the loader's, or the
// in-process store's). A busy core that none of them accounts for (a host
// whose threads take turns on it) is not called a limit: false.
func (b *bottleneck) attributeCore(busy string) bool {
	h := b.host
	s := h.Server
	var limit, where, summary string
	switch {
	case h.IRQCoreMax > 0 && h.IRQCoreMax >= IRQShare*h.BusiestCoreMean:
		limit, where = LimitIRQCore, "loader host"
		summary = fmt.Sprintf("the interrupt core: one core %.0f%% busy, up to %.0f%% of it in interrupts (seed 001's limit)", 100*h.BusiestCoreMean, 100*h.IRQCoreMax)
	case b.serverAtOneCore():
		limit, where = LimitCore, "the server process on the loader host"
		summary = fmt.Sprintf("one core: the server (%s) used %.2f cores, as a single-threaded server does at its limit", s.Name, s.CoresMean)
	case b.selfHot && b.inProcess():
		limit, where = LimitCore, "platbench and its in-process store"
		summary = fmt.Sprintf("one core: one thread of platbench and its in-process target kept a core %.0f%% busy", 100*h.BusiestCoreMean)
	case b.selfHot:
		limit, where = LimitLoader, "loader host"
		summary = fmt.Sprintf("the loader: one platbench thread kept a core %.0f%% busy", 100*h.BusiestCoreMean)
	default:
		return false
	}
	b.set(limit, strengthOf(h.BusiestCoreMean, BusyCore), busy)
	b.out.Where, b.out.Summary = where, summary
	return true
}

// serverAtOneCore: the server process on the loader host used about one
// core (BusyCore to 1.5): a single-threaded server at its limit.
func (b *bottleneck) serverAtOneCore() bool {
	s := b.host.Server
	return s != nil && s.CoresMean >= BusyCore && s.CoresMean < 1.5
}

// loaderLimit: platbench judged itself client-bound (its CPU, a thread,
// starts it made late), with the host's CPUs not saturated.
func (b *bottleneck) loaderLimit() bool {
	s := b.host.Self
	if !b.hasHost || s == nil || !s.ClientBound {
		return false
	}
	b.set(LimitLoader, Likely, s.Reason)
	b.out.Where = "loader host"
	b.out.Summary = "the loader: " + strings.TrimPrefix(s.Reason, "client-bound: ")
	b.out.Caveats = slices.DeleteFunc(b.out.Caveats, func(c string) bool { return c == s.Reason })
	return true
}

// workloadLimit: nothing saturated. A closed loop's throughput was set by
// its requests in flight (Little's law: N / R); an open loop's by its
// rate, met or not.
func (b *bottleneck) workloadLimit() {
	o := &b.out
	o.Headroom = b.headroom()
	if !b.hasHost && len(b.nodes) == 0 {
		o.Limit, o.Strength = LimitUnknown, Weak
		o.Summary = "unknown: the run recorded no telemetry of the loader or the server"
		o.Next = "run with host telemetry (the default) and --server-metrics auto"
		return
	}
	f, err := PhaseFiguresOf(b.p)
	if err != nil || f.Ops == 0 {
		o.Limit, o.Strength = LimitUnknown, Weak
		o.Summary = "unknown: the phase completed no operation"
		return
	}
	secs := float64(b.p.DurationNs) / 1e9
	x := float64(f.Ops+f.Errors) / secs
	meanLat := f.Latency.MeanNs / 1e9
	if b.p.Mode != "open" {
		n := b.p.Concurrency
		o.Limit, o.Strength, o.Where = LimitConcurrency, Likely, "the workload"
		o.Summary = fmt.Sprintf("the closed loop's %d %s in flight: nothing saturated, so throughput is %d / %s mean latency, not the platform's capacity", n, plural(n, "request"), n, units.Latency(meanLat*1e9))
		o.Evidence = append(o.Evidence, fmt.Sprintf("Little's law: %d in flight / %s = %s; measured %s", n, units.Latency(meanLat*1e9), units.OpsPerSec(float64(n)/meanLat), units.OpsPerSec(x)))
		o.Next = nextFor(LimitConcurrency)
		return
	}
	rc := RateCheckOf(b.p, result.Window{StartNs: 0, LengthNs: b.p.DurationNs, Ops: f.Ops, Errors: f.Errors})
	if rc != nil && rc.Met {
		o.Limit, o.Strength, o.Where = LimitRate, Likely, "the workload"
		o.Summary = fmt.Sprintf("the fixed rate of %s, met with headroom: nothing saturated", units.OpsPerSec(rc.IntendedOpsPerS))
		o.Next = nextFor(LimitRate)
		return
	}
	o.Limit, o.Strength, o.Where = LimitUnknown, Weak, ""
	o.Summary = "unknown: the rate was not met and no sampled resource saturated (the server's own limits: locks, one hot partition, its threads; or a machine not sampled)"
	if rc != nil {
		o.Evidence = append(o.Evidence, fmt.Sprintf("%.0f%% of the intended %s sustained", 100*rc.Achieved(), units.OpsPerSec(rc.IntendedOpsPerS)))
	}
	o.Next = "add the server's telemetry (--server-metrics auto) and its own metrics; run sweep --find-max to find the rate it holds"
}

// headroom lists the sampled resources and how busy they were.
func (b *bottleneck) headroom() []string {
	var out []string
	if b.hasHost {
		h := b.host
		line := fmt.Sprintf("loader host: CPU %.0f%% of %.0f cores, busiest core %.0f%%", 100*h.CPUBusy, b.cores, 100*h.BusiestCoreMean)
		for _, d := range h.Disks {
			line += fmt.Sprintf(", disk %s %.0f%% busy", d.Name, 100*d.BusyMean)
		}
		out = append(out, line)
	}
	for _, n := range b.nodes {
		if n.Samples > 0 {
			out = append(out, fmt.Sprintf("node %s: CPU %.0f%%, busiest core %.0f%%", n.Node, 100*n.CPUBusy, 100*n.BusiestCoreMean))
		}
	}
	return out
}

// strengthOf: strong well past the threshold (halfway to 100%), likely at it.
func strengthOf(v, threshold float64) string {
	if v >= (1+threshold)/2 {
		return Strong
	}
	return Likely
}

// nextFor is what to do next about a limit.
func nextFor(limit string) string {
	switch limit {
	case LimitCPU, LimitCore, LimitIRQCore, LimitDisk, LimitNet:
		return "this is the platform's limit for this workload: compare platforms at it, or give the limited resource more (cores, a faster disk, spread interrupts)"
	case LimitLoader:
		return "give platbench more cores or another loader (--rendezvous), or lower --concurrency: the figures are the loader's"
	case LimitNeighbours:
		return "run again on a quiet host (or pin platbench and the server with taskset away from the rest); do not compare this run's figures"
	case LimitConcurrency:
		return "raise --concurrency, or run sweep --find-max: the platform had room, so this measured the client's concurrency"
	case LimitRate:
		return "raise --rate, or run sweep --find-max to find the highest rate the platform holds"
	}
	return ""
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
