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
	// Note says what the price covers (servers only, not the load generators).
	Note string `json:"note,omitempty"`
}
