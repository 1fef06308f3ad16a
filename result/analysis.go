package result

// Analysis is derived from the rest of the file by package analysis (steady
// state, throughput, stability, stalls, page cache, cost). Every field can be
// recomputed from the raw series in the file, so an old result gains new
// analysis when it is read by a newer platbench. Units are in field names;
// rates are per second, money is US dollars.
type Analysis struct {
	// Phase is the name of the phase analysed (the main phase: "run").
	Phase string `json:"phase"`
	// SteadyState says where the steady-state window begins and why.
	SteadyState SteadyState `json:"steady_state"`
	// Raw covers every interval of the phase; Steady only the steady window.
	// They are equal when no warm-up was trimmed.
	Raw    Window `json:"raw"`
	Steady Window `json:"steady"`
	// Stalls are the fine buckets with zero completions while requests were
	// outstanding, over the whole phase (warm-up included).
	Stalls Stalls `json:"stalls"`
	// PageCache compares the dataset with the host's memory; nil when the file
	// records no dataset size.
	PageCache *PageCache `json:"page_cache,omitempty"`
	// Cost is present when a price is known (the catalog's for the platform, or one given).
	Cost *Cost `json:"cost,omitempty"`
	// Bottleneck is what limited the phase (analysis.BottleneckOf); absent
	// in files analysed before it was kept.
	Bottleneck *Bottleneck `json:"bottleneck,omitempty"`
	// Notes are plain-language remarks about the analysis itself.
	Notes []string `json:"notes,omitempty"`
}

// SteadyState is the warm-up decision.
type SteadyState struct {
	// Method is "mser-5" (automatic, batches of 5 intervals), "mser" (automatic,
	// batches of 1 interval, for series too short for batches of 5), "forced"
	// (the warm-up asked for) or "none" (no truncation possible or asked for).
	Method string `json:"method"`
	// Requested is the warm-up asked for: "auto", a duration, or "0".
	Requested string `json:"requested"`
	// WarmupNs is the length trimmed from the start of the phase.
	WarmupNs int64 `json:"warmup_ns"`
	// WarmupIntervals is the number of 1 s intervals trimmed.
	WarmupIntervals int `json:"warmup_intervals"`
	// Reason says in one sentence why this warm-up was used.
	Reason string `json:"reason"`
}

// Window is the throughput of one window of a phase (raw or steady).
type Window struct {
	StartNs   int64  `json:"start_ns"` // offset from the phase start
	LengthNs  int64  `json:"length_ns"`
	Intervals int    `json:"intervals"`
	Ops       uint64 `json:"ops"`    // completed without error
	Errors    uint64 `json:"errors"` // all classes
	Bytes     uint64 `json:"bytes,omitempty"`
	// PeakOpsPerS is the highest 1 s interval of the window (full intervals only).
	PeakOpsPerS float64 `json:"peak_ops_per_s"`
	PeakAtNs    int64   `json:"peak_at_ns"`
	// SustainedOpsPerS is Ops / LengthNs.
	SustainedOpsPerS   float64 `json:"sustained_ops_per_s"`
	PeakBytesPerS      float64 `json:"peak_bytes_per_s,omitempty"`
	SustainedBytesPerS float64 `json:"sustained_bytes_per_s,omitempty"`
	// Stability of the 1 s throughput over the window.
	Stability Stability `json:"stability"`
	// PerOp is the same per op type, in the phase's op order.
	PerOp []OpWindow `json:"per_op,omitempty"`
}

// OpWindow is one op type's throughput over a window.
type OpWindow struct {
	Op                 string  `json:"op"`
	Ops                uint64  `json:"ops"`
	Errors             uint64  `json:"errors"`
	Bytes              uint64  `json:"bytes,omitempty"`
	PeakOpsPerS        float64 `json:"peak_ops_per_s"`
	SustainedOpsPerS   float64 `json:"sustained_ops_per_s"`
	PeakBytesPerS      float64 `json:"peak_bytes_per_s,omitempty"`
	SustainedBytesPerS float64 `json:"sustained_bytes_per_s,omitempty"`
}

// Stability is the Hazelcast report's table: the spread of the 1 s throughput
// (full intervals only). StdDev is the sample standard deviation (n-1).
type Stability struct {
	Intervals     int     `json:"intervals"`
	MinOpsPerS    float64 `json:"min_ops_per_s"`
	MaxOpsPerS    float64 `json:"max_ops_per_s"`
	MeanOpsPerS   float64 `json:"mean_ops_per_s"`
	StdDevOpsPerS float64 `json:"stddev_ops_per_s"`
	CVPercent     float64 `json:"cv_percent"` // StdDev / Mean x 100
	// Bytes is the same table for payload bytes; nil when no bytes were recorded.
	Bytes *ByteStability `json:"bytes,omitempty"`
}

// ByteStability is the stability table of the 1 s payload throughput.
type ByteStability struct {
	MinBytesPerS    float64 `json:"min_bytes_per_s"`
	MaxBytesPerS    float64 `json:"max_bytes_per_s"`
	MeanBytesPerS   float64 `json:"mean_bytes_per_s"`
	StdDevBytesPerS float64 `json:"stddev_bytes_per_s"`
	CVPercent       float64 `json:"cv_percent"`
}

// Stalls summarises the fine buckets with zero completions while requests
// were outstanding. Consecutive stalled buckets are one stall.
type Stalls struct {
	BucketWidthNs int64 `json:"bucket_width_ns"`
	Buckets       int   `json:"buckets"` // buckets examined
	Count         int   `json:"count"`
	LongestNs     int64 `json:"longest_ns"`
	LongestAtNs   int64 `json:"longest_at_ns"`
	TotalNs       int64 `json:"total_ns"`
	// Regulation is the periodicity of the completion series (on/off pattern).
	Regulation Regulation `json:"regulation"`
}

// Regulation describes an on/off pattern of a rate series: for example a disk
// that writes for 200 ms then does nothing for 800 ms, every second.
type Regulation struct {
	// Periodic is true when the series alternates between work and (near) zero
	// with a regular period.
	Periodic bool `json:"periodic"`
	// PeriodNs is the median length of one on+off cycle.
	PeriodNs int64 `json:"period_ns,omitempty"`
	// OnNs and OffNs are the median lengths of the work and idle parts.
	OnNs  int64 `json:"on_ns,omitempty"`
	OffNs int64 `json:"off_ns,omitempty"`
	// DutyCycle is the fraction of time at work over the complete cycles (0..1).
	DutyCycle float64 `json:"duty_cycle,omitempty"`
	// Cycles is the number of complete cycles seen.
	Cycles int `json:"cycles,omitempty"`
	// PhaseCoherence is how well the off-to-on edges keep time with the period
	// (0..1: 1 when every edge falls at the same phase, about 1/sqrt(cycles)
	// for edges at random times).
	PhaseCoherence float64 `json:"phase_coherence,omitempty"`
	// Autocorrelation is the series' autocorrelation at the period's lag (-1..1).
	Autocorrelation float64 `json:"autocorrelation,omitempty"`
	// OnLevel is the mean value per bucket while at work (units of the series).
	OnLevel float64 `json:"on_level,omitempty"`
	// Reason says in one sentence why the pattern is, or is not, periodic.
	Reason string `json:"reason"`
}

// PageCache compares the dataset with the memory of the host platbench ran on.
type PageCache struct {
	LogicalBytes   int64 `json:"logical_bytes"`
	DiskBytes      int64 `json:"disk_bytes,omitempty"`
	HostRAMBytes   int64 `json:"host_ram_bytes"`
	PageCacheBytes int64 `json:"page_cache_bytes,omitempty"`
	// FitsInRAM is true when the dataset (on disk when known, else logical) is
	// no larger than the host's RAM.
	FitsInRAM bool `json:"fits_in_ram"`
	// Case is the verdict, one of the PageCache* constants; the report
	// phrases it with the sizes above.
	Case string `json:"case,omitempty"`
	// Target is the target kind (named by the in-memory case).
	Target string `json:"target,omitempty"`
	// LoadHostRAM is true when HostRAMBytes is the load generator's RAM and
	// the servers ran elsewhere (their RAM is not recorded).
	LoadHostRAM bool `json:"load_host_ram,omitempty"`
	// Reads is true when the phase read (ops the page cache can serve).
	Reads bool `json:"reads,omitempty"`
	// Verdict is the sentence files written before Case existed carry
	// instead; reports show it as it is when Case is empty.
	Verdict string `json:"verdict,omitempty"`
}

// The cases of a page-cache verdict (PageCache.Case).
const (
	PageCacheDirectIO   = "direct_io"   // O_DIRECT bypasses the page cache
	PageCacheInMemory   = "in_memory"   // the target keeps its data in memory by design
	PageCacheRAMUnknown = "ram_unknown" // the host's RAM is not recorded
	PageCacheFits       = "fits"        // the dataset fits in RAM: see Reads
	PageCacheExceeds    = "exceeds"     // larger than RAM: most reads reach the storage
)

// Cost normalises the steady throughput by the price of the cluster.
type Cost struct {
	// InstanceType is the catalog entry used ("" when the price was given directly).
	InstanceType string `json:"instance_type,omitempty"`
	Provider     string `json:"provider,omitempty"`
	// PriceSource says where the price came from: the catalog entry's source,
	// "price per hour given" (analysis.PriceGiven), or a user catalog file.
	PriceSource string `json:"price_source"`
	PriceDate   string `json:"price_date,omitempty"`
	Region      string `json:"region,omitempty"`
	// PricePerHourUSD is one node's on-demand price.
	PricePerHourUSD float64 `json:"price_per_hour_usd"`
	Nodes           int     `json:"nodes"`
	// ClusterPerHourUSD is PricePerHourUSD x Nodes.
	ClusterPerHourUSD float64 `json:"cluster_per_hour_usd"`
	// HoursPerMonth is 730 (8760 h / 12), the convention AWS uses.
	HoursPerMonth float64 `json:"hours_per_month"`
	// MonthlyUSD is ClusterPerHourUSD x HoursPerMonth, rounded to the cent.
	MonthlyUSD float64 `json:"monthly_usd"`
	// From the steady window's sustained throughput:
	OpsPerUSD          float64 `json:"ops_per_usd"`
	USDPerMillionOps   float64 `json:"usd_per_million_ops"`
	GBPerUSD           float64 `json:"gb_per_usd,omitempty"` // 1 GB = 1e9 bytes; byte-oriented workloads only
	SustainedOpsPerS   float64 `json:"sustained_ops_per_s"`
	SustainedBytesPerS float64 `json:"sustained_bytes_per_s,omitempty"`
	// Note says where the instance type came from, when not given.
	Note string `json:"note,omitempty"`
	// Items are the bill, one line per component (CostInstances first, then
	// CostStorage, CostNetwork, CostLoaders when priced). OpsPerUSD,
	// USDPerMillionOps and GBPerUSD are over TotalPerHourUSD, their sum; when
	// only the instances are priced it equals ClusterPerHourUSD. (Files
	// written before the items existed priced the instances alone.)
	Items           []CostItem `json:"items,omitempty"`
	TotalPerHourUSD float64    `json:"total_per_hour_usd,omitempty"`
	// TotalMonthlyUSD is the sum of the items' MonthlyUSD.
	TotalMonthlyUSD float64 `json:"total_monthly_usd,omitempty"`
	// NotPriced names what the bill leaves out, each with how to price it
	// when platbench can.
	NotPriced []string `json:"not_priced,omitempty"`
}

// The components of a bill (CostItem.Component).
const (
	CostInstances = "instances"
	CostStorage   = "storage"
	CostNetwork   = "network"
	CostLoaders   = "loaders"
)

// CostItem is one line of a bill: Count units of Name.
type CostItem struct {
	Component string `json:"component"`
	// Name is the instance type, the volume (gp3:2TiB:6000iops:250MBps) or
	// the traffic kind (cross-zone).
	Name string `json:"name"`
	// Count is the nodes, volumes (one per node) or loaders; 1 for network.
	Count int `json:"count"`
	// UnitPerHourUSD is one instance's price (instances, loaders);
	// UnitMonthlyUSD one volume's (storage).
	UnitPerHourUSD float64 `json:"unit_per_hour_usd,omitempty"`
	UnitMonthlyUSD float64 `json:"unit_monthly_usd,omitempty"`
	PerHourUSD     float64 `json:"per_hour_usd"`
	// MonthlyUSD is the item for a 730 h month, rounded to the cent.
	MonthlyUSD float64 `json:"monthly_usd"`
	Source     string  `json:"source,omitempty"`
	Date       string  `json:"date,omitempty"`
	// Storage and Network show how the item was reached.
	Storage *StorageCost `json:"storage,omitempty"`
	Network *NetworkCost `json:"network,omitempty"`
}

// StorageCost is one volume's monthly price: GiB x PerGiB + IOPS x PerIOPS +
// MBps x PerMBps, where IOPS and MBps are what is provisioned above the
// type's included baseline.
type StorageCost struct {
	GiB             float64 `json:"gib"`
	PerGiBMonthUSD  float64 `json:"per_gib_month_usd"`
	IOPS            float64 `json:"charged_iops,omitempty"`
	PerIOPSMonthUSD float64 `json:"per_iops_month_usd,omitempty"`
	MBps            float64 `json:"charged_mbps,omitempty"`
	PerMBpsMonthUSD float64 `json:"per_mbps_month_usd,omitempty"`
}

// Network cost bases (NetworkCost.Basis).
const (
	// NetEstimated: replication from the bytes written, plus the client's
	// payload, by the formulas of docs/cost.md.
	NetEstimated = "estimated"
	// NetMeasured: the server nodes' transmitted bytes from node_exporter.
	NetMeasured = "measured"
)

// NetworkCost is the cross-zone traffic priced. Estimated:
// CrossZone = Write x (RF - ceil(RF/Zones)) + Client x (Zones-1)/Zones.
// Measured: CrossZone = NodeTx x (Zones-1)/Zones.
type NetworkCost struct {
	Basis              string  `json:"basis"`
	RF                 int     `json:"rf"`
	Zones              int     `json:"zones"`
	CrossZoneCopies    int     `json:"cross_zone_copies,omitempty"` // RF - ceil(RF/Zones), estimated only
	WriteBytesPerS     float64 `json:"write_bytes_per_s,omitempty"`
	ClientBytesPerS    float64 `json:"client_bytes_per_s,omitempty"`
	NodeTxBytesPerS    float64 `json:"node_tx_bytes_per_s,omitempty"`
	CrossZoneBytesPerS float64 `json:"cross_zone_bytes_per_s"`
	PerGBUSD           float64 `json:"per_gb_usd"`
}
