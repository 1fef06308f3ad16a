package analysis

import (
	"errors"
	"fmt"
	"strings"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/result"
)

// readOps are the op types whose latency the page cache can hide.
var readOps = map[string]bool{"READ": true, "GET": true, "SCAN": true, "READ-MODIFY-WRITE": true, "CONSUME": true}

// inMemory are the targets that keep their dataset in memory by design.
var inMemory = map[string]bool{"redis": true, "rediss": true, "hazelcast": true}

// storesNothing are the targets with no dataset to cache (overhead and test targets).
var storesNothing = map[string]bool{"null": true, "fake": true}

// pageCache compares the dataset with the host's memory (METHOD.md, "Dataset
// and memory"): when the data fits, reads were likely served from memory.
func pageCache(r *result.Result, p *result.Phase) *result.PageCache {
	d := r.Dataset
	if d.LogicalBytes <= 0 && d.DiskBytes <= 0 {
		return nil
	}
	pc := &result.PageCache{LogicalBytes: d.LogicalBytes, DiskBytes: d.DiskBytes, HostRAMBytes: d.HostRAMBytes, PageCacheBytes: d.PageCacheBytes}
	if storesNothing[r.Target.Kind] {
		return nil
	}
	if r.Config.Extra["direct"] == "true" {
		pc.Verdict = fmt.Sprintf("Direct I/O (O_DIRECT) bypasses the page cache: the figures are the storage's, whatever the host's RAM (%s).", Bytes(d.HostRAMBytes))
		return pc
	}
	if inMemory[r.Target.Kind] {
		pc.FitsInRAM = d.HostRAMBytes > 0 && max(d.LogicalBytes, d.DiskBytes) <= d.HostRAMBytes
		pc.Verdict = fmt.Sprintf("The dataset (%s logical) lives in the servers' memory by design (%s is an in-memory store): the page cache does not apply.", Bytes(d.LogicalBytes), r.Target.Kind)
		return pc
	}
	size, what := d.LogicalBytes, fmt.Sprintf("%s logical", Bytes(d.LogicalBytes))
	if d.DiskBytes > 0 {
		size = d.DiskBytes
		what += fmt.Sprintf(", %s on disk", Bytes(d.DiskBytes))
	}
	if d.HostRAMBytes <= 0 {
		pc.Verdict = fmt.Sprintf("The dataset is %s; the host's RAM is not recorded, so whether it fits in the page cache is unknown.", what)
		return pc
	}
	host := "this host's"
	if !isLocal(r) {
		host = "the load generator's (the servers' RAM is not recorded; compare with theirs)"
	}
	reads := false
	for _, t := range p.Ops {
		if readOps[t.Op] && t.Count > 0 {
			reads = true
		}
	}
	pc.FitsInRAM = size <= d.HostRAMBytes
	switch {
	case pc.FitsInRAM && reads:
		pc.Verdict = fmt.Sprintf("The dataset (%s) fits in %s RAM (%s): reads were likely served from the page cache, not from the storage. To measure the storage, load more data than RAM holds (more records or larger values) or drop the page cache between load and run (sync; echo 3 > /proc/sys/vm/drop_caches, as root).",
			what, host, Bytes(d.HostRAMBytes))
	case pc.FitsInRAM:
		pc.Verdict = fmt.Sprintf("The dataset (%s) fits in %s RAM (%s); this phase has no reads, so the page cache does not flatter it.", what, host, Bytes(d.HostRAMBytes))
	default:
		pc.Verdict = fmt.Sprintf("The dataset (%s) is %.1fx %s RAM (%s): at most %.0f%% of it can be cached, so most reads reach the storage.",
			what, float64(size)/float64(d.HostRAMBytes), host, Bytes(d.HostRAMBytes), 100*float64(d.HostRAMBytes)/float64(size))
	}
	if d.PageCacheBytes > 0 {
		pc.Verdict += fmt.Sprintf(" The page cache held %s at the end of the run.", Bytes(d.PageCacheBytes))
	}
	return pc
}

// Price is a resolved node price.
type Price struct {
	Instance     catalog.Instance // zero when given directly
	PerHourUSD   float64
	Source, Date string
}

// ResolvePrice finds one node's price: --price-per-hour wins, then the
// catalog entry for platform. It returns an error for an unknown platform.
func ResolvePrice(cat *catalog.Catalog, platform string, perHour float64) (Price, error) {
	var p Price
	if platform != "" {
		in, err := cat.Lookup(platform)
		if err != nil && perHour <= 0 {
			return p, err
		}
		if err == nil {
			p.Instance = in
			p.PerHourUSD, p.Source, p.Date = in.PricePerHourUSD, in.Source, in.PriceDate
			if in.File != "embedded" {
				p.Source = fmt.Sprintf("%s (from %s)", in.Source, in.File)
			}
		} else {
			p.Instance.Type = platform
		}
	}
	if perHour > 0 {
		p.PerHourUSD, p.Source, p.Date = perHour, "--price-per-hour", ""
	}
	return p, nil
}

// costOf computes the cost figures; note explains a missing cost.
func costOf(r *result.Result, w result.Window, o Options) (*result.Cost, string, error) {
	platform, fromFingerprint := o.Platform, false
	if platform == "" && o.PricePerHour <= 0 && r.Platform.InstanceType != "" {
		if !isLocal(r) {
			return nil, fmt.Sprintf("no cost figures: this host is a %s, but it ran the load generator, not the servers (fix: --platform TYPE --nodes N for the servers, or --price-per-hour P)", r.Platform.InstanceType), nil
		}
		platform, fromFingerprint = r.Platform.InstanceType, true
	}
	if platform == "" && o.PricePerHour <= 0 {
		return nil, "no cost figures: the instance type is unknown (fix: --platform TYPE --nodes N, or --price-per-hour P)", nil
	}
	cat, err := o.catalog()
	if err != nil {
		return nil, "", err
	}
	price, err := ResolvePrice(cat, platform, o.PricePerHour)
	if err != nil {
		if fromFingerprint && errors.Is(err, catalog.ErrUnknown) {
			return nil, fmt.Sprintf("no cost figures: this host's instance type %s is not in the catalog (fix: --price-per-hour P, or add it with --catalog FILE)", platform), nil
		}
		return nil, "", err
	}
	nodes := o.Nodes
	if nodes == 0 {
		nodes = len(r.Target.Nodes)
	}
	if nodes == 0 || fromFingerprint {
		nodes = 1
	}
	c := CostOf(price, nodes, w.SustainedOpsPerS, w.SustainedBytesPerS)
	if fromFingerprint {
		c.Note = "instance type from this host's fingerprint (the target ran on it); "
	}
	c.Note += "on-demand price of the server nodes only: load generators, storage volumes, network transfer and support are not included"
	return c, "", nil
}

// CostOf normalises a sustained throughput by the price of nodes nodes.
func CostOf(p Price, nodes int, opsPerS, bytesPerS float64) *result.Cost {
	c := &result.Cost{
		InstanceType:       p.Instance.Type,
		Provider:           p.Instance.Provider,
		Region:             p.Instance.Region,
		PriceSource:        p.Source,
		PriceDate:          p.Date,
		PricePerHourUSD:    p.PerHourUSD,
		Nodes:              nodes,
		ClusterPerHourUSD:  p.PerHourUSD * float64(nodes),
		HoursPerMonth:      catalog.HoursPerMonth,
		MonthlyUSD:         catalog.MonthlyUSD(p.PerHourUSD, nodes),
		SustainedOpsPerS:   opsPerS,
		SustainedBytesPerS: bytesPerS,
	}
	if c.ClusterPerHourUSD > 0 && opsPerS > 0 {
		opsPerHour := opsPerS * 3600
		c.OpsPerUSD = opsPerHour / c.ClusterPerHourUSD
		c.USDPerMillionOps = c.ClusterPerHourUSD / opsPerHour * 1e6
	}
	if c.ClusterPerHourUSD > 0 && bytesPerS > 0 {
		c.GBPerUSD = bytesPerS * 3600 / 1e9 / c.ClusterPerHourUSD
	}
	return c
}

// Bytes formats n in decimal units (GB = 1e9 bytes), as disk vendors and
// cloud price lists do.
func Bytes(n int64) string {
	// Binary units, as the rest of the report (and `free -h`) prints memory.
	f := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	s := fmt.Sprintf("%.1f", f)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + units[i]
}
