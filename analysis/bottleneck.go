package analysis

import (
	"math"
	"slices"

	"github.com/platbench/platbench/result"
)

// Limits a run can have (result.Bottleneck.Limit).
const (
	LimitCPU         = "cpu"                // every core of a machine busy
	LimitCore        = "one core"           // one core busy: a single-threaded server or thread
	LimitIRQCore     = "interrupt core"     // the core that handles the NIC's or disk's interrupts (seed 001)
	LimitDisk        = "disk"               // a device busy all the time
	LimitNet         = "network"            // a link at its speed
	LimitGC          = "jvm gc"             // a JVM server collecting garbage much of the time (JMX)
	LimitMemory      = "memory"             // a machine that swapped or major-faulted, or reads that missed the page cache (memory.go)
	LimitLoader      = "loader"             // platbench itself (client-bound)
	LimitNeighbours  = "neighbours"         // other processes (or the hypervisor) took the CPU
	LimitConcurrency = "requests in flight" // a closed loop, nothing saturated: N in flight set the throughput
	LimitRate        = "fixed rate"         // an open loop that met its rate: the rate set it
	LimitUnknown     = "unknown"
)

// The sentences of a bottleneck (result.Phrase.Kind), each with the
// figures (F) and names (S) it says it with, in this order; package report
// words them (report/limits.go). Shares are fractions.
const (
	// Summaries.
	PhraseNodeSaturated = "node_saturated"  // S: resource, node; F: threshold, share of the run
	PhraseDisk          = "disk"            // S: disk; F: busy
	PhraseNeighbours    = "neighbours"      // F: cores, CPU busy, platbench's cores
	PhraseCPUInProcess  = "cpu_in_process"  // F: cores, CPU busy, platbench's cores
	PhraseCPUServer     = "cpu_server"      // F: cores, CPU busy, the server's cores, platbench's cores
	PhraseCPULoader     = "cpu_loader"      // F: cores, CPU busy, platbench's cores
	PhraseCPUShared     = "cpu_shared"      // F: cores, CPU busy, platbench's cores, the server's cores (0: not sampled)
	PhraseIRQCore       = "irq_core"        // F: busiest core, its most in interrupts
	PhraseServerCore    = "server_core"     // S: the server process; F: its cores
	PhraseCoreInProcess = "core_in_process" // F: busiest core
	PhraseLoaderThread  = "loader_thread"   // F: busiest core
	PhraseLoaderSelf    = "loader_self"     // S: the loader's self-check (result.SelfUsage.Reason)
	PhraseNoTelemetry   = "no_telemetry"    // the run recorded no telemetry
	PhraseNoOps         = "no_ops"          // the phase completed no operation
	PhraseConcurrency   = "concurrency"     // F: requests in flight, mean latency in s
	PhraseRateMet       = "rate_met"        // F: the intended ops/s
	PhraseRateNotMet    = "rate_not_met"    // nothing sampled saturated, the rate missed
	PhraseGC            = "jvm_gc"          // S: node; F: share of the time in GC (mean), its peak
	// Evidence.
	PhraseNodeSamples = "node_samples" // S: node, resource; F: threshold, share of the samples, peak
	PhraseHostBusy    = "host_busy"    // F: cores, CPU busy, busiest core
	PhraseDiskBusy    = "disk_busy"    // S: disk; F: busy, peak, then PhraseHostBusy's
	PhraseCPUSplit    = "cpu_split"    // F: platbench's cores, the server's cores (0: not sampled), others'
	PhraseSelfCheck   = "self_check"   // S: the loader's self-check (also a caveat)
	PhraseLittle      = "little"       // F: requests in flight, mean latency in s, their quotient in ops/s, measured ops/s
	PhraseRateShare   = "rate_share"   // F: the share sustained, the intended ops/s
	// Caveats.
	PhraseOthers = "others" // F: the others' cores, cores, platbench's cores, the server's cores (0: not sampled)
	PhraseSteal  = "steal"  // F: the steal share
	// Headroom.
	PhraseHostRoom = "host_room" // S: the disks; F: CPU busy, cores, busiest core, then each disk's busy
	PhraseNodeRoom = "node_room" // S: node; F: CPU busy, busiest core
	// What to do next.
	PhraseNext          = "next"           // S: the limit whose advice it is
	PhraseNextTelemetry = "next_telemetry" // record telemetry
	PhraseNextServer    = "next_server"    // the server's telemetry, and a sweep
	// Telemetry that would tell more.
	PhraseMissingHost   = "missing_host"   // the loader host's
	PhraseMissingServer = "missing_server" // the server's machine
)

// phrase is a sentence of kind said with figures f and names s.
func phrase(kind string, f []float64, s ...string) result.Phrase {
	return result.Phrase{Kind: kind, F: f, S: s}
}

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
	// GCShare: the share of the time a JVM server spent collecting
	// garbage (JMX's collection time, all collectors, per second of run)
	// from which its GC is the limit: past a tenth of the time the
	// collector, not the work, sets how much the server does (the JVM's
	// own GC-overhead rule, -XX:GCTimeRatio, aims at 1% to 8%).
	GCShare = 0.10
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
	b.out.Says = &b.says
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
	// selfReadBytesPerS is platbench's own storage reads over the phase
	// (selfReadKnown: its samples were recorded): an in-process target's
	// page-cache misses.
	selfReadBytesPerS float64
	selfReadKnown     bool
	nodes             []NodeFigures

	series *result.HostSeries // the loader host's samples of the phase
	nets   []NetSat           // its interfaces (NetSatOf), reduced once

	out  result.Bottleneck
	says result.BottleneckPhrases
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
	b.series = &w
	b.nets = NetSatOf(&w)
	b.host, b.hasHost = Host(&c)
	if n := len(w.SelfSamples); n > 0 {
		var cores, hot, read float64
		for _, s := range w.SelfSamples {
			cores += s.CPUCores
			hot += s.MaxThreadCores
			read += float64(s.ReadBytes)
		}
		b.selfReadBytesPerS, b.selfReadKnown = read/sampledSecs(w.Samples), true
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

// judge picks the limit: a machine that paged (memory), a saturated
// resource (the server's nodes, then the loader host: a link at its
// capacity with its queue full, its CPU, disks, network), others on the
// host, the loader; with nothing saturated, reads that missed the page
// cache (memory), else the workload itself (requests in flight, or the
// rate).
func (b *bottleneck) judge() {
	o := &b.out
	b.caveats()
	b.pagingLimit()
	switch {
	case b.nodeLimit(): // keeps a paging limit; the nodes' saturated resources are its evidence
	case b.gcLimit():
	case b.netLimit(true): // a link at its capacity with its queue full: whatever the CPUs did, no faster
	case b.hostLimit():
	case b.netLimit(false):
	case b.loaderLimit():
	case b.cacheMissLimit():
	default:
		b.workloadLimit()
	}
	b.cacheMissNote()
	b.netCaveats()
	if !b.hasHost {
		b.says.Missing = append(b.says.Missing, phrase(PhraseMissingHost, nil))
	}
	if len(b.nodes) == 0 && !b.inProcess() && b.host.Server == nil {
		b.says.Missing = append(b.says.Missing, phrase(PhraseMissingServer, nil))
	}
	if o.Limit == LimitConcurrency && len(b.says.Missing) > 0 {
		o.Strength = Weak // a server unseen may have been the limit
	}
}

// caveats notes what makes the figures not the platform's alone: other
// processes on the loader host, steal, a client-bound loader.
func (b *bottleneck) caveats() {
	if !b.hasHost {
		return
	}
	o := &b.says
	if others := b.others(); others > 0 {
		o.Caveats = append(o.Caveats, phrase(PhraseOthers, []float64{others, b.cores, b.selfCores, b.serverCores()}))
	}
	if b.host.CPUSteal >= StealShare {
		o.Caveats = append(o.Caveats, phrase(PhraseSteal, []float64{b.host.CPUSteal}))
	}
	if s := b.host.Self; s != nil && s.ClientBound { // judged knowing an in-process target (self.Judge)
		o.Caveats = append(o.Caveats, phrase(PhraseSelfCheck, nil, s.Reason))
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
				b.says.Summary = phrase(PhraseNodeSaturated, []float64{s.Threshold, s.Share}, satWhat(s), n.Node)
				b.next(o.Limit)
			}
			b.says.Evidence = append(b.says.Evidence, phrase(PhraseNodeSamples, []float64{s.Threshold, s.Share, s.Peak}, n.Node, satWhat(s)))
		}
	}
	return o.Limit != ""
}

// gcLimit: a JVM server (Cassandra, Kafka, Hazelcast: its JMX counters,
// --db-metrics-url) that spent GCShare of the time or more collecting
// garbage over the main phase (a load phase's collections are not the run's
// limit); the node that spent the most is named.
func (b *bottleneck) gcLimit() bool {
	m := b.r.DBMetrics
	if m == nil {
		return false
	}
	best, node, peak := 0.0, "", 0.0
	for _, s := range m.Nodes {
		if share, top := b.gcShare(s); share > best {
			best, node, peak = share, s.Node, top
		}
	}
	if best < GCShare {
		return false
	}
	p := phrase(PhraseGC, []float64{best, peak}, node)
	b.set(LimitGC, strengthOf(best, GCShare), p)
	b.out.Where = "node " + node + " (its JVM)"
	b.says.Summary = p
	return true
}

// gcShare is a node's share of the main phase's time in GC (its samples
// whose middle falls in the phase, weighted by their length) and the
// highest second's share; all its samples when the phase has no start time
// (files before phases had one).
func (b *bottleneck) gcShare(s result.DBMetricsSeries) (mean, peak float64) {
	from := b.p.StartedAt.Sub(s.StartedAt).Nanoseconds()
	to := from + b.p.DurationNs
	var secs float64
	for _, x := range s.Samples {
		v, ok := x.Values["gc_seconds_per_s"]
		mid := x.OffsetNs + x.DurationNs/2
		if x.Missing || !ok || (!b.p.StartedAt.IsZero() && (mid < from || mid > to)) {
			continue
		}
		d := float64(x.DurationNs) / 1e9
		mean += v * d
		secs += d
		peak = max(peak, v)
	}
	if secs == 0 {
		return 0, 0
	}
	return mean / secs, peak
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
	case SatNet, SatQueue:
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
	busy := []float64{b.cores, h.CPUBusy, h.BusiestCoreMean}
	switch {
	case h.BusiestCoreMean >= BusyCore && b.serverAtOneCore() && b.attributeCore(busy):
		// First: a single-threaded server at its one core is the limit
		// however busy the other cores were (it could not use them).
		return true
	case h.CPUBusy >= BusyAll:
		b.set(LimitCPU, strengthOf(h.CPUBusy, BusyAll), phrase(PhraseHostBusy, busy))
		b.attributeCPU()
		return true
	case h.BusiestCoreMean >= BusyCore && b.attributeCore(busy):
		return true
	}
	for _, d := range h.Disks {
		if d.BusyMean >= BusyDisk {
			b.set(LimitDisk, strengthOf(d.BusyMean, BusyDisk), phrase(PhraseDiskBusy, append([]float64{d.BusyMean, d.BusyMax}, busy...), d.Name))
			o.Where = "loader host, disk " + d.Name
			b.says.Summary = phrase(PhraseDisk, []float64{d.BusyMean}, d.Name)
			return true
		}
	}
	return false
}

// set fills the limit, its strength, its first evidence and what to do.
func (b *bottleneck) set(limit, strength string, evidence result.Phrase) {
	o := &b.out
	o.Limit, o.Strength = limit, strength
	b.says.Evidence = append(b.says.Evidence, evidence)
	b.next(limit)
}

// next says what to do next about limit: the advice report words for it
// (none for a limit without one).
func (b *bottleneck) next(limit string) {
	b.says.Next = nil
	switch limit {
	case LimitCPU, LimitCore, LimitIRQCore, LimitDisk, LimitNet, LimitGC, LimitMemory, LimitLoader, LimitNeighbours, LimitConcurrency, LimitRate:
		p := phrase(PhraseNext, nil, limit)
		b.says.Next = &p
	}
}

// attributeCPU says whose the busy CPUs were.
func (b *bottleneck) attributeCPU() {
	o, says := &b.out, &b.says
	busy := b.host.CPUBusy * b.cores
	fig := []float64{b.cores, b.host.CPUBusy, b.selfCores}
	switch {
	case b.others() > 0 && b.others() >= busy/2:
		o.Limit, o.Where = LimitNeighbours, "loader host"
		says.Summary = phrase(PhraseNeighbours, fig)
		b.next(LimitNeighbours)
		says.Caveats = says.Caveats[min(1, len(says.Caveats)):] // the others' caveat comes first: the limit says it
	case b.inProcess():
		o.Where = "platbench and its in-process store"
		says.Summary = phrase(PhraseCPUInProcess, fig)
	case b.serverCores() >= b.selfCores:
		o.Where = "the server process on the loader host"
		says.Summary = phrase(PhraseCPUServer, []float64{b.cores, b.host.CPUBusy, b.serverCores(), b.selfCores})
	case b.selfKnown && b.selfCores >= busy/2:
		o.Limit, o.Where = LimitLoader, "loader host"
		says.Summary = phrase(PhraseCPULoader, fig)
		b.next(LimitLoader)
	default:
		// No one process had most of it: the host's CPU, shared.
		o.Where = "loader host"
		says.Summary = phrase(PhraseCPUShared, append(fig, b.serverCores()))
	}
	says.Evidence = append(says.Evidence, phrase(PhraseCPUSplit, []float64{b.selfCores, b.serverCores(), math.Max(0, busy-b.selfCores-b.serverCores())}))
}

// attributeCore names whose the one busy core was: interrupts, a
// single-threaded server, or one platbench thread (the loader's, or the
// in-process store's). A busy core that none of them accounts for (a host
// whose threads take turns on it) is not called a limit: false.
func (b *bottleneck) attributeCore(busy []float64) bool {
	h := b.host
	s := h.Server
	var limit, where string
	var summary result.Phrase
	switch {
	case h.IRQCoreMax > 0 && h.IRQCoreMax >= IRQShare*h.BusiestCoreMean:
		limit, where = LimitIRQCore, "loader host"
		summary = phrase(PhraseIRQCore, []float64{h.BusiestCoreMean, h.IRQCoreMax})
	case b.serverAtOneCore():
		limit, where = LimitCore, "the server process on the loader host"
		summary = phrase(PhraseServerCore, []float64{s.CoresMean}, s.Name)
	case b.selfHot && b.inProcess():
		limit, where = LimitCore, "platbench and its in-process store"
		summary = phrase(PhraseCoreInProcess, []float64{h.BusiestCoreMean})
	case b.selfHot:
		limit, where = LimitLoader, "loader host"
		summary = phrase(PhraseLoaderThread, []float64{h.BusiestCoreMean})
	default:
		return false
	}
	b.set(limit, strengthOf(h.BusiestCoreMean, BusyCore), phrase(PhraseHostBusy, busy))
	b.out.Where, b.says.Summary = where, summary
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
	b.set(LimitLoader, Likely, phrase(PhraseSelfCheck, nil, s.Reason))
	b.out.Where = "loader host"
	b.says.Summary = phrase(PhraseLoaderSelf, nil, s.Reason)
	b.says.Caveats = slices.DeleteFunc(b.says.Caveats, func(c result.Phrase) bool { return c.Kind == PhraseSelfCheck })
	return true
}

// workloadLimit: nothing saturated. A closed loop's throughput was set by
// its requests in flight (Little's law: N / R); an open loop's by its
// rate, met or not.
func (b *bottleneck) workloadLimit() {
	o, says := &b.out, &b.says
	says.Headroom = b.headroom()
	if !b.hasHost && len(b.nodes) == 0 {
		o.Limit, o.Strength = LimitUnknown, Weak
		says.Summary = phrase(PhraseNoTelemetry, nil)
		says.Next = &result.Phrase{Kind: PhraseNextTelemetry}
		return
	}
	f, err := PhaseFiguresOf(b.p)
	if err != nil || f.Ops == 0 {
		o.Limit, o.Strength = LimitUnknown, Weak
		says.Summary = phrase(PhraseNoOps, nil)
		return
	}
	secs := float64(b.p.DurationNs) / 1e9
	x := float64(f.Ops+f.Errors) / secs
	meanLat := f.Latency.MeanNs / 1e9
	if b.p.Mode != "open" {
		n := float64(b.p.Concurrency)
		o.Limit, o.Strength, o.Where = LimitConcurrency, Likely, "the workload"
		says.Summary = phrase(PhraseConcurrency, []float64{n, meanLat})
		says.Evidence = append(says.Evidence, phrase(PhraseLittle, []float64{n, meanLat, n / meanLat, x}))
		b.next(LimitConcurrency)
		return
	}
	rc := RateCheckOf(b.p, result.Window{StartNs: 0, LengthNs: b.p.DurationNs, Ops: f.Ops, Errors: f.Errors})
	if rc != nil && rc.Met {
		o.Limit, o.Strength, o.Where = LimitRate, Likely, "the workload"
		says.Summary = phrase(PhraseRateMet, []float64{rc.IntendedOpsPerS})
		b.next(LimitRate)
		return
	}
	o.Limit, o.Strength, o.Where = LimitUnknown, Weak, ""
	says.Summary = phrase(PhraseRateNotMet, nil)
	if rc != nil {
		says.Evidence = append(says.Evidence, phrase(PhraseRateShare, []float64{rc.Achieved(), rc.IntendedOpsPerS}))
	}
	says.Next = &result.Phrase{Kind: PhraseNextServer}
}

// headroom lists the sampled resources and how busy they were.
func (b *bottleneck) headroom() []result.Phrase {
	var out []result.Phrase
	if b.hasHost {
		h := b.host
		p := phrase(PhraseHostRoom, []float64{h.CPUBusy, b.cores, h.BusiestCoreMean})
		for _, d := range h.Disks {
			p.F, p.S = append(p.F, d.BusyMean), append(p.S, d.Name)
		}
		out = append(out, p)
		if m, ok := memRoom(h.Memory, h.RAM, "loader host"); ok {
			out = append(out, m)
		}
		out = append(out, b.netRoom()...)
	}
	for _, n := range b.nodes {
		if n.Samples > 0 {
			out = append(out, phrase(PhraseNodeRoom, []float64{n.CPUBusy, n.BusiestCoreMean}, n.Node))
			if m, ok := memRoom(n.Memory, n.MemTotal, n.Node); ok {
				out = append(out, m)
			}
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
