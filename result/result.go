// Package result is the contract between the stages of platbench: the JSON
// file one run writes and every report, analysis, comparison and merge reads.
// Units are in field names (_ns, _bytes). Every latency figure can be
// recomputed from the encoded HDR histograms, so old files gain new analysis.
//
// The package reads, validates and atomically writes files; it computes
// nothing beyond what decoding needs (see package analysis for that).
package result

import (
	"slices"
	"time"

	"github.com/platbench/platbench/vocab"
)

// SchemaVersion names this version of the file format. Readers accept every
// version listed in docs/result-schema.md; bump it when a field changes meaning.
//
// v2 (issue 34, runs of any length): past the first hour of a phase its
// intervals are wider than 1 s (SeriesWidth); a streamed phase's intervals
// carry no histograms (every second's are in the seconds file, SecondsFile)
// and its fine buckets count all op types together (Buckets.All). A v1 file
// is a v2 file with 1 s intervals throughout, so readers read both alike.
const SchemaVersion = "platbench.result/v2"

// SchemaV1 is the first version, still read.
const SchemaV1 = "platbench.result/v1"

// Result is one run: one file.
type Result struct {
	Schema    string    `json:"schema"`
	Tool      Tool      `json:"tool"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	// Label names the run in comparisons; defaults to the platform's instance type or host.
	Label string `json:"label,omitempty"`
	// Commit names the version of what was measured (a commit, a build:
	// run --commit); history takes the runs of one commit as one group.
	Commit string `json:"commit,omitempty"`
	Config Config `json:"config"`
	// Like is the result file this run repeated (run --like): its config
	// is that file's, but for the target and the flags given.
	Like     string     `json:"like,omitempty"`
	Platform Platform   `json:"platform"`
	Target   vocab.Info `json:"target"`
	Dataset  Dataset    `json:"dataset"`
	Phases   []Phase    `json:"phases"`
	// Host is the host telemetry series (package telemetry fills it; may be absent).
	Host *HostSeries `json:"host,omitempty"`
	// Nodes are the server nodes' telemetry from their node_exporters, one
	// series per node (package telemetry/nodes; absent unless asked for).
	Nodes []NodeSeries `json:"nodes,omitempty"`
	// DBMetrics are the data system's own figures (Redis INFO, the JMX
	// exporter), per node per interval (absent unless the target has them).
	DBMetrics *DBMetrics `json:"db_metrics,omitempty"`
	// Counters are perf_event counters for the whole run (may be absent).
	Counters *Counters `json:"counters,omitempty"`
	// Events are fault events run during the run phase (kill, stop, exec...).
	Events []Event `json:"events,omitempty"`
	Sweep  *Sweep  `json:"sweep,omitempty"` // rate sweep steps and the highest rate meeting the objective
	// Loaders lists the loader processes of a merged result (one entry per part).
	Loaders []Loader `json:"loaders,omitempty"`
	// LoaderStartSpreadNs is, for a merged result, how far apart the
	// loaders' main (run) phases started: the latest start minus the earliest.
	LoaderStartSpreadNs int64 `json:"loader_start_spread_ns,omitempty"`
	// Analysis is derived; readers may recompute it from the rest of the file.
	Analysis *Analysis `json:"analysis,omitempty"`
	// Thresholds are the outcomes of the run's pass/fail rules (--threshold),
	// in the order given; absent when none was given.
	Thresholds []ThresholdOutcome `json:"thresholds,omitempty"`
	// Aborted says why the run phase was stopped early by a live threshold
	// check (--abort-on-fail); absent when it was not.
	Aborted *Abort `json:"aborted,omitempty"`
	// Verification is the read-back of the acknowledged writes after the
	// run (--verify, `platbench verify`); absent when not asked for.
	Verification *Verification `json:"verification,omitempty"`
	// Notes are plain-language remarks produced during the run (client-bound, delayed ops...).
	Notes []string `json:"notes,omitempty"`
	// CutShort marks a result made from a run's journal (ReadJournal): the
	// loader was killed before it wrote its result; phases it did not end
	// are interrupted and hold what their complete seconds recorded.
	CutShort bool `json:"cut_short,omitempty"`
}

// Tool identifies the binary that wrote the file.
type Tool struct {
	Name      string `json:"name"`
	Version   string `json:"version"`
	GoVersion string `json:"go_version"`
}

// Config is the full effective configuration of the run.
type Config struct {
	Target      string            `json:"target"` // URL, password removed
	TargetOpts  map[string]string `json:"target_opts,omitempty"`
	Workload    Workload          `json:"workload"`
	DurationNs  int64             `json:"duration_ns,omitempty"`    // 0 when bounded by Ops
	Ops         uint64            `json:"ops,omitempty"`            // 0 when bounded by duration
	Concurrency int               `json:"concurrency"`              // workers
	RateOpsPerS float64           `json:"rate_ops_per_s,omitempty"` // 0: closed loop
	Seed        int64             `json:"seed"`
	Load        bool              `json:"load"`             // load phase ran
	Shard       string            `json:"shard,omitempty"`  // "i/N" for distributed loaders
	Warmup      string            `json:"warmup,omitempty"` // "auto", a duration, or "0"
	Extra       map[string]string `json:"extra,omitempty"`  // other options a command recorded
}

// Platform is the fingerprint of the machine the load ran on.
type Platform struct {
	Hostname       string `json:"hostname"`
	OS             string `json:"os"`
	Arch           string `json:"arch"`
	CPUModel       string `json:"cpu_model"`
	CPUVendor      string `json:"cpu_vendor,omitempty"`
	Microarch      string `json:"microarch,omitempty"`
	Sockets        int    `json:"sockets,omitempty"`
	Cores          int    `json:"cores"`   // physical cores
	Threads        int    `json:"threads"` // logical CPUs
	NUMANodes      int    `json:"numa_nodes,omitempty"`
	RAMBytes       int64  `json:"ram_bytes"`
	Kernel         string `json:"kernel"`
	Virtualization string `json:"virtualization,omitempty"` // hypervisor vendor, "container" or "none" (bare metal)
	InstanceType   string `json:"instance_type,omitempty"`  // cloud instance type when the machine tells
	Cloud          string `json:"cloud,omitempty"`
	Disks          []Disk `json:"disks,omitempty"`
	// MemLimitBytes is the memory platbench's cgroup (and the cgroups above
	// it) allow, when less than RAMBytes: a container's limit, which the
	// page cache of an in-process store lives within too. 0: none.
	MemLimitBytes int64 `json:"mem_limit_bytes,omitempty"`
}

// UsableRAM is the memory platbench may use on this platform: RAMBytes, or
// its cgroup's limit when lower (0: unknown).
func (p Platform) UsableRAM() int64 {
	if p.MemLimitBytes > 0 && (p.RAMBytes <= 0 || p.MemLimitBytes < p.RAMBytes) {
		return p.MemLimitBytes
	}
	return p.RAMBytes
}

// Disk is one block device of the platform.
type Disk struct {
	Name       string `json:"name"`
	Model      string `json:"model,omitempty"`
	SizeBytes  int64  `json:"size_bytes"`
	Rotational bool   `json:"rotational"`
}

// Dataset is what the workload stored.
type Dataset struct {
	Records      uint64 `json:"records"`
	RecordBytes  int    `json:"record_bytes"`
	LogicalBytes int64  `json:"logical_bytes"` // records x record size
	// RowsPerRecord is a cassandra-stress profile's mean rows per partition
	// (a record is a partition; absent for one row per record).
	RowsPerRecord float64 `json:"rows_per_record,omitempty"`
	// FreeDiskBytes is what the target's disk had free before the load,
	// where the target can tell.
	FreeDiskBytes  int64 `json:"free_disk_bytes,omitempty"`
	DiskBytes      int64 `json:"disk_bytes,omitempty"` // as the target reports, when it can
	HostRAMBytes   int64 `json:"host_ram_bytes"`
	PageCacheBytes int64 `json:"page_cache_bytes,omitempty"` // host page cache at the end of the run
	// Source is where the dataset came from: DatasetLoaded (this run's load
	// phase) or DatasetExisting (an earlier load, checked before the run
	// where the target can check).
	Source string `json:"source,omitempty"`
	// LoadID identifies the load that wrote the dataset: this run's own
	// load phase, or the earlier load whose mark the target kept (empty
	// when the target keeps none).
	LoadID string `json:"load_id,omitempty"`
}

// Dataset sources.
const (
	DatasetLoaded   = "loaded in this run"
	DatasetExisting = "already there (not loaded by this run)"
)

// Phase is one timed part of a run: "load" or "run" (or a sweep step).
type Phase struct {
	Name        string    `json:"name"`
	Mode        string    `json:"mode"` // "closed" or "open"
	RateOpsPerS float64   `json:"rate_ops_per_s,omitempty"`
	Concurrency int       `json:"concurrency"`
	StartedAt   time.Time `json:"started_at"`
	DurationNs  int64     `json:"duration_ns"`
	Interrupted bool      `json:"interrupted,omitempty"` // stopped by Ctrl-C or an error before its end
	// Delayed counts open-loop operations that started more than DelayThresholdNs
	// after their intended start because no worker (or in-flight slot) was free:
	// the target held them all. LateClient counts those that started that late
	// although a worker or slot was free: the client itself was late (its
	// pacer, or the CPU it runs on). Results before LateClient existed counted
	// both kinds in Delayed.
	Delayed    uint64 `json:"delayed,omitempty"`
	LateClient uint64 `json:"late_client,omitempty"`
	// DelayedWaitNs and DelayedWaitMaxNs are how long the Delayed operations
	// waited for a worker or slot (from their intended start to the moment
	// one became free), in total and at the longest: how long bursts queued
	// behind the target. 0 in files from before they were kept.
	DelayedWaitNs    int64 `json:"delayed_wait_ns,omitempty"`
	DelayedWaitMaxNs int64 `json:"delayed_wait_max_ns,omitempty"`
	// Streams are the open loop's arrival processes as typed ("20k",
	// "read=ramp(1k, 20k, 30s)") and Arrival their spacing ("uniform" or
	// "poisson"); RateOpsPerS is then their mean intended rate over the phase.
	Streams          []string `json:"streams,omitempty"`
	Arrival          string   `json:"arrival,omitempty"`
	DelayThresholdNs int64    `json:"delay_threshold_ns,omitempty"`
	// PaceTickNs is the open loop's shortest time between two timed wakeups
	// of a pacer or an asynchronous lane: operations due within it of each
	// other start together, each charged from its own intended start.
	PaceTickNs int64 `json:"pace_tick_ns,omitempty"`
	// Ops are the totals per op type, in a stable order.
	Ops []OpTotal `json:"ops"`
	// ErrorMessages are examples of what the target said when operations
	// failed: the first few distinct messages of each error class, in the
	// order they were first seen (absent when nothing
	// failed; an additive field of v1). The counts are OpTotal.Errors.
	ErrorMessages []ErrorMessage `json:"error_messages,omitempty"`
	// Intervals is the 1 s series.
	Intervals []Interval `json:"intervals"`
	// Buckets is the fine (100 ms by default) completion series.
	Buckets Buckets `json:"buckets"`

	// seconds are where a streamed phase's every second is (UseSeconds).
	seconds []secondsRef
}

// ErrorMessage is one distinct message of an error class in a phase: the
// target's own words (the server's, the driver's), on one line, cut to a
// few hundred bytes.
type ErrorMessage struct {
	Class   string `json:"class"`   // vocab.Class name: "rejected", "other"...
	Op      string `json:"op"`      // the op that first failed with it
	Message string `json:"message"` // e.g. "ERR value is not an integer or out of range"
}

// OpTotal is everything about one op type over a phase.
type OpTotal struct {
	Op     string            `json:"op"`
	Count  uint64            `json:"count"`            // completed without error
	Errors map[string]uint64 `json:"errors,omitempty"` // by vocab.Class name
	Bytes  uint64            `json:"bytes,omitempty"`  // payload bytes moved, where it matters
	// Latency is from the intended start (open loop) or the send (closed loop).
	Latency Summary `json:"latency"`
	// Service is from the actual send to completion.
	Service Summary `json:"service"`
	// Hist and ServiceHist are HDR histograms (ns), V2 compressed, base64.
	Hist        string `json:"hist"`
	ServiceHist string `json:"service_hist"`
	// Lag is the open loop's schedule lag: from the intended start to the
	// actual send (the client's own lateness plus any wait for a free worker
	// or in-flight slot). Absent in closed loop, where it is 0 by definition.
	Lag     *Summary `json:"lag,omitempty"`
	LagHist string   `json:"lag_hist,omitempty"`
	// Attributable is the open loop's server-attributable latency: latency
	// less the client's own lateness, i.e. from the moment the op could have
	// started (the later of its intended start and the moment a worker or
	// in-flight slot became free for it) to completion, plus any wait for a
	// slot the target held. Service time plus that wait; absent in closed
	// loop and in results written before it existed.
	Attributable     *Summary `json:"attributable,omitempty"`
	AttributableHist string   `json:"attributable_hist,omitempty"`
}

// Summary is a precomputed latency summary in nanoseconds.
type Summary struct {
	Count    int64   `json:"count"`
	MinNs    int64   `json:"min_ns"`
	MeanNs   float64 `json:"mean_ns"`
	P50Ns    int64   `json:"p50_ns"`
	P90Ns    int64   `json:"p90_ns"`
	P95Ns    int64   `json:"p95_ns"`
	P99Ns    int64   `json:"p99_ns"`
	P999Ns   int64   `json:"p999_ns"`
	MaxNs    int64   `json:"max_ns"`
	StdDevNs float64 `json:"stddev_ns"`
}

// Interval is one 1 s interval of a phase.
type Interval struct {
	StartNs    int64        `json:"start_ns"` // offset from the phase start
	DurationNs int64        `json:"duration_ns"`
	Ops        []IntervalOp `json:"ops"`
	// IntendedOpsPerS is the open loop's intended rate over the interval
	// (all streams), to set beside the achieved one.
	IntendedOpsPerS float64 `json:"intended_ops_per_s,omitempty"`
}

// IntervalOp is one op type in one interval.
type IntervalOp struct {
	Op      string            `json:"op"`
	Count   uint64            `json:"count"`
	Errors  map[string]uint64 `json:"errors,omitempty"`
	Bytes   uint64            `json:"bytes,omitempty"`
	Latency Summary           `json:"latency"`
	Hist    string            `json:"hist,omitempty"` // HDR, as in OpTotal
}

// Buckets is the fine completion series: Counts[op][i] completions (errors
// included) in [i*WidthNs, (i+1)*WidthNs) from the phase start. Outstanding[i]
// is true when requests were in flight during bucket i (needed to tell a stall
// from idleness).
//
// A streamed phase (v2, a run written with its seconds file) keeps the
// completions of all op types together instead (All, AllBytes): one count
// per bucket rather than one per op type, so a day-long phase holds a few
// MB of them. Readers go through Len, CountAt and BytesAt, which read
// either form.
type Buckets struct {
	WidthNs     int64               `json:"width_ns"`
	Counts      map[string][]uint32 `json:"counts"`
	Bytes       map[string][]uint64 `json:"bytes,omitempty"`
	Outstanding []bool              `json:"outstanding"`
	// All and AllBytes are the completions and bytes of every op type
	// together, per bucket (streamed phases; Counts is then empty).
	All      []uint32 `json:"all,omitempty"`
	AllBytes []uint64 `json:"all_bytes,omitempty"`
}

// Len is the number of fine buckets the series hold (the longest of them).
func (b *Buckets) Len() int {
	n := max(len(b.Outstanding), len(b.All))
	for _, c := range b.Counts {
		n = max(n, len(c))
	}
	return n
}

// CountAt is the completions of every op type in bucket i.
func (b *Buckets) CountAt(i int) uint64 {
	var n uint64
	if i < len(b.All) {
		n = uint64(b.All[i])
	}
	for _, c := range b.Counts {
		if i < len(c) {
			n += uint64(c[i])
		}
	}
	return n
}

// BytesAt is the bytes of every op type in bucket i.
func (b *Buckets) BytesAt(i int) uint64 {
	var n uint64
	if i < len(b.AllBytes) {
		n = b.AllBytes[i]
	}
	for _, c := range b.Bytes {
		if i < len(c) {
			n += c[i]
		}
	}
	return n
}

// HasBytes says whether the buckets count bytes.
func (b *Buckets) HasBytes() bool { return len(b.Bytes) > 0 || len(b.AllBytes) > 0 }

// Pad extends every op's counts and bytes with zeros to n buckets (the
// length of Outstanding): an op that stopped early still has a value in
// every bucket.
func (b *Buckets) Pad(n int) {
	for op, cs := range b.Counts {
		b.Counts[op] = Grow(cs, n)
	}
	for op, bs := range b.Bytes {
		b.Bytes[op] = Grow(bs, n)
	}
	if b.All != nil {
		b.All = Grow(b.All, n)
	}
	if b.AllBytes != nil {
		b.AllBytes = Grow(b.AllBytes, n)
	}
}

// Grow extends s with zeros to length n (a bucket series to the phase's
// length).
func Grow[T uint32 | uint64](s []T, n int) []T {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

// SortOps puts a phase's op totals in the order of the ops they name
// (vocab.CompareOpNames: READ, UPDATE, ...), keeping the order of equals.
func (p *Phase) SortOps() {
	slices.SortStableFunc(p.Ops, func(a, b OpTotal) int { return vocab.CompareOpNames(a.Op, b.Op) })
}

// Event is a fault event run during a phase.
type Event struct {
	AtNs   int64  `json:"at_ns"` // offset from the run phase start
	Kind   string `json:"kind"`  // exec, kill, stop, cont, note
	Arg    string `json:"arg"`
	Error  string `json:"error,omitempty"`
	Output string `json:"output,omitempty"`
}

// Loader is one part of a merged (distributed) result.
type Loader struct {
	Shard     string    `json:"shard"`
	Host      string    `json:"host"`
	File      string    `json:"file,omitempty"`
	StartedAt time.Time `json:"started_at"`
	Platform  Platform  `json:"platform"`
	Notes     []string  `json:"notes,omitempty"`
}

// HostSeries is the host telemetry sampled every second during the run.
// Samples[i] covers [StartedAt + OffsetNs, +DurationNs); nominally i*IntervalNs.
type HostSeries struct {
	StartedAt  time.Time    `json:"started_at"`
	IntervalNs int64        `json:"interval_ns,omitempty"`
	Samples    []HostSample `json:"samples"`
	// Self is platbench's own resource use over the run.
	Self *SelfUsage `json:"self,omitempty"`
	// SelfSamples is platbench's own process per sample (same times as Samples).
	SelfSamples []ProcSample `json:"self_samples,omitempty"`
	// Server is the target server process, when it ran on this host.
	Server []ProcSample `json:"server,omitempty"`
	// ServerMatch says how the server process was found ("pid 1234", "process redis-server").
	ServerMatch string `json:"server_match,omitempty"`
	// Links are the loader host's interfaces' capacities known at the start:
	// the speed they report and the limit the user stated (--link-limit).
	Links map[string]Link `json:"links,omitempty"`
}

// Link is what is known of one interface's capacity, in bits/s (0: unknown).
type Link struct {
	SpeedBitsPerS int64 `json:"speed_bits_per_s,omitempty"` // /sys/class/net/IF/speed
	LimitBitsPerS int64 `json:"limit_bits_per_s,omitempty"` // stated by the user (a cloud's cap)
}

// HostSample is one second of host figures. CPU fractions are of all CPUs (0..1).
// Counts (I/O, packets, switches, interrupts) are totals over the sample.
type HostSample struct {
	OffsetNs   int64   `json:"offset_ns"` // sample start, from HostSeries.StartedAt
	DurationNs int64   `json:"duration_ns"`
	CPUUser    float64 `json:"cpu_user"` // includes nice
	CPUSystem  float64 `json:"cpu_system"`
	CPUIOWait  float64 `json:"cpu_iowait"`
	CPUIRQ     float64 `json:"cpu_irq"`
	CPUSoftIRQ float64 `json:"cpu_softirq"`
	CPUSteal   float64 `json:"cpu_steal"`
	CPUIdle    float64 `json:"cpu_idle"`
	CPUMaxCore float64 `json:"cpu_max_core"` // busiest core's busy fraction
	// CPUMaxCoreID is the busiest core (-1 when unknown).
	CPUMaxCoreID int `json:"cpu_max_core_id"`
	// CPUMaxCoreIRQ is the highest irq+softirq share of any one core: a core
	// saturated by interrupt handling (network or disk queues pinned to it).
	CPUMaxCoreIRQ     float64           `json:"cpu_max_core_irq"`
	Load1             float64           `json:"load1"`
	MemUsedBytes      int64             `json:"mem_used_bytes"` // total - free - buffers - page cache
	MemAvailableBytes int64             `json:"mem_available_bytes"`
	PageCacheBytes    int64             `json:"page_cache_bytes"`
	DirtyBytes        int64             `json:"dirty_bytes"`
	CtxSwitches       uint64            `json:"ctx_switches"`
	Interrupts        uint64            `json:"interrupts"`
	Disks             map[string]DiskIO `json:"disks,omitempty"`
	Nets              map[string]NetIO  `json:"nets,omitempty"`
	// TCP segments sent and retransmitted in the sample (/proc/net/snmp's
	// OutSegs and RetransSegs): retransmits are the network's errors.
	TCPOutSegs     uint64 `json:"tcp_out_segs,omitempty"`
	TCPRetransSegs uint64 `json:"tcp_retrans_segs,omitempty"`
	// Paging is the host's swapping, major faults and direct reclaim.
	Paging
}

// DiskIO is one device's I/O in one sample.
type DiskIO struct {
	Reads          uint64 `json:"reads"`
	Writes         uint64 `json:"writes"`
	ReadBytes      uint64 `json:"read_bytes"`
	WriteBytes     uint64 `json:"write_bytes"`
	ReadLatencyNs  int64  `json:"read_latency_ns"`  // mean per I/O over the sample
	WriteLatencyNs int64  `json:"write_latency_ns"` // mean per I/O over the sample
	// BusyFraction is the time the device had I/O in flight (iostat's %util / 100).
	BusyFraction float64 `json:"busy_fraction"`
}

// NetIO is one interface's traffic in one sample.
type NetIO struct {
	RxBytes   uint64 `json:"rx_bytes"`
	TxBytes   uint64 `json:"tx_bytes"`
	RxPackets uint64 `json:"rx_packets"`
	TxPackets uint64 `json:"tx_packets"`
	// The interface's root queueing discipline (telemetry/host's qdisc.go),
	// on the loader host: its kind, a shaper's rate (tbf's; an htb root's
	// ceil) in bytes/s, what was queued at the sample's end, and the packets
	// dropped, held over the shaper's limit (overlimits) and requeued in the
	// sample. Absent in files written before and where rtnetlink is not read.
	Qdisc            string `json:"qdisc,omitempty"`
	QdiscRateBytesPS uint64 `json:"qdisc_rate_bytes_per_s,omitempty"`
	QdiscBacklog     uint64 `json:"qdisc_backlog_bytes,omitempty"`
	QdiscQueued      uint64 `json:"qdisc_backlog_packets,omitempty"`
	QdiscDrops       uint64 `json:"qdisc_drops,omitempty"`
	QdiscOverlimits  uint64 `json:"qdisc_overlimits,omitempty"`
	QdiscRequeues    uint64 `json:"qdisc_requeues,omitempty"`
}

// ProcSample is one process's use in one sample.
type ProcSample struct {
	OffsetNs int64   `json:"offset_ns,omitempty"` // sample start, from HostSeries.StartedAt
	PID      int     `json:"pid"`
	Name     string  `json:"name,omitempty"`
	CPUCores float64 `json:"cpu_cores"` // cores busy over the sample
	// MaxThreadCores is the busiest thread's share of a core (1 = a core saturated).
	MaxThreadCores float64 `json:"max_thread_cores,omitempty"`
	RSSBytes       int64   `json:"rss_bytes"`
	ReadBytes      uint64  `json:"read_bytes"`  // storage bytes read over the sample
	WriteBytes     uint64  `json:"write_bytes"` // storage bytes written over the sample
}

// SelfUsage is platbench's own use of the machine over the run.
type SelfUsage struct {
	WallSeconds float64 `json:"wall_seconds,omitempty"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	// MaxCoreBusy is the highest 1 s share of a core used by one platbench thread.
	MaxCoreBusy    float64 `json:"max_core_busy"`
	GOMAXPROCS     int     `json:"gomaxprocs,omitempty"`
	GCPauseTotalNs int64   `json:"gc_pause_total_ns"`
	GCPauseMaxNs   int64   `json:"gc_pause_max_ns"` // upper bound of the runtime's pause histogram bucket
	NumGC          uint32  `json:"num_gc"`
	AllocBytes     uint64  `json:"alloc_bytes"`
	AllocBytesPerS float64 `json:"alloc_bytes_per_s,omitempty"`
	ClientBound    bool    `json:"client_bound"`
	Reason         string  `json:"reason,omitempty"`
}

// Counters are perf_event_open counters; Unavailable names what could not be opened.
// Values are totals over the run, scaled for multiplexing when the kernel
// time-shared the PMU (Scaled names them).
type Counters struct {
	Values      map[string]uint64 `json:"values"`
	Unavailable []string          `json:"unavailable,omitempty"`
	// UnavailableReason says why, in plain words (no PMU in a VM, perf_event_paranoid...).
	UnavailableReason string              `json:"unavailable_reason,omitempty"`
	Scope             string              `json:"scope"` // "process" or "system"
	DurationNs        int64               `json:"duration_ns,omitempty"`
	Scaled            []string            `json:"scaled,omitempty"`
	IntervalNs        int64               `json:"interval_ns,omitempty"`
	Intervals         []map[string]uint64 `json:"intervals,omitempty"`
}
