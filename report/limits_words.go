package report

import (
	"fmt"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// BottleneckWords are a bottleneck's sentences (limitLines shows them).
type BottleneckWords struct {
	Summary                     string
	Evidence, Headroom, Caveats []string
	Next                        string
	Missing                     []string
}

// WordsOf words b's sentences from its phrases (analysis.BottleneckOf
// stores numbers: result.Bottleneck.Says); a file written before carries
// the sentences themselves, shown as they are.
func WordsOf(b *result.Bottleneck) BottleneckWords {
	s := b.Says
	if s == nil {
		return BottleneckWords{Summary: b.Summary, Evidence: b.Evidence, Headroom: b.Headroom, Caveats: b.Caveats, Next: b.Next, Missing: b.Missing}
	}
	w := BottleneckWords{Summary: sayPhrase(s.Summary), Evidence: sayAll(s.Evidence), Headroom: sayAll(s.Headroom),
		Caveats: sayAll(s.Caveats), Missing: sayAll(s.Missing)}
	if s.Next != nil {
		w.Next = sayPhrase(*s.Next)
	}
	return w
}

// BottleneckSummary is the line that says what limited a run.
func BottleneckSummary(b *result.Bottleneck) string { return WordsOf(b).Summary }

// sayAll words each of ps.
func sayAll(ps []result.Phrase) []string {
	var out []string
	for _, p := range ps {
		out = append(out, sayPhrase(p))
	}
	return out
}

// fig is p's i-th figure (0 when a file lacks it); name its i-th name.
func fig(p result.Phrase, i int) float64 {
	if i < len(p.F) {
		return p.F[i]
	}
	return 0
}

func name(p result.Phrase, i int) string {
	if i < len(p.S) {
		return p.S[i]
	}
	return ""
}

// sayPhrase words one sentence of a bottleneck (analysis' Phrase* kinds
// list each one's figures and names).
func sayPhrase(p result.Phrase) string {
	if w, ok := saySummary(p); ok {
		return w
	}
	if w, ok := sayEvidence(p); ok {
		return w
	}
	if w, ok := sayNet(p); ok {
		return w
	}
	f := func(i int) float64 { return fig(p, i) }
	switch p.Kind {
	case analysis.PhraseOthers:
		return fmt.Sprintf("other processes used %.1f of the host's %.0f cores (platbench %.1f%s): the figures are partly its neighbours'", f(0), f(1), f(2), serverNote(f(3)))
	case analysis.PhraseSteal:
		return fmt.Sprintf("the hypervisor stole %.0f%% of the CPU time: another guest shared the physical cores", 100*f(0))
	case analysis.PhraseHostRoom:
		line := fmt.Sprintf("loader host: CPU %.0f%% of %.0f cores, busiest core %.0f%%", 100*f(0), f(1), 100*f(2))
		for i, d := range p.S {
			line += fmt.Sprintf(", disk %s %.0f%% busy", d, 100*f(3+i))
		}
		return line
	case analysis.PhraseNodeRoom:
		return fmt.Sprintf("node %s: CPU %.0f%%, busiest core %.0f%%", name(p, 0), 100*f(0), 100*f(1))
	case analysis.PhraseMemRoom:
		return sayMemRoom(p)
	case analysis.PhraseNext:
		return nextFor(name(p, 0))
	case analysis.PhraseNextTelemetry:
		return "run with host telemetry (the default) and --server-metrics auto"
	case analysis.PhraseNextServer:
		return "add the server's telemetry (--server-metrics auto) and its own metrics; run sweep --find-max to find the rate it holds"
	case analysis.PhraseMissingHost:
		return "loader host telemetry (recorded by default; this file has none)"
	case analysis.PhraseMissingServer:
		return "the server's own machine: --server-metrics auto (node_exporter on each node) or --server-process NAME when it runs on the loader host"
	}
	return p.Kind // a sentence of a newer version
}

// saySummary words the sentences that say what limited a run.
func saySummary(p result.Phrase) (string, bool) {
	f := func(i int) float64 { return fig(p, i) }
	switch p.Kind {
	case analysis.PhraseNodeSaturated:
		return fmt.Sprintf("the server's %s on node %s (at or over %.0f%% in %.0f%% of the run)", name(p, 0), name(p, 1), 100*f(0), 100*f(1)), true
	case analysis.PhraseDisk:
		return fmt.Sprintf("disk %s on the loader host, busy %.0f%% of the time", name(p, 0), 100*f(0)), true
	case analysis.PhraseNeighbours:
		return fmt.Sprintf("other processes: the host's %.0f CPUs were %.0f%% busy and platbench got %.1f of them; the run measured its neighbours as much as the platform", f(0), 100*f(1), f(2)), true
	case analysis.PhraseCPUInProcess:
		return fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), shared by the loader and the in-process target in one process (%.1f cores)", f(0), 100*f(1), f(2)), true
	case analysis.PhraseCPUServer:
		return fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), the server using %.1f and platbench %.1f: the server's CPU, shared with its loader", f(0), 100*f(1), f(2), f(3)), true
	case analysis.PhraseCPULoader:
		return fmt.Sprintf("the loader: all %.0f cores busy (%.0f%%), platbench using %.1f of them", f(0), 100*f(1), f(2)), true
	case analysis.PhraseCPUShared:
		return fmt.Sprintf("CPU: all %.0f cores busy (%.0f%%), shared by platbench (%.1f)%s and other processes", f(0), 100*f(1), f(2), serverNote(f(3))), true
	case analysis.PhraseIRQCore:
		return fmt.Sprintf("the interrupt core: one core %.0f%% busy, up to %.0f%% of it in interrupts (seed 001's limit)", 100*f(0), 100*f(1)), true
	case analysis.PhraseServerCore:
		return fmt.Sprintf("one core: the server (%s) used %.2f cores, as a single-threaded server does at its limit", name(p, 0), f(0)), true
	case analysis.PhraseCoreInProcess:
		return fmt.Sprintf("one core: one thread of platbench and its in-process target kept a core %.0f%% busy", 100*f(0)), true
	case analysis.PhraseLoaderThread:
		return fmt.Sprintf("the loader: one platbench thread kept a core %.0f%% busy", 100*f(0)), true
	case analysis.PhraseLoaderSelf:
		return "the loader: " + strings.TrimPrefix(name(p, 0), "client-bound: "), true
	case analysis.PhraseNoTelemetry:
		return "unknown: the run recorded no telemetry of the loader or the server", true
	case analysis.PhraseNoOps:
		return "unknown: the phase completed no operation", true
	case analysis.PhraseConcurrency:
		n := int(f(0))
		return fmt.Sprintf("the closed loop's %d %s in flight: nothing saturated, so throughput is %d / %s mean latency, not the platform's capacity", n, plural(n, "request"), n, units.Latency(f(1)*1e9)), true
	case analysis.PhraseRateMet:
		return fmt.Sprintf("the fixed rate of %s, met with headroom: nothing saturated", units.OpsPerSec(f(0))), true
	case analysis.PhraseGC:
		return fmt.Sprintf("the JVM's garbage collector on node %s: %.0f%% of the time collecting (peak %.0f%% in a sample), from its JMX counters", name(p, 0), 100*f(0), 100*f(1)), true
	case analysis.PhrasePaging:
		return fmt.Sprintf("memory on %s: %s, pages read back from disk instead of memory", machineName(name(p, 0)), pagingWords(f(0), f(1), f(2), f(3))), true
	case analysis.PhraseCacheMiss:
		return fmt.Sprintf("memory (the page cache) on %s: the reads went to storage, %s/s, %s per read, so each waited for the disk (seed 003's limit)", machineName(name(p, 0)), units.Bytes(f(0)), units.Bytes(f(1))), true
	case analysis.PhraseRateNotMet:
		return "unknown: the rate was not met and no sampled resource saturated (the server's own limits: locks, one hot partition, its threads; or a machine not sampled)", true
	}
	return "", false
}

// sayEvidence words the figures behind a limit.
func sayEvidence(p result.Phrase) (string, bool) {
	f := func(i int) float64 { return fig(p, i) }
	hostBusy := func(i int) string {
		return fmt.Sprintf("the host's %.0f CPUs were %.0f%% busy (busiest core %.0f%%)", f(i), 100*f(i+1), 100*f(i+2))
	}
	switch p.Kind {
	case analysis.PhraseNodeSamples:
		return fmt.Sprintf("node %s: %s at or over %.0f%% in %.0f%% of the samples (peak %.0f%%)", name(p, 0), name(p, 1), 100*f(0), 100*f(1), 100*f(2)), true
	case analysis.PhraseHostBusy:
		return hostBusy(0), true
	case analysis.PhraseDiskBusy:
		return fmt.Sprintf("disk %s was busy %.0f%% of the time (peak %.0f%%); %s", name(p, 0), 100*f(0), 100*f(1), hostBusy(2)), true
	case analysis.PhrasePagingSamples:
		line := fmt.Sprintf("%s: swap in %s pages/s, out %s pages/s, %s major faults/s, %s direct reclaims/s; memory available %s at the least",
			machineName(name(p, 0)), perS(f(0)), perS(f(1)), perS(f(2)), perS(f(3)), units.Bytes(f(4)))
		if f(6) > 0 {
			line += fmt.Sprintf(", swap %s used of %s", units.Bytes(f(5)), units.Bytes(f(6)))
		}
		return line, true
	case analysis.PhraseCacheMissed:
		return fmt.Sprintf("reads missed the page cache on %s: %s/s from storage, %s per read", machineName(name(p, 0)), units.Bytes(f(0)), units.Bytes(f(1))), true
	case analysis.PhraseCPUSplit:
		return fmt.Sprintf("platbench %.1f cores%s, others %.1f", f(0), serverNote(f(1)), f(2)), true
	case analysis.PhraseSelfCheck:
		return name(p, 0), true
	case analysis.PhraseLittle:
		n := int(f(0))
		return fmt.Sprintf("Little's law: %d in flight / %s = %s; measured %s", n, units.Latency(f(1)*1e9), units.OpsPerSec(f(2)), units.OpsPerSec(f(3))), true
	case analysis.PhraseRateShare:
		return fmt.Sprintf("%.0f%% of the intended %s sustained", 100*f(0), units.OpsPerSec(f(1))), true
	}
	return "", false
}

// machineName is "the loader host" or "node X".
func machineName(where string) string {
	if where == "loader host" {
		return "the loader host"
	}
	return "node " + where
}

// pagingWords says what a machine's paging was: swap-ins, major faults (and
// per operation), direct reclaims, the ones that happened.
func pagingWords(swapIn, faults, perOp, stalls float64) string {
	var parts []string
	if swapIn > 0 {
		parts = append(parts, fmt.Sprintf("it swapped in %s pages/s", perS(swapIn)))
	}
	if faults > 0 {
		w := fmt.Sprintf("took %s major faults/s", perS(faults))
		if perOp > 0 {
			w += fmt.Sprintf(" (%.2g per operation)", perOp)
		}
		parts = append(parts, w)
	}
	if stalls > 0 {
		parts = append(parts, fmt.Sprintf("made allocations wait for reclaim %s times/s", perS(stalls)))
	}
	return strings.Join(parts, ", ")
}

// sayMemRoom words a machine's memory headroom.
func sayMemRoom(p result.Phrase) string {
	f := func(i int) float64 { return fig(p, i) }
	line := fmt.Sprintf("%s: memory available %s at the least", machineName(name(p, 0)), units.Bytes(f(0)))
	if f(1) > 0 {
		line += " of " + units.Bytes(f(1))
	}
	return line + fmt.Sprintf(", swap in %s pages/s, %s major faults/s", perS(f(2)), perS(f(3)))
}

// perS is a rate of events a second: whole from 100 ("1,250"), else with
// one decimal at most ("2.5", "3").
func perS(v float64) string {
	if v >= 100 {
		return units.Int(v)
	}
	return units.Trim1(v)
}

// serverNote names the server's cores beside platbench's (none when the
// server was not sampled on the loader host).
func serverNote(cores float64) string {
	if cores > 0 {
		return fmt.Sprintf(", the server %.1f", cores)
	}
	return ""
}

// nextFor is what to do next about a limit.
func nextFor(limit string) string {
	switch limit {
	case analysis.LimitNet:
		return "this is the link's limit for this workload: compare platforms at it, or give the path more (a faster link, a larger instance's cap, a higher shaper rate); smaller values move fewer bytes per operation"
	case analysis.LimitCPU, analysis.LimitCore, analysis.LimitIRQCore, analysis.LimitDisk:
		return "this is the platform's limit for this workload: compare platforms at it, or give the limited resource more (cores, a faster disk, spread interrupts)"
	case analysis.LimitGC:
		return "the server's heap and collector are part of the platform: compare GC settings (heap size, G1/ZGC) or the allocation its work causes (seed 002: byte[] churn in its I/O)"
	case analysis.LimitMemory:
		return "give that machine more memory (a larger instance), or use a dataset that fits in it; leave memory to the page cache (a smaller JVM heap, -Xmx) and do not let a server swap (swapoff, vm.swappiness): with too little memory the run measures the disk"
	case analysis.LimitLoader:
		return "give platbench more cores or another loader (--rendezvous), or lower --concurrency: the figures are the loader's"
	case analysis.LimitNeighbours:
		return "run again on a quiet host (or pin platbench and the server with taskset away from the rest); do not compare this run's figures"
	case analysis.LimitConcurrency:
		return "raise --concurrency, or run sweep --find-max: the platform had room, so this measured the client's concurrency"
	case analysis.LimitRate:
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

// wordedFigures is f with its bottleneck in words, for the JSON outputs:
// their readers read the sentences (as before the result stored numbers);
// f itself is left as it is.
func wordedFigures(f *analysis.Figures) *analysis.Figures {
	if f == nil || f.Analysis == nil || f.Analysis.Bottleneck == nil || f.Analysis.Bottleneck.Says == nil {
		return f
	}
	g, a, b := *f, *f.Analysis, *f.Analysis.Bottleneck
	w := WordsOf(&b)
	b.Says = nil
	b.Summary, b.Evidence, b.Headroom, b.Caveats, b.Next, b.Missing = w.Summary, w.Evidence, w.Headroom, w.Caveats, w.Next, w.Missing
	a.Bottleneck, g.Analysis = &b, &a
	return &g
}
