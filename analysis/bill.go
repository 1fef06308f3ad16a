package analysis

import (
	"fmt"

	"github.com/platbench/platbench/catalog"
	"github.com/platbench/platbench/result"
)

// The whole bill (docs/cost.md): the server instances, each node's block
// volume, cross-zone network traffic and the load generators, each a
// result.CostItem; what is not priced is named.

// alwaysUnpriced is what platbench never prices.
const alwaysUnpriced = "support, backups and snapshots, traffic leaving the region, and discounts (reserved, savings plans, spot)"

// writeOps are the op types that write a record the cluster replicates.
var writeOps = map[string]bool{"UPDATE": true, "INSERT": true, "READ-MODIFY-WRITE": true, "WRITE": true, "PRODUCE": true, "SET": true, "CAS": true, "INCR": true}

// recordOps are the op types that move about one record between client and
// server (SCAN moves an unknown number: it adds only the bytes it recorded).
var recordOps = map[string]bool{"READ": true, "GET": true, "CONSUME": true}

// StorageMonthlyUSD is one volume's monthly price: its size, and the IOPS and
// MB/s provisioned above the type's included baseline. ignored names what
// the spec gives that the type does not price (gp2's IOPS come with its size).
func StorageMonthlyUSD(v catalog.Volume, s catalog.StorageSpec) (usd float64, sc result.StorageCost, ignored []string) {
	sc = result.StorageCost{GiB: s.GiB(), PerGiBMonthUSD: v.PerGiBMonthUSD, PerIOPSMonthUSD: v.PerIOPSMonthUSD, PerMBpsMonthUSD: v.PerMBpsMonthUSD}
	if v.PerIOPSMonthUSD > 0 {
		sc.IOPS = max(0, s.IOPS-v.FreeIOPS)
	} else if s.IOPS > 0 {
		ignored = append(ignored, fmt.Sprintf("%s does not price provisioned IOPS (its performance comes with its size)", v.Type))
	}
	if v.PerMBpsMonthUSD > 0 {
		sc.MBps = max(0, s.MBps-v.FreeMBps)
	} else if s.MBps > 0 {
		ignored = append(ignored, fmt.Sprintf("%s does not price provisioned MB/s", v.Type))
	}
	usd = sc.GiB*sc.PerGiBMonthUSD + sc.IOPS*sc.PerIOPSMonthUSD + sc.MBps*sc.PerMBpsMonthUSD
	return usd, sc, ignored
}

// crossZoneCopies is how many of a write's RF copies cross a zone boundary
// when the replicas are spread over zones as evenly as they go, starting in
// the coordinating replica's zone: RF - ceil(RF/zones). One replica per zone
// (zones >= RF) sends all RF-1 other copies across; one zone sends none.
func crossZoneCopies(rf, zones int) int {
	if rf <= 1 || zones <= 1 {
		return 0
	}
	return rf - (rf+zones-1)/zones
}

// payloadRates are the bytes per second written (each replicated) and moved
// between clients and servers, from the bytes the run recorded or, where it
// recorded none, its ops times the record size.
func payloadRates(r *result.Result, w result.Window) (write, client float64) {
	for _, o := range w.PerOp {
		b := o.SustainedBytesPerS
		if b == 0 && (writeOps[o.Op] || recordOps[o.Op]) {
			b = o.SustainedOpsPerS * float64(r.Dataset.RecordBytes)
		}
		client += b
		if writeOps[o.Op] {
			write += b
		}
	}
	return write, client
}

// networkCost prices the cross-zone traffic: measured from the nodes'
// telemetry when the result has it, else estimated from the payload.
// The string is why it could not be priced.
func networkCost(r *result.Result, w result.Window, b Bill, nodes int, provider string, cat *catalog.Catalog) (*result.CostItem, string) {
	if b.Zones == 0 {
		return nil, "cross-zone network transfer (give the zones the nodes span, and the replication factor)"
	}
	if provider == "" {
		return nil, "cross-zone network transfer (the provider is unknown: name the instance type rather than its price)"
	}
	tr, ok := cat.TransferPrice(provider, catalog.CrossZone)
	if !ok {
		return nil, fmt.Sprintf("cross-zone network transfer (no %s cross-zone price in the catalog: add a transfer row to a catalog file)", provider)
	}
	rf := b.RF
	if rf == 0 {
		rf = min(3, nodes)
	}
	zones := min(b.Zones, max(nodes, 1))
	n := &result.NetworkCost{RF: rf, Zones: zones, PerGBUSD: tr.PerGBUSD}
	away := float64(zones-1) / float64(zones)
	if _, cl, ok := Nodes(r); ok && cl.NetTxBytesPerS > 0 {
		n.Basis, n.NodeTxBytesPerS = result.NetMeasured, cl.NetTxBytesPerS
		n.CrossZoneBytesPerS = cl.NetTxBytesPerS * away
	} else {
		n.Basis = result.NetEstimated
		n.WriteBytesPerS, n.ClientBytesPerS = payloadRates(r, w)
		if n.ClientBytesPerS == 0 && w.SustainedOpsPerS > 0 {
			return nil, "cross-zone network transfer (the run recorded no payload bytes and no record size: measure the nodes with node_exporter)"
		}
		n.CrossZoneCopies = crossZoneCopies(rf, zones)
		n.CrossZoneBytesPerS = n.WriteBytesPerS*float64(n.CrossZoneCopies) + n.ClientBytesPerS*away
	}
	perHour := n.CrossZoneBytesPerS * 3600 / 1e9 * tr.PerGBUSD
	return &result.CostItem{Component: result.CostNetwork, Name: catalog.CrossZone, Count: 1, PerHourUSD: perHour,
		MonthlyUSD: roundCents(perHour * catalog.HoursPerMonth), Source: tr.Source, Date: tr.PriceDate, Network: n}, ""
}

// storageCost prices one volume per node; the strings are what it leaves out.
func storageCost(s catalog.StorageSpec, nodes int, cat *catalog.Catalog) (*result.CostItem, []string, error) {
	if s.IsZero() {
		return nil, []string{"storage volumes (the instance's own disks are in its price; give a volume per node for network storage)"}, nil
	}
	v, err := cat.LookupVolume(s.Type)
	if err != nil {
		return nil, nil, err
	}
	unit, sc, ignored := StorageMonthlyUSD(v, s)
	if v.PerIOPSMonthUSD > 0 && v.FreeIOPS == 0 && s.IOPS == 0 {
		ignored = append(ignored, fmt.Sprintf("%s's provisioned IOPS (none given: %s charges every one; add them, e.g. %s:%s:10000iops)", v.Type, v.Type, v.Type, s.String()[len(s.Type)+1:]))
	}
	monthly := roundCents(unit * float64(nodes))
	return &result.CostItem{Component: result.CostStorage, Name: s.String(), Count: nodes, UnitMonthlyUSD: unit,
		PerHourUSD: unit * float64(nodes) / catalog.HoursPerMonth, MonthlyUSD: monthly,
		Source: v.Source, Date: v.PriceDate, Storage: &sc}, ignored, nil
}

// loaderCost prices the load generators: the loaders of a merged result, else one.
func loaderCost(r *result.Result, typ string, cat *catalog.Catalog) (*result.CostItem, string, error) {
	if typ == "" {
		return nil, "load generators (give their instance type)", nil
	}
	p, err := ResolvePrice(cat, typ, 0)
	if err != nil {
		return nil, "", err
	}
	n := max(len(r.Loaders), 1)
	return &result.CostItem{Component: result.CostLoaders, Name: p.Instance.Type, Count: n, UnitPerHourUSD: p.PerHourUSD,
		PerHourUSD: p.PerHourUSD * float64(n), MonthlyUSD: catalog.MonthlyUSD(p.PerHourUSD, n), Source: p.Source, Date: p.Date}, "", nil
}

// addBill adds the storage, network and loader items to c (whose instances
// item is there) and computes the totals and the per-dollar figures over them.
func addBill(c *result.Cost, r *result.Result, w result.Window, b Bill, cat *catalog.Catalog) error {
	st, missing, err := storageCost(b.Storage, c.Nodes, cat)
	if err != nil {
		return err
	}
	provider := c.Provider
	if provider == "" && st != nil {
		if v, err := cat.LookupVolume(b.Storage.Type); err == nil {
			provider = v.Provider
		}
	}
	net, why := networkCost(r, w, b, c.Nodes, provider, cat)
	ld, why2, err := loaderCost(r, b.LoaderInstance, cat)
	if err != nil {
		return err
	}
	for _, it := range []*result.CostItem{st, net, ld} {
		if it != nil {
			c.Items = append(c.Items, *it)
		}
	}
	for _, s := range []string{why, why2} {
		if s != "" {
			missing = append(missing, s)
		}
	}
	c.NotPriced = append(missing, alwaysUnpriced)
	totals(c)
	return nil
}

// totals sums the items and normalises the throughput by the sum.
func totals(c *result.Cost) {
	c.TotalPerHourUSD, c.TotalMonthlyUSD = 0, 0
	for _, it := range c.Items {
		c.TotalPerHourUSD += it.PerHourUSD
		c.TotalMonthlyUSD += it.MonthlyUSD
	}
	c.TotalMonthlyUSD = roundCents(c.TotalMonthlyUSD)
	c.OpsPerUSD, c.USDPerMillionOps, c.GBPerUSD = 0, 0, 0
	if c.TotalPerHourUSD > 0 && c.SustainedOpsPerS > 0 {
		opsPerHour := c.SustainedOpsPerS * 3600
		c.OpsPerUSD = opsPerHour / c.TotalPerHourUSD
		c.USDPerMillionOps = c.TotalPerHourUSD / opsPerHour * 1e6
	}
	if c.TotalPerHourUSD > 0 && c.SustainedBytesPerS > 0 {
		c.GBPerUSD = c.SustainedBytesPerS * 3600 / 1e9 / c.TotalPerHourUSD
	}
}

var roundCents = catalog.RoundCents
