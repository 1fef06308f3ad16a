package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/platbench/platbench/analysis"
	"github.com/platbench/platbench/internal/units"
	"github.com/platbench/platbench/result"
)

// The cost blocks: the per-dollar figures over the whole bill, and the bill
// item by item with how each was reached and what it leaves out.

// billPerHour is the bill's total per hour; files written before the bill
// had items priced the instances alone.
func billPerHour(c *result.Cost) float64 {
	if len(c.Items) == 0 {
		return c.ClusterPerHourUSD
	}
	return c.TotalPerHourUSD
}

// billMonthly is the bill's monthly total (the instances' in older files).
func billMonthly(c *result.Cost) float64 {
	if len(c.Items) == 0 {
		return c.MonthlyUSD
	}
	return c.TotalMonthlyUSD
}

func costSection(c *result.Cost) section {
	t := &table{head: []string{"instance", "$/hour", "nodes", "bill per hour", "ops per $", "$ per million ops", "monthly bill"}, right: []bool{false, true, true, true, true, true, true}}
	inst := c.InstanceType
	if inst == "" {
		inst = "-"
	}
	t.add(inst, units.USD(c.PricePerHourUSD), fmt.Sprint(c.Nodes), units.Price(billPerHour(c)), units.Int(c.OpsPerUSD), units.USD(c.USDPerMillionOps), units.USD(billMonthly(c)))
	var notes []string
	switch {
	case c.PriceSource != "" && c.PriceDate != "":
		notes = append(notes, fmt.Sprintf("Price from %s (%s).", c.PriceSource, c.PriceDate))
	case c.PriceSource != "":
		notes = append(notes, fmt.Sprintf("Price from %s.", c.PriceSource))
	}
	if c.Note != "" {
		notes = append(notes, upperFirst(c.Note)+".")
	}
	if c.GBPerUSD > 0 {
		notes = append(notes, fmt.Sprintf("%s GB per dollar.", units.Sig3Grouped(c.GBPerUSD)))
	}
	notes = append(notes, "Ops per $, $ per million ops and GB per $ are over the whole bill below.")
	return section{id: "cost", title: "Cost", t: t, notes: notes}
}

// billSection is the bill item by item, its total, each item's source and
// what it does not price.
func billSection(c *result.Cost) section {
	t := &table{head: []string{"item", "what", "count", "unit price", "per hour", "per month", "how"}, right: []bool{false, false, true, true, true, true, false}}
	var notes []string
	for _, it := range billItems(c) {
		what, unit, how := billItemText(it)
		t.add(it.Component, what, fmt.Sprint(it.Count), unit, units.Price(roundMicro(it.PerHourUSD)), units.Cents(it.MonthlyUSD), how)
		if it.Source != "" && it.Component != result.CostInstances {
			src := it.Source
			if it.Date != "" {
				src += " (" + it.Date + ")"
			}
			notes = append(notes, fmt.Sprintf("%s price from %s.", upperFirst(it.Component), src))
		}
	}
	t.add("total", "", "", "", units.Price(roundMicro(billPerHour(c))), units.Cents(billMonthly(c)), "")
	if len(c.NotPriced) > 0 {
		notes = append(notes, "Not priced: "+strings.Join(c.NotPriced, "; ")+".")
	} else if len(c.Items) == 0 {
		notes = append(notes, "Not priced: load generators, storage volumes, network transfer and support (this result was analysed before platbench priced them).")
	}
	return section{id: "bill", title: "Cost breakdown", t: t, notes: notes}
}

// billItems is the bill's items; an older file's bill is its instances.
func billItems(c *result.Cost) []result.CostItem {
	if len(c.Items) > 0 {
		return c.Items
	}
	return []result.CostItem{{Component: result.CostInstances, Name: c.InstanceType, Count: c.Nodes, UnitPerHourUSD: c.PricePerHourUSD,
		PerHourUSD: c.ClusterPerHourUSD, MonthlyUSD: c.MonthlyUSD}}
}

// roundMicro rounds an hourly figure to the millionth of a dollar, as
// units.Price shows it.
func roundMicro(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// billItemText is an item's description, unit price and how it was reached.
func billItemText(it result.CostItem) (what, unit, how string) {
	what = it.Name
	if what == "" {
		what = "-"
	}
	switch it.Component {
	case result.CostStorage:
		unit = units.Cents(it.UnitMonthlyUSD) + "/month"
		if s := it.Storage; s != nil {
			parts := []string{fmt.Sprintf("%s GiB x %s", units.Sig3Grouped(s.GiB), units.Price(s.PerGiBMonthUSD))}
			if s.IOPS > 0 {
				parts = append(parts, fmt.Sprintf("%s IOPS x %s", units.Int(s.IOPS), units.Price(s.PerIOPSMonthUSD)))
			}
			if s.MBps > 0 {
				parts = append(parts, fmt.Sprintf("%s MB/s x %s", units.Sig3Grouped(s.MBps), units.Price(s.PerMBpsMonthUSD)))
			}
			how = strings.Join(parts, " + ") + " a month per node, above the free baseline"
		}
	case result.CostNetwork:
		what = it.Name + " traffic"
		if n := it.Network; n != nil {
			unit = units.Price(n.PerGBUSD) + "/GB"
			how = networkHow(n)
		}
	default:
		unit = units.Price(it.UnitPerHourUSD) + "/h"
		how = "on-demand"
	}
	return what, unit, how
}

// networkHow is the cross-zone traffic's formula with its figures.
func networkHow(n *result.NetworkCost) string {
	rate := func(b float64) string { return units.Bytes(b) + "/s" }
	away := fmt.Sprintf("%d/%d", n.Zones-1, n.Zones)
	if n.Basis == result.NetMeasured {
		return fmt.Sprintf("measured: the nodes sent %s (node_exporter) x %s to other zones = %s across",
			rate(n.NodeTxBytesPerS), away, rate(n.CrossZoneBytesPerS))
	}
	return fmt.Sprintf("estimated: %s written x %d copies across zones (RF %d over %d zones) + %s client payload x %s = %s across",
		rate(n.WriteBytesPerS), n.CrossZoneCopies, n.RF, n.Zones, rate(n.ClientBytesPerS), away, rate(n.CrossZoneBytesPerS))
}

// billRows are each run's monthly bill by component beside the cost
// figures: context rows (a bill is a price, not a measurement), one per
// component any run priced, then the total; none when only the instances
// were priced. A comparison of runs that priced
// different components warns, since their per-dollar figures do not compare.
func compareBillRows(c *analysis.CompareModel) []analysis.CompareModelRow {
	bills := make([]*result.Cost, len(c.Results))
	var comps []string
	priced := map[string][]bool{}
	for i, r := range c.Results {
		if r.Analysis == nil || r.Analysis.Cost == nil {
			continue
		}
		bills[i] = r.Analysis.Cost
		for _, it := range billItems(bills[i]) {
			if priced[it.Component] == nil {
				comps = append(comps, it.Component)
				priced[it.Component] = make([]bool, len(bills))
			}
			priced[it.Component][i] = true
		}
	}
	if len(comps) < 2 {
		return nil // the instances alone: the price rows say it
	}
	var rows []analysis.CompareModelRow
	for _, comp := range comps {
		rows = append(rows, contextRow("Bill: "+comp+" per month", units.Cents, len(bills), c.Baseline, func(i int) (float64, bool) {
			if bills[i] == nil {
				return 0, false
			}
			for _, it := range billItems(bills[i]) {
				if it.Component == comp {
					return it.MonthlyUSD, true
				}
			}
			return 0, false
		}))
		var without []string
		for i, ok := range priced[comp] {
			if !ok && bills[i] != nil {
				without = append(without, c.Runs[i].Label)
			}
		}
		if len(without) > 0 {
			c.Warnings = append(c.Warnings, fmt.Sprintf("The bills differ: %s priced no %s; their per-dollar figures do not compare like for like (price the same components for every run).", strings.Join(without, ", "), comp))
		}
	}
	rows = append(rows, contextRow("Bill: total per month", units.Cents, len(bills), c.Baseline, func(i int) (float64, bool) {
		if bills[i] == nil {
			return 0, false
		}
		return billMonthly(bills[i]), true
	}))
	return rows
}
