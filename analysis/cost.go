package analysis

import (
	"errors"
	"fmt"

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
	if storesNothing[r.Target.Kind] {
		return nil
	}
	pc := &result.PageCache{LogicalBytes: d.LogicalBytes, DiskBytes: d.DiskBytes, HostRAMBytes: d.HostRAMBytes, PageCacheBytes: d.PageCacheBytes,
		Target: r.Target.Kind, LoadHostRAM: !isLocal(r)}
	for _, t := range p.Ops {
		pc.Reads = pc.Reads || (readOps[t.Op] && t.Count > 0)
	}
	// A cassandra-stress profile's queries are named ops: they read when
	// they returned rows.
	if n := r.Target.Details["profile_rows_returned"]; n != "" && n != "0" && p.Name != "load" {
		pc.Reads = true
	}
	size := max(d.LogicalBytes, d.DiskBytes)
	if d.DiskBytes > 0 {
		size = d.DiskBytes
	}
	pc.FitsInRAM = d.HostRAMBytes > 0 && size <= d.HostRAMBytes
	switch {
	case r.Config.Extra["direct"] == "true":
		pc.Case = result.PageCacheDirectIO
	case inMemory[r.Target.Kind]:
		pc.Case = result.PageCacheInMemory
	case d.HostRAMBytes <= 0:
		pc.Case = result.PageCacheRAMUnknown
	case pc.FitsInRAM:
		pc.Case = result.PageCacheFits
	default:
		pc.Case = result.PageCacheExceeds
	}
	return pc
}

// PriceGiven is the PriceSource of a price per hour given in Options rather
// than found in the catalog.
const PriceGiven = "price per hour given"

// Price is a resolved node price.
type Price struct {
	Instance     catalog.Instance // zero when given directly
	PerHourUSD   float64
	Source, Date string
}

// ResolvePrice finds one node's price: perHour (when above 0) wins, then the
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
		p.PerHourUSD, p.Source, p.Date = perHour, PriceGiven, ""
	}
	return p, nil
}

// costOf computes the cost figures; note explains a missing cost.
func costOf(r *result.Result, w result.Window, o Options) (*result.Cost, string, error) {
	platform, fromFingerprint := o.Platform, false
	if platform == "" && o.PricePerHour <= 0 && r.Platform.InstanceType != "" {
		if !isLocal(r) {
			return nil, fmt.Sprintf("no cost figures: this host is a %s, but it ran the load generator, not the servers (fix: give the servers' platform and nodes, or a price per hour)", r.Platform.InstanceType), nil
		}
		platform, fromFingerprint = r.Platform.InstanceType, true
	}
	if platform == "" && o.PricePerHour <= 0 {
		return nil, "no cost figures: the instance type is unknown (fix: give the servers' platform and nodes, or a price per hour)", nil
	}
	cat, err := o.catalog()
	if err != nil {
		return nil, "", err
	}
	price, err := ResolvePrice(cat, platform, o.PricePerHour)
	if err != nil {
		if fromFingerprint && errors.Is(err, catalog.ErrUnknown) {
			return nil, fmt.Sprintf("no cost figures: this host's instance type %s is not in the catalog (fix: give a price per hour, or add the type to a catalog file)", platform), nil
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
		c.Note = "instance type from this host's fingerprint (the target ran on it)"
	}
	if err := addBill(c, r, w, o.Bill, cat); err != nil {
		return nil, "", err
	}
	return c, "", nil
}

// CostOf normalises a sustained throughput by the price of nodes nodes: a
// bill of one item, the instances (addBill adds the rest).
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
	c.Items = []result.CostItem{{Component: result.CostInstances, Name: p.Instance.Type, Count: nodes, UnitPerHourUSD: p.PerHourUSD,
		PerHourUSD: c.ClusterPerHourUSD, MonthlyUSD: c.MonthlyUSD, Source: p.Source, Date: p.Date}}
	totals(c)
	return c
}
